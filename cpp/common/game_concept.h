// What every meeple game engine provides, and the algorithms written once for all of them.
//
// Chance: a game whose chance events are drawn from the state's own Rng (the default in meeple)
// never shows a chance node. A game run with explicit chance shows them: `current_player` is
// kChancePlayer and `chance_outcomes` lists the outcomes with their probabilities.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>

#include "core.h"

namespace meeple {

template <class G>
concept GameEngine = requires(const G& game, const typename G::State& state,
                              typename G::State& mutable_state,
                              ActionList<G::kMaxActions>& actions,
                              FixedList<ChanceOutcome, G::kMaxChanceOutcomes>& outcomes,
                              Action action, uint64_t seed, int player, float* observation,
                              double* returns) {
  requires std::is_trivially_copyable_v<typename G::State>;
  { game.num_players() } -> std::convertible_to<int>;
  { game.num_distinct_actions() } -> std::convertible_to<int>;
  { game.max_chance_outcomes() } -> std::convertible_to<int>;
  { game.observation_size() } -> std::convertible_to<int>;
  { game.max_game_length() } -> std::convertible_to<int>;
  // Bounds on the returns of a finished game, and the sum of its returns where that is the same
  // for every game (zero-sum: 0), else nullopt (OpenSpiel's min_utility, max_utility,
  // utility_sum): for value scaling and search bounds.
  { game.min_utility() } -> std::convertible_to<double>;
  { game.max_utility() } -> std::convertible_to<double>;
  { game.utility_sum() } -> std::same_as<std::optional<double>>;
  { game.initial_state(seed) } -> std::same_as<typename G::State>;
  { game.current_player(state) } -> std::convertible_to<int>;
  { game.is_terminal(state) } -> std::same_as<bool>;
  { game.is_chance_node(state) } -> std::same_as<bool>;
  { game.move_number(state) } -> std::convertible_to<int>;
  { game.is_legal(state, action) } -> std::same_as<bool>;
  game.legal_actions(state, actions);
  game.chance_outcomes(state, outcomes);
  game.apply_action(mutable_state, action);
  game.returns(state, returns);
  game.observation(state, player, observation);  // into observation_size() zeros (callers zero)
};
// Optional faster paths a game may add, used when present:
//  - `Action sample_legal_action(state, rng)`: legal_actions()[rng.uniform(size)], unlisted;
//  - `Action sample_and_mark_legal(state, uint64_t* words, rng)`: stores the legal actions as a
//    bitset (bit a of words[a / 64]) in all (kMaxActions + 63) / 64 words and returns one drawn as
//    sample_legal_action would (the same single rng draw), or kNoAction without a draw if none is
//    legal. VectorGame publishes every state with it.
//  - `uint8_t vector_group(state)`: VectorGame on one thread steps its states grouped by it (in slot
//    order within a group; on more threads it keeps slot order), so that consecutive plies take
//    similar branches; for games whose plies differ a lot from state to state.

// Whether VectorGame-style stepping of many states orders them by G::vector_group.
template <class G>
concept GroupedStepping = requires(const G& g, const typename G::State& s) {
  { g.vector_group(s) } -> std::convertible_to<uint8_t>;
};

// order[0..n) = 0..n-1 sorted by group[] (a counting sort, stable: index order within a group).
inline void order_by_group(const uint8_t* group, int64_t n, int32_t* order) {
  int64_t start[257] = {};
  for (int64_t i = 0; i < n; ++i) ++start[group[i] + 1];
  for (int k = 1; k < 257; ++k) start[k] += start[k - 1];
  for (int64_t i = 0; i < n; ++i) order[start[group[i]]++] = static_cast<int32_t>(i);
}

// One action drawn uniformly from the legal ones, or a chance outcome by its probability.
template <GameEngine G>
Action sample_action(const G& game, const typename G::State& state, Rng& rng) {
  if constexpr (G::kMaxChanceOutcomes > 0) {
    if (game.is_chance_node(state)) {
      FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
      game.chance_outcomes(state, outcomes);
      double u = rng.unit();
      for (const ChanceOutcome& o : outcomes) {
        if (u < o.probability) return o.outcome;
        u -= o.probability;
      }
      return outcomes[outcomes.size() - 1].outcome;  // rounding left u just above the last mass
    }
  }
  if constexpr (requires { game.sample_legal_action(state, rng); }) {
    return game.sample_legal_action(state, rng);  // a game's faster equivalent, same distribution
  } else {
    ActionList<G::kMaxActions> actions;
    game.legal_actions(state, actions);
    return actions[static_cast<int>(rng.uniform(static_cast<uint32_t>(actions.size())))];
  }
}

// Games whose chance is drawn from a generator inside the state (implicit chance) can replace it:
// game.reseed(state, seed) draws the future from `seed`, the position unchanged.
template <class G>
concept ReseedsChance = requires(const G& game, typename G::State& state) { game.reseed(state, uint64_t{}); };

// Plays uniformly random actions until the end; returns the number of actions applied.
template <GameEngine G>
int64_t random_playout(const G& game, typename G::State& state, Rng& rng) {
  int64_t plies = 0;
  while (!game.is_terminal(state)) {
    game.apply_action(state, sample_action(game, state, rng));
    ++plies;
  }
  return plies;
}

// A long computation asks `stop(thread)` between units of work (a search's simulation, a
// playout, a perft node) and, when it answers true, returns early with partial results the caller
// discards. The Python bindings pass one that answers true after Ctrl-C; this one never stops.
struct NeverStop {
  constexpr bool operator()(int /*thread*/) const { return false; }
};

// Number of action sequences of exactly `depth` actions from `state` (chance outcomes count as
// actions); a game that ends earlier contributes nothing, as in chess perft. `stop` is asked at
// each node with children to count (see NeverStop).
template <GameEngine G, class Stop = NeverStop>
uint64_t perft(const G& game, const typename G::State& state, int depth, Stop&& stop = Stop{}) {
  if (depth == 0) return 1;
  if (game.is_terminal(state)) return 0;
  if (depth > 1 && stop(0)) return 0;
  uint64_t nodes = 0;
  auto visit = [&](Action a) {
    typename G::State child = state;
    game.apply_action(child, a);
    nodes += depth == 1 ? 1 : perft(game, child, depth - 1, stop);
  };
  if constexpr (G::kMaxChanceOutcomes > 0) {
    if (game.is_chance_node(state)) {
      FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
      game.chance_outcomes(state, outcomes);
      for (const ChanceOutcome& o : outcomes) visit(o.outcome);
      return nodes;
    }
  }
  ActionList<G::kMaxActions> actions;
  game.legal_actions(state, actions);
  for (Action a : actions) visit(a);
  return nodes;
}

}  // namespace meeple
