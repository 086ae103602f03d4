// The one Python protocol, bound once for every game engine (see docs/protocol.md).
//
// A game binding supplies a `Traits` struct:
//   static constexpr const char* kName;                 // "abacuachego"
//   static py::dict parameters(const G&);              // every parameter with its value
//   static py::dict state_to_dict(const G&, const State&);
//   static State state_from_dict(const G&, const py::dict&);   // throws ValueError
// and the template below binds Game + State with every protocol method. Game-specific extras are
// added to the returned class objects by the caller.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../common/game_concept.h"
#include "bind_search.h"
#include "interrupt.h"

namespace meeple::bindings {

namespace py = pybind11;

// A state as Python sees it: the plain engine state plus the game it belongs to (shared, never
// copied, so cloning a state copies only the plain struct).
template <GameEngine G>
struct PyState {
  std::shared_ptr<const G> game;
  typename G::State state;
};

// Converts an int or numpy integer to an action; rejects bool, float, str with TypeError.
inline long to_action_number(const py::handle& value) {
  if (PyLong_CheckExact(value.ptr())) {
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(value.ptr(), &overflow);
    return overflow ? -1 : v;
  }
  if (!is_int(value))
    throw py::type_error(std::string("an action must be an int, got ") +
                         Py_TYPE(value.ptr())->tp_name);
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long v = PyLong_AsLongAndOverflow(index.ptr(), &overflow);
  return overflow ? -1 : v;
}

// None -> 0; an int in 0..2**64-1 -> itself; anything else raises.
inline uint64_t to_seed(const py::handle& seed) {
  if (seed.is_none()) return 0;
  if (!is_int(seed))
    throw py::type_error("seed must be an int in 0..2**64-1 or None");
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(seed.ptr()));
  if (!index) throw py::error_already_set();
  const unsigned long long value = PyLong_AsUnsignedLongLong(index.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("seed must be an int in 0..2**64-1, got " +
                          py::repr(seed).cast<std::string>());
  }
  return value;
}

template <GameEngine G>
void legal_list(const G& game, const typename G::State& s, std::vector<Action>& out) {
  out.clear();
  if (game.is_terminal(s)) return;
  if constexpr (G::kMaxChanceOutcomes > 0) {
    if (game.is_chance_node(s)) {
      FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
      game.chance_outcomes(s, outcomes);
      for (const ChanceOutcome& o : outcomes) out.push_back(o.outcome);
      return;
    }
  }
  ActionList<G::kMaxActions> actions;
  game.legal_actions(s, actions);
  out.assign(actions.begin(), actions.end());
  std::sort(out.begin(), out.end());
}

template <class T>
py::array_t<T> to_numpy(const T* data, size_t n) {
  py::array_t<T> array(static_cast<py::ssize_t>(n));
  if (n) std::memcpy(array.mutable_data(), data, n * sizeof(T));
  return array;
}

template <GameEngine G>
bool is_legal_anywhere(const G& game, const typename G::State& s, Action a) {
  if constexpr (G::kMaxChanceOutcomes > 0) {
    if (game.is_chance_node(s)) {
      FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
      game.chance_outcomes(s, outcomes);
      for (const ChanceOutcome& o : outcomes)
        if (o.outcome == a) return true;
      return false;
    }
  }
  return game.is_legal(s, a);
}

template <GameEngine G, class Traits>
std::string illegal_action_message(const G& game, const typename G::State& s,
                                   const py::handle& given) {
  const std::string a = py::repr(given).cast<std::string>();
  std::ostringstream out;
  if (game.is_terminal(s)) {
    out << "the game is over: no action is legal (got " << a << ")";
    return out.str();
  }
  std::vector<Action> legal;
  legal_list(game, s, legal);
  const bool chance = game.is_chance_node(s);
  out << "illegal " << (chance ? "chance outcome " : "action ") << a << " in " << Traits::kName
      << "; legal: ";
  for (size_t i = 0; i < legal.size(); ++i) {
    if (i) out << ", ";
    out << legal[i];
    if (!chance) out << " (" << game.action_to_string(s, legal[i]) << ")";
  }
  return out.str();
}

