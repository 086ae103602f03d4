// Search and throughput bindings written once for every game: batched stepping (VectorGame) and
// MCTS. Python-facing classes: meeple.VectorGame and meeple.bots.MCTS wrap these.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/bitboard.h"
#include "../common/byte_mask.h"
#include "../common/game_concept.h"
#include "../common/mcts.h"
#include "../common/thread_pool.h"
#include "dict_io.h"
#include "interrupt.h"

namespace meeple::bindings {

namespace py = pybind11;

// `value` as an int if it is one (int or numpy integer, not bool; TypeError naming it otherwise);
// false when it does not fit a long long.
inline bool int_value(const py::handle& value, const char* name, long long& out) {
  if (!is_int(value))
    throw py::type_error(std::string(name) + " must be an int, got " + Py_TYPE(value.ptr())->tp_name);
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  out = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (out == -1 && PyErr_Occurred()) throw py::error_already_set();
  return overflow == 0;
}

// An int argument (int or numpy integer, not bool) in low..high, else TypeError or ValueError
// naming it: pybind11's own conversion answers an out-of-range value with a signature dump.
inline int64_t int_argument(const py::handle& value, const char* name, int64_t low, int64_t high) {
  long long v = 0;
  if (!int_value(value, name, v) || v < low || v > high)
    throw py::value_error(std::string(name) + " must be an int in " + std::to_string(low) + ".." +
                          std::to_string(high) + ", got " + py::repr(value).cast<std::string>());
  return v;
}

inline int threads_argument(const py::handle& value) {
  return static_cast<int>(int_argument(value, "threads", 1, kMaxThreads));
}

// A state handed to a game's method must be of a game with the same parameters: the engine reads
// it with the game's own tables and sizes (another board size indexes out of bounds).
template <class Traits, class G, class StateWrapper>
void check_state_of(const G& game, const StateWrapper& s) {
  if (s.game.get() == &game) return;
  const py::dict mine = Traits::parameters(game), its = Traits::parameters(*s.game);
  if (!mine.equal(its))
    throw py::value_error(std::string("the state is of ") + Traits::kName + " with parameters " +
                          py::repr(its).cast<std::string>() + ", not of this game (" +
                          py::repr(mine).cast<std::string>() + ")");
}

// n states held in C++, stepped together. Finished games are reset in the same step
// ("same-step autoreset"): the step's rewards/terminated describe the game that ended, the
// observation, mask and current player already describe the fresh game in that slot. Slot i's
// k-th game is seeded derive_seed(derive_seed(seed, i), k), so results do not depend on threads.
// Explicit chance nodes are resolved inside the step by each slot's own generator, so every
// state handed back is a decision node.
template <GameEngine G>
class VectorEnv {
 public:
  using State = typename G::State;

  // `observation_shape`: the shape of one slot's observation (empty: flat), whose size must be the
  // game's observation_size(): the engine writes the very array the user reads, so that a flag set
  // on it (read-only) is the one the engine checks (a reshaped view would have flags of its own).
  VectorEnv(std::shared_ptr<const G> game, int64_t n, uint64_t seed, int threads, bool observe, bool mark,
            bool packed = false, const std::vector<int64_t>& observation_shape = {})
      : game_(std::move(game)), seed_(seed), observe_(observe), mark_(mark), packed_(mark && packed), pool_(threads) {
    if (n < 1) throw py::value_error("n must be >= 1");
    states_.resize(static_cast<size_t>(n));
    final_states_.resize(static_cast<size_t>(n));
    episodes_.assign(static_cast<size_t>(n), 0);
    placed_in_.assign(static_cast<size_t>(n), 0);
    cut_.assign(static_cast<size_t>(n), 0);
    started_at_.assign(static_cast<size_t>(n), 0);
    rngs_.resize(static_cast<size_t>(n));
    next_random_.assign(static_cast<size_t>(n), -1);
    const G& g = *game_;
    players_ = g.num_players();
    obs_size_ = g.observation_size();
    actions_size_ = g.num_distinct_actions();
    if (actions_size_ > G::kMaxActions)  // action ids index bitsets of kWords words
      throw std::logic_error("num_distinct_actions() exceeds kMaxActions");
    legal_bits_.assign(mark ? static_cast<size_t>(n) * kWords : 0, 0);  // none with masks=False
    if constexpr (kGrouped) {
      group_.assign(static_cast<size_t>(n), 0);
      order_.resize(static_cast<size_t>(n));
    }
    std::vector<int64_t> shape{n};
    int64_t cells = 1;
    for (int64_t d : observation_shape) shape.push_back(d), cells *= d;
    if (observation_shape.empty()) shape.push_back(obs_size_);
    else if (cells != obs_size_) throw std::logic_error("observation_shape does not hold observation_size() values");
    observations_ = py::array_t<float>(shape);
    mask_row_ = packed_ ? (actions_size_ + 7) / 8 : actions_size_;
    masks_ = py::array_t<uint8_t>({n, static_cast<int64_t>(mask_row_)});
    rewards_ = py::array_t<float>({n, static_cast<int64_t>(players_)});
    terminated_ = py::array_t<bool>(n);
    current_player_ = py::array_t<int32_t>(n);
    // numpy leaves new arrays uninitialised; with observations or masks off these stay as set here.
    std::memset(observations_.mutable_data(), 0, static_cast<size_t>(observations_.nbytes()));
    std::memset(masks_.mutable_data(), 0, static_cast<size_t>(masks_.nbytes()));
    reset();
  }

  int64_t size() const { return static_cast<int64_t>(states_.size()); }

  // Batches smaller than this are stepped on the calling thread (handing over costs more).
  static constexpr int64_t kMinParallel = 256;
  // A slot's generator (random actions, explicit chance) is seeded by its game's seed ^ this.
  static constexpr uint64_t kSlotRngSalt = 0xA5A5A5A5A5A5A5A5ull;

  // Starts every slot's game again, as a new VectorEnv with `seed` would (the same seed if null).
  void reset(const uint64_t* seed = nullptr) {
    const Exclusive exclusive(busy_);
    py::array_t<int32_t> random(size());
    Buffers b = buffers(random);  // first: it refuses read-only outputs, and a refusal changes nothing
    if (seed) seed_ = *seed;
    std::fill(episodes_.begin(), episodes_.end(), 0);
    std::fill(placed_in_.begin(), placed_in_.end(), 0);
    std::fill(cut_.begin(), cut_.end(), 0);
    steps_ = 0;
    {
      ReleasedGil release;
      pool_.parallel_for(size(), [&](int64_t begin, int64_t end) {
        const Slots slots = this->slots(b, 0);
        for (int64_t i = begin; i < end; ++i) slots.reset(i);
      }, kMinParallel);
    }
    fresh_random_ = std::move(random);  // releases the previous array: needs the GIL
  }

