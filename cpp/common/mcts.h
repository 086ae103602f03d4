// Monte-Carlo tree search (UCT with uniformly random rollouts), written once for every game.
// Given an evaluator it is PUCT instead (AlphaZero style): see MctsEvaluator.
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
#include <type_traits>
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

// The default: no evaluator, UCT with random rollouts.
struct NoEvaluator {};

// An evaluator turns the search into PUCT (AlphaZero style): at each new leaf that is a decision
// node it is called as evaluator(state, legal, priors, values) and writes priors[k] >= 0 for
// legal[k] (summing to 1) and values[p], the expected return of each player, which replaces the
// random rollout. A child is chosen by Q + exploration * prior * sqrt(N) / (1 + n), Q being the
// child's mean return for the player who chooses it (0 before its first visit), N the node's
// visits and n the child's. Chance nodes are not evaluated: the search draws through them. A
// node none of whose children is legal in a simulation's determinisation is evaluated there (its
// priors unused), so every simulation ends with one evaluation or a finished game.
template <class E, class G>
concept MctsEvaluator = requires(E& evaluator, const typename G::State& s, const ActionList<G::kMaxActions>& legal,
                                 double* priors, double* values) {
  evaluator(s, legal, priors, values);
};

struct MctsResult {
  Action best = -1;
  std::vector<MctsRootEdge> root;  // summed over threads, by ascending action
  int64_t simulations = 0;
};

template <GameEngine G, class Evaluator = NoEvaluator>
class MctsTree {
 public:
  using State = typename G::State;
  static constexpr bool kGuided = !std::is_same_v<Evaluator, NoEvaluator>;
  static_assert(!kGuided || MctsEvaluator<Evaluator, G>);
  static constexpr bool kReseeds = requires(const G& g, State& s) { g.reseed(s, uint64_t{}); };
  static constexpr bool kChance = G::kMaxChanceOutcomes > 0;
  // Children may be illegal in another simulation only when chance is determinised.
  static constexpr bool kCheckLegality = kReseeds;

  MctsTree(const G& game, const MctsConfig& config, uint64_t seed, Evaluator* evaluator = nullptr)
      : game_(game), config_(config), rng_(seed), evaluator_(evaluator) {}

  // Runs the simulations, or fewer if `stop(thread)` answers true (see NeverStop).
  template <class Stop = NeverStop>
  void search(const State& root, Stop&& stop = Stop{}, int thread = 0) {
    nodes_.clear();
    nodes_.reserve(static_cast<size_t>(config_.simulations) * 2 + 64);
    nodes_.push_back(Node{});
    if constexpr (kGuided) {  // the root's priors first, so that every simulation visits a root child
      State s = root;
      if constexpr (kReseeds) game_.reseed(s, rng_.next());
      if (!stop(thread)) expand(0, s);
    }
    for (int i = 0; i < config_.simulations && !stop(thread); ++i) {
      if constexpr (kGuided) simulate_guided(root);
      else simulate(root);
    }
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
    double weight = 0;  // a chance outcome's probability; a decision's prior (PUCT)
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
          child.weight = o.probability;
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
    [[maybe_unused]] double priors[kGuided ? G::kMaxActions : 1];
    if constexpr (kGuided) (*evaluator_)(s, actions, priors, leaf_values_);
    for (Action a : actions) {
      Node child;
      child.action = a;
      child.mover = mover;
      if constexpr (kGuided) child.weight = priors[count];
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
    const double parent_visits = static_cast<double>(std::max<int64_t>(node.visits, 1));
    // UCT's log N or PUCT's sqrt N, once per selection
    const double visits_term = kGuided ? std::sqrt(parent_visits) : std::log(parent_visits);
    int32_t best = -1;
    double best_score = -1e300;
    for (int c = 0; c < node.num_children; ++c) {
      const int32_t index = node.first_child + c;
      const Node& child = nodes_[index];
      if constexpr (kCheckLegality) {
        if (!game_.is_legal(s, child.action)) continue;
      }
      double score;
      if constexpr (kGuided) {
        const double visits = static_cast<double>(child.visits);
        score = (child.visits ? child.value / visits : 0.0) +
                config_.exploration * child.weight * visits_term / (1.0 + visits);
      } else {
        if (child.visits == 0) return index;  // untried (children were shuffled at expansion)
        score = child.value / static_cast<double>(child.visits) +
                config_.exploration * std::sqrt(visits_term / static_cast<double>(child.visits));
      }
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
    back_up(returns);
  }

  // PUCT: down the tree to a node not yet expanded; the evaluator's values at a decision node
  // there (or the returns of a finished game) are backed up instead of a rollout's.
  void simulate_guided(const State& root) {
    State s = root;
    if constexpr (kReseeds) game_.reseed(s, rng_.next());
    path_.clear();
    path_.push_back(0);
    int32_t node_index = 0;
    for (;;) {
      if (game_.is_terminal(s)) {
        game_.returns(s, leaf_values_);
        break;
      }
      if (nodes_[node_index].first_child < 0) {
        expand(node_index, s);  // a decision node: the evaluator's priors and leaf_values_
        if (!is_chance(s)) break;
      }
      const int32_t child = select(node_index, s);
      if (child < 0) {  // no child usable in this determinisation (or chance drew a new outcome)
        evaluate_off_tree(s);
        break;
      }
      game_.apply_action(s, nodes_[child].action);
      path_.push_back(child);
      node_index = child;
    }
    back_up(leaf_values_);
  }

  // leaf_values_ for a state the tree has no child for: chance drawn through, then the returns
  // or the evaluator's values.
  void evaluate_off_tree(State& s) {
    while (!game_.is_terminal(s) && is_chance(s)) game_.apply_action(s, sample_action(game_, s, rng_));
    if (game_.is_terminal(s)) return game_.returns(s, leaf_values_);
    ActionList<G::kMaxActions> legal;
    game_.legal_actions(s, legal);
    double priors[G::kMaxActions];
    (*evaluator_)(s, legal, priors, leaf_values_);
  }

  bool is_chance(const State& s) const {
    if constexpr (kChance) return game_.is_chance_node(s);
    else return false;
  }

  void back_up(const double* returns) {
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
  Evaluator* evaluator_;      // PUCT only
  double leaf_values_[8] = {};  // PUCT: the values of the simulation's leaf, per player
};

// Runs `config.threads` independent trees (root parallelism) and sums their root visit counts
// and values.
// `stop` may end the search early (see NeverStop); the result is then incomplete. An evaluator
// (MctsEvaluator) makes it PUCT; the threads share it.
template <GameEngine G, class Stop = NeverStop, class Evaluator = NoEvaluator>
MctsResult mcts_search(const G& game, const typename G::State& root, const MctsConfig& config,
                       Stop&& stop = Stop{}, Evaluator* evaluator = nullptr) {
  MctsResult result;
  const int threads = std::max(1, config.threads);
  std::vector<std::vector<MctsRootEdge>> edges(static_cast<size_t>(threads));
  auto run = [&](int t) {
    MctsTree<G, Evaluator> tree(game, config, derive_seed(config.seed, static_cast<uint64_t>(t)), evaluator);
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
