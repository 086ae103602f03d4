#include <pybind11/pybind11.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

#include "../imperial_harvest/imperial_harvest.h"
#include "bind_game.h"
#include "dict_io.h"

namespace meeple::bindings {

namespace {

namespace ih = meeple::imperial_harvest;

// ------------------------------------------------------------------ game data (the JSON files)

[[noreturn]] void bad_data(const std::string& where, const std::string& problem) {
  throw py::value_error("imperial_harvest data " + where + ": " + problem);
}

py::handle data_get(const py::handle& d, const char* key, const std::string& where) {
  if (!py::isinstance<py::dict>(d)) bad_data(where, "expected an object");
  py::dict dict = py::reinterpret_borrow<py::dict>(d);
  if (!dict.contains(key)) bad_data(where, std::string("missing '") + key + "'");
  return dict[key];
}

int data_int(const py::handle& v, const std::string& where) {
  // A plain int (the Python layer hands over JSON data): no user __index__ runs mid-read.
  if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr())) bad_data(where, "expected an int");
  int overflow = 0;
  const long x = PyLong_AsLongAndOverflow(v.ptr(), &overflow);
  if (overflow || x < -1000000 || x > 1000000) bad_data(where, "int out of range");
  return static_cast<int>(x);
}

std::string data_str(const py::handle& v, const std::string& where) {
  std::string text;
  if (!py::isinstance<py::str>(v) || !utf8_of(v, text)) bad_data(where, "expected a string");
  return text;
}

py::list data_list(const py::handle& v, const std::string& where, long length = -1) {
  if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v)) bad_data(where, "expected a list");
  py::list l = py::reinterpret_borrow<py::object>(v).cast<py::list>();
  if (length >= 0 && static_cast<long>(l.size()) != length)
    bad_data(where, "expected " + std::to_string(length) + " items");
  return l;
}

int data_cell(const py::handle& v, const std::string& where) {
  py::list xy = data_list(v, where, 2);
  const int x = data_int(xy[0], where), y = data_int(xy[1], where);
  if (!ih::on_board(x, y)) bad_data(where, "cell off the board");
  return ih::cell_at(x, y);
}

ih::AbilityRules read_ability(const py::handle& v, const std::string& where) {
  ih::AbilityRules r;
  if (!py::isinstance<py::dict>(v)) bad_data(where, "expected an object");
  py::dict d = py::reinterpret_borrow<py::dict>(v);
  if (d.contains("ap")) {
    py::handle ap = d["ap"];
    if (py::isinstance<py::str>(ap)) {  // "1-3": 1 AP per use, at most 3 uses per activation
      const std::string text = data_str(ap, where + ".ap");
      const size_t dash = text.find('-');
      if (dash != std::string::npos && dash > 0 && std::isdigit(static_cast<unsigned char>(text[0]))) {
        try {
          r.ap = std::stoi(text.substr(0, dash));
          r.per_activation = std::stoi(text.substr(dash + 1));
        } catch (const std::exception&) {
          bad_data(where, "cannot read ap " + quoted(text));
        }
      }  // other texts ("as borrowed") belong to abilities of part 2
    } else {
      r.ap = data_int(ap, where + ".ap");
    }
  }
  if (d.contains("per_activation")) r.per_activation = data_int(d["per_activation"], where + ".per_activation");
  if (d.contains("uses_per_game")) r.uses_per_game = data_int(d["uses_per_game"], where + ".uses_per_game");
  if (d.contains("attack")) r.attack = py::bool_(d["attack"]);
  if (d.contains("passive")) r.passive = py::bool_(d["passive"]);
  for (const char* key : {"vp", "ap_loss", "max_on_board", "ap_when_charging"})
    if (d.contains(key)) r.param = data_int(d[key], where + "." + key);
  return r;
}

// An ability's advanced side: its basic numbers overridden by the "advanced" object (35).
ih::AbilityRules read_advanced_ability(const py::handle& v, const ih::AbilityRules& basic, const std::string& where) {
  py::dict d = py::reinterpret_borrow<py::dict>(v);
  if (!d.contains("advanced")) return basic;
  py::dict merged;
  for (auto item : d) merged[item.first] = item.second;
  const py::handle adv = d["advanced"];
  if (!py::isinstance<py::dict>(adv)) bad_data(where + ".advanced", "expected an object");
  for (auto item : py::reinterpret_borrow<py::dict>(adv)) merged[item.first] = item.second;
  return read_ability(merged, where + ".advanced");
}