  void step(const py::array& given) {
    const char kind = given.dtype().kind();
    const bool right_shape = given.ndim() == 1 && given.shape(0) == size();
    // An empty list is a float64 array to numpy: its problem is its length, not its type.
    if ((kind != 'i' && kind != 'u') && (right_shape || given.size() != 0))
      throw py::type_error("actions must be an integer array, got dtype " +
                           py::str(given.dtype()).cast<std::string>());
    if (!right_shape)
      throw py::value_error("actions must be a 1-d array of " + std::to_string(size()) +
                            " ints, got shape " + shape_text(given));
    const Exclusive exclusive(busy_);
    // Read the actions into actions_ and check each (read_actions), all before any is applied: an
    // illegal action anywhere leaves every state unchanged. The check is split over the threads
    // like the step. int32 (what random_actions returns) and int64 arrays are read in place; other
    // integer arrays are converted first.
    actions_.resize(states_.size());
    py::array_t<int64_t> converted;
    const void* data = given.data();
    const bool narrow = in_place<int32_t>(given);
    if (!narrow && !in_place<int64_t>(given)) {
      converted = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(given);
      if (!converted) throw py::error_already_set();
      data = converted.data();
    }
    py::array_t<int32_t> random(size());
    Buffers b = buffers(random);
    const uint64_t clock = steps_ + 1;  // this step's number: games it starts have had no step yet
    int64_t first_illegal;
    bool grouped = false;
    {
      ReleasedGil release;
      const auto check = [&](int64_t begin, int64_t end) {
        return narrow ? read_actions(static_cast<const int32_t*>(data), begin, end)
                      : read_actions(static_cast<const int64_t*>(data), begin, end);
      };
      // Two loops rather than one with a test per slot or a generic slot_at(k): those measured 1-3 ns
      // slower per Imperial Harvest ply (builds of the same code differ by about 2 ns).
      if constexpr (kGrouped) grouped = pool_.inline_run(size(), kMinParallel);
      if (grouped) {
        order_by_group();
        first_illegal = pool_.checked_parallel_for(size(), check, [&](int64_t begin, int64_t end) {
          const Slots slots = this->slots(b, clock);
          const int32_t* order = order_.data();
          for (int64_t k = begin; k < end; ++k) slots.step(order[k]);
        }, kMinParallel);
      } else {
        first_illegal = pool_.checked_parallel_for(size(), check, [&](int64_t begin, int64_t end) {
          const Slots slots = this->slots(b, clock);
          for (int64_t i = begin; i < end; ++i) slots.step(i);
        }, kMinParallel);
      }
    }
    if (first_illegal >= 0) {
      const size_t i = static_cast<size_t>(first_illegal);
      ActionList<G::kMaxActions> legal;
      if (!game_->is_terminal(states_[i])) game_->legal_actions(states_[i], legal);
      std::sort(legal.begin(), legal.end());  // ascending in the message, whatever a generator does
      std::ostringstream message;
      message << "illegal action " << py::str(given[py::int_(first_illegal)]).cast<std::string>()
              << " for state " << i << "; legal there: ";
      for (int k = 0; k < legal.size(); ++k) message << (k ? ", " : "") << legal[k];
      throw py::value_error(message.str());
    }
    steps_ = clock;
    fresh_random_ = std::move(random);
  }

  // One uniformly random legal action per state (each slot's own generator), as a new numpy int32
  // array. Drawn while publishing the state, from the legal list already at hand, and written by
  // the thread that stepped the slot into an array made for the step: the first call after a step
  // hands that array over (no copy, and its rows stay in the cache of the core that will check
  // them at the next step), later calls copy.
  py::array_t<int32_t> random_actions() {
    check_idle();
    if (fresh_random_) return std::move(fresh_random_);
    return py::array_t<int32_t>(size(), next_random_.data());
  }

  // Puts a copy of `given` (a state of this game) into slot i, as if the slot's game had reached
  // it: an explicit chance node is resolved by the slot's generator, and the slot's observation,
  // mask, current player and random action then describe it; its rewards and terminated entries
  // are left as the last step wrote them, and its next new game is seeded as it would have been.
  // A finished game (also one that the chance draws finish) is refused, changing nothing.
  void set_state(int64_t i, const State& given) {
    const Exclusive exclusive(busy_);
    const size_t k = static_cast<size_t>(i);
    const G& g = *game_;
    const Buffers b = buffers(published_random());
    State s = given;  // resolved on copies first: a refusal must leave the slot as it was
    Rng rng = rngs_[k];
    resolve_chance(g, s, rng);
    if (g.is_terminal(s)) throw py::value_error("the game of that state is over: there is nothing to step");
    states_[k] = s;
    rngs_[k] = rng;
    placed_in_[k] = episodes_[k];
    started_at_[k] = steps_;
    slots(b, steps_).publish(i);
  }

  // Ends the games of `starting` (slot numbers in range) where they stand, unscored, and starts
  // each slot's next game as a step that ends a game does (the slot's next seed): for cutting
  // games short. A slot listed twice starts one game. Rewards, terminated and final_state stay
  // as the last step left them; the rest of the slot's outputs describe the new game.
  void new_games(std::vector<int64_t> starting) {
    const Exclusive exclusive(busy_);
    const Buffers b = buffers(published_random());
    std::sort(starting.begin(), starting.end());
    starting.erase(std::unique(starting.begin(), starting.end()), starting.end());
    const Slots slots = this->slots(b, steps_);
    for (int64_t i : starting) {
      slots.start_game(i);
      slots.publish(i);
      ++cut_[static_cast<size_t>(i)];
    }
  }

  // The seed of slot i's game: game.initial_state(seed) is its first position (before the slot
  // resolves an explicit chance node there). Null for a game set_state put in.
  std::optional<uint64_t> game_seed(int64_t i) const {
    check_idle();
    const size_t k = static_cast<size_t>(i);
    if (placed_in_.at(k) == episodes_[k]) return std::nullopt;  // still the game set_state put in
    return derive_seed(derive_seed(seed_, k), episodes_[k] - 1);  // episodes_ counts the game started
  }