// `given` as an action of `s` (a chance outcome at a chance node); ValueError naming the legal
// ones if it is not one, before anything is changed.
template <GameEngine G, class Traits>
Action checked_action(const G& game, const typename G::State& s, const py::handle& given) {
  const long a = to_action_number(given);
  if (a < 0 || a > INT32_MAX || !is_legal_anywhere(game, s, static_cast<Action>(a)))
    throw py::value_error(illegal_action_message<G, Traits>(game, s, given));
  return static_cast<Action>(a);
}

template <GameEngine G, class Traits>
void check_player(const G& game, int player) {
  if (player < 0 || player >= game.num_players())
    throw py::value_error("player must be in 0.." + std::to_string(game.num_players() - 1) +
                          ", got " + std::to_string(player));
}

// Plays `n` uniformly random games, game i seeded by derive_seed(seed, i) for both the state and
// the action choices, so results do not depend on `threads`: from the game's initial state, or
// from a copy of `root` when given (its implicit chance reseeded by that seed: a determinisation,
// as each MCTS simulation draws one). Fills returns[n][players] and lengths[n] (the actions
// applied), unless `stop` ends it early.
template <GameEngine G, class Stop>
void random_playouts(const G& game, const typename G::State* root, int64_t n, uint64_t seed, int threads,
                     double* returns, int64_t* lengths, Stop& stop) {
  const int players = game.num_players();
  auto run = [&](int64_t begin, int64_t end, int thread) {
    for (int64_t i = begin; i < end && !stop(thread); ++i) {
      const uint64_t game_seed = derive_seed(seed, static_cast<uint64_t>(i));
      typename G::State s = root ? *root : game.initial_state(game_seed);
      if constexpr (ReseedsChance<G>)
        if (root) game.reseed(s, game_seed);
      Rng rng(game_seed ^ 0x5DEECE66Dull);
      lengths[i] = random_playout(game, s, rng);
      game.returns(s, returns + i * players);
    }
  };
  threads = std::max(1, static_cast<int>(std::min<int64_t>(threads, std::max<int64_t>(n, 1))));
  const int64_t chunk = (n + threads - 1) / threads;
  run_on_threads(threads, [&](int t) { run(std::min(n, t * chunk), std::min(n, (t + 1) * chunk), t); });
}

// Benchmark diagnostic: n random games played one ply at a time in turn (slot 0, 1, ..., n - 1,
// grouped by vector_group where the game has one, `rounds` times), a finished game replaced at
// once: VectorGame's order of work on one thread with none of its outputs, checks or threads.
// Its rate over random_playouts' bounds VectorGame's: what stepping many unrelated games in
// lockstep costs by itself (their states share the caches, and their branches the predictor's
// history). Returns the plies played.
template <GameEngine G>
int64_t interleaved_playouts(const G& game, int64_t n, int64_t rounds, uint64_t seed) {
  std::vector<typename G::State> states(static_cast<size_t>(n));
  std::vector<Rng> rngs(static_cast<size_t>(n));
  std::vector<uint64_t> episodes(static_cast<size_t>(n), 0);
  auto start = [&](int64_t i) {
    const uint64_t slot_seed = derive_seed(seed, static_cast<uint64_t>(i));
    const uint64_t game_seed = derive_seed(slot_seed, episodes[static_cast<size_t>(i)]++);
    states[static_cast<size_t>(i)] = game.initial_state(game_seed);
    rngs[static_cast<size_t>(i)] = Rng(game_seed ^ 0x5DEECE66Dull);
  };
  // In VectorGame's order on one thread: grouped by vector_group where the game has one, each
  // state's group noted when it is reached (as VectorGame notes it when it publishes the state).
  constexpr bool grouped = GroupedStepping<G>;
  std::vector<int32_t> order(grouped ? static_cast<size_t>(n) : 0);
  std::vector<uint8_t> group(grouped ? static_cast<size_t>(n) : 0);
  auto note_group = [&](int64_t i) {
    if constexpr (grouped) group[static_cast<size_t>(i)] = game.vector_group(states[static_cast<size_t>(i)]);
  };
  for (int64_t i = 0; i < n; ++i) start(i), note_group(i);
  for (int64_t r = 0; r < rounds; ++r) {
    if constexpr (grouped) order_by_group(group.data(), n, order.data());
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = grouped ? order[static_cast<size_t>(k)] : k;
      typename G::State& s = states[static_cast<size_t>(i)];
      game.apply_action(s, sample_action(game, s, rngs[static_cast<size_t>(i)]));
      if (game.is_terminal(s)) start(i);
      note_group(i);
    }
  }
  return n * rounds;
}

