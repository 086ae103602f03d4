// Monte-Carlo tree search (UCT with uniformly random rollouts), written once for every game.
// Given an evaluator it is PUCT instead (AlphaZero style): see MctsEvaluator.
//
// - Values: each edge stores the summed returns of the player who chose it, so any number of
//   players and any turn order (Imperial Harvest's mid-turn respawn choices) just work.
// - Chance: explicit chance nodes are tree nodes whose child is drawn by probability. Chance drawn
//   from the state's own generator (the default in meeple) is handled by determinisation: every
//   simulation reseeds a copy of the root (game.reseed), so the search cannot peek at the future;
//   children that are illegal in a simulation's determinisation are skipped.
// - Root parallelism (UCT): each thread grows its own tree from its own seed; root visit counts are
//   summed and the most visited action is played.
// - Many roots (mcts_search_many, PUCT): one tree per root, grown in lockstep so that each call of
//   the evaluator values the leaves of all the trees.
// - Tree reuse (MctsTree::reroot): a tree kept after a search goes on from the subtree of the next
//   position searched, when that is exact (see reroot).
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
  int batch = 1;  // PUCT: the most leaves handed to the evaluator at once
  // PUCT: Dirichlet(noise_alpha) noise mixed into the root's priors, a noise_fraction share of
  // them (AlphaZero's exploration in self-play); none while noise_fraction is 0.
  double noise_alpha = 0.3;
  double noise_fraction = 0;
};

// A root action's statistics: its visits and the summed returns of the player to move at the root
// over those visits (value / visits is the action's mean return, its Q).
struct MctsRootEdge {
  Action action = -1;
  int64_t visits = 0;
  double value = 0;
  double prior = 0;  // PUCT: the action's prior as the search used it (noise mixed in)
};