// The character, team and ability tables of characters.json: every card (both sides) and the
// first-game team ids.
void read_characters(const py::handle& chars, ih::GameSpec& spec) {
  const py::handle defaults = data_get(chars, "defaults", "characters");
  const int ap = data_int(data_get(defaults, "ap", "characters.defaults"), "characters.defaults.ap");
  const int slots = data_int(data_get(defaults, "item_slots", "characters.defaults"), "characters.defaults.item_slots");
  const int bonus = data_int(data_get(data_get(defaults, "strawberry", "characters.defaults"), "bonus_ap",
                                      "characters.defaults.strawberry"),
                             "characters.defaults.strawberry.bonus_ap");
  // Checked here, where they are read: the Game constructor checks each card's numbers, defaults
  // merged in, and would name the first card instead.
  if (ap < 0 || ap > 20) bad_data("characters.defaults", "ap must be in 0..20");
  if (slots < 0 || slots > 8) bad_data("characters.defaults", "item_slots must be in 0..8");
  if (bonus < 0 || bonus > 10) bad_data("characters.defaults", "bonus_ap must be in 0..10");
  const py::handle abilities = data_get(chars, "abilities", "characters");
  for (int a = 0; a < ih::kAbilityCount; ++a) {
    const std::string where = std::string("characters.abilities.") + ih::kAbilityNames[a];
    const py::handle entry = data_get(abilities, ih::kAbilityNames[a], "characters.abilities");
    spec.abilities[a] = read_ability(entry, where);
    spec.advanced_abilities[a] = read_advanced_ability(entry, spec.abilities[a], where);
  }
  spec.has_advanced_abilities = true;
  py::list cards = data_list(data_get(chars, "characters", "characters"), "characters.characters");
  for (const py::handle card : cards) {
    const std::string id = data_str(data_get(card, "id", "characters.characters"), "characters.characters.id");
    const std::string cw = "character " + quoted(id);
    ih::CharacterSpec c;
    c.id = id;
    c.name = data_str(data_get(card, "name", cw), cw + ".name");
    c.faction = data_str(data_get(card, "faction", cw), cw + ".faction");
    c.archetype = data_str(data_get(card, "archetype", cw), cw + ".archetype");
    py::dict cd = py::reinterpret_borrow<py::dict>(card);
    c.ap = cd.contains("ap") ? data_int(cd["ap"], cw + ".ap") : ap;
    c.item_slots = cd.contains("item_slots") ? data_int(cd["item_slots"], cw + ".item_slots") : slots;
    c.bonus_ap = bonus;
    if (cd.contains("strawberry"))
      c.bonus_ap = data_int(data_get(cd["strawberry"], "bonus_ap", cw + ".strawberry"), cw + ".strawberry.bonus_ap");
    if (cd.contains("advanced")) {
      const py::handle adv = cd["advanced"];
      if (!py::isinstance<py::dict>(adv)) bad_data(cw + ".advanced", "expected an object");
      py::dict ad = py::reinterpret_borrow<py::dict>(adv);
      if (ad.contains("ap")) c.adv_ap = data_int(ad["ap"], cw + ".advanced.ap");
      if (ad.contains("item_slots")) c.adv_item_slots = data_int(ad["item_slots"], cw + ".advanced.item_slots");
      if (ad.contains("strawberry"))
        c.adv_bonus_ap = data_int(data_get(ad["strawberry"], "bonus_ap", cw + ".advanced.strawberry"),
                                  cw + ".advanced.strawberry.bonus_ap");
    }
    for (const py::handle name : data_list(data_get(card, "abilities", cw), cw + ".abilities"))
      c.abilities.push_back(data_str(name, cw + ".abilities"));
    spec.cards.push_back(c);
  }
  const py::handle teams = data_get(chars, "first_game_teams", "characters");
  const char* team_keys[2] = {"imperial", "raiders"};
  for (int team = 0; team < 2; ++team) {
    const std::string where = std::string("characters.first_game_teams.") + team_keys[team];
    py::list ids = data_list(data_get(teams, team_keys[team], "characters.first_game_teams"), where, 3);
    for (int i = 0; i < 3; ++i) spec.team_ids[team][i] = data_str(ids[i], where);
  }
}

// teams= / sides= / setup= of the constructor (docs points 34-36): ValueError
// naming the problem and the choices.
void read_options(const py::object& teams, const py::object& sides, const std::string& setup, ih::GameSpec& spec) {
  std::string known;
  for (int k = 0; k < ih::kCards; ++k) known += std::string(k ? ", " : "") + ih::kCardIds[k];
  if (py::isinstance<py::str>(teams)) {
    const std::string t = teams.cast<std::string>();
    if (t == "draft")
      spec.team_mode = ih::Teams::kDraft;
    else if (t != "first_game")
      throw py::value_error("teams must be 'first_game', 'draft' or two lists of 3 character ids, got " + quoted(t));
  } else {
    if (!py::isinstance<py::list>(teams) && !py::isinstance<py::tuple>(teams))
      throw py::value_error("teams must be 'first_game', 'draft' or two lists of 3 character ids");
    py::list both = teams.cast<py::list>();
    if (both.size() != 2) throw py::value_error("teams must be two lists (imperial, raiders) of 3 character ids");
    std::vector<std::string> all;
    for (int team = 0; team < 2; ++team) {
      if (!py::isinstance<py::list>(both[team]) && !py::isinstance<py::tuple>(both[team]))
        throw py::value_error("teams must be two lists (imperial, raiders) of 3 character ids");
      py::list ids = py::reinterpret_borrow<py::object>(both[team]).cast<py::list>();
      if (ids.size() != 3) throw py::value_error("each team has exactly 3 characters");
      for (int i = 0; i < 3; ++i) {
        if (!py::isinstance<py::str>(ids[i])) throw py::value_error("character ids must be strings");
        const std::string id = ids[i].cast<std::string>();
        bool found = false;
        for (int k = 0; k < ih::kCards; ++k) found = found || id == ih::kCardIds[k];
        if (!found) throw py::value_error("unknown character " + quoted(id) + " in teams; choices: " + known);
        for (const std::string& other : all)
          if (other == id) throw py::value_error("character " + quoted(id) + " is in the teams twice (6 distinct ids needed)");
        all.push_back(id);
        spec.team_ids[team][i] = id;
      }
    }
    spec.team_mode = ih::Teams::kCustom;
    for (int team = 0; team < 2; ++team)  // archetypes distinct within a team
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < i; ++j) {
          std::string ai, aj;
          for (const auto& c : spec.cards) {
            if (c.id == spec.team_ids[team][i]) ai = c.archetype;
            if (c.id == spec.team_ids[team][j]) aj = c.archetype;
          }
          if (ai == aj)
            throw py::value_error("characters '" + spec.team_ids[team][j] + "' and '" + spec.team_ids[team][i] +
                                  "' of one team share the archetype '" + ai + "'");
        }
  }
  if (!py::isinstance<py::list>(sides) && !py::isinstance<py::tuple>(sides))
    throw py::value_error("sides must be a list of two of 'basic', 'advanced' (imperial, raiders)");
  py::list sl = sides.cast<py::list>();
  if (sl.size() != 2) throw py::value_error("sides must be a list of two of 'basic', 'advanced' (imperial, raiders)");
  for (int team = 0; team < 2; ++team) {
    const std::string side = py::isinstance<py::str>(sl[team]) ? sl[team].cast<std::string>() : "";
    if (side != "basic" && side != "advanced")
      throw py::value_error("sides[" + std::to_string(team) + "] must be 'basic' or 'advanced'");
    spec.advanced[team] = side == "advanced";
  }
  if (setup == "interactive")
    spec.setup = ih::Setup::kInteractive;
  else if (setup != "fixed")
    throw py::value_error("setup must be 'fixed' or 'interactive', got " + quoted(setup));
}