// The per-move calls of a Python search loop (current_player, is_terminal, legal_actions,
// apply_action, ...) as plain CPython methods: pybind11's generic dispatcher costs more than the
// game logic behind these calls. Same behaviour and errors as the pybind11 definitions they
// replace (child and transposition_key are defined here only); everything else about the class
// stays pybind11.
template <GameEngine G, class Traits>
struct FastStateMethods {
  using S = PyState<G>;

  static S* state_of(PyObject* self) {
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    S* s = inst->simple_layout ? static_cast<S*>(inst->simple_value_holder[0]) : nullptr;
    if (!s) PyErr_SetString(PyExc_TypeError, "uninitialised meeple state");
    return s;
  }

  static PyObject* int32_array(const Action* data, Py_ssize_t n) {
    auto& api = py::detail::npy_api::get();
    PyObject* descr = api.PyArray_DescrFromType_(py::detail::npy_api::NPY_INT32_);
    if (!descr) return nullptr;
    const Py_intptr_t dims[1] = {n};
    PyObject* array =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, 1, dims, nullptr, nullptr, 0, nullptr);
    if (array && n) std::memcpy(py::detail::array_proxy(array)->data, data, n * sizeof(Action));
    return array;
  }

  // Runs `body` translating C++ exceptions into Python ones (nothing may cross the C API).
  template <class Body>
  static PyObject* guarded(Body&& body) {
    try {
      return body();
    } catch (py::error_already_set& e) {
      e.restore();
    } catch (py::builtin_exception& e) {
      e.set_error();
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
  }

  static PyObject* current_player(PyObject* self, PyObject*) {
    S* s = state_of(self);
    return s ? PyLong_FromLong(s->game->current_player(s->state)) : nullptr;
  }
  static PyObject* is_terminal(PyObject* self, PyObject*) {
    S* s = state_of(self);
    return s ? PyBool_FromLong(s->game->is_terminal(s->state)) : nullptr;
  }
  static PyObject* is_chance_node(PyObject* self, PyObject*) {
    S* s = state_of(self);
    return s ? PyBool_FromLong(s->game->is_chance_node(s->state)) : nullptr;
  }
  static PyObject* move_number(PyObject* self, PyObject*) {
    S* s = state_of(self);
    return s ? PyLong_FromLong(s->game->move_number(s->state)) : nullptr;
  }
  static PyObject* transposition_key(PyObject* self, PyObject*) {
    S* s = state_of(self);
    return s ? PyLong_FromUnsignedLongLong(state_key(s->state)) : nullptr;
  }
  static PyObject* legal_actions(PyObject* self, PyObject*) {
    S* s = state_of(self);
    if (!s) return nullptr;
    return guarded([&]() -> PyObject* {
      if constexpr (G::kMaxChanceOutcomes == 0) {
        ActionList<G::kMaxActions> actions;
        if (!s->game->is_terminal(s->state)) s->game->legal_actions(s->state, actions);
        std::sort(actions.begin(), actions.end());
        return int32_array(actions.data(), actions.size());
      } else {
        std::vector<Action> legal;
        legal_list(*s->game, s->state, legal);
        return int32_array(legal.data(), static_cast<Py_ssize_t>(legal.size()));
      }
    });
  }
  static PyObject* apply_action(PyObject* self, PyObject* action) {
    S* s = state_of(self);
    if (!s) return nullptr;
    return guarded([&]() -> PyObject* {
      s->game->apply_action(s->state, checked_action<G, Traits>(*s->game, s->state, action));
      Py_RETURN_NONE;
    });
  }

  // A new Python state holding `next` (pybind11 makes the object; only the call is plain).
  static PyObject* new_state(S&& next) { return py::cast(std::move(next)).release().ptr(); }
  static PyObject* clone(PyObject* self, PyObject*) {
    S* s = state_of(self);
    if (!s) return nullptr;
    return guarded([&]() -> PyObject* { return new_state(S{s->game, s->state}); });
  }
  static PyObject* child(PyObject* self, PyObject* action) {
    S* s = state_of(self);
    if (!s) return nullptr;
    return guarded([&]() -> PyObject* {
      const Action a = checked_action<G, Traits>(*s->game, s->state, action);
      S next{s->game, s->state};
      s->game->apply_action(next.state, a);
      return new_state(std::move(next));
    });
  }

  static void install(PyTypeObject* type) {
    static PyMethodDef methods[] = {
        {"current_player", current_player, METH_NOARGS,
         "The player to move: 0..n-1, CHANCE (-1) or TERMINAL (-4)."},
        {"is_terminal", is_terminal, METH_NOARGS, "True once the game is over."},
        {"is_chance_node", is_chance_node, METH_NOARGS, "True at a chance node."},
        {"move_number", move_number, METH_NOARGS, "Actions applied so far (chance included)."},
        {"transposition_key", transposition_key, METH_NOARGS,
         "A 64-bit int that equal states of this game share, for transposition tables (other "
         "states collide with probability about 2^-64)."},
        {"legal_actions", legal_actions, METH_NOARGS,
         "Legal actions (chance outcomes at a chance node), sorted numpy int32."},
        {"apply_action", apply_action, METH_O,
         "Plays an action; an illegal one raises ValueError and changes nothing."},
        {"clone", clone, METH_NOARGS, "An independent copy."},
        {"child", child, METH_O,
         "A new state: this one after `action` (clone + apply_action in one call); this one is "
         "unchanged. An illegal action raises ValueError."},
        {nullptr, nullptr, 0, nullptr}};
    for (PyMethodDef* m = methods; m->ml_name; ++m) {
      py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, m));
      if (!descr || PyObject_SetAttrString(reinterpret_cast<PyObject*>(type), m->ml_name,
                                           descr.ptr()) != 0)
        throw py::error_already_set();
    }
  }
};