// The log of a Gamma(alpha, 1) draw, alpha > 0 (Marsaglia and Tsang's method), written out
// rather than std::gamma_distribution, whose algorithm differs from one standard library to the
// next. The log: with a small alpha a draw is often too small for a double (and below alpha =
// 1e-308 or so, even its log: -inf).
inline double log_gamma_draw(Rng& rng, double alpha) {
  double boost = 0;
  if (alpha < 1) {  // Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha)
    boost = std::log(1.0 - rng.unit()) / alpha;
    alpha += 1;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {  // a standard normal draw (Box-Muller)
      x = std::sqrt(-2.0 * std::log(1.0 - rng.unit())) * std::cos(6.283185307179586 * rng.unit());
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    if (std::log(1.0 - rng.unit()) < 0.5 * x * x + d - d * v + d * std::log(v)) return std::log(d * v) + boost;
  }
}

// The default: no evaluator, UCT with random rollouts.
struct NoEvaluator {};

// A position handed to an evaluator, with its legal actions; the evaluator writes priors[k] >= 0
// for legal[k] (summing to 1) and values[p], the expected return of each player.
template <GameEngine G>
struct MctsLeaf {
  typename G::State state;
  ActionList<G::kMaxActions> legal;
  double priors[G::kMaxActions];
  double values[8];
};

// An evaluator turns the search into PUCT (AlphaZero style): called as evaluator(leaves, count),
// leaves an array of `count` pointers, it values the leaves simulations reached (new decision
// nodes), in place of random rollouts; mcts_search_many hands it the leaves of many trees at once.
// A child is chosen by Q + exploration * prior * sqrt(N) / (1 + n), Q being the child's mean
// return for the player who chooses it (0 before its first visit), N the node's visits and n the
// child's. Chance nodes are not evaluated: the search draws through them. A node none of whose
// children is legal in a simulation's determinisation is evaluated there (its priors unused), so
// every simulation ends with an evaluation or a finished game. With config.batch > 1, up to
// `batch` simulations descend before the evaluator is called once for all their leaves; a
// virtual loss (a visit that lost) on each path, until its leaf is valued, spreads them over the
// tree, and a simulation that reaches a leaf another one of the batch waits for shares its value.
template <class E, class G>
concept MctsEvaluator = requires(E& evaluator, MctsLeaf<G>* const* leaves, int count) { evaluator(leaves, count); };

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
  static constexpr bool kReseeds = ReseedsChance<G>;
  static constexpr bool kChance = G::kMaxChanceOutcomes > 0;
  // Children may be illegal in another simulation only when chance is determinised.
  static constexpr bool kCheckLegality = kReseeds;

  MctsTree(const G& game, const MctsConfig& config, uint64_t seed, Evaluator* evaluator = nullptr)
      : game_(game), config_(config), rng_(seed), evaluator_(evaluator) {}

  // UCT: runs the simulations, or fewer if `stop(thread)` answers true (see NeverStop). PUCT
  // searches through search_guided.
  template <class Stop = NeverStop>
    requires(!kGuided)
  void search(const State& root, Stop&& stop = Stop{}, int thread = 0) {
    if (!take_kept()) clear();
    for (int i = 0; i < config_.simulations && !stop(thread); ++i) simulate(root);
  }

  // PUCT on `count` trees (one root each, the same config and evaluator) in lockstep: each round
  // every tree runs its batch of simulations down to their leaves, one evaluator call values the
  // leaves of all the trees, and each tree backs its values up. A tree searches as it would
  // alone (its own generator, the same choices), so this only gathers the evaluator's calls.
  template <class Stop>
  static void search_guided(MctsTree* const* trees, const State* roots, int count, Stop& stop, int thread) {
    if (count == 0) return;
    const MctsConfig& config = trees[0]->config_;
    Evaluator& evaluator = *trees[0]->evaluator_;
    std::vector<MctsLeaf<G>*> pending;
    for (int t = 0; t < count; ++t) trees[t]->start_guided(roots[t], pending);
    if (stop(thread)) return;
    // the roots' priors first (kept roots have theirs), so that every simulation visits a root child
    if (!pending.empty()) evaluator(pending.data(), static_cast<int>(pending.size()));
    for (int t = 0; t < count; ++t) trees[t]->expand_root();
    const int batch = std::max(1, std::min(config.batch, config.simulations));
    for (int done = 0; done < config.simulations && !stop(thread);) {
      const int round = std::min(batch, config.simulations - done);
      pending.clear();
      for (int t = 0; t < count; ++t) trees[t]->descend_round(roots[t], round, pending);
      if (!pending.empty()) evaluator(pending.data(), static_cast<int>(pending.size()));
      for (int t = 0; t < count; ++t) trees[t]->back_up_round();
      done += round;
    }
  }

  // New settings, generator and evaluator for the next search; a kept tree (reroot) keeps its nodes.
  void prepare(const MctsConfig& config, uint64_t seed, Evaluator* evaluator = nullptr) {
    config_ = config;
    rng_ = Rng(seed);
    evaluator_ = evaluator;
  }

  // Tree reuse: after a search from `root`, keeps the subtree of `next` for the next search, which
  // then adds its simulations to that subtree's statistics instead of starting over. `next` is
  // `root` itself, or a position the tree's actions lead to from `root` (as many as their move
  // numbers differ; of the nodes that lead there, transpositions, the most visited). Kept only when
  // it is exact:
  //  - no implicit chance was drawn on the way (the generator, see game.reseed, did not move):
  //    the subtree's statistics would mix in draws other than the one made. Explicit chance
  //    outcomes are nodes of their own, so the subtree of the outcome drawn is exact.
  //  - the node was expanded, with `next`'s legal actions as its children.
  // Returns the kept root's children's visits, 0 if nothing is kept (the next search starts over).
  int64_t reroot(const State& root, const State& next) {
    keep_ = false;
    const int depth = game_.move_number(next) - game_.move_number(root);
    if (nodes_.empty() || depth < 0) return 0;
    std::vector<Action> path, best_path;
    int32_t found = depth == 0 && root == next ? 0 : -1;
    if (depth > 0) find(0, root, next, depth, path, found, best_path);
    if (found < 0 || nodes_[found].first_child < 0 || !children_are_legal(found, next) ||
        !draws_nothing(root, next, best_path))
      return 0;
    if (found == 0) {
      if (!root_priors_.empty())  // noise is drawn afresh for each search: undo the last one's
        for (int c = 0; c < nodes_[0].num_children; ++c) nodes_[nodes_[0].first_child + c].weight = root_priors_[c];
    } else {
      keep_subtree(found);
    }
    keep_ = true;
    int64_t visits = 0;
    for (int c = 0; c < nodes_[0].num_children; ++c) visits += nodes_[nodes_[0].first_child + c].visits;
    return visits;
  }

  int simulations() const { return config_.simulations; }

  // The root's children: action, visits and summed returns of the root's mover.
  void root_edges(std::vector<MctsRootEdge>& out) const {
    const Node& root = nodes_[0];
    for (int c = 0; c < root.num_children; ++c) {
      const Node& child = nodes_[root.first_child + c];
      out.push_back(MctsRootEdge{child.action, child.visits, child.value, kGuided ? child.weight : 0.0});
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
    if constexpr (kChance) {
      if (game_.is_chance_node(s)) {
        const int32_t first = static_cast<int32_t>(nodes_.size());
        int32_t count = 0;
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
    add_children(node_index, s, actions, nullptr);
  }

  // The decision node's children: `actions`, with their priors (PUCT) if given.
  void add_children(int32_t node_index, const State& s, const ActionList<G::kMaxActions>& actions,
                    const double* priors) {
    const int32_t first = static_cast<int32_t>(nodes_.size());
    const int8_t mover = static_cast<int8_t>(game_.current_player(s));
    int32_t count = 0;
    for (Action a : actions) {
      Node child;
      child.action = a;
      child.mover = mover;
      if (priors) child.weight = priors[count];
      nodes_.push_back(child);
      ++count;
    }
    // Random order among untried children: the first visits then explore without bias.
    for (int32_t i = count - 1; i > 0; --i)
      std::swap(nodes_[first + i], nodes_[first + static_cast<int32_t>(rng_.uniform(i + 1))]);
    nodes_[node_index].first_child = first;
    nodes_[node_index].num_children = count;
  }

  void clear() {
    root_priors_.clear();
    const size_t need = static_cast<size_t>(config_.simulations) * 2 + 64;
    // a kept tree's memory goes back when a search far smaller than its largest starts over
    if (nodes_.capacity() > 4 * need) std::vector<Node>().swap(nodes_);
    nodes_.clear();
    nodes_.reserve(need);
    nodes_.push_back(Node{});
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

  // PUCT. A node waiting in the batch for its leaf's value has first_child = -2 - (the leaf's
  // index): still unexpanded (< 0) to the rest of the tree.
  struct Descent {
    int32_t path_begin = 0, path_end = 0;  // in paths_
    int32_t expand = -1;  // the node to expand with its leaf's priors, or -1
    int32_t leaf = -1;    // the leaf whose values to back up, or -1 for `returns` (a finished game)
    double returns[8] = {};
  };
  static constexpr double kVirtualLoss = 1.0;  // a return of -1: a loss in every game of 2+ players

  // The phases of search_guided. The tree starts again, with its root (a determinisation of it)
  // as the leaf to value first.
  void start_guided(const State& root, std::vector<MctsLeaf<G>*>& pending) {
    leaves_.resize(static_cast<size_t>(std::max(1, std::min(config_.batch, config_.simulations))));
    resumed_ = take_kept();
    if (resumed_) return;  // the kept root is expanded already
    clear();
    State s = root;
    if constexpr (kReseeds) game_.reseed(s, rng_.next());
    int leaves = 0;
    pending.push_back(&leaves_[static_cast<size_t>(new_leaf(s, leaves))]);
  }

  void expand_root() {
    if (!resumed_) add_children(0, leaves_[0].state, leaves_[0].legal, leaves_[0].priors);
    if (config_.noise_fraction > 0) add_root_noise();
  }

  // `count` simulations down to their leaves, which are added to `pending`.
  void descend_round(const State& root, int count, std::vector<MctsLeaf<G>*>& pending) {
    descents_.clear();
    paths_.clear();
    int leaves = 0;
    for (int j = 0; j < count; ++j) descend(root, leaves);
    for (int k = 0; k < leaves; ++k) pending.push_back(&leaves_[static_cast<size_t>(k)]);
  }

  // The round's values backed up (its virtual losses undone), its leaves expanded.
  void back_up_round() {
    for (const Descent& d : descents_) {
      const double* values = d.leaf >= 0 ? leaves_[d.leaf].values : d.returns;
      for (int32_t k = d.path_begin; k < d.path_end; ++k) {
        Node& n = nodes_[paths_[k]];  // its visit was counted on the way down
        if (n.mover >= 0) n.value += kVirtualLoss + values[n.mover];
      }
      if (d.expand >= 0) {
        const MctsLeaf<G>& leaf = leaves_[d.leaf];
        add_children(d.expand, leaf.state, leaf.legal, leaf.priors);
      }
    }
  }

  // The root children's priors become (1 - f) priors + f noise, the noise drawn from
  // Dirichlet(alpha) over them (normalised Gamma(alpha) draws, scaled by the largest in logs); the
  // priors without noise are kept in root_priors_ (reroot to the same root restores them).
  void add_root_noise() {
    const Node& root = nodes_[0];
    const int count = root.num_children;
    Node* children = nodes_.data() + root.first_child;
    double noise[G::kMaxActions];
    double top = -HUGE_VAL, sum = 0;
    for (int k = 0; k < count; ++k) top = std::max(top, noise[k] = log_gamma_draw(rng_, config_.noise_alpha));
    if (top == -HUGE_VAL) {  // every log -inf (a tiny alpha): all on one action, Dirichlet's limit as alpha -> 0
      std::fill(noise, noise + count, -HUGE_VAL);
      top = noise[rng_.uniform(static_cast<uint32_t>(count))] = 0;
    }
    for (int k = 0; k < count; ++k) sum += noise[k] = std::exp(noise[k] - top);
    const double f = config_.noise_fraction;
    root_priors_.resize(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) {
      root_priors_[k] = children[k].weight;
      children[k].weight = (1 - f) * children[k].weight + f * noise[k] / sum;
    }
  }

  // One simulation down to its leaf, the path given a virtual loss; a leaf to value is added to
  // leaves_[leaves++].
  void descend(const State& root, int& leaves) {
    State s = root;
    if constexpr (kReseeds) game_.reseed(s, rng_.next());
    Descent d;
    d.path_begin = static_cast<int32_t>(paths_.size());
    paths_.push_back(0);
    int32_t node_index = 0;
    for (;;) {
      if (game_.is_terminal(s)) {
        game_.returns(s, d.returns);
        break;
      }
      const int32_t first_child = nodes_[node_index].first_child;
      if (first_child < 0) {
        if (first_child <= -2) {  // another simulation of the batch waits for this leaf: share it
          d.leaf = -2 - first_child;
          break;
        }
        if (!is_chance(s)) {  // a new leaf
          d.expand = node_index;
          d.leaf = new_leaf(s, leaves);
          nodes_[node_index].first_child = -2 - d.leaf;
          break;
        }
        expand(node_index, s);  // chance outcomes, drawn through below
      }
      const int32_t child = select(node_index, s);
      if (child < 0) {  // no child usable in this determinisation (or chance drew a new outcome)
        while (!game_.is_terminal(s) && is_chance(s)) game_.apply_action(s, sample_action(game_, s, rng_));
        if (game_.is_terminal(s)) game_.returns(s, d.returns);
        else d.leaf = new_leaf(s, leaves);
        break;
      }
      game_.apply_action(s, nodes_[child].action);
      paths_.push_back(child);
      node_index = child;
    }
    d.path_end = static_cast<int32_t>(paths_.size());
    for (int32_t k = d.path_begin; k < d.path_end; ++k) {
      Node& n = nodes_[paths_[k]];
      ++n.visits;
      if (n.mover >= 0) n.value -= kVirtualLoss;
    }
    descents_.push_back(d);
  }

  int32_t new_leaf(const State& s, int& leaves) {
    MctsLeaf<G>& leaf = leaves_[static_cast<size_t>(leaves)];
    leaf.state = s;
    leaf.legal.clear();  // games append to the list
    game_.legal_actions(s, leaf.legal);
    return leaves++;
  }

  bool is_chance(const State& s) const {
    if constexpr (kChance) return game_.is_chance_node(s);
    else return false;
  }

  bool take_kept() {
    const bool kept = keep_;
    keep_ = false;
    return kept;
  }

  // reroot's search: of the visited nodes `depth` actions below `node` (in position s) whose
  // position is `target`, the most visited, in `found` (left as it is if none is more visited),
  // and the actions to it in `best_path`.
  void find(int32_t node, const State& s, const State& target, int depth, std::vector<Action>& path, int32_t& found,
            std::vector<Action>& best_path) const {
    const Node& n = nodes_[node];
    for (int c = 0; c < n.num_children; ++c) {
      const int32_t index = n.first_child + c;
      const Action action = nodes_[index].action;
      if (nodes_[index].visits == 0 || !applicable(s, action)) continue;
      State t = s;
      game_.apply_action(t, action);
      path.push_back(action);
      if (depth > 1) {
        find(index, t, target, depth - 1, path, found, best_path);
      } else if (t == target && (found < 0 || nodes_[index].visits > nodes_[found].visits)) {
        found = index;
        best_path = path;
      }
      path.pop_back();
    }
  }

  // Whether `action` can be applied in s: a legal action, or at a chance node a possible outcome
  // (the tree's actions may not be, in another determinisation or another outcome).
  bool applicable(const State& s, Action action) const {
    if (game_.is_terminal(s)) return false;
    if (!is_chance(s)) return game_.is_legal(s, action);
    FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
    game_.chance_outcomes(s, outcomes);
    for (const ChanceOutcome& o : outcomes)
      if (o.outcome == action) return o.probability > 0;
    return false;
  }

  bool children_are_legal(int32_t node, const State& s) const {
    ActionList<G::kMaxActions> legal, children;
    game_.legal_actions(s, legal);
    const Node& n = nodes_[node];
    if (n.num_children != legal.size()) return false;
    for (int c = 0; c < n.num_children; ++c) children.push_back(nodes_[n.first_child + c].action);
    std::sort(legal.begin(), legal.end());
    std::sort(children.begin(), children.end());
    return std::equal(legal.begin(), legal.end(), children.begin());
  }

  // Whether `path` from `root` (which leads to `next`) draws nothing from the state's generator:
  // replayed from `root` with a new generator, it must reach `next` with that same generator, as
  // the generator is part of the position and moves at each draw. (With explicit chance,
  // reseeding changes nothing and its outcomes are actions of the path.)
  bool draws_nothing(const State& root, const State& next, const std::vector<Action>& path) const {
    if constexpr (!kReseeds) {
      return true;
    } else {
      constexpr uint64_t kProbe = 0x9e3779b97f4a7c15ULL;
      State replay = root, expected = next;
      game_.reseed(replay, kProbe);
      game_.reseed(expected, kProbe);
      for (Action action : path) {
        if (!applicable(replay, action)) return false;
        game_.apply_action(replay, action);
      }
      return replay == expected;
    }
  }

  // The subtree of `node` becomes the tree (node 0 its root), breadth first.
  void keep_subtree(int32_t node) {
    std::vector<Node> kept;
    std::vector<int32_t> source;  // kept[i] is nodes_[source[i]]
    kept.push_back(nodes_[node]);
    kept[0].value = 0;  // a root's own edge is not chosen by anyone
    kept[0].action = -1;
    kept[0].mover = -1;
    source.push_back(node);
    for (size_t i = 0; i < kept.size(); ++i) {
      const Node& from = nodes_[source[i]];
      if (from.first_child < 0) {
        kept[i].first_child = -1;
        continue;
      }
      kept[i].first_child = static_cast<int32_t>(kept.size());
      for (int32_t c = 0; c < from.num_children; ++c) {
        kept.push_back(nodes_[from.first_child + c]);
        source.push_back(from.first_child + c);
      }
    }
    nodes_.swap(kept);
    root_priors_.clear();
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
  Evaluator* evaluator_;  // PUCT only
  std::vector<MctsLeaf<G>> leaves_;  // PUCT: the leaves of a batch
  std::vector<Descent> descents_;    // PUCT: the batch's simulations
  std::vector<int32_t> paths_;       // PUCT: their paths, one after another
  std::vector<double> root_priors_;  // PUCT with noise: the root children's priors without it
  bool keep_ = false;                // reroot kept the tree for the next search
  bool resumed_ = false;             // PUCT: this search goes on from a kept root
};

// The result of trees' root edges: visits and values summed by action, the most visited action.
inline MctsResult merge_root_edges(const std::vector<std::vector<MctsRootEdge>>& edges, int64_t simulations) {
  MctsResult result;
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
  result.simulations = simulations;
  return result;
}

// UCT on `trees` (one a thread, prepared: see MctsTree::prepare), root parallel: their root visit
// counts and values summed. `stop` may end the search early (see NeverStop); the result is then
// incomplete.
template <GameEngine G, class Stop>
MctsResult mcts_search_trees(std::vector<MctsTree<G>>& trees, const typename G::State& root, Stop&& stop) {
  const int threads = static_cast<int>(trees.size());
  std::vector<std::vector<MctsRootEdge>> edges(trees.size());
  run_on_threads(threads, [&](int t) {
    MctsTree<G>& tree = trees[static_cast<size_t>(t)];
    tree.search(root, stop, t);
    tree.root_edges(edges[static_cast<size_t>(t)]);
  });
  return merge_root_edges(edges, static_cast<int64_t>(trees.empty() ? 0 : trees[0].simulations()) * threads);
}

// UCT: `config.threads` independent trees (root parallelism), thread t's seeded
// derive_seed(config.seed, t).
template <GameEngine G, class Stop = NeverStop>
MctsResult mcts_search(const G& game, const typename G::State& root, const MctsConfig& config, Stop&& stop = Stop{}) {
  std::vector<MctsTree<G>> trees;  // their nodes are allocated by their own threads, as they start
  for (int t = 0; t < std::max(1, config.threads); ++t)
    trees.emplace_back(game, config, derive_seed(config.seed, static_cast<uint64_t>(t)));
  return mcts_search_trees(trees, root, stop);
}

// PUCT on `count` prepared trees, trees[i] searching from roots[i], in lockstep (see
// MctsTree::search_guided).
template <GameEngine G, class Stop, class Evaluator>
std::vector<MctsResult> mcts_search_many_trees(MctsTree<G, Evaluator>* const* trees, const typename G::State* roots,
                                               int count, Stop&& stop) {
  MctsTree<G, Evaluator>::search_guided(trees, roots, count, stop, 0);
  std::vector<MctsResult> results;
  for (int i = 0; i < count; ++i) {
    std::vector<std::vector<MctsRootEdge>> edges(1);
    trees[i]->root_edges(edges[0]);
    results.push_back(merge_root_edges(edges, trees[i]->simulations()));
  }
  return results;
}

// PUCT (an MctsEvaluator) from many roots, one tree each, roots[i]'s seeded derive_seed(seeds[i],
// 0) as mcts_search seeds its first thread; the evaluator called once a round for the leaves of all
// the trees (see MctsTree::search_guided): for evaluators that value batches (a network on a GPU,
// say). One root is the search of one position.
template <GameEngine G, class Stop, class Evaluator>
std::vector<MctsResult> mcts_search_many(const G& game, const std::vector<typename G::State>& roots,
                                         const std::vector<uint64_t>& seeds, const MctsConfig& config, Stop&& stop,
                                         Evaluator* evaluator) {
  using Tree = MctsTree<G, Evaluator>;
  std::vector<Tree> trees;
  std::vector<Tree*> pointers;
  trees.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) trees.emplace_back(game, config, derive_seed(seeds[i], 0), evaluator);
  for (Tree& tree : trees) pointers.push_back(&tree);
  return mcts_search_many_trees(pointers.data(), roots.data(), static_cast<int>(roots.size()), stop);
}

}  // namespace meeple