  // Every action of the game a slot plays from game seed `seed` when it is given `given`, and
  // the game's returns if it is over then: with explicit chance, the outcomes the slot draws are
  // put in their places. They come from the slot's generator, which also draws the slot's random
  // action at every decision (random_actions), so both are replayed here as the step draws them:
  // outcomes by resolve_chance, the random action by sample_action (one draw, as draw_and_mark's).
  // ValueError naming the first action that is not legal where it comes.
  static std::pair<std::vector<Action>, std::optional<std::vector<double>>> replay(
      const G& g, uint64_t seed, const std::vector<Action>& given) {
    State s = g.initial_state(seed);
    Rng rng(seed ^ kSlotRngSalt);
    std::vector<Action> all;
    all.reserve(given.size());
    auto settle = [&] {
      if constexpr (G::kMaxChanceOutcomes > 0)
        while (!g.is_terminal(s) && g.is_chance_node(s)) {
          all.push_back(sample_action(g, s, rng));
          g.apply_action(s, all.back());
        }
      if (!g.is_terminal(s)) (void)sample_action(g, s, rng);  // the published random action
    };
    settle();
    for (size_t k = 0; k < given.size(); ++k) {
      if (given[k] < 0 || given[k] >= g.num_distinct_actions())
        throw py::value_error("actions[" + std::to_string(k) + "] must be in 0.." +
                              std::to_string(g.num_distinct_actions() - 1) + ", got " + std::to_string(given[k]));
      if (g.is_terminal(s) || !g.is_legal(s, given[k]))
        throw py::value_error("actions[" + std::to_string(k) + "] = " + std::to_string(given[k]) + " is not legal " +
                              (g.is_terminal(s) ? std::string("there: the game is over before it")
                                                : std::string("in the game of this seed after the actions before it")));
      all.push_back(given[k]);
      g.apply_action(s, given[k]);
      settle();
    }
    if (!g.is_terminal(s)) return {std::move(all), std::nullopt};
    std::vector<double> returns(static_cast<size_t>(g.num_players()));
    g.returns(s, returns.data());
    return {std::move(all), std::move(returns)};
  }

  // The steps each slot's game has had: since it started, or since set_state put it in (a new
  // array). Counted off the hot path: steps since the reset, less the step each game started at.
  py::array_t<int64_t> elapsed_steps() const {
    check_idle();
    py::array_t<int64_t> elapsed(size());
    int64_t* out = elapsed.mutable_data();
    for (size_t k = 0; k < started_at_.size(); ++k) out[k] = static_cast<int64_t>(steps_ - started_at_[k]);
    return elapsed;
  }

  py::array_t<float> observations() const { return observations_; }
  py::array_t<uint8_t> masks() const { return masks_; }
  py::array_t<float> rewards() const { return rewards_; }
  py::array_t<bool> terminated() const { return terminated_; }
  py::array_t<int32_t> current_player() const { return current_player_; }
  const State& state(int64_t i) const {
    check_idle();
    return states_.at(static_cast<size_t>(i));
  }
  // The last position of the last game slot i finished (since the vector was made or reset), or
  // null if it has finished none: a step that ends a game starts the next one at once.
  const State* final_state(int64_t i) const {
    check_idle();
    const size_t k = static_cast<size_t>(i);
    const uint64_t finished = episodes_.at(k) - 1 - cut_[k];  // games started but the first, less those cut
    return finished > 0 ? &final_states_[k] : nullptr;
  }
  std::shared_ptr<const G> game() const { return game_; }
  int threads() const { return pool_.threads(); }

 private:
  struct Buffers {
    int32_t* random;
    float* observations;
    uint8_t* masks;
    float* rewards;
    bool* terminated;
    int32_t* current_player;
  };

  Buffers buffers(py::array_t<int32_t>& random) { return buffers(random.mutable_data()); }
  // Where random_actions() reads the random actions: the step's array while it has not been
  // handed over, else next_random_ (then both pointers name the same place).
  int32_t* published_random() { return fresh_random_ ? fresh_random_.mutable_data() : next_random_.data(); }
  Buffers buffers(int32_t* random) {
    return {random, writable(observations_, "observations"), writable(masks_, "masks"),
            writable(rewards_, "rewards"), writable(terminated_, "terminated"),
            writable(current_player_, "current_player")};
  }

  // The outputs are the user's arrays: one made read-only (flags.writeable = False) is refused
  // with its name, before anything changes (numpy's own error would not say which array).
  template <class T>
  static T* writable(py::array_t<T>& output, const char* name) {
    if (!output.writeable())
      throw py::value_error(std::string("VectorGame.") + name +
                            " is read-only (flags.writeable is False): each step and reset writes it; "
                            "make it writeable again, or keep a copy instead");
    return output.mutable_data();
  }

  // Draws explicit chance outcomes with `rng` until `s` is at a decision (or over).
  static MEEPLE_ALWAYS_INLINE void resolve_chance(const G& g, State& s, Rng& rng) {
    if constexpr (G::kMaxChanceOutcomes > 0) {
      while (!g.is_terminal(s) && g.is_chance_node(s)) g.apply_action(s, sample_action(g, s, rng));
    } else {
      (void)g, (void)s, (void)rng;
    }
  }

  // One step or reset at a time, and no reads of the states during one: with the GIL released,
  // a second Python thread could otherwise call in and race on them. Entry points hold the GIL
  // when they test the flag.
  static constexpr const char* kBusy =
      "this VectorGame is being stepped or reset by another thread (use one VectorGame per thread)";
  struct Exclusive {
    std::atomic<bool>& busy;
    explicit Exclusive(std::atomic<bool>& flag) : busy(flag) {
      if (busy.exchange(true)) throw std::runtime_error(kBusy);
    }
    ~Exclusive() { busy.store(false); }
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;
  };
  void check_idle() const {
    if (busy_.load()) throw std::runtime_error(kBusy);
  }

  static std::string shape_text(const py::array& a) {
    std::string text = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) text += (d ? ", " : "") + std::to_string(a.shape(d));
    return text + (a.ndim() == 1 ? ",)" : ")");
  }

  // Whether `a` can be read as a plain T[] (native byte order, C-contiguous, aligned).
  template <class T>
  static bool in_place(const py::array& a) {
    return py::isinstance<py::array_t<T, py::array::c_style>>(a) &&
           reinterpret_cast<uintptr_t>(a.data()) % alignof(T) == 0;
  }

  // Copies the given actions of slots [begin, end) into actions_; returns the first of those
  // slots whose action is not legal there, or -1.
  template <class T>
  int64_t read_actions(const T* given, int64_t begin, int64_t end) {
    // Locals: the stores to `actions` could alias members as far as the compiler knows.
    const uint64_t* published = legal_bits_.data();
    const int32_t* drawn = next_random_.data();
    const State* states = states_.data();
    const G& g = *game_;
    const bool marked = mark_;
    Action* actions = actions_.data();
    const uint64_t limit = static_cast<uint64_t>(actions_size_);
    for (int64_t i = begin; i < end; ++i) {
      const T a = given[i];
      if (static_cast<uint64_t>(a) >= limit) return i;  // one unsigned compare: negatives too
      // With masks: a bit test. Without: the slot's random action is legal (it was drawn from
      // the legal actions of this very state); another is asked of the game.
      const bool legal =
          marked ? ((published[i * static_cast<int64_t>(kWords) + (a >> 6)] >> (a & 63)) & 1u) != 0
                 : a == drawn[i] || g.is_legal(states[i], static_cast<Action>(a));
      if (!legal) return i;
      actions[i] = static_cast<Action>(a);
    }
    return -1;
  }

