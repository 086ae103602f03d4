// Monte-Carlo tree search (UCT with uniformly random rollouts), written once for every game.
//
// - Values: each edge stores the summed returns of the player who chose it, so any number of
//   players and any turn order (Imperial Harvest's mid-turn respawn choices) just work.
// - Chance: explicit chance nodes are tree nodes whose child is drawn by probability. Chance drawn
//   from the state's own generator (the default in meeple) is handled by determinisation: every
//   simulation reseeds a copy of the root (game.reseed), so the search cannot peek at the future;
//   children that are illegal in a simulation's determinisation are skipped.
// - Root parallelism: each thread grows its own tree from its own seed; root visit counts are
//   summed and the most visited action is played.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include "game_concept.h"
#include "thread_pool.h"

namespace meeple {

struct MctsConfig {
  int simulations = 1000;  // per thread
  double exploration = 1.4;
  uint64_t seed = 0;
  int threads = 1;
};

// A root action's statistics: its visits and the summed returns of the player to move at the root
// over those visits (value / visits is the action's mean return, its Q).
struct MctsRootEdge {
  Action action = -1;
  int64_t visits = 0;
  double value = 0;
};

struct MctsResult {
  Action best = -1;
  std::vector<MctsRootEdge> root;  // summed over threads, by ascending action
  int64_t simulations = 0;
};

template <GameEngine G>
class MctsTree {
 public:
  using State = typename G::State;
  static constexpr bool kReseeds = requires(const G& g, State& s) { g.reseed(s, uint64_t{}); };
  static constexpr bool kChance = G::kMaxChanceOutcomes > 0;
  // Children may be illegal in another simulation only when chance is determinised.
  static constexpr bool kCheckLegality = kReseeds;

  MctsTree(const G& game, const MctsConfig& config, uint64_t seed)
      : game_(game), config_(config), rng_(seed) {}

  // Runs the simulations, or fewer if `stop(thread)` answers true (see NeverStop).
  template <class Stop = NeverStop>
  void search(const State& root, Stop&& stop = Stop{}, int thread = 0) {
    nodes_.clear();
    nodes_.reserve(static_cast<size_t>(config_.simulations) * 2 + 64);
    nodes_.push_back(Node{});
    for (int i = 0; i < config_.simulations && !stop(thread); ++i) simulate(root);
  }

  // The root's children: action, visits and summed returns of the root's mover.
  void root_edges(std::vector<MctsRootEdge>& out) const {
    const Node& root = nodes_[0];
    for (int c = 0; c < root.num_children; ++c) {
      const Node& child = nodes_[root.first_child + c];
      out.push_back(MctsRootEdge{child.action, child.visits, child.value});
    }
  }

 private:
  struct Node {
    double value = 0;  // summed returns of `mover`, the player who chose this edge
    int64_t visits = 0;
    int32_t first_child = -1;
    int32_t num_children = 0;
    Action action = -1;
    int8_t mover = -1;  // kChancePlayer for chance outcomes
    double probability = 0;  // chance outcomes only
  };

  void expand(int32_t node_index, const State& s) {
    const int32_t first = static_cast<int32_t>(nodes_.size());
    int32_t count = 0;
    if constexpr (kChance) {
      if (game_.is_chance_node(s)) {
        FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
        game_.chance_outcomes(s, outcomes);
        for (const ChanceOutcome& o : outcomes) {
          Node child;
          child.action = o.outcome;
          child.mover = static_cast<int8_t>(kChancePlayer);
          child.probability = o.probability;
          nodes_.push_back(child);
          ++count;
        }
        nodes_[node_index].first_child = first;
        nodes_[node_index].num_children = count;
        return;
      }
    }
    ActionList<G::kMaxActions> actions;
    game_.legal_actions(s, actions);
    const int8_t mover = static_cast<int8_t>(game_.current_player(s));
    for (Action a : actions) {
      Node child;
      child.action = a;
      child.mover = mover;
      nodes_.push_back(child);
      ++count;
    }
    // Random order among untried children: the first visits then explore without bias.
    for (int32_t i = count - 1; i > 0; --i)
      std::swap(nodes_[first + i], nodes_[first + static_cast<int32_t>(rng_.uniform(i + 1))]);
    nodes_[node_index].first_child = first;
    nodes_[node_index].num_children = count;
  }