int side_of(const std::string& text, const std::string& where) {
  static const char* names[4] = {"N", "E", "S", "W"};
  for (int d = 0; d < 4; ++d)
    if (text == names[d]) return d;
  bad_data(where, "side must be N, E, S or W");
}

// Board `name` of boards.json, with the tile faces of tiles.json.
void read_board(const std::string& name, const py::handle& boards, const py::handle& tiles, ih::BoardSpec& b) {
  const py::handle all = data_get(boards, "boards", "boards");
  if (!py::isinstance<py::dict>(all)) bad_data("boards.boards", "expected an object");
  py::dict dict = py::reinterpret_borrow<py::dict>(all);
  if (!dict.contains(name.c_str())) bad_data("boards", "no board named " + quoted(name));
  const py::handle board = dict[name.c_str()];
  const std::string w = "board " + quoted(name);
  b.name = name;
  const py::handle layout = data_get(tiles, "board", "tiles");
  // Tiles (optional) and hedges.
  const py::handle tile_map = data_get(board, "tiles", w);
  if (!tile_map.is_none()) {
    if (!py::isinstance<py::dict>(tile_map)) bad_data(w + ".tiles", "expected an object or null");
    const py::handle faces = data_get(tiles, "faces", "tiles");
    if (!py::isinstance<py::dict>(faces)) bad_data("tiles.faces", "expected an object");
    for (auto item : py::reinterpret_borrow<py::dict>(faces)) {
      ih::TileFace f;
      f.name = data_str(item.first, "tiles.faces");
      const std::string fw = "tiles.faces." + f.name;
      py::list size = data_list(data_get(item.second, "size", fw), fw + ".size", 2);
      f.width = data_int(size[0], fw + ".size");
      f.height = data_int(size[1], fw + ".size");
      for (const py::handle h : data_list(data_get(item.second, "hedges", fw), fw + ".hedges")) {
        py::list e = data_list(h, fw + ".hedges", 3);
        f.hedges.push_back({data_int(e[0], fw), data_int(e[1], fw), side_of(data_str(e[2], fw), fw)});
      }
      b.faces.push_back(f);
    }
    for (const char* group : {"rect_slots", "square_slots"}) {
      const py::handle slots = data_get(layout, group, "tiles.board");
      if (!py::isinstance<py::dict>(slots)) bad_data(std::string("tiles.board.") + group, "expected an object");
      for (auto item : py::reinterpret_borrow<py::dict>(slots)) {
        ih::TilePlacement p;
        p.slot = data_str(item.first, group);
        const std::string sw = std::string("tiles.board.") + group + "." + p.slot;
        py::list origin = data_list(data_get(item.second, "origin", sw), sw + ".origin", 2);
        py::list size = data_list(data_get(item.second, "size", sw), sw + ".size", 2);
        p.x = data_int(origin[0], sw);
        p.y = data_int(origin[1], sw);
        p.width = data_int(size[0], sw);
        p.height = data_int(size[1], sw);
        for (const py::handle r : data_list(data_get(item.second, "rotations", sw), sw + ".rotations"))
          p.rotations.push_back(data_int(r, sw + ".rotations"));
        py::dict placed = py::reinterpret_borrow<py::dict>(tile_map);
        if (!placed.contains(p.slot.c_str())) bad_data(w + ".tiles", "no tile for slot " + p.slot);
        py::list choice = data_list(placed[p.slot.c_str()], w + ".tiles." + p.slot, 2);
        p.face = data_str(choice[0], w + ".tiles." + p.slot);
        p.rotation = data_int(choice[1], w + ".tiles." + p.slot);
        b.tiles.push_back(p);
      }
    }
  }
  for (const py::handle h : data_list(data_get(board, "hedges", w), w + ".hedges")) {
    py::list pair = data_list(h, w + ".hedges", 2);
    b.hedges.emplace_back(data_cell(pair[0], w + ".hedges"), data_cell(pair[1], w + ".hedges"));
  }
  // Camps: kind -> corner (boards.json), corner -> origin (tiles.json).
  const py::handle camps = data_get(board, "camps", w);
  const py::handle corners = data_get(layout, "camp_slots", "tiles.board");
  auto camp_origin = [&](const char* kind) {
    const std::string corner = data_str(data_get(camps, kind, w + ".camps"), w + ".camps." + kind);
    return data_cell(data_get(corners, corner.c_str(), "tiles.board.camp_slots"), "tiles.board.camp_slots." + corner);
  };
  b.character_camp = {camp_origin("imperial_character"), camp_origin("raiders_character")};
  b.strawberry_camp = {camp_origin("imperial_strawberry"), camp_origin("raiders_strawberry")};
  const py::handle starts = data_get(board, "start_spaces", w);
  const char* team_keys[2] = {"imperial", "raiders"};
  for (int team = 0; team < 2; ++team) {
    py::list cells = data_list(data_get(starts, team_keys[team], w + ".start_spaces"), w + ".start_spaces", 3);
    for (int i = 0; i < 3; ++i) b.start_spaces[team][i] = data_cell(cells[i], w + ".start_spaces");
  }
  for (const py::handle c : data_list(data_get(board, "bridges", w), w + ".bridges"))
    b.bridges.push_back(data_cell(c, w + ".bridges"));
  py::list hydras = data_list(data_get(board, "hydras", w), w + ".hydras", 2);
  b.hydras = {data_cell(hydras[0], w + ".hydras"), data_cell(hydras[1], w + ".hydras")};
  for (const py::handle c : data_list(data_get(board, "strawberries", w), w + ".strawberries"))
    b.strawberries.push_back(data_cell(c, w + ".strawberries"));
}

