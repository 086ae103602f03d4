#include <pybind11/pybind11.h>

#include "../abacuachego/abacuachego.h"
#include "bind_game.h"
#include "dict_io.h"

namespace meeple::bindings {

namespace {

namespace aba = meeple::abacuachego;

template <class Enum>
Enum parse_choice(const std::string& name, const std::string& value,
                  std::initializer_list<std::pair<const char*, Enum>> choices) {
  std::string names;
  for (const auto& [text, e] : choices) {
    if (value == text) return e;
    names += std::string(names.empty() ? "" : ", ") + "'" + text + "'";
  }
  throw py::value_error("parameter " + name + " must be one of " + names + ", got " + quoted(value));
}

struct AbacuachegoTraits {
  static constexpr const char* kName = "abacuachego";

  static py::dict parameters(const aba::Game& g) {
    const aba::Params& p = g.params();
    py::dict d;
    d["pits_per_row"] = p.pits_per_row;
    d["seeds_per_pit"] = p.seeds_per_pit;
    d["win_threshold"] = p.win_threshold;
    d["max_plies"] = p.max_plies;
    d["parity"] = p.parity == aba::Parity::kCount ? "count" : "pit";
    d["origin_match"] = p.origin_match == aba::OriginMatch::kCount ? "count" : "pit";
    d["match"] = p.match == aba::Match::kDigit ? "digit" : "exact";
    d["skip_origin_on_lap"] = p.skip_origin_on_lap;
    return d;
  }

  static py::dict state_to_dict(const aba::Game& g, const aba::State& s) {
    const int n = g.pits_per_row();
    py::list rows;
    for (int p = 0; p < 2; ++p) {
      py::list row;
      for (int k = 0; k < n; ++k) row.append(s.pits[p * aba::kRowStride + k]);
      rows.append(row);
    }
    py::dict d;
    d["pits"] = rows;
    d["stores"] = py::make_tuple(s.stores[0], s.stores[1]).cast<py::list>();
    d["current_player"] = static_cast<int>(s.player);
    d["ply"] = s.ply;
    return d;
  }

  static aba::State state_from_dict(const aba::Game& g, const py::dict& d) {
    require_keys(d, {"pits", "stores", "current_player", "ply"});
    const int n = g.pits_per_row();
    aba::State s;
    py::list rows = read_list(d["pits"], "pits", 2);
    for (int p = 0; p < 2; ++p) {
      const std::string field = "pits[" + std::to_string(p) + "]";
      py::list row = read_list(rows[p], field, n);
      for (int k = 0; k < n; ++k)
        s.pits[p * aba::kRowStride + k] = static_cast<uint16_t>(
            read_int(row[k], field + "[" + std::to_string(k) + "]", 0, aba::kMaxGrains));
    }
    py::list stores = read_list(d["stores"], "stores", 2);
    for (int p = 0; p < 2; ++p)
      s.stores[p] = static_cast<uint16_t>(
          read_int(stores[p], "stores[" + std::to_string(p) + "]", 0, aba::kMaxGrains));
    const long player = read_int(d["current_player"], "current_player", kTerminalPlayer, 1);
    if (player != 0 && player != 1 && player != kTerminalPlayer)
      bad_field("current_player", "expected 0, 1 or -4 (game over), got " + std::to_string(player));
    s.player = static_cast<int8_t>(player);
    s.ply = static_cast<uint16_t>(read_int(d["ply"], "ply", 0, 65535));
    const std::string problem = g.check_consistency(s);
    if (!problem.empty()) throw py::value_error("inconsistent abacuachego state: " + problem);
    return s;
  }
};

}  // namespace

void bind_abacuachego(py::module_& m) {
  auto [game_class, state_class] = bind_game<aba::Game, AbacuachegoTraits>(m, "Abacuachego");
  game_class.def(
      py::init([](int pits_per_row, int seeds_per_pit, int win_threshold, int max_plies,
                  const std::string& parity, const std::string& origin_match,
                  const std::string& match, bool skip_origin_on_lap) {
        aba::Params p;
        p.pits_per_row = pits_per_row;
        p.seeds_per_pit = seeds_per_pit;
        p.win_threshold = win_threshold;
        p.max_plies = max_plies;
        p.parity = parse_choice<aba::Parity>(
            "parity", parity, {{"count", aba::Parity::kCount}, {"pit", aba::Parity::kPit}});
        p.origin_match = parse_choice<aba::OriginMatch>(
            "origin_match", origin_match,
            {{"count", aba::OriginMatch::kCount}, {"pit", aba::OriginMatch::kPit}});
        p.match = parse_choice<aba::Match>(
            "match", match, {{"digit", aba::Match::kDigit}, {"exact", aba::Match::kExact}});
        p.skip_origin_on_lap = skip_origin_on_lap;
        return std::make_shared<aba::Game>(p);
      }),
      py::arg("pits_per_row") = 10, py::arg("seeds_per_pit") = 5, py::arg("win_threshold") = 51,
      py::arg("max_plies") = 1000, py::arg("parity") = "count", py::arg("origin_match") = "count",
      py::arg("match") = "digit", py::arg("skip_origin_on_lap") = false);
}

}  // namespace meeple::bindings