  // What the per-slot work reads and writes, copied for one block into a local: the outputs are
  // written through byte and bool pointers, which may alias any memory as far as the compiler
  // knows, so members read through `this` would be loaded again after each such store.
  struct Slots {
    const G& g;
    State* states;
    State* final_states;
    Rng* rngs;
    uint64_t* episodes;
    uint64_t* started_at;  // the step each slot's game started at (elapsed_steps)
    uint64_t* legal_bits;
    int32_t* next_random;
    uint8_t* group;  // kGrouped: each slot's vector_group, for the next step's order
    const Action* actions;
    Buffers out;
    uint64_t seed;
    uint64_t clock;  // the number of the step being applied (0: reset; new_game: the last step's)
    int players, obs_size, actions_size, mask_row;
    bool observe, mark, packed;
    byte_mask::Writer write_wide_mask, write_small_mask;

    // Applies the slot's action; a finished game is scored and replaced.
    MEEPLE_ALWAYS_INLINE void step(int64_t i) const {
      State& s = states[i];
      g.apply_action(s, actions[i]);
      resolve_chance(i);
      float* reward = out.rewards + i * players;
      if (g.is_terminal(s)) {
        double r[8] = {};
        g.returns(s, r);
        for (int p = 0; p < players; ++p) reward[p] = static_cast<float>(r[p]);
        out.terminated[i] = true;
        final_states[i] = s;  // a copy a game: measured within the noise of the VectorGame ratio (0.01)
        start_game(i);
      } else {
        zero_row(reward, players);
        out.terminated[i] = false;
      }
      publish(i);
    }

    MEEPLE_ALWAYS_INLINE void reset(int64_t i) const {
      start_game(i);
      out.terminated[i] = false;
      zero_row(out.rewards + i * players, players);
      publish(i);
    }

    // replay() repeats this order of draws from a slot's generator (chance outcomes, then the
    // published random action): a change here must be made there too (test_vector_game_record_*).
    void start_game(int64_t i) const {
      const uint64_t slot_seed = derive_seed(seed, static_cast<uint64_t>(i));
      const uint64_t game_seed = derive_seed(slot_seed, episodes[i]++);
      started_at[i] = clock;
      states[i] = g.initial_state(game_seed);
      rngs[i] = Rng(game_seed ^ kSlotRngSalt);
      resolve_chance(i);
    }

    MEEPLE_ALWAYS_INLINE void resolve_chance(int64_t i) const { VectorEnv::resolve_chance(g, states[i], rngs[i]); }

    MEEPLE_ALWAYS_INLINE void publish(int64_t i) const {
      const State& s = states[i];
      const int player = g.current_player(s);
      out.current_player[i] = player;
      if constexpr (kGrouped) group[i] = g.vector_group(s);
      if (observe) {
        float* obs = out.observations + i * obs_size;
        std::fill(obs, obs + obs_size, 0.0f);  // games write the nonzero entries into a zeroed buffer
        g.observation(s, player >= 0 ? player : 0, obs);
      }
      // The random action, drawn from the legal ones. With masks, the legal actions also as a
      // bitset, straight into legal_bits (kept for checking the next step) and into the numpy
      // mask; without, only the same draw (steps are then checked without bits).
      Rng& rng = rngs[i];
      uint64_t* bits = mark ? legal_bits + i * static_cast<int64_t>(kWords) : nullptr;
      int32_t choice = kNoAction;
      if (g.is_terminal(s)) {
        if (mark) std::fill(bits, bits + kWords, uint64_t{0});
      } else {
        choice = mark ? draw_and_mark(s, bits, rng) : sample_action(g, s, rng);
      }
      next_random[i] = choice;
      out.random[i] = choice;
      if (mark) {
        uint8_t* row = out.masks + i * mask_row;
        if (packed)
          byte_mask::write_packed(bits, row, mask_row);
        else
          write_mask(bits, row);
      }
    }

    // sample_action's draw, with the legal actions stored as a bitset in bits[0..kWords).
    MEEPLE_ALWAYS_INLINE Action draw_and_mark(const State& s, uint64_t* bits, Rng& rng) const {
      if constexpr (requires { g.sample_and_mark_legal(s, bits, rng); }) {
        return g.sample_and_mark_legal(s, bits, rng);
      } else {
        std::fill(bits, bits + kWords, uint64_t{0});
        ActionList<G::kMaxActions> legal;
        g.legal_actions(s, legal);
        set_bits(legal, bits);
        if (legal.empty()) return kNoAction;
        return legal[static_cast<int>(rng.uniform(static_cast<uint32_t>(legal.size())))];
      }
    }

    // One byte (0/1) per action from the bitset. Small action spaces: one masked store with
    // AVX-512, else a word expanded inline; larger ones: the widest writer this CPU has
    // (byte_mask.h).
    MEEPLE_ALWAYS_INLINE void write_mask(const uint64_t* bits, uint8_t* mask) const {
      if constexpr (G::kMaxActions <= 64) {
        if (write_small_mask)
          write_small_mask(bits, mask, actions_size);
        else if (actions_size == G::kMaxActions)
          byte_mask::expand_word(bits[0], mask, G::kMaxActions);
        else
          byte_mask::expand_word(bits[0], mask, actions_size);
      } else {
        write_wide_mask(bits, mask, actions_size);
      }
    }
  };

  Slots slots(const Buffers& b, uint64_t clock) {
    return {*game_, states_.data(), final_states_.data(), rngs_.data(), episodes_.data(), started_at_.data(),
            legal_bits_.data(), next_random_.data(), group_.data(), actions_.data(), b,
            seed_, clock, players_, obs_size_, actions_size_, mask_row_, observe_, mark_, packed_,
            write_wide_mask_, write_small_mask_};
  }

  // A row of a few floats set to 0 by plain stores (a fill loop becomes a memset call per slot).
  static void zero_row(float* row, int n) {
    if (n == 2) {  // most games: one predictable test instead of a jump
      row[0] = row[1] = 0.0f;
      return;
    }
    switch (n) {
      case 4: row[3] = 0.0f; [[fallthrough]];
      case 3: row[2] = 0.0f; [[fallthrough]];
      case 2: row[1] = 0.0f; [[fallthrough]];
      case 1: row[0] = 0.0f; return;
      default: std::fill(row, row + n, 0.0f);
    }
  }

  // ORs the listed actions into the bitset. Games list actions in ascending order, so each word
  // is gathered in a register and stored once (a read-modify-write of memory per action would
  // chain every action on the one before through store forwarding).
  static void set_bits(const ActionList<G::kMaxActions>& legal, uint64_t* bits) {
    if (legal.empty()) return;
    int word = legal[0] >> 6;
    uint64_t gathered = 0;
    for (Action a : legal) {
      if ((a >> 6) != word) {
        bits[word] |= gathered;
        gathered = 0;
        word = a >> 6;
      }
      gathered |= uint64_t{1} << (a & 63);
    }
    bits[word] |= gathered;
  }