// ------------------------------------------------------------------ state dict

py::object xy_of(int c) {
  if (c == ih::kNone) return py::none();
  py::list l;
  l.append(ih::cell_x(c));
  l.append(ih::cell_y(c));
  return l;
}

py::object token_or_none(int t) { return t == ih::kNone ? py::object(py::none()) : py::object(py::int_(t)); }

py::list bit_tokens(uint8_t mask) {
  py::list l;
  for (int t = 0; t < ih::kTokens; ++t)
    if ((mask >> t) & 1) l.append(t);
  return l;
}

int read_cell(const py::handle& v, const std::string& field) {
  py::list xy = read_list(v, field, 2);
  const int x = static_cast<int>(read_int(xy[0], field + "[0]", 0, ih::kSize - 1));
  const int y = static_cast<int>(read_int(xy[1], field + "[1]", 0, ih::kSize - 1));
  return ih::cell_at(x, y);
}

uint8_t read_token_or_none(const py::handle& v, const std::string& field, int limit) {
  if (v.is_none()) return ih::kNone;
  return static_cast<uint8_t>(read_int(v, field, 0, limit - 1));
}

int read_phase(const py::handle& v, const std::string& field, int count) {
  if (!py::isinstance<py::str>(v)) bad_field(field, "expected a phase name");
  const std::string text = read_text(v, field);
  for (int p = 0; p < count; ++p)
    if (text == ih::kPhaseNames[p]) return p;
  std::string names;
  for (int p = 0; p < count; ++p) names += std::string(p ? ", " : "") + ih::kPhaseNames[p];
  bad_field(field, "expected one of " + names + ", got " + quoted(text));
}

// Token list, distinct entries, optionally increasing.
std::vector<int> read_tokens(const py::handle& v, const std::string& field, size_t most, bool increasing, int limit) {
  py::list l = read_list(v, field);
  if (l.size() > most) bad_field(field, "expected at most " + std::to_string(most) + " tokens");
  std::vector<int> out;
  for (size_t i = 0; i < l.size(); ++i) {
    const int t = static_cast<int>(read_int(l[i], field + "[" + std::to_string(i) + "]", 0, limit - 1));
    for (int u : out)
      if (u == t) bad_field(field, "lists token " + std::to_string(t) + " twice");
    if (increasing && !out.empty() && t < out.back()) bad_field(field, "tokens must be in increasing order");
    out.push_back(t);
  }
  return out;
}

struct ImperialHarvestTraits {
  static constexpr const char* kName = "imperial_harvest";

  static py::dict parameters(const ih::Game& g) {
    if (!g.parameters_json().empty())
      return py::module_::import("json").attr("loads")(g.parameters_json()).cast<py::dict>();
    py::dict d;
    d["board"] = g.board().name();
    switch (g.team_mode()) {
      case ih::Teams::kFirstGame: d["teams"] = "first_game"; break;
      case ih::Teams::kDraft: d["teams"] = "draft"; break;
      default: {
        std::string text;
        for (int team = 0; team < 2; ++team)
          for (int i = 0; i < 3; ++i)
            text += std::string(i ? "," : team ? "/" : "") + ih::kCardIds[g.fixed_teams()[team][i]];
        d["teams"] = text;
      }
    }
    const char* side[2] = {"basic", "advanced"};
    d["sides"] = g.advanced(0) == g.advanced(1) ? std::string(side[g.advanced(0)])
                                                : std::string(side[g.advanced(0)]) + "/" + side[g.advanced(1)];
    d["setup"] = g.setup_mode() == ih::Setup::kFixed ? "fixed" : "interactive";
    return d;
  }

  // Hedges as [[x1, y1], [x2, y2]] pairs (lower cell index first), sorted as lists.
  static py::list hedge_list(const ih::Bits128& east, const ih::Bits128& south) {
    std::vector<std::array<int, 4>> pairs;
    for (int c = 0; c < ih::kCells; ++c) {
      if (east.test(c)) pairs.push_back({ih::cell_x(c), ih::cell_y(c), ih::cell_x(c) + 1, ih::cell_y(c)});
      if (south.test(c)) pairs.push_back({ih::cell_x(c), ih::cell_y(c), ih::cell_x(c), ih::cell_y(c) + 1});
    }
    std::sort(pairs.begin(), pairs.end());
    py::list out;
    for (const auto& p : pairs) {
      py::list a, b, pair;
      a.append(p[0]);
      a.append(p[1]);
      b.append(p[2]);
      b.append(p[3]);
      pair.append(a);
      pair.append(b);
      out.append(pair);
    }
    return out;
  }