  // Index of the child to follow from `node_index` in state `s`, or -1 if none is usable.
  int32_t select(int32_t node_index, const State& s) {
    const Node& node = nodes_[node_index];
    if constexpr (kChance) {
      if (game_.is_chance_node(s)) {
        // Draw an outcome by its probability in this state, then find its child.
        const Action outcome = sample_action(game_, s, rng_);
        for (int c = 0; c < node.num_children; ++c)
          if (nodes_[node.first_child + c].action == outcome) return node.first_child + c;
        return -1;
      }
    }
    const double log_visits = std::log(static_cast<double>(std::max<int64_t>(node.visits, 1)));
    int32_t best = -1;
    double best_score = -1e300;
    for (int c = 0; c < node.num_children; ++c) {
      const int32_t index = node.first_child + c;
      const Node& child = nodes_[index];
      if constexpr (kCheckLegality) {
        if (!game_.is_legal(s, child.action)) continue;
      }
      if (child.visits == 0) return index;  // untried (children were shuffled at expansion)
      const double score = child.value / static_cast<double>(child.visits) +
                           config_.exploration * std::sqrt(log_visits / static_cast<double>(child.visits));
      if (score > best_score) {
        best_score = score;
        best = index;
      }
    }
    return best;
  }

  void simulate(const State& root) {
    State s = root;
    if constexpr (kReseeds) game_.reseed(s, rng_.next());
    path_.clear();
    path_.push_back(0);
    int32_t node_index = 0;
    while (!game_.is_terminal(s)) {
      if (nodes_[node_index].num_children == 0 && nodes_[node_index].first_child < 0) {
        expand(node_index, s);
        const int32_t child = select(node_index, s);
        if (child < 0) break;
        game_.apply_action(s, nodes_[child].action);
        path_.push_back(child);
        break;  // new leaf: roll out from here
      }
      const int32_t child = select(node_index, s);
      if (child < 0) break;
      const bool was_new = nodes_[child].visits == 0;
      game_.apply_action(s, nodes_[child].action);
      path_.push_back(child);
      node_index = child;
      if (was_new) break;
    }
    random_playout(game_, s, rng_);
    double returns[8] = {};
    game_.returns(s, returns);
    for (int32_t index : path_) {
      Node& n = nodes_[index];
      ++n.visits;
      if (n.mover >= 0) n.value += returns[n.mover];
    }
  }

  const G& game_;
  MctsConfig config_;
  Rng rng_;
  std::vector<Node> nodes_;
  std::vector<int32_t> path_;
};

// Runs `config.threads` independent trees (root parallelism) and sums their root visit counts
// and values.
// `stop` may end the search early (see NeverStop); the result is then incomplete.
template <GameEngine G, class Stop = NeverStop>
MctsResult mcts_search(const G& game, const typename G::State& root, const MctsConfig& config,
                       Stop&& stop = Stop{}) {
  MctsResult result;
  const int threads = std::max(1, config.threads);
  std::vector<std::vector<MctsRootEdge>> edges(static_cast<size_t>(threads));
  auto run = [&](int t) {
    MctsTree<G> tree(game, config, derive_seed(config.seed, static_cast<uint64_t>(t)));
    tree.search(root, stop, t);
    tree.root_edges(edges[static_cast<size_t>(t)]);
  };
  run_on_threads(threads, run);
  for (const auto& per_thread : edges)
    for (const MctsRootEdge& edge : per_thread) {
      auto it = std::find_if(result.root.begin(), result.root.end(),
                             [&](const MctsRootEdge& entry) { return entry.action == edge.action; });
      if (it == result.root.end()) {
        result.root.push_back(edge);
      } else {
        it->visits += edge.visits;
        it->value += edge.value;
      }
    }
  std::sort(result.root.begin(), result.root.end(),
            [](const MctsRootEdge& a, const MctsRootEdge& b) { return a.action < b.action; });
  int64_t best_visits = -1;
  for (const MctsRootEdge& edge : result.root)
    if (edge.visits > best_visits) {
      best_visits = edge.visits;
      result.best = edge.action;
    }
  result.simulations = static_cast<int64_t>(config.simulations) * threads;
  return result;
}

}  // namespace meeple