  std::shared_ptr<const G> game_;
  uint64_t seed_;
  bool observe_;  // false: observations stay 0 (rollouts and search need none)
  bool mark_;     // false: masks stay 0 and no bitsets are kept (random rollouts need neither;
                  // steps are still checked, see read_actions)
  bool packed_;   // masks as packed bits (mask_row_ = ceil(actions / 8) bytes a row)
  byte_mask::Writer write_wide_mask_ = byte_mask::best_writer();
  byte_mask::Writer write_small_mask_ = byte_mask::small_row_writer();  // null: expand_word
  ThreadPool pool_;
  std::atomic<bool> busy_{false};  // a step or reset is running (Exclusive)
  std::vector<State> states_;
  std::vector<State> final_states_;  // each slot's last finished game, as it ended (final_state)
  std::vector<uint64_t> episodes_;  // games started in each slot since the last reset
  // Counted off the hot path, for game_seed and final_state: the episode a game set_state put in
  // replaced (0: none; a new game starts the next episode), and the games new_game cut short.
  std::vector<uint64_t> placed_in_;
  std::vector<uint64_t> cut_;
  // elapsed_steps, also off the hot path: the steps since the last reset, and the step each slot's
  // game started at (a store a game, not a count a step).
  uint64_t steps_ = 0;
  std::vector<uint64_t> started_at_;
  std::vector<Rng> rngs_;
  std::vector<int32_t> next_random_;
  py::array_t<int32_t> fresh_random_;  // the step's random actions until handed over, then null
  std::vector<Action> actions_;  // the actions of the step being applied
  // The legal actions published for each slot, kept privately (the numpy mask is the user's to
  // overwrite): validating a step is a bit test instead of a legality check. Empty with
  // masks=False.
  static constexpr size_t kWords = (G::kMaxActions + 63) / 64;
  std::vector<uint64_t> legal_bits_;
  // Games whose plies take very different paths (Imperial Harvest: by phase and character) are
  // stepped grouped by G::vector_group(state) < 256, in slot order within a group: consecutive
  // slots then take the same branches, which the predictor learns; in slot order it sees
  // unrelated games in turn (1024 Imperial Harvest games interleaved one ply at a time: 122 ns a
  // ply in slot order, 110 grouped, 105 for one game played out). Which thread steps which slot,
  // and in what order, never changes a result: each slot has its own state and generator.
  static constexpr bool kGrouped = GroupedStepping<G>;
  std::vector<uint8_t> group_;   // kGrouped: the group of each slot's state as published
  std::vector<int32_t> order_;   // kGrouped: the slots in the order of the step being applied

  // order_ = the slots sorted by group_ (counting sort, stable: slot order within a group). Only
  // for steps run on one thread: threads stepping grouped slots write neighbouring rows of the
  // outputs at once (false sharing), and on 2 threads grouping lost more than it gained (Imperial
  // Harvest: 0.70-0.78 of native instead of about 0.85, sorted whole or per thread's share).
  void order_by_group() { meeple::order_by_group(group_.data(), size(), order_.data()); }
  int players_ = 0, obs_size_ = 0, actions_size_ = 0, mask_row_ = 0;
  py::array_t<float> observations_;
  py::array_t<uint8_t> masks_;
  py::array_t<float> rewards_;
  py::array_t<bool> terminated_;
  py::array_t<int32_t> current_player_;
};

// A VectorGame slot number: an int in -size..size-1, negative from the end (IndexError out of
// range, TypeError for others).
template <class V>
int64_t slot_index(const V& v, const py::handle& index) {
  long long i = 0;
  if (!int_value(index, "state index", i) || i < -v.size() || i >= v.size())
    throw py::index_error("state index must be in " + std::to_string(-v.size()) + ".." + std::to_string(v.size() - 1) +
                          " (negative: from the end), got " + py::repr(index).cast<std::string>());
  return i < 0 ? i + v.size() : i;
}

// A Python function as MCTS's evaluator (PUCT; meeple.bots.MCTS(evaluator=...)), called with the
// GIL held (such a search keeps it: it runs on one thread) with copies of the leaf states: one
// state at a time, or (`batched`) a list of them. Its first failure (an exception of its own, or
// a result of the wrong form) is kept to be raised when the search has stopped; until then it
// answers uniform priors and zero values.
template <GameEngine G, class StateWrapper>
struct PythonEvaluator {
  PythonEvaluator(std::shared_ptr<const G> of, py::object evaluate, bool in_batches)
      : game(std::move(of)), function(std::move(evaluate)), batched(in_batches),
        asarray(py::module_::import("numpy").attr("asarray")) {}

  std::shared_ptr<const G> game;
  py::object function;
  bool batched;
  py::object asarray;
  std::exception_ptr error;

  void operator()(MctsLeaf<G>* const* leaves, int count) {
    if (!error) {
      try {
        if (batched) {
          py::list states(count);
          for (int k = 0; k < count; ++k) states[k] = py::cast(StateWrapper{game, leaves[k]->state});
          read(function(states), leaves, count);
        } else {
          for (int k = 0; k < count; ++k) read(function(StateWrapper{game, leaves[k]->state}), leaves + k, 1);
        }
        return;
      } catch (...) {
        // CPython before 3.14 ends a daemon thread that takes the GIL back during shutdown by
        // unwinding it (pthread_exit, after the exit handlers, so exit_pending() is true). A
        // handler that swallowed that would abort the process, and one that names its type
        // binds a null reference (UBSan). Like ReleasedGil (gil.h), wait here for the end.
        if (exit_pending()) wait_for_exit();
        error = std::current_exception();
      }
    }
    for (int k = 0; k < count; ++k) {
      MctsLeaf<G>& leaf = *leaves[k];
      std::fill(leaf.priors, leaf.priors + leaf.legal.size(), 1.0 / leaf.legal.size());
      std::fill(leaf.values, leaf.values + game->num_players(), 0.0);
    }
  }