  static py::dict state_to_dict(const ih::Game& g, const ih::State& s) {
    py::dict d;
    d["hedges"] = hedge_list(s.hedge_east, s.hedge_south);
    py::list berries;
    s.strawberries.for_each([&](int c) { berries.append(xy_of(c)); });
    d["strawberries"] = berries;
    py::list hydras;
    hydras.append(xy_of(s.hydra[0]));
    hydras.append(xy_of(s.hydra[1]));
    d["hydras"] = hydras;
    py::list characters;
    for (int t = 0; t < ih::kCharacters; ++t) {
      py::dict c;
      c["id"] = s.card[t] < ih::kCards ? py::object(py::str(ih::kCardIds[s.card[t]])) : py::object(py::none());
      c["cell"] = xy_of(s.cell[t]);
      c["facing"] = ih::kDirNames[s.facing[t] & 3];
      c["strawberries"] = static_cast<int>(s.carried[t]);
      c["uses_left"] = s.uses_left[t] == ih::kNone ? py::object(py::none()) : py::object(py::int_(s.uses_left[t]));
      c["wolf_form"] = ((s.wolf >> t) & 1) != 0;
      characters.append(c);
    }
    d["characters"] = characters;
    py::list sentries;
    for (int t = ih::kCharacters; t < ih::kTokens; ++t) {
      if (s.cell[t] == ih::kNone) {
        sentries.append(py::none());
        continue;
      }
      py::dict e;
      e["cell"] = xy_of(s.cell[t]);
      e["facing"] = ih::kDirNames[s.facing[t] & 3];
      sentries.append(e);
    }
    d["sentries"] = sentries;
    py::list bridges;
    s.bridges.for_each([&](int c) { bridges.append(xy_of(c)); });
    d["bridges"] = bridges;
    py::dict camps;
    for (int k = 0; k < ih::kCampKinds; ++k)
      if (s.camp[k] < ih::kCorners) camps[ih::kCampKindNames[k]] = ih::kCornerNames[s.camp[k]];
    d["camps"] = camps;
    if (g.board().has_tiles()) {
      py::dict tiles;
      for (int i = 0; i < g.board().slot_count(); ++i) {
        py::list entry;
        entry.append(g.board().face_names()[s.tile_face[i]]);
        entry.append(static_cast<int>(s.tile_transform[i]));
        tiles[g.board().tiles()[i].slot.c_str()] = entry;
      }
      d["tiles"] = tiles;
    } else {
      d["tiles"] = py::none();
    }
    d["regent_vp"] = py::make_tuple(s.regent_vp[0], s.regent_vp[1]).cast<py::list>();
    d["plucked"] = py::make_tuple(s.plucked[0], s.plucked[1]).cast<py::list>();
    d["deposited"] = py::make_tuple(s.deposited[0], s.deposited[1]).cast<py::list>();
    d["hedges_planted"] = static_cast<int>(s.hedges_planted);
    d["hedges_chopped"] = static_cast<int>(s.hedges_chopped);
    ih::Bits128 east, south;
    s.planted.to_bits(east, south);
    d["planted_hedges"] = hedge_list(east, south);
    s.chopped.to_bits(east, south);
    d["chopped_hedges"] = hedge_list(east, south);
    d["round"] = static_cast<int>(s.round);
    d["team"] = static_cast<int>(s.team);
    d["phase"] = ih::kPhaseNames[std::min<int>(s.phase, ih::kPhaseCount - 1)];
    d["resting"] = token_or_none(s.resting);
    py::list last;
    last.append(token_or_none(s.last_rested[0]));
    last.append(token_or_none(s.last_rested[1]));
    d["last_rested"] = last;
    py::list done;
    for (int i = 0; i < s.done_count; ++i) done.append(static_cast<int>(s.done[i]));
    d["done"] = done;
    d["active"] = token_or_none(s.active);
    const ih::Activation& a = s.activation;
    py::dict activation;
    activation["ap"] = static_cast<int>(a.ap);
    activation["face_used"] = static_cast<bool>(a.face_used);
    for (const auto& [key, ability] : once_flags()) activation[key] = (a.used & ih::ability_bit(ability)) != 0;
    activation["compulsions"] = static_cast<int>(a.compulsions);
    activation["compel_target"] = token_or_none(a.compel_target);
    activation["ballad"] = bit_tokens(a.ballad);
    activation["war_cry"] = bit_tokens(a.war_cry);
    activation["bonus"] = static_cast<bool>(a.bonus);
    activation["charged"] = static_cast<bool>(a.charged);
    activation["free_moves"] = static_cast<int>(a.free_moves);
    activation["gaze"] = bit_tokens(a.gaze);
    activation["puppet"] = token_or_none(a.puppet);
    d["activation"] = activation;
    py::list queue;
    for (int i = 0; i < s.queue_count; ++i) queue.append(static_cast<int>(s.queue[i]));
    d["respawn_queue"] = queue;
    d["resume_phase"] = s.resume_phase == ih::kNone ? py::object(py::none())
                                                    : py::object(py::str(ih::kPhaseNames[s.resume_phase]));
    d["current_player"] = static_cast<int>(s.player);
    d["move_number"] = static_cast<long>(s.move_number);
    d["setup_step"] = static_cast<int>(s.setup_step);
    return d;
  }

  // The once-per-activation flags of the state dict and their abilities.
  static const std::vector<std::pair<const char*, ih::Ability>>& once_flags() {
    static const std::vector<std::pair<const char*, ih::Ability>> flags = {
        {"grapple_used", ih::Ability::kGrapple},   {"pounce_used", ih::Ability::kDragonPounce},
        {"throw_used", ih::Ability::kThrowingAxe}, {"charm_used", ih::Ability::kCharm},
        {"slither_used", ih::Ability::kSlither},   {"charge_used", ih::Ability::kCharge},
        {"lure_used", ih::Ability::kAlluringGaze}, {"command_used", ih::Ability::kCommand},
        {"sentry_used", ih::Ability::kSentry},     {"sprint_used", ih::Ability::kSprint},
        {"retriever_used", ih::Ability::kRetriever}};
    return flags;
  }

  static int read_facing(const py::handle& v, const std::string& field) {
    if (!py::isinstance<py::str>(v)) bad_field(field, "expected n, e, s or w");
    const std::string facing = read_text(v, field);
    for (int k = 0; k < 4; ++k)
      if (facing == ih::kDirNames[k]) return k;
    bad_field(field, "expected n, e, s or w, got " + quoted(facing));
  }

