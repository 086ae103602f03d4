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
  if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr())) bad_data(where, "expected an int");
  int overflow = 0;
  const long x = PyLong_AsLongAndOverflow(v.ptr(), &overflow);
  if (overflow || x < -1000000 || x > 1000000) bad_data(where, "int out of range");
  return static_cast<int>(x);
}

std::string data_str(const py::handle& v, const std::string& where) {
  if (!py::isinstance<py::str>(v)) bad_data(where, "expected a string");
  return v.cast<std::string>();
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
      const std::string text = ap.cast<std::string>();
      const size_t dash = text.find('-');
      if (dash != std::string::npos && dash > 0 && std::isdigit(static_cast<unsigned char>(text[0]))) {
        try {
          r.ap = std::stoi(text.substr(0, dash));
          r.per_activation = std::stoi(text.substr(dash + 1));
        } catch (const std::exception&) {
          bad_data(where, "cannot read ap '" + text + "'");
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
  return r;
}

// The character, team and ability tables of characters.json.
void read_characters(const py::handle& chars, ih::GameSpec& spec) {
  const py::handle defaults = data_get(chars, "defaults", "characters");
  const int ap = data_int(data_get(defaults, "ap", "characters.defaults"), "characters.defaults.ap");
  const int slots = data_int(data_get(defaults, "item_slots", "characters.defaults"), "characters.defaults.item_slots");
  const int bonus = data_int(data_get(data_get(defaults, "strawberry", "characters.defaults"), "bonus_ap",
                                      "characters.defaults.strawberry"),
                             "characters.defaults.strawberry.bonus_ap");
  const py::handle abilities = data_get(chars, "abilities", "characters");
  for (int a = 0; a < ih::kAbilityCount; ++a)
    spec.abilities[a] = read_ability(data_get(abilities, ih::kAbilityNames[a], "characters.abilities"),
                                     std::string("characters.abilities.") + ih::kAbilityNames[a]);
  py::list cards = data_list(data_get(chars, "characters", "characters"), "characters.characters");
  const py::handle teams = data_get(chars, "first_game_teams", "characters");
  const char* team_keys[2] = {"imperial", "raiders"};
  for (int team = 0; team < 2; ++team) {
    const std::string where = std::string("characters.first_game_teams.") + team_keys[team];
    py::list ids = data_list(data_get(teams, team_keys[team], "characters.first_game_teams"), where, 3);
    for (int i = 0; i < 3; ++i) {
      const std::string id = data_str(ids[i], where);
      bool found = false;
      for (const py::handle card : cards) {
        if (data_str(data_get(card, "id", "characters.characters"), "characters.characters.id") != id) continue;
        found = true;
        const std::string cw = "character '" + id + "'";
        ih::CharacterSpec& c = spec.teams[team][i];
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
        for (const py::handle name : data_list(data_get(card, "abilities", cw), cw + ".abilities"))
          c.abilities.push_back(data_str(name, cw + ".abilities"));
      }
      if (!found) bad_data(where, "unknown character '" + id + "'");
    }
  }
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
  if (!dict.contains(name.c_str())) bad_data("boards", "no board named '" + name + "'");
  const py::handle board = dict[name.c_str()];
  const std::string w = "board '" + name + "'";
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
  const std::string text = v.cast<std::string>();
  for (int p = 0; p < count; ++p)
    if (text == ih::kPhaseNames[p]) return p;
  std::string names;
  for (int p = 0; p < count; ++p) names += std::string(p ? ", " : "") + ih::kPhaseNames[p];
  bad_field(field, "expected one of " + names + ", got '" + text + "'");
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
    py::dict d;
    d["board"] = g.board().name();
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
      c["id"] = g.token(t).id;
      c["cell"] = xy_of(s.cell[t]);
      c["facing"] = ih::kDirNames[s.facing[t] & 3];
      c["strawberries"] = static_cast<int>(s.carried[t]);
      c["uses_left"] = s.uses_left[t] == ih::kNone ? py::object(py::none()) : py::object(py::int_(s.uses_left[t]));
      characters.append(c);
    }
    d["characters"] = characters;
    d["plucked"] = py::make_tuple(s.plucked[0], s.plucked[1]).cast<py::list>();
    d["deposited"] = py::make_tuple(s.deposited[0], s.deposited[1]).cast<py::list>();
    d["hedges_planted"] = static_cast<int>(s.hedges_planted);
    d["hedges_chopped"] = static_cast<int>(s.hedges_chopped);
    d["round"] = static_cast<int>(s.round);
    d["team"] = static_cast<int>(s.team);
    d["phase"] = ih::kPhaseNames[std::min<int>(s.phase, 4)];
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
    activation["grapple_used"] = (a.used & ih::ability_bit(ih::Ability::kGrapple)) != 0;
    activation["pounce_used"] = (a.used & ih::ability_bit(ih::Ability::kDragonPounce)) != 0;
    activation["throw_used"] = (a.used & ih::ability_bit(ih::Ability::kThrowingAxe)) != 0;
    activation["charm_used"] = (a.used & ih::ability_bit(ih::Ability::kCharm)) != 0;
    activation["compulsions"] = static_cast<int>(a.compulsions);
    activation["compel_target"] = token_or_none(a.compel_target);
    activation["ballad"] = bit_tokens(a.ballad);
    activation["war_cry"] = bit_tokens(a.war_cry);
    activation["bonus"] = static_cast<bool>(a.bonus);
    d["activation"] = activation;
    py::list queue;
    for (int i = 0; i < s.queue_count; ++i) queue.append(static_cast<int>(s.queue[i]));
    d["respawn_queue"] = queue;
    d["resume_phase"] = s.resume_phase == ih::kNone ? py::object(py::none())
                                                    : py::object(py::str(ih::kPhaseNames[s.resume_phase]));
    d["current_player"] = static_cast<int>(s.player);
    d["move_number"] = static_cast<long>(s.move_number);
    return d;
  }

  static ih::State state_from_dict(const ih::Game& g, const py::dict& d) {
    require_keys(d, {"hedges", "strawberries", "hydras", "characters", "plucked", "deposited",
                     "hedges_planted", "hedges_chopped", "round", "team", "phase", "resting",
                     "last_rested", "done", "active", "activation", "respawn_queue", "resume_phase",
                     "current_player", "move_number"});
    ih::State s;
    s.queue.fill(ih::kNone);
    s.done.fill(ih::kNone);
    s.cell.fill(ih::kNone);
    s.uses_left.fill(ih::kNone);
    // Hedges: orthogonal neighbours, lower index first, sorted as lists, no repeats.
    py::list hedges = read_list(d["hedges"], "hedges");
    std::array<int, 4> previous{-1, -1, -1, -1};
    for (size_t i = 0; i < hedges.size(); ++i) {
      const std::string field = "hedges[" + std::to_string(i) + "]";
      py::list pair = read_list(hedges[i], field, 2);
      const int a = read_cell(pair[0], field + "[0]"), b = read_cell(pair[1], field + "[1]");
      const std::array<int, 4> key{ih::cell_x(a), ih::cell_y(a), ih::cell_x(b), ih::cell_y(b)};
      if (b == a + 1 && ih::cell_y(a) == ih::cell_y(b))
        s.hedge_east.set(a);
      else if (b == a + ih::kSize)
        s.hedge_south.set(a);
      else
        bad_field(field, "expected two orthogonally adjacent cells, lower cell index first");
      if (!(previous < key)) bad_field(field, "hedges must be sorted without repeats");
      previous = key;
    }
    py::list berries = read_list(d["strawberries"], "strawberries");
    int last = -1;
    for (size_t i = 0; i < berries.size(); ++i) {
      const std::string field = "strawberries[" + std::to_string(i) + "]";
      const int c = read_cell(berries[i], field);
      if (c <= last) bad_field(field, "strawberries must be sorted by cell index without repeats");
      last = c;
      s.strawberries.set(c);
    }
    py::list hydras = read_list(d["hydras"], "hydras", 2);
    for (int h = 0; h < 2; ++h) s.hydra[h] = static_cast<uint8_t>(read_cell(hydras[h], "hydras[" + std::to_string(h) + "]"));
    py::list characters = read_list(d["characters"], "characters", ih::kCharacters);
    for (int t = 0; t < ih::kCharacters; ++t) {
      const std::string field = "characters[" + std::to_string(t) + "]";
      py::dict c = read_dict(characters[t], field);
      require_keys(c, {"id", "cell", "facing", "strawberries", "uses_left"}, field);
      if (!py::isinstance<py::str>(c["id"]) || c["id"].cast<std::string>() != g.token(t).id)
        bad_field(field + ".id", "expected '" + g.token(t).id + "'");
      if (!c["cell"].is_none()) s.cell[t] = static_cast<uint8_t>(read_cell(c["cell"], field + ".cell"));
      if (!py::isinstance<py::str>(c["facing"])) bad_field(field + ".facing", "expected n, e, s or w");
      const std::string facing = c["facing"].cast<std::string>();
      int f = -1;
      for (int k = 0; k < 4; ++k)
        if (facing == ih::kDirNames[k]) f = k;
      if (f < 0) bad_field(field + ".facing", "expected n, e, s or w, got '" + facing + "'");
      s.facing[t] = static_cast<uint8_t>(f);
      s.carried[t] = static_cast<uint8_t>(read_int(c["strawberries"], field + ".strawberries", 0, g.token(t).slots));
      if (!c["uses_left"].is_none())
        s.uses_left[t] = static_cast<uint8_t>(read_int(c["uses_left"], field + ".uses_left", 0, 200));
    }
    py::list plucked = read_list(d["plucked"], "plucked", 2), deposited = read_list(d["deposited"], "deposited", 2);
    for (int team = 0; team < 2; ++team) {
      s.plucked[team] = static_cast<uint8_t>(read_int(plucked[team], "plucked[" + std::to_string(team) + "]", 0, 100));
      s.deposited[team] = static_cast<uint8_t>(read_int(deposited[team], "deposited[" + std::to_string(team) + "]", 0, 100));
    }
    s.hedges_planted = static_cast<uint8_t>(read_int(d["hedges_planted"], "hedges_planted", 0, ih::kMaxPlantedHedges));
    s.hedges_chopped = static_cast<uint8_t>(read_int(d["hedges_chopped"], "hedges_chopped", 0, ih::kMaxChoppedHedges));
    s.round = static_cast<uint8_t>(read_int(d["round"], "round", 1, ih::kRounds));
    s.team = static_cast<uint8_t>(read_int(d["team"], "team", 0, 1));
    s.phase = static_cast<uint8_t>(read_phase(d["phase"], "phase", 5));
    s.resting = read_token_or_none(d["resting"], "resting", ih::kCharacters);
    py::list last_rested = read_list(d["last_rested"], "last_rested", 2);
    for (int team = 0; team < 2; ++team)
      s.last_rested[team] = read_token_or_none(last_rested[team], "last_rested[" + std::to_string(team) + "]", ih::kCharacters);
    const std::vector<int> done = read_tokens(d["done"], "done", 2, false, ih::kCharacters);
    for (size_t i = 0; i < done.size(); ++i) s.done[i] = static_cast<uint8_t>(done[i]);
    s.done_count = static_cast<uint8_t>(done.size());
    s.active = read_token_or_none(d["active"], "active", ih::kCharacters);
    py::dict a = read_dict(d["activation"], "activation");
    require_keys(a, {"ap", "face_used", "grapple_used", "pounce_used", "throw_used", "charm_used", "compulsions",
                     "compel_target", "ballad", "war_cry", "bonus"},
                 "activation");
    ih::Activation& v = s.activation;
    v.ap = static_cast<uint8_t>(read_int(a["ap"], "activation.ap", 0, 60));
    v.face_used = read_bool(a["face_used"], "activation.face_used");
    const std::pair<const char*, ih::Ability> once[] = {{"grapple_used", ih::Ability::kGrapple},
                                                        {"pounce_used", ih::Ability::kDragonPounce},
                                                        {"throw_used", ih::Ability::kThrowingAxe},
                                                        {"charm_used", ih::Ability::kCharm}};
    for (const auto& [key, ability] : once)
      if (read_bool(a[key], std::string("activation.") + key)) v.used |= ih::ability_bit(ability);
    v.compulsions = static_cast<uint8_t>(read_int(a["compulsions"], "activation.compulsions", 0, ih::kMaxCompulsions));
    v.compel_target = read_token_or_none(a["compel_target"], "activation.compel_target", ih::kCharacters);
    for (int t : read_tokens(a["ballad"], "activation.ballad", ih::kTokens, true, ih::kCharacters))
      v.ballad = static_cast<uint8_t>(v.ballad | (1u << t));
    for (int t : read_tokens(a["war_cry"], "activation.war_cry", ih::kTokens, true, ih::kCharacters))
      v.war_cry = static_cast<uint8_t>(v.war_cry | (1u << t));
    v.bonus = read_bool(a["bonus"], "activation.bonus");
    const std::vector<int> queue = read_tokens(d["respawn_queue"], "respawn_queue", ih::kCharacters, false, ih::kCharacters);
    for (size_t i = 0; i < queue.size(); ++i) s.queue[i] = static_cast<uint8_t>(queue[i]);
    s.queue_count = static_cast<uint8_t>(queue.size());
    s.resume_phase = d["resume_phase"].is_none() ? ih::kNone
                                                 : static_cast<uint8_t>(read_phase(d["resume_phase"], "resume_phase", 4));
    const long player = read_int(d["current_player"], "current_player", kTerminalPlayer, 1);
    if (player != 0 && player != 1 && player != kTerminalPlayer)
      bad_field("current_player", "expected 0, 1 or -4 (game over), got " + std::to_string(player));
    s.player = static_cast<int8_t>(player);
    s.move_number = static_cast<uint32_t>(read_int(d["move_number"], "move_number", 0, 1000000000));
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
                       const py::dict& characters) {
             ih::GameSpec spec;
             read_board(board, boards, tiles, spec.board);
             read_characters(characters, spec);
             try {
               return std::make_shared<ih::Game>(spec);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("board"), py::arg("boards"), py::arg("tiles"), py::arg("characters"),
           "The game on board `board` of `boards` (boards.json), with tiles.json and characters.json "
           "as parsed JSON; meeple.load('imperial_harvest', board=...) reads the shipped files.")
      .def("board_hedges",
           [](const ih::Game& g) {
             return ImperialHarvestTraits::hedge_list(g.board().initial_east_hedges(), g.board().initial_south_hedges());
           },
           "The initial hedges of the board (built from its tiles if it has them), in to_dict() form.")
      .def(
          "_bench_legal_actions",
          [](const ih::Game& g, const S& s, int64_t iterations) {
            if (iterations < 1) throw py::value_error("iterations must be >= 1");
            py::gil_scoped_release release;
            const auto start = std::chrono::steady_clock::now();
            int64_t total = 0;
            for (int64_t i = 0; i < iterations; ++i) {
              ih::Game::Actions actions;
              g.legal_actions(s.state, actions);
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
      [](const S& s, int team) {
        if (team < 0 || team > 1) throw py::value_error("team must be 0 or 1, got " + std::to_string(team));
        return s.game->vp(s.state, team);
      },
      py::arg("team"),
      "Victory points of `team` (0 imperial, 1 raiders) if the game ended now: plucked + carried + "
      "2 × deposited.");
}

}  // namespace meeple::bindings