 private:
  // `rows` (batched) or one row (not) of `size` finite real numbers from `value` (a numpy array, a
  // list...), else an error naming `what`. np.asarray first: an error of the conversion itself (a
  // tensor that needs .detach() first, say) reaches the user as it was raised.
  py::array_t<double> numbers(const py::handle& value, const char* what, int rows, int size,
                              const char* size_name) const {
    const py::array given = asarray(value);
    const char kind = given.dtype().kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')  // complex, object, str...: no silent cast
      throw py::type_error(std::string("the evaluator's ") + what + " must be real numbers, got " +
                           Py_TYPE(value.ptr())->tp_name + " of dtype " + py::str(given.dtype()).cast<std::string>());
    auto array = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(given);
    if (!array) throw py::error_already_set();
    const bool right = batched ? array.ndim() == 2 && array.shape(0) == rows && array.shape(1) == size
                               : array.ndim() == 1 && array.shape(0) == size;
    if (!right)
      throw py::value_error(std::string("the evaluator's ") + what + " must have shape " +
                            (batched ? "(len(states), " + std::string(size_name) + ") = (" + std::to_string(rows) + ", "
                                     : "(" + std::string(size_name) + ",) = (") +
                            std::to_string(size) + (batched ? ")" : ",)") + ", got " +
                            py::str(py::getattr(array, "shape")).cast<std::string>());
    const double* data = array.data();
    for (int64_t k = 0; k < static_cast<int64_t>(rows) * size; ++k)
      if (!std::isfinite(data[k]))
        throw py::value_error(std::string("the evaluator's ") + what + " must be finite, got " +
                              std::to_string(data[k]) + " at index " + index_text(k, size));
    return array;
  }

  std::string index_text(int64_t k, int size) const {
    return batched ? "[" + std::to_string(k / size) + ", " + std::to_string(k % size) + "]" : std::to_string(k);
  }

  void read(const py::object& result, MctsLeaf<G>* const* leaves, int count) const {
    if (!py::isinstance<py::tuple>(result) && !py::isinstance<py::list>(result))
      throw py::type_error(std::string("the evaluator must return (priors, values), got ") +
                           Py_TYPE(result.ptr())->tp_name);
    if (py::len(result) != 2)
      throw py::value_error("the evaluator must return (priors, values), got " + std::to_string(py::len(result)) +
                            " items");
    const py::sequence pair = result;
    const int actions = game->num_distinct_actions(), players = game->num_players();
    const py::array_t<double> p = numbers(pair[0], "priors", count, actions, "num_distinct_actions()");
    const py::array_t<double> v = numbers(pair[1], "values", count, players, "num_players()");
    // Expected returns: a bound far above any game's, and far below where the search's sums of
    // values over visits would overflow to inf (finite 1e308s made NaN statistics).
    constexpr double kMaxValue = 1e100;
    for (int64_t k = 0; k < static_cast<int64_t>(count) * players; ++k)
      if (std::abs(v.data()[k]) > kMaxValue)
        throw py::value_error("the evaluator's values must be expected returns of magnitude at most 1e100, got " +
                              py::repr(py::float_(v.data()[k])).cast<std::string>() + " at index " +
                              index_text(k, players));
    for (int64_t k = 0; k < static_cast<int64_t>(count) * actions; ++k)
      if (p.data()[k] < 0)
        throw py::value_error("the evaluator's priors must be >= 0 (probabilities, not logits), got " +
                              std::to_string(p.data()[k]) + " for action " + std::to_string(k % actions) +
                              (batched ? " of state " + std::to_string(k / actions) : ""));
    for (int j = 0; j < count; ++j) {
      MctsLeaf<G>& leaf = *leaves[j];
      const double* given = p.data() + static_cast<int64_t>(j) * actions;
      // Renormalised over the legal actions, scaled by the largest first (a sum of huge priors
      // would overflow); none above 0 means uniform.
      double top = 0;
      for (Action a : leaf.legal) top = std::max(top, given[a]);
      double sum = 0;
      for (int k = 0; k < leaf.legal.size(); ++k) sum += leaf.priors[k] = top > 0 ? given[leaf.legal[k]] / top : 1.0;
      for (int k = 0; k < leaf.legal.size(); ++k) leaf.priors[k] /= sum;
      std::copy(v.data() + static_cast<int64_t>(j) * players, v.data() + static_cast<int64_t>(j + 1) * players,
                leaf.values);
    }
  }
};

// A root for the search: a state of game g (check_state_of) at a decision of a game not over.
// `which` begins the message ("states[3]: ").
template <class Traits, class G, class StateWrapper>
void check_root(const G& g, const StateWrapper& s, const std::string& which) {
  check_state_of<Traits>(g, s);
  if (g.is_terminal(s.state)) throw py::value_error(which + "the game is over: nothing to search");
  if (g.is_chance_node(s.state))
    throw py::value_error(which + "the state is a chance node: the search chooses players' actions only");
}

// The settings of _mcts and _mcts_many, checked (meeple.bots.MCTS checked them first, with the
// same limits: these are for callers of the private functions).
inline MctsConfig mcts_config(const py::object& simulations, const py::object& threads, double exploration,
                              const py::object& evaluator, const py::object& batch, double noise_alpha,
                              double noise_fraction) {
  if (!(exploration >= 0) || !std::isfinite(exploration)) throw py::value_error("c must be a finite number >= 0");
  MctsConfig config;
  config.simulations =
      static_cast<int>(int_argument(simulations, "simulations", 1, std::numeric_limits<int32_t>::max()));
  config.threads = threads_argument(threads);
  config.exploration = exploration;
  if (evaluator.is_none()) return config;
  // Python runs at every leaf: the search keeps the GIL, on this thread alone (a second thread
  // would wait for the GIL that this one holds while it waits for that thread).
  if (config.threads != 1) throw py::value_error("an evaluator searches on one thread: threads must be 1");
  if (!PyCallable_Check(evaluator.ptr()))
    throw py::type_error(std::string("evaluator must be callable, got ") + Py_TYPE(evaluator.ptr())->tp_name);
  // batch None: the evaluator takes one state; an int: a list of up to that many (a tree's)
  config.batch = batch.is_none() ? 1 : static_cast<int>(int_argument(batch, "batch", 1, 1 << 20));
  if (!(noise_alpha > 0) || !std::isfinite(noise_alpha))
    throw py::value_error("dirichlet_alpha must be a finite number > 0");
  if (!(noise_fraction >= 0 && noise_fraction <= 1))
    throw py::value_error("dirichlet_fraction must be a number in [0, 1]");
  config.noise_alpha = noise_alpha;
  config.noise_fraction = noise_fraction;
  return config;
}

// `search(stop, evaluator)` with `evaluator` (Python) on this thread, the GIL held; an error of
// the evaluator stops the search and is raised here.
template <GameEngine G, class StateWrapper, class Search>
auto guided_search(std::shared_ptr<const G> game, const py::object& evaluator, const py::object& batch,
                   PythonInterrupt& interrupt, Search&& search) {
  PythonEvaluator<G, StateWrapper> guide(std::move(game), evaluator, !batch.is_none());
  PythonCallingComputation computation;
  // exit_pending() at every round: at exit the search must stop before shutdown begins (gil.h)
  const auto stop = [&](int thread) { return guide.error != nullptr || exit_pending() || interrupt(thread); };
  auto result = search(stop, &guide);
  if (exit_pending()) computation.stop_for_exit();  // a daemon thread: no result, no error to raise
  if (guide.error) std::rethrow_exception(guide.error);
  return result;
}