  static int read_name(const py::handle& v, const std::string& field, const char* const* names, int count) {
    std::string choices;
    for (int i = 0; i < count; ++i) choices += std::string(i ? ", " : "") + names[i];
    if (!py::isinstance<py::str>(v)) bad_field(field, "expected one of " + choices);
    const std::string text = read_text(v, field);
    for (int i = 0; i < count; ++i)
      if (text == names[i]) return i;
    bad_field(field, "expected one of " + choices + ", got " + quoted(text));
  }

  static ih::State state_from_dict(const ih::Game& g, const py::dict& d) {
    require_keys(d, {"hedges", "strawberries", "hydras", "characters", "sentries", "bridges", "camps", "tiles",
                     "regent_vp", "plucked", "deposited", "hedges_planted", "hedges_chopped", "planted_hedges",
                     "chopped_hedges", "round", "team",
                     "phase", "resting", "last_rested", "done", "active", "activation", "respawn_queue",
                     "resume_phase", "current_player", "move_number", "setup_step"});
    ih::State s;
    s.queue.fill(ih::kNone);
    s.done.fill(ih::kNone);
    s.cell.fill(ih::kNone);
    s.uses_left.fill(ih::kNone);
    s.card.fill(ih::kNone);
    s.camp.fill(ih::kNone);
    s.hydra.fill(ih::kNone);
    // Edges (hedges, and the edges holding hedge / chopped-hedge tokens): orthogonal neighbours,
    // lower index first, sorted as lists, no repeats.
    auto read_edges = [&](const char* name, ih::Bits128& east, ih::Bits128& south) {
      py::list edges = read_list(d[name], name);
      std::array<int, 4> previous{-1, -1, -1, -1};
      for (size_t i = 0; i < edges.size(); ++i) {
        const std::string field = std::string(name) + "[" + std::to_string(i) + "]";
        py::list pair = read_list(edges[i], field, 2);
        const int a = read_cell(pair[0], field + "[0]"), b = read_cell(pair[1], field + "[1]");
        const std::array<int, 4> key{ih::cell_x(a), ih::cell_y(a), ih::cell_x(b), ih::cell_y(b)};
        if (b == a + 1 && ih::cell_y(a) == ih::cell_y(b))
          east.set(a);
        else if (b == a + ih::kSize)
          south.set(a);
        else
          bad_field(field, "expected two orthogonally adjacent cells, lower cell index first");
        if (!(previous < key)) bad_field(field, std::string(name) + " must be sorted without repeats");
        previous = key;
      }
    };
    read_edges("hedges", s.hedge_east, s.hedge_south);
    ih::Bits128 east, south;
    read_edges("planted_hedges", east, south);
    if (!s.planted.from_bits(east, south))
      bad_field("planted_hedges", "more edges than hedges_planted can count (the box holds 4 hedge tokens)");
    east = south = ih::Bits128{};
    read_edges("chopped_hedges", east, south);
    if (!s.chopped.from_bits(east, south))
      bad_field("chopped_hedges", "more edges than hedges_chopped can count (the box holds 4 chopped-hedge tokens)");
    auto read_cells = [&](const char* key, ih::Bits128& out) {
      py::list cells = read_list(d[key], key);
      int last = -1;
      for (size_t i = 0; i < cells.size(); ++i) {
        const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
        const int c = read_cell(cells[i], field);
        if (c <= last) bad_field(field, std::string(key) + " must be sorted by cell index without repeats");
        last = c;
        out.set(c);
      }
    };
    read_cells("strawberries", s.strawberries);
    read_cells("bridges", s.bridges);
    py::list hydras = read_list(d["hydras"], "hydras", 2);
    for (int h = 0; h < 2; ++h)
      if (!hydras[h].is_none()) s.hydra[h] = static_cast<uint8_t>(read_cell(hydras[h], "hydras[" + std::to_string(h) + "]"));
    py::list characters = read_list(d["characters"], "characters", ih::kCharacters);
    for (int t = 0; t < ih::kCharacters; ++t) {
      const std::string field = "characters[" + std::to_string(t) + "]";
      py::dict c = read_dict(characters[t], field);
      require_keys(c, {"id", "cell", "facing", "strawberries", "uses_left", "wolf_form"}, field);
      if (!c["id"].is_none()) s.card[t] = static_cast<uint8_t>(read_name(c["id"], field + ".id", ih::kCardIds, ih::kCards));
      if (g.team_mode() != ih::Teams::kDraft && s.card[t] != g.fixed_teams()[ih::Game::team_of(t)][t % ih::kTeamSize])
        bad_field(field + ".id",
                  std::string("expected '") + ih::kCardIds[g.fixed_teams()[ih::Game::team_of(t)][t % ih::kTeamSize]] + "'");
      if (!c["cell"].is_none()) s.cell[t] = static_cast<uint8_t>(read_cell(c["cell"], field + ".cell"));
      s.facing[t] = static_cast<uint8_t>(read_facing(c["facing"], field + ".facing"));
      const int slots = s.card[t] < ih::kCards ? g.card_info(ih::Game::team_of(t), s.card[t]).slots : 0;
      s.carried[t] = static_cast<uint8_t>(read_int(c["strawberries"], field + ".strawberries", 0, slots));
      if (!c["uses_left"].is_none())
        s.uses_left[t] = static_cast<uint8_t>(read_int(c["uses_left"], field + ".uses_left", 0, 200));
      if (read_bool(c["wolf_form"], field + ".wolf_form")) s.wolf = static_cast<uint8_t>(s.wolf | (1u << t));
    }
    for (int t = 0; t < ih::kCharacters; ++t)
      if (s.card[t] == ih::kCardRegent) s.regent_team = static_cast<uint8_t>(ih::Game::team_of(t));
    py::list sentries = read_list(d["sentries"], "sentries", 2);
    for (int i = 0; i < 2; ++i) {
      if (sentries[i].is_none()) continue;
      const std::string field = "sentries[" + std::to_string(i) + "]";
      py::dict e = read_dict(sentries[i], field);
      require_keys(e, {"cell", "facing"}, field);
      s.cell[ih::kCharacters + i] = static_cast<uint8_t>(read_cell(e["cell"], field + ".cell"));
      s.facing[ih::kCharacters + i] = static_cast<uint8_t>(read_facing(e["facing"], field + ".facing"));
    }
    py::dict camps = read_dict(d["camps"], "camps");
    for (auto item : camps) {
      const int kind = read_name(item.first, "camps (key)", ih::kCampKindNames, ih::kCampKinds);
      s.camp[kind] = static_cast<uint8_t>(read_name(item.second, std::string("camps.") + ih::kCampKindNames[kind],
                                                    ih::kCornerNames, ih::kCorners));
    }
    const ih::Board& board = g.board();
    if (!board.has_tiles()) {
      if (!d["tiles"].is_none()) bad_field("tiles", "expected null: the board has no tiles");
    } else {
      py::dict tiles = read_dict(d["tiles"], "tiles");
      if (static_cast<int>(tiles.size()) != board.slot_count())
        bad_field("tiles", "expected one entry per tile slot (" + std::to_string(board.slot_count()) + ")");
      for (int i = 0; i < board.slot_count(); ++i) {
        const std::string slot = board.tiles()[i].slot, field = "tiles." + slot;
        if (!tiles.contains(slot.c_str())) bad_field("tiles", "missing slot " + slot);
        py::list entry = read_list(tiles[slot.c_str()], field, 2);
        if (!py::isinstance<py::str>(entry[0])) bad_field(field + "[0]", "expected a face name");
        const std::string face = read_text(entry[0], field + "[0]");
        int f = -1;
        for (size_t k = 0; k < board.face_names().size(); ++k)
          if (board.face_names()[k] == face) f = static_cast<int>(k);
        if (f < 0) bad_field(field + "[0]", "unknown face " + quoted(face));
        s.tile_face[i] = static_cast<uint8_t>(f);
        s.tile_transform[i] = static_cast<uint8_t>(read_int(entry[1], field + "[1]", 0, 7));
        ih::Bits128 east, south;
        if (!board.tile_hedges(i, f, s.tile_transform[i], east, south))
          bad_field(field, "face " + face + " with transform " + std::to_string(s.tile_transform[i]) +
                               " does not fit slot " + slot);
        for (int j = 0; j < i; ++j)  // each physical tile once (faces a and b are one tile)
          if (s.tile_face[j] == f || s.tile_face[j] == board.other_face(f))
            bad_field(field, "tile " + face.substr(0, face.size() - 1) + " lies in two slots");
      }
    }
    py::list regent_vp = read_list(d["regent_vp"], "regent_vp", 2);
    py::list plucked = read_list(d["plucked"], "plucked", 2), deposited = read_list(d["deposited"], "deposited", 2);
    for (int team = 0; team < 2; ++team) {
      s.regent_vp[team] = static_cast<uint8_t>(read_int(regent_vp[team], "regent_vp[" + std::to_string(team) + "]", 0, 20));
      s.plucked[team] = static_cast<uint8_t>(read_int(plucked[team], "plucked[" + std::to_string(team) + "]", 0, 100));
      s.deposited[team] = static_cast<uint8_t>(read_int(deposited[team], "deposited[" + std::to_string(team) + "]", 0, 100));
    }
    s.hedges_planted = static_cast<uint8_t>(read_int(d["hedges_planted"], "hedges_planted", 0, ih::kMaxPlantedHedges));
    s.hedges_chopped = static_cast<uint8_t>(read_int(d["hedges_chopped"], "hedges_chopped", 0, ih::kMaxChoppedHedges));
    s.round = static_cast<uint8_t>(read_int(d["round"], "round", 1, ih::kRounds));
    s.team = static_cast<uint8_t>(read_int(d["team"], "team", 0, 1));
    s.phase = static_cast<uint8_t>(read_phase(d["phase"], "phase", ih::kPhaseCount));
    s.resting = read_token_or_none(d["resting"], "resting", ih::kCharacters);
    py::list last_rested = read_list(d["last_rested"], "last_rested", 2);
    for (int team = 0; team < 2; ++team)
      s.last_rested[team] = read_token_or_none(last_rested[team], "last_rested[" + std::to_string(team) + "]", ih::kCharacters);
    const std::vector<int> done = read_tokens(d["done"], "done", 2, false, ih::kCharacters);
    for (size_t i = 0; i < done.size(); ++i) s.done[i] = static_cast<uint8_t>(done[i]);
    s.done_count = static_cast<uint8_t>(done.size());
    s.active = read_token_or_none(d["active"], "active", ih::kCharacters);
    py::dict a = read_dict(d["activation"], "activation");
    std::vector<std::string> keys = {"ap", "face_used", "compulsions", "compel_target", "ballad", "war_cry",
                                     "bonus", "charged", "free_moves", "gaze", "puppet"};
    for (const auto& [key, ability] : once_flags()) keys.push_back(key);
    std::vector<const char*> key_ptrs;
    for (const auto& k : keys) key_ptrs.push_back(k.c_str());
    for (const char* k : key_ptrs)
      if (!a.contains(k)) bad_field("activation", std::string("missing key '") + k + "'");
    if (a.size() != keys.size()) bad_field("activation", "unexpected keys");
    ih::Activation& v = s.activation;
    v.ap = static_cast<uint8_t>(read_int(a["ap"], "activation.ap", 0, 60));
    v.face_used = read_bool(a["face_used"], "activation.face_used");
    for (const auto& [key, ability] : once_flags())
      if (read_bool(a[key], std::string("activation.") + key)) v.used |= ih::ability_bit(ability);
    v.compulsions = static_cast<uint8_t>(read_int(a["compulsions"], "activation.compulsions", 0, ih::kMaxCompulsions));
    v.compel_target = read_token_or_none(a["compel_target"], "activation.compel_target", ih::kTokens);
    for (int t : read_tokens(a["ballad"], "activation.ballad", ih::kTokens, true, ih::kCharacters))
      v.ballad = static_cast<uint8_t>(v.ballad | (1u << t));
    for (int t : read_tokens(a["war_cry"], "activation.war_cry", ih::kTokens, true, ih::kCharacters))
      v.war_cry = static_cast<uint8_t>(v.war_cry | (1u << t));
    for (int t : read_tokens(a["gaze"], "activation.gaze", ih::kTokens, true, ih::kCharacters))
      v.gaze = static_cast<uint8_t>(v.gaze | (1u << t));
    v.bonus = read_bool(a["bonus"], "activation.bonus");
    v.charged = read_bool(a["charged"], "activation.charged");
    v.free_moves = static_cast<uint8_t>(read_int(a["free_moves"], "activation.free_moves", 0, 60));
    v.puppet = read_token_or_none(a["puppet"], "activation.puppet", ih::kCharacters);
    const std::vector<int> queue = read_tokens(d["respawn_queue"], "respawn_queue", ih::kCharacters, false, ih::kCharacters);
    static_assert(ih::kCharacters <= std::tuple_size_v<decltype(s.queue)>, "a queue of every character fits");
    std::transform(queue.begin(), queue.end(), s.queue.begin(), [](int t) { return static_cast<uint8_t>(t); });
    s.queue_count = static_cast<uint8_t>(queue.size());
    s.resume_phase = d["resume_phase"].is_none() ? ih::kNone
                                                 : static_cast<uint8_t>(read_phase(d["resume_phase"], "resume_phase", 4));
    const long player = read_int(d["current_player"], "current_player", kTerminalPlayer, 1);
    if (player != 0 && player != 1 && player != kTerminalPlayer)
      bad_field("current_player", "expected 0, 1 or -4 (game over), got " + std::to_string(player));
    s.player = static_cast<int8_t>(player);
    s.move_number = static_cast<uint32_t>(read_int(d["move_number"], "move_number", 0, 1000000000));
    s.setup_step = static_cast<uint8_t>(read_int(d["setup_step"], "setup_step", 0, 5));
    const std::string problem = g.check_consistency(s);
    if (!problem.empty()) throw py::value_error("inconsistent imperial_harvest state: " + problem);
    return s;
  }
};

}  // namespace