// A state handed to one of game g's methods (perft, random_playouts): an engine state of g's
// parameters (TypeError naming what was given, or check_state_of's ValueError).
template <class Traits, GameEngine G>
const PyState<G>& state_argument(const G& g, py::handle state) {
  if (!py::isinstance<PyState<G>>(state))
    throw py::type_error(std::string("expected an engine state of ") + Traits::kName + ", got " +
                         py::str(py::type::of(state).attr("__module__")).cast<std::string>() + "." +
                         py::type::of(state).attr("__qualname__").cast<std::string>());
  const PyState<G>& s = state.cast<const PyState<G>&>();
  check_state_of<Traits>(g, s);
  return s;
}

template <GameEngine G, class Traits>
std::pair<py::class_<G, std::shared_ptr<G>>, py::class_<PyState<G>>> bind_game(
    py::module_& m, const std::string& prefix) {
  using State = typename G::State;
  using S = PyState<G>;

  py::class_<G, std::shared_ptr<G>> game_class(m, (prefix + "Game").c_str());
  py::class_<S> state_class(m, (prefix + "State").c_str());

  game_class
      .def_property_readonly("name", [](const G&) { return Traits::kName; })
      .def("parameters", [](const G& g) { return Traits::parameters(g); })
      .def("__eq__",
           [](const G& a, py::object other) -> py::object {
             if (!py::isinstance<G>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(Traits::parameters(a).equal(Traits::parameters(other.cast<const G&>())));
           })
      // __hash__ is set in Python (_protocol.install): consistent with __eq__ whatever the order
      // of a parameter dict's keys.
      .def("num_players", &G::num_players)
      .def("num_distinct_actions", &G::num_distinct_actions)
      .def("max_chance_outcomes", &G::max_chance_outcomes)
      .def("observation_shape",
           [](const G& g) { return py::make_tuple(g.observation_size()); })
      .def("max_game_length", &G::max_game_length)
      .def("min_utility", &G::min_utility, "A lower bound on the returns of a finished game (OpenSpiel's).")
      .def("max_utility", &G::max_utility,
           "An upper bound on the returns of a finished game (OpenSpiel's); solo Harmonies' 8 + bonus suns "
           "need 160 points, which random play never nears.")
      .def("utility_sum", &G::utility_sum,
           "The sum of a finished game's returns where it is the same for every game (0: zero-sum), "
           "else None (solo Harmonies).")
      .def(
          "new_initial_state",
          [](const std::shared_ptr<G>& g, py::object seed) {
            return S{g, g->initial_state(to_seed(seed))};
          },
          py::arg("seed") = py::none())
      .def(
          "state_from_dict",
          [](const std::shared_ptr<G>& g, const py::dict& d) {
            return S{g, Traits::state_from_dict(*g, d)};
          },
          py::arg("state"),
          "Builds a state from the dict `state.to_dict()` gives; raises ValueError if it is "
          "malformed or inconsistent.")
      .def(
          "perft",
          [](const G& g, py::handle state, py::object depth) {
            const S& s = state_argument<Traits>(g, state);
            const int plies = static_cast<int>(int_argument(depth, "depth", 0, g.max_game_length()));
            const typename G::State root = s.state;  // another Python thread may change s meanwhile
            PythonInterrupt interrupt;
            uint64_t nodes = 0;
            {
              ReleasedGil release;
              nodes = perft(g, root, plies, interrupt);
            }
            interrupt.raise_if_interrupted();
            return nodes;
          },
          py::arg("state"), py::arg("depth"),
          "The number of action sequences of exactly `depth` actions from `state` (explicit chance "
          "outcomes count as actions; a game over sooner counts 0): a determinism signature. Runs in "
          "C++ with the GIL released; Ctrl-C interrupts it.")
      .def(
          "random_playouts",
          [](const G& g, py::object games, py::object seed, py::object threads, py::handle state) {
            const int64_t n = int_argument(games, "n", 0, int64_t{1} << 40);  // as meeple.random_playouts
            const int workers = threads_argument(threads);
            if (seed.is_none())  // as meeple.random_playouts: a run is reproducible
              throw py::type_error("seed must be an int in 0..2**64-1, got None");
            const uint64_t game_seed = to_seed(seed);
            std::optional<typename G::State> root;  // a copy: another Python thread may change the state
            if (!state.is_none()) root = state_argument<Traits>(g, state).state;
            py::array_t<double> returns({n, static_cast<int64_t>(g.num_players())});
            py::array_t<int64_t> lengths(n);
            double* r = returns.mutable_data();
            int64_t* l = lengths.mutable_data();
            PythonInterrupt interrupt;
            {
              ReleasedGil release;
              random_playouts(g, root ? &*root : nullptr, n, game_seed, workers, r, l, interrupt);
            }
            interrupt.raise_if_interrupted();
            return py::make_tuple(returns, lengths);
          },
          py::arg("n"), py::arg("seed") = 0, py::arg("threads") = 1, py::arg("state") = py::none())
      .def(
          "_interleaved_playouts",
          [](const G& g, int64_t n, int64_t rounds, uint64_t seed) {
            if (n < 1) throw py::value_error("n must be >= 1");
            if (rounds < 0) throw py::value_error("rounds must be >= 0");
            ReleasedGil release;
            return interleaved_playouts(g, n, rounds, seed);
          },
          py::arg("n"), py::arg("rounds"), py::arg("seed") = 0);

  state_class
      .def_property_readonly("game", [](const S& s) { return std::const_pointer_cast<G>(s.game); })
      .def("current_player", [](const S& s) { return s.game->current_player(s.state); })
      .def("is_terminal", [](const S& s) { return s.game->is_terminal(s.state); })
      .def("is_chance_node", [](const S& s) { return s.game->is_chance_node(s.state); })
      .def("move_number", [](const S& s) { return s.game->move_number(s.state); })
      .def("legal_actions",
           [](const S& s) {
             if constexpr (G::kMaxChanceOutcomes == 0) {
               // Fast path: no allocation beyond the numpy array itself.
               ActionList<G::kMaxActions> actions;
               if (!s.game->is_terminal(s.state)) s.game->legal_actions(s.state, actions);
               std::sort(actions.begin(), actions.end());
               return to_numpy<int32_t>(actions.data(), actions.size());
             } else {
               std::vector<Action> legal;
               legal_list(*s.game, s.state, legal);
               return to_numpy<int32_t>(legal.data(), legal.size());
             }
           })
      .def("legal_actions_mask",
           [](const S& s) {
             const G& g = *s.game;
             const bool chance = g.is_chance_node(s.state);
             const int size = chance ? g.max_chance_outcomes() : g.num_distinct_actions();
             py::array_t<uint8_t> mask(size);
             uint8_t* m = mask.mutable_data();
             std::memset(m, 0, static_cast<size_t>(size));
             std::vector<Action> legal;
             legal_list(g, s.state, legal);
             for (Action a : legal) m[a] = 1;
             return mask;
           })
      .def(
          "apply_action",
          [](S& s, py::handle action) {
            s.game->apply_action(s.state, checked_action<G, Traits>(*s.game, s.state, action));
          },
          py::arg("action"))
      .def(
          "reseed",
          [](S& s, py::object seed) {
            if (!is_int(seed))  // None too: reseed needs a seed
              throw py::type_error("reseed needs a seed: an int in 0..2**64-1, got " +
                                   py::repr(seed).cast<std::string>());
            const uint64_t value = to_seed(seed);  // checked before anything changes
            if constexpr (ReseedsChance<G>)
              s.game->reseed(s.state, value);
          },
          py::arg("seed"),
          "Draws the chance still to come (implicit chance) from a new generator seeded by `seed`; "
          "the position is unchanged. A search determinises with it, so that clones do not "
          "replay this state's future. No effect on games or modes without implicit chance.")
      .def("clone", [](const S& s) { return S{s.game, s.state}; })
      .def("__copy__", [](const S& s) { return S{s.game, s.state}; })
      .def("__deepcopy__", [](const S& s, py::dict) { return S{s.game, s.state}; })
      .def("returns",
           [](const S& s) {
             double r[8] = {};
             s.game->returns(s.state, r);
             return to_numpy<double>(r, static_cast<size_t>(s.game->num_players()));
           })
      .def("chance_outcomes",
           [](const S& s) {
             py::list result;
             if constexpr (G::kMaxChanceOutcomes > 0) {
               if (s.game->is_chance_node(s.state)) {
                 FixedList<ChanceOutcome, G::kMaxChanceOutcomes> outcomes;
                 s.game->chance_outcomes(s.state, outcomes);
                 std::sort(outcomes.begin(), outcomes.end(),
                           [](const ChanceOutcome& a, const ChanceOutcome& b) {
                             return a.outcome < b.outcome;
                           });
                 for (const ChanceOutcome& o : outcomes)
                   result.append(py::make_tuple(o.outcome, o.probability));
               }
             }
             return result;
           })
      .def(
          "observation_tensor",
          [](const S& s, py::object player) {
            const G& g = *s.game;
            int p = 0;
            if (player.is_none()) {
              const int current = g.current_player(s.state);
              p = current >= 0 ? current : 0;
            } else {
              if (!is_int(player))
                throw py::type_error(std::string("player must be an int, got ") +
                                     Py_TYPE(player.ptr())->tp_name);
              const long number = to_action_number(player);  // -1 on overflow
              if (number < 0 || number >= g.num_players())
                throw py::value_error("player must be in 0.." + std::to_string(g.num_players() - 1) +
                                      ", got " + py::repr(player).cast<std::string>());
              p = static_cast<int>(number);
            }
            py::array_t<float> obs(g.observation_size());
            float* out = obs.mutable_data();
            std::fill(out, out + g.observation_size(), 0.0f);
            g.observation(s.state, p, out);
            return obs;
          },
          py::arg("player") = py::none())
      .def(
          "action_to_string",
          [](const S& s, py::handle action) {
            const long a = to_action_number(action);
            const G& g = *s.game;
            const int size = g.is_chance_node(s.state) ? g.max_chance_outcomes()
                                                       : g.num_distinct_actions();
            if (a < 0 || a >= size)  // the value as given: `a` is -1 for one too large for a long
              throw py::value_error("action must be in 0.." + std::to_string(size - 1) + ", got " +
                                    py::repr(action).cast<std::string>());
            return g.action_to_string(s.state, static_cast<Action>(a));
          },
          py::arg("action"))
      .def(
          "string_to_action",
          [](const S& s, py::handle given) {
            // Taken as any object: pybind11's own conversion answers bytes with an action and a
            // str it cannot encode (a lone surrogate, as from undecodable terminal input) with a
            // signature dump.
            if (!PyUnicode_Check(given.ptr()))
              throw py::type_error(std::string("action text must be a str, got ") + Py_TYPE(given.ptr())->tp_name);
            Py_ssize_t size = 0;
            const char* utf8 = PyUnicode_AsUTF8AndSize(given.ptr(), &size);
            if (!utf8) PyErr_Clear();  // not UTF-8 encodable: no action's text
            const std::string text = utf8 ? std::string(utf8, static_cast<size_t>(size)) : std::string();
            const Action a = utf8 ? s.game->string_to_action(s.state, text) : Action{-1};
            if (a < 0) {
              std::vector<Action> legal;
              legal_list(*s.game, s.state, legal);
              std::ostringstream message;
              // Quoted and escaped (a NUL copied in would end the message); str's own repr for a
              // text with no UTF-8 (a lone surrogate), never a subclass's __repr__.
              std::string shown;
              if (utf8) {
                shown = quoted(text);
              } else {
                const py::object repr = py::reinterpret_steal<py::object>(PyUnicode_Type.tp_repr(given.ptr()));
                if (!repr) throw py::error_already_set();
                shown = py::str(repr).cast<std::string>();
              }
              message << shown << " is not an action of "
                      << Traits::kName;
              if (!s.game->is_chance_node(s.state))
                for (size_t i = 0; i < legal.size(); ++i)
                  message << (i ? ", " : "; legal now: ")
                          << s.game->action_to_string(s.state, legal[i]);
              throw py::value_error(message.str());
            }
            return a;
          },
          py::arg("text"))
      .def("to_dict", [](const S& s) { return Traits::state_to_dict(*s.game, s.state); })
      .def("__str__", [](const S& s) { return s.game->to_string(s.state); })
      .def("__eq__",
           [](const S& a, py::object other) -> py::object {
             if (!py::isinstance<S>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             const S& b = other.cast<const S&>();
             return py::bool_(a.state == b.state &&
                              (a.game == b.game ||
                               Traits::parameters(*a.game).equal(Traits::parameters(*b.game))));
           })
      .def_property_readonly_static("state_size_bytes",
                                    [](py::object) { return sizeof(State); });
  FastStateMethods<G, Traits>::install(reinterpret_cast<PyTypeObject*>(state_class.ptr()));
  bind_search<G, Traits, S>(m, prefix, game_class, state_class);
  return {game_class, state_class};
}

}  // namespace meeple::bindings