// The trees of the searches of _mcts and _mcts_many, in slots: roots[i]'s search grows the trees
// of slot places[i], seeded by seeds[i] (derive_seed(seeds[i], t) for thread t, as mcts_search
// seeds them). With an evaluator, the slots' trees grow in lockstep on this thread
// (mcts_search_many_trees); without, UCT (mcts_search_trees) root after root with the GIL
// released, config.threads trees each. Ctrl-C is raised here.
//
// A search keeps its trees for the next one when `keep` (an MCTS bot with reuse_tree=True holds
// such an object): root i's search then goes on from the subtree of slot i's last search where
// that is exact (MctsTree::reroot); the slots no root was given (a place of search_many's list
// left empty: a game over, say) are emptied. Only a complete search is kept: one stopped by Ctrl-C or by
// its evaluator's error is dropped. One search at a time: another meanwhile (from another Python
// thread, or from inside its evaluator) is refused.
template <GameEngine G, class StateWrapper>
struct KeptTrees {
  using State = typename G::State;
  using UctTree = MctsTree<G>;
  using GuidedTree = MctsTree<G, PythonEvaluator<G, StateWrapper>>;

  struct Slot {
    std::optional<State> root;  // the position of its last complete search
    std::vector<UctTree> uct;
    std::vector<GuidedTree> guided;
    int64_t reused = 0;  // its last search's root visits kept from the search before
  };

  KeptTrees(std::shared_ptr<const G> g, bool kept) : game(std::move(g)), keep(kept) {}

  std::shared_ptr<const G> game;
  bool keep;
  std::vector<Slot> slots;
  bool searching = false;  // read and written with the GIL held

  std::vector<MctsResult> search(const std::vector<State>& roots, const std::vector<size_t>& places, size_t count,
                                 const std::vector<uint64_t>& seeds, const MctsConfig& config,
                                 const py::object& evaluator, const py::object& batch) {
    if (searching)
      throw py::value_error("this MCTS bot (reuse_tree=True) is searching already: it searches one position at "
                            "a time (not from another thread, nor from its evaluator)");
    searching = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } done{searching};
    const bool is_guided = !evaluator.is_none();
    std::vector<Slot> given(count);
    for (size_t place : places)
      if (place < slots.size()) std::swap(given[place], slots[place]);
    slots.swap(given);  // the slots of places without a root are dropped
    std::vector<std::optional<State>> previous(roots.size());  // a slot's root is set again once complete
    for (size_t i = 0; i < roots.size(); ++i) {
      Slot& slot = slots[places[i]];
      previous[i].swap(slot.root);
      const size_t trees = is_guided ? 1 : static_cast<size_t>(config.threads);
      if ((is_guided ? slot.guided.size() : slot.uct.size()) == trees) continue;
      previous[i].reset();  // other trees than last time: start over
      slot.uct.clear();
      slot.guided.clear();
      for (size_t t = 0; t < trees; ++t)
        if (is_guided) slot.guided.emplace_back(*game, config, 0);
        else slot.uct.emplace_back(*game, config, 0);
    }
    PythonInterrupt interrupt;
    std::vector<MctsResult> results;
    if (is_guided) {
      results = guided_search<G, StateWrapper>(game, evaluator, batch, interrupt, [&](auto& stop, auto* guide) {
        std::vector<GuidedTree*> trees;
        for (size_t i = 0; i < roots.size(); ++i) {
          Slot& slot = slots[places[i]];
          slot.reused = prepare(slot.guided, previous[i], roots[i], seeds[i], config, guide);
          trees.push_back(&slot.guided[0]);
        }
        return mcts_search_many_trees(trees.data(), roots.data(), static_cast<int>(roots.size()), stop);
      });
    } else {
      ReleasedGil release;
      for (size_t i = 0; i < roots.size() && !interrupt(0); ++i) {
        Slot& slot = slots[places[i]];
        slot.reused = prepare(slot.uct, previous[i], roots[i], seeds[i], config, static_cast<NoEvaluator*>(nullptr));
        results.push_back(mcts_search_trees(slot.uct, roots[i], interrupt));
        if (!keep) slot.uct.clear();  // memory back at once (many roots of large searches)
      }
    }
    interrupt.raise_if_interrupted();
    if (keep)
      for (size_t i = 0; i < roots.size(); ++i) slots[places[i]].root = roots[i];
    return results;
  }

 private:
  // A slot's trees prepared for the search of `root`, from its subtree where they hold it (after a
  // search from `previous`): the root visits they keep.
  template <class Tree, class Evaluator>
  static int64_t prepare(std::vector<Tree>& trees, const std::optional<State>& previous, const State& root,
                         uint64_t seed, const MctsConfig& config, Evaluator* evaluator) {
    int64_t reused = 0;
    for (size_t t = 0; t < trees.size(); ++t) {
      trees[t].prepare(config, derive_seed(seed, t), evaluator);
      if (previous) reused += trees[t].reroot(*previous, root);
    }
    return reused;
  }
};

// (best action, visits, values, priors): values the mean return of the root's mover, visited
// actions only; priors PUCT's only (`guided`).
inline py::tuple result_tuple(const MctsResult& result, bool guided) {
  py::dict visits, values, priors;
  for (const MctsRootEdge& edge : result.root) {
    visits[py::int_(edge.action)] = edge.visits;
    if (edge.visits > 0) values[py::int_(edge.action)] = edge.value / static_cast<double>(edge.visits);
    if (guided) priors[py::int_(edge.action)] = edge.prior;
  }
  return py::make_tuple(result.best, visits, values, priors);
}

// The searches of _mcts and _mcts_many: in `kept` (a game's _mcts_trees(), kept for the next
// search), or None: in new trees, dropped after.
template <class Kept, GameEngine G>
std::vector<MctsResult> search_in(const std::shared_ptr<G>& game, const py::object& kept,
                                  const std::vector<typename G::State>& roots, const std::vector<size_t>& places,
                                  size_t count, const std::vector<uint64_t>& seeds, const MctsConfig& config,
                                  const py::object& evaluator, const py::object& batch) {
  if (kept.is_none()) return Kept(game, false).search(roots, places, count, seeds, config, evaluator, batch);
  Kept& trees = kept.cast<Kept&>();
  if (trees.game != game) throw py::value_error("kept: the trees of another game");
  return trees.search(roots, places, count, seeds, config, evaluator, batch);
}