void bind_imperial_harvest(py::module_& m) {
  using S = PyState<ih::Game>;
  auto [game_class, state_class] = bind_game<ih::Game, ImperialHarvestTraits>(m, "ImperialHarvest");
  game_class
      .def(py::init([](const std::string& board, const py::dict& boards, const py::dict& tiles,
                       const py::dict& characters, const py::object& teams, const py::object& sides,
                       const std::string& setup, const py::object& parameters, bool random_boards) {
             ih::GameSpec spec;
             read_board(board, boards, tiles, spec.board);
             read_characters(characters, spec);
             read_options(teams, sides, setup, spec);
             spec.random_boards = random_boards;
             if (!parameters.is_none()) {
               if (!py::isinstance<py::dict>(parameters)) throw py::type_error("parameters must be a dict or None");
               spec.parameters_json = py::module_::import("json").attr("dumps")(parameters).cast<std::string>();
             }
             try {
               return std::make_shared<ih::Game>(spec);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("board"), py::arg("boards"), py::arg("tiles"), py::arg("characters"),
           py::arg("teams") = "first_game", py::arg("sides") = py::make_tuple("basic", "basic"),
           py::arg("setup") = "fixed", py::arg("parameters") = py::none(),
           py::arg("random_boards") = false,
           "The game on board `board` of `boards` (boards.json), with tiles.json and characters.json "
           "as parsed JSON; teams 'first_game' | 'draft' | [[3 ids], [3 ids]], sides [imperial, raiders] "
           "of 'basic' | 'advanced', setup 'fixed' | 'interactive'; `parameters`: the public parameters, "
           "reported back by parameters(); `random_boards`: every new_initial_state(seed) draws its own "
           "board from the seed (D37), `board` giving camps, hydras and strawberries. meeple.load('imperial_harvest', ...) reads the shipped files.")
      .def("board_hedges",
           [](const ih::Game& g) {
             return ImperialHarvestTraits::hedge_list(g.board().initial_east_hedges(), g.board().initial_south_hedges());
           },
           "The initial hedges of the board (built from its tiles if it has them), in to_dict() form.")
      .def(
          "_bench_legal_actions",
          [](const ih::Game& g, const S& s, int64_t iterations) {
            if (iterations < 1) throw py::value_error("iterations must be >= 1");
            const ih::State state = s.state;  // another Python thread may change s meanwhile
            ReleasedGil release;
            const auto start = std::chrono::steady_clock::now();
            int64_t total = 0;
            for (int64_t i = 0; i < iterations; ++i) {
              ih::Game::Actions actions;
              g.legal_actions(state, actions);
              total += actions.size();
            }
            volatile int64_t sink = total;  // keeps the calls
            (void)sink;
            const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
            return elapsed.count() / static_cast<double>(iterations);
          },
          py::arg("state"), py::arg("iterations"),
          "Seconds per legal_actions() call on `state`, timed over `iterations` calls in C++.");
  state_class.def(
      "vp",
      [](const S& s, py::object team) {
        return s.game->vp(s.state, static_cast<int>(int_argument(team, "team", 0, 1)));
      },
      py::arg("team"),
      "Victory points of `team` (0 imperial, 1 raiders) if the game ended now: plucked + carried + "
      "2 × deposited + the VP its Regent earned (points 33, 58).");
}

}  // namespace meeple::bindings