template <GameEngine G, class Traits, class StateWrapper, class GameClass, class StateClass>
void bind_search(py::module_& m, const std::string& prefix, GameClass& game_class,
                 StateClass& /*state_class*/) {
  using V = VectorEnv<G>;
  using Kept = KeptTrees<G, StateWrapper>;
  py::class_<Kept>(m, (prefix + "MctsTrees").c_str())
      .def_property_readonly("reused", [](const Kept& kept) {
        std::vector<int64_t> reused;
        for (const auto& slot : kept.slots) reused.push_back(slot.reused);
        return reused;
      })
      .def_readonly("searching", &Kept::searching)
      .def("clear", [](Kept& kept) {
        if (kept.searching) throw py::value_error("the trees are being searched: clear them after the search");
        kept.slots.clear();
      });
  py::class_<V>(m, (prefix + "Vector").c_str())
      .def("size", &V::size)
      .def("reset", [](V& v, const py::object& seed) {
             if (seed.is_none()) return v.reset();
             const uint64_t value = seed.cast<uint64_t>();  // meeple.VectorGame.reset checked it
             v.reset(&value);
           }, py::arg("seed") = py::none())
      .def("step", &V::step, py::arg("actions"))
      .def("random_actions", &V::random_actions)
      .def_property_readonly("observations", &V::observations)
      .def_property_readonly("masks", &V::masks)
      .def_property_readonly("rewards", &V::rewards)
      .def_property_readonly("terminated", &V::terminated)
      .def_property_readonly("current_player", &V::current_player)
      .def_property_readonly("threads", &V::threads)
      .def("state", [](const V& v, py::object index) {
        return StateWrapper{v.game(), v.state(slot_index(v, index))};
      })
      .def("final_state", [](const V& v, py::object index) -> py::object {
        const typename G::State* s = v.final_state(slot_index(v, index));
        if (!s) return py::none();
        return py::cast(StateWrapper{v.game(), *s});
      })
      .def("game_seed", [](const V& v, py::object index) { return v.game_seed(slot_index(v, index)); })
      .def("elapsed_steps", &V::elapsed_steps)
      // Every index is checked before any slot changes.
      .def("new_games", [](V& v, const py::sequence& indices) {
        std::vector<int64_t> starting;
        starting.reserve(indices.size());
        for (const py::handle& index : indices) starting.push_back(slot_index(v, index));
        v.new_games(std::move(starting));
      })
      // meeple.VectorGame.set_state checks the state first, against its game attribute; the
      // engine checks it again against the game it was built with, whose tables
      // and sizes it reads the state with.
      .def("set_state", [](V& v, py::object index, const StateWrapper& s) {
        check_state_of<Traits>(*v.game(), s);
        v.set_state(slot_index(v, index), s.state);
      }, py::arg("i"), py::arg("state"));

  game_class
      .def(
          "_vector",
          [](const std::shared_ptr<G>& g, py::object n, uint64_t seed, py::object threads, bool observe,
             bool mark, bool packed, const std::vector<int64_t>& observation_shape) {
            return std::make_unique<V>(g, int_argument(n, "n", 1, std::numeric_limits<int32_t>::max()), seed,
                                       threads_argument(threads), observe, mark, packed, observation_shape);
          },
          py::arg("n"), py::arg("seed") = 0, py::arg("threads") = 1, py::arg("observations") = true,
          py::arg("masks") = true, py::arg("packed") = false, py::arg("observation_shape") = std::vector<int64_t>{})
      // meeple.VectorGame.record checked the seed and that the actions are ints.
      .def("_vector_replay", [](const G& g, uint64_t seed, const std::vector<Action>& actions) {
        return V::replay(g, seed, actions);
      }, py::arg("seed"), py::arg("actions"))
      .def(
          "_mcts",
          [](const std::shared_ptr<G>& game, const StateWrapper& s, py::object simulations, py::object threads,
             uint64_t seed, double exploration, py::object evaluator, py::object batch, double noise_alpha,
             double noise_fraction, py::object kept) {
            check_root<Traits>(*game, s, "");
            const MctsConfig config =
                mcts_config(simulations, threads, exploration, evaluator, batch, noise_alpha, noise_fraction);
            // a copy of the state: another Python thread may change s meanwhile
            const std::vector<MctsResult> results =
                search_in<Kept>(game, kept, {s.state}, {0}, 1, {seed}, config, evaluator, batch);
            return result_tuple(results.at(0), !evaluator.is_none());
          },
          py::arg("state"), py::arg("simulations"), py::arg("threads") = 1, py::arg("seed") = 0,
          py::arg("c") = 1.4, py::arg("evaluator") = py::none(), py::arg("batch") = py::none(),
          py::arg("dirichlet_alpha") = 0.3, py::arg("dirichlet_fraction") = 0.0, py::arg("kept") = py::none())
      .def("_mcts_trees", [](const std::shared_ptr<G>& game) { return std::make_unique<Kept>(game, true); })
      .def(
          "_mcts_many",
          [](const std::shared_ptr<G>& game, const py::sequence& states, py::object simulations,
             py::object threads, const std::vector<uint64_t>& seeds, double exploration, py::object evaluator,
             py::object batch, double noise_alpha, double noise_fraction, py::object kept) {
            // None: an empty place (reuse_tree: its trees are dropped), which gets None back
            std::vector<typename G::State> roots;  // copies: another Python thread may change the states
            std::vector<size_t> places;
            const size_t count = static_cast<size_t>(py::len(states));
            for (size_t i = 0; i < count; ++i) {
              const py::object item = states[i];  // owned: a sequence may make its items as asked
              if (item.is_none()) continue;
              if (!py::isinstance<StateWrapper>(item))
                throw py::type_error("states[" + std::to_string(i) + "] is " + Py_TYPE(item.ptr())->tp_name +
                                     ", not a state of this game (nor None)");
              const StateWrapper& s = item.cast<const StateWrapper&>();
              check_root<Traits>(*game, s, "states[" + std::to_string(i) + "]: ");
              roots.push_back(s.state);
              places.push_back(i);
            }
            if (roots.size() != seeds.size())
              throw py::value_error("one seed a state: got " + std::to_string(seeds.size()) + " seeds for " +
                                    std::to_string(roots.size()) + " states");
            const MctsConfig config =
                mcts_config(simulations, threads, exploration, evaluator, batch, noise_alpha, noise_fraction);
            const std::vector<MctsResult> results =
                search_in<Kept>(game, kept, roots, places, count, seeds, config, evaluator, batch);
            py::list out;  // None where no state was given
            for (size_t i = 0; i < count; ++i) out.append(py::none());
            for (size_t i = 0; i < results.size(); ++i)
              out[places[i]] = result_tuple(results[i], !evaluator.is_none());
            return out;
          },
          py::arg("states"), py::arg("simulations"), py::arg("threads"), py::arg("seeds"), py::arg("c") = 1.4,
          py::arg("evaluator") = py::none(), py::arg("batch") = py::none(), py::arg("dirichlet_alpha") = 0.3,
          py::arg("dirichlet_fraction") = 0.0, py::arg("kept") = py::none());
}

}  // namespace meeple::bindings
