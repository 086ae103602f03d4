#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdio>

#include "../harmonies/harmonies.h"
#include "bind_game.h"
#include "dict_io.h"

namespace meeple::bindings {

namespace {

namespace hm = meeple::harmonies;

// ------------------------------------------------------------------ small readers and writers

std::string cell_key(const hm::Geometry& g, int x) {
  return std::to_string(g.col[x]) + "," + std::to_string(g.row[x]);
}

// "col,row" (plain decimals) on the board, else -1.
int parse_cell_key(const hm::Geometry& g, const std::string& key) {
  const size_t comma = key.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 >= key.size() || key.size() > 5) return -1;
  auto number = [](const std::string& t) {
    if (t.size() != 1 || t[0] < '0' || t[0] > '9') return -1;  // boards have < 10 columns and rows
    return t[0] - '0';
  };
  const int c = number(key.substr(0, comma)), r = number(key.substr(comma + 1));
  return c < 0 || r < 0 ? -1 : g.cell_at(c, r);
}

std::string read_str(const py::handle& value, const std::string& field) {
  if (!py::isinstance<py::str>(value))
    bad_field(field, std::string("expected a string, got ") + Py_TYPE(value.ptr())->tp_name);
  return read_text(value, field);
}

int read_colour(const py::handle& value, const std::string& field) {
  const std::string name = read_str(value, field);
  for (int c = 0; c < hm::kColours; ++c)
    if (name == hm::kColourNames[c]) return c;
  bad_field(field, "unknown colour " + quoted(name) + "; expected blue, gray, brown, green, yellow or red");
}

int read_cell(const hm::Geometry& g, const py::handle& value, const std::string& field, const char* side) {
  const std::string key = read_str(value, field);
  const int x = parse_cell_key(g, key);
  if (x < 0) bad_field(field, quoted(key) + " is not a cell 'col,row' of side " + side);
  return x;
}

std::string side_name(int side) { return side == 0 ? "A" : "B"; }

// A stack (colours bottom to top) -> its kind, as the stacking rules build it.
uint8_t read_stack(const py::handle& value, const std::string& field) {
  py::list colours = read_list(value, field);
  if (colours.size() > 3) bad_field(field, "a stack holds at most 3 tokens");
  uint8_t kind = hm::kEmpty;
  std::string text;
  for (size_t h = 0; h < colours.size(); ++h) {
    const int c = read_colour(colours[h], field + "[" + std::to_string(h) + "]");
    text += std::string(text.empty() ? "" : ",") + hm::kColourNames[c];
    kind = hm::kNextKind[kind][c];
    if (kind == hm::kNone) bad_field(field, "stack [" + text + "] breaks the stacking rules");
  }
  return kind;
}

void set_stack(hm::PlayerState& p, int x, uint8_t kind) { hm::Game::set_stack(p, x, kind); }

// Counts per colour from a list of colour names in colour-index order.
hm::Tokens read_tokens(const py::handle& value, const std::string& field, size_t most) {
  py::list list = read_list(value, field);
  if (list.size() > most) bad_field(field, "expected at most " + std::to_string(most) + " tokens");
  hm::Tokens counts{};
  int last = -1;
  for (size_t i = 0; i < list.size(); ++i) {
    const int c = read_colour(list[i], field + "[" + std::to_string(i) + "]");
    if (c < last) bad_field(field, "colours must be listed in colour order (blue, gray, brown, green, yellow, red)");
    last = c;
    ++counts[c];
  }
  return counts;
}

py::list token_list(const hm::Tokens& counts) {
  py::list out;
  for (int c = 0; c < hm::kColours; ++c)
    for (int k = 0; k < counts[c]; ++k) out.append(hm::kColourNames[c]);
  return out;
}

py::list stack_list(uint8_t kind) {
  py::list out;
  const hm::KindStack& k = hm::kKindStack[kind];
  for (int h = 0; h < k.height; ++h) out.append(hm::kColourNames[k.colours[h]]);
  return out;
}

// {"col,row": [colours]} for every cell of the side, in cell-index order.
py::dict board_of(const hm::Geometry& g, const hm::PlayerState& p) {
  py::dict board;
  for (int x = 0; x < g.ncells; ++x) board[py::str(cell_key(g, x))] = stack_list(p.kind(x));
  return board;
}

py::list cubes_of(const hm::Geometry& g, const hm::PlayerState& p) {
  py::list cubes;
  for (uint32_t m = p.cubes; m; m &= m - 1) cubes.append(cell_key(g, std::countr_zero(m)));
  return cubes;
}

// Unfinished cards in slot order, then finished cards by id.
py::list cards_of(const hm::Game& game, const hm::PlayerState& p) {
  py::list cards;
  auto add = [&](int id, int placed) {
    py::dict c;
    c["id"] = id;
    c["cubes_placed"] = placed;
    cards.append(c);
  };
  for (int j = 0; j < p.held; ++j) add(p.card[j], p.placed[j]);
  for (uint32_t m = p.animals_done; m; m &= m - 1) add(1 + std::countr_zero(m), game.card_cubes(1 + std::countr_zero(m)));
  for (uint32_t m = p.spirits_done; m; m &= m - 1) add(hm::kFirstSpirit + std::countr_zero(m), 1);
  return cards;
}

// Reads a list of {"id", "cubes_placed"} into `p`. `strict`: unfinished cards first (slot order),
// then finished ones by ascending id, as state dicts list them; otherwise any order.
void read_cards(const hm::Game& game, const py::handle& value, const std::string& field, hm::PlayerState& p, bool strict) {
  py::list cards = read_list(value, field);
  int last_finished = 0;
  std::array<bool, hm::kNumCards + 1> seen{};
  for (size_t i = 0; i < cards.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    py::dict c = read_dict(cards[i], f);
    require_keys(c, {"id", "cubes_placed"}, f);
    const int id = static_cast<int>(read_int(c["id"], f + ".id", 1, hm::kNumCards));
    if (seen[id]) bad_field(f + ".id", "card " + std::to_string(id) + " is listed twice");
    seen[id] = true;
    const int cubes = game.card_cubes(id);
    const int placed = static_cast<int>(read_int(c["cubes_placed"], f + ".cubes_placed", 0, cubes));
    if (placed == cubes) {
      if (strict && id < last_finished) bad_field(field, "finished cards must be listed by ascending id");
      last_finished = id;
      if (game.is_spirit(id))
        p.spirits_done |= static_cast<uint16_t>(1u << (id - hm::kFirstSpirit));
      else
        p.animals_done |= 1u << (id - 1);
    } else {
      if (strict && last_finished) bad_field(field, "unfinished cards must come before finished cards");
      if (p.held >= hm::kMaxHeld) bad_field(field, "at most 4 unfinished cards");
      p.card[p.held] = static_cast<uint8_t>(id);
      p.placed[p.held] = static_cast<uint8_t>(placed);
      ++p.held;
    }
  }
}

// A player number from Python: an int (not bool) in 0..players-1, else TypeError or ValueError.
int player_argument(const hm::Game& game, const py::handle& player) {
  return static_cast<int>(int_argument(player, "player", 0, game.num_players() - 1));
}

py::dict breakdown(const hm::Score& s) {
  py::dict d;
  d["trees"] = s.trees;
  d["mountains"] = s.mountains;
  d["fields"] = s.fields;
  d["buildings"] = s.buildings;
  d["water"] = s.water;
  d["animals"] = s.animals;
  d["spirit"] = s.spirit;
  d["total"] = s.total;
  d["cubes"] = s.cubes;
  return d;
}

int parse_side(const std::string& side) {
  if (side == "A") return 0;
  if (side == "B") return 1;
  throw py::value_error("side must be 'A' or 'B', got " + quoted(side));
}

// A board in the format of bga_final_boards.json: {"col,row": [colours]} (cells left out are
// empty) and cards [{"id", "cubes_placed"}] in any order -> its score breakdown.
py::dict score_board_unchecked(const hm::Game& game, const py::handle& board, const py::handle& cards, int side) {
  const hm::Geometry& g = game.geometry(side);
  const std::string side_text = side_name(side);
  hm::PlayerState p;
  py::dict cells = read_dict(board, "board");
  for (auto item : cells) {
    const int x = read_cell(g, item.first, "board", side_text.c_str());
    set_stack(p, x, read_stack(item.second, "board[" + cell_key(g, x) + "]"));
  }
  read_cards(game, cards, "cards", p, false);
  int spirits = 0;
  for (int j = 0; j < p.held; ++j) spirits += game.is_spirit(p.card[j]);
  if (spirits + hm::popcount32(static_cast<unsigned>(p.spirits_done)) > 1) bad_field("cards", "a player keeps at most one spirit");
  return breakdown(game.score(p, side));
}

py::dict score_board(const hm::Game& game, const py::handle& board, const py::handle& cards, int side) {
  try {
    return score_board_unchecked(game, board, cards, side);
  } catch (const py::value_error& e) {  // the readers speak of "state field"; here it is a board
    std::string message = e.what();
    const std::string prefix = "state field";
    if (message.rfind(prefix, 0) == 0) message = "harmonies board field" + message.substr(prefix.size());
    throw py::value_error(message);
  }
}

std::shared_ptr<hm::Game> make_game(int players, const std::string& side, bool spirits, const std::string& chance,
                                    const py::object& cards) {
  hm::Params p;
  if (players < 1 || players > 4) throw py::value_error("parameter players must be in 1..4, got " + std::to_string(players));
  p.players = players;
  p.side = parse_side(side);
  p.spirits = spirits;
  if (chance != "implicit" && chance != "explicit")
    throw py::value_error("parameter chance must be one of 'implicit', 'explicit', got " + quoted(chance));
  p.explicit_chance = chance == "explicit";
  std::string text;
  if (py::isinstance<py::str>(cards))
    text = cards.cast<std::string>();
  else if (py::isinstance<py::dict>(cards))
    text = py::module_::import("json").attr("dumps")(cards).cast<std::string>();
  else
    throw py::type_error("cards must be the cards.json content (a dict) or its text");
  return std::make_shared<hm::Game>(p, hm::parse_cards_json(text));
}

struct HarmoniesTraits {
  static constexpr const char* kName = "harmonies";

  static py::dict parameters(const hm::Game& g) {
    const hm::Params& p = g.params();
    py::dict d;
    d["players"] = p.players;
    d["side"] = side_name(p.side);
    d["spirits"] = p.spirits;
    d["chance"] = p.explicit_chance ? "explicit" : "implicit";
    return d;
  }

  static py::dict state_to_dict(const hm::Game& g, const hm::State& s) {
    const hm::Geometry& geo = g.geometry();
    const int P = g.num_players();
    py::list players;
    for (int i = 0; i < P; ++i) {
      const hm::PlayerState& p = s.players[i];
      py::dict pd;
      pd["board"] = board_of(geo, p);
      pd["cubes"] = cubes_of(geo, p);
      pd["cards"] = cards_of(g, p);
      py::list options;
      for (uint8_t id : p.spirit_options)
        if (id) options.append(int(id));
      pd["spirit_options"] = options;
      pd["turns"] = int(p.turns);
      players.append(pd);
    }
    py::dict d;
    d["players"] = players;
    py::list central, display, deck, spirit_deck;
    for (int sp = 0; sp < g.num_spaces(); ++sp) central.append(token_list(s.central[sp]));
    for (int k = 0; k < g.num_slots(); ++k) display.append(s.display[k] ? py::object(py::int_(int(s.display[k]))) : py::object(py::none()));
    for (uint32_t m = s.deck; m; m &= m - 1) deck.append(1 + std::countr_zero(m));
    for (uint32_t m = s.spirit_deck; m; m &= m - 1) spirit_deck.append(hm::kFirstSpirit + std::countr_zero(m));
    d["central"] = central;
    d["display"] = display;
    d["deck"] = deck;
    d["spirit_deck"] = spirit_deck;
    py::dict pouch;
    for (int c = 0; c < hm::kColours; ++c) pouch[hm::kColourNames[c]] = int(s.pouch[c]);
    d["pouch"] = pouch;
    d["turn_player"] = int(s.turn_player);
    d["hand"] = token_list(s.hand);
    d["took_tokens"] = s.took_tokens;
    d["took_card"] = s.took_card;
    d["end_triggered"] = s.end_triggered;
    py::dict pending;
    py::list spaces, slots, spirits;
    for (uint32_t m = s.pending_spaces; m; m &= m - 1) spaces.append(std::countr_zero(m));
    for (uint32_t m = s.pending_slots; m; m &= m - 1) slots.append(std::countr_zero(m));
    for (int k = 2 * P - s.pending_spirits; k < 2 * P; ++k) spirits.append(k / 2);
    pending["spaces"] = spaces;
    pending["slots"] = slots;
    pending["spirits"] = spirits;
    d["pending"] = pending;
    d["current_player"] = g.current_player(s);
    d["move_number"] = int(s.move_number);
    char rng[32];
    std::snprintf(rng, sizeof rng, "0x%016llx", static_cast<unsigned long long>(s.rng.state));
    d["rng"] = std::string(rng);
    return d;
  }

  static hm::State state_from_dict(const hm::Game& g, const py::dict& d) {
    require_keys(d, {"players", "central", "display", "deck", "spirit_deck", "pouch", "turn_player", "hand",
                     "took_tokens", "took_card", "end_triggered", "pending", "current_player", "move_number", "rng"});
    const int P = g.num_players();
    const hm::Geometry& geo = g.geometry();
    const std::string side = side_name(g.params().side);
    hm::State s;
    py::list players = read_list(d["players"], "players", P);
    for (int i = 0; i < P; ++i) {
      const std::string f = "players[" + std::to_string(i) + "]";
      py::dict pd = read_dict(players[i], f);
      require_keys(pd, {"board", "cubes", "cards", "spirit_options", "turns"}, f);
      hm::PlayerState& p = s.players[i];
      py::dict board = read_dict(pd["board"], f + ".board");
      for (auto item : board) {
        const int x = read_cell(geo, item.first, f + ".board", side.c_str());
        set_stack(p, x, read_stack(item.second, f + ".board[" + cell_key(geo, x) + "]"));
      }
      if (static_cast<int>(board.size()) != geo.ncells)
        bad_field(f + ".board", "expected every one of the " + std::to_string(geo.ncells) + " cells of side " + side);
      py::list cubes = read_list(pd["cubes"], f + ".cubes");
      for (size_t k = 0; k < cubes.size(); ++k) {  // any order (to_dict lists them by cell index)
        const int x = read_cell(geo, cubes[k], f + ".cubes[" + std::to_string(k) + "]", side.c_str());
        if ((p.cubes >> x) & 1u) bad_field(f + ".cubes", "two cubes on " + cell_key(geo, x));
        p.cubes |= 1u << x;
      }
      read_cards(g, pd["cards"], f + ".cards", p, true);
      py::list options = read_list(pd["spirit_options"], f + ".spirit_options");
      if (options.size() > 2) bad_field(f + ".spirit_options", "at most 2 dealt spirits");
      for (size_t k = 0; k < options.size(); ++k)
        p.spirit_options[k] = static_cast<uint8_t>(
            read_int(options[k], f + ".spirit_options[" + std::to_string(k) + "]", hm::kFirstSpirit, hm::kNumCards));
      p.turns = static_cast<uint16_t>(read_int(pd["turns"], f + ".turns", 0, 1000));
    }
    py::list central = read_list(d["central"], "central", g.num_spaces());
    for (int sp = 0; sp < g.num_spaces(); ++sp) s.central[sp] = read_tokens(central[sp], "central[" + std::to_string(sp) + "]", 3);
    py::list display = read_list(d["display"], "display", g.num_slots());
    for (int k = 0; k < g.num_slots(); ++k)
      if (!display[k].is_none())
        s.display[k] = static_cast<uint8_t>(read_int(display[k], "display[" + std::to_string(k) + "]", 1, hm::kNumAnimals));
    auto read_ids = [](const py::handle& value, const std::string& field, int lo, int hi) {
      uint32_t mask = 0;
      int last = lo - 1;
      py::list list = read_list(value, field);
      for (size_t k = 0; k < list.size(); ++k) {
        const int id = static_cast<int>(read_int(list[k], field + "[" + std::to_string(k) + "]", lo, hi));
        if (id <= last) bad_field(field, "ids must be listed once each, ascending");
        last = id;
        mask |= 1u << (id - lo);
      }
      return mask;
    };
    s.deck = read_ids(d["deck"], "deck", 1, hm::kNumAnimals);
    s.spirit_deck = static_cast<uint16_t>(read_ids(d["spirit_deck"], "spirit_deck", hm::kFirstSpirit, hm::kNumCards));
    py::dict pouch = read_dict(d["pouch"], "pouch");
    require_keys(pouch, {"blue", "gray", "brown", "green", "yellow", "red"}, "pouch");
    for (int c = 0; c < hm::kColours; ++c)
      s.pouch[c] = static_cast<uint8_t>(read_int(pouch[hm::kColourNames[c]], std::string("pouch.") + hm::kColourNames[c], 0,
                                                 hm::kPouchStart[c]));
    s.turn_player = static_cast<uint8_t>(read_int(d["turn_player"], "turn_player", 0, P - 1));
    s.hand = read_tokens(d["hand"], "hand", 3);
    s.took_tokens = read_bool(d["took_tokens"], "took_tokens");
    s.took_card = read_bool(d["took_card"], "took_card");
    s.end_triggered = read_bool(d["end_triggered"], "end_triggered");
    py::dict pending = read_dict(d["pending"], "pending");
    require_keys(pending, {"spaces", "slots", "spirits"}, "pending");
    s.pending_spaces = static_cast<uint8_t>(read_ids(pending["spaces"], "pending.spaces", 0, g.num_spaces() - 1));
    s.pending_slots = static_cast<uint8_t>(read_ids(pending["slots"], "pending.slots", 0, g.num_slots() - 1));
    py::list deals = read_list(pending["spirits"], "pending.spirits");
    const int deals_total = g.params().spirits ? 2 * P : 0;
    if (static_cast<int>(deals.size()) > deals_total)
      bad_field("pending.spirits", "at most " + std::to_string(deals_total) + " spirit deals in this game");
    for (size_t k = 0; k < deals.size(); ++k) {
      const int expected = (deals_total - static_cast<int>(deals.size()) + static_cast<int>(k)) / 2;
      if (read_int(deals[k], "pending.spirits[" + std::to_string(k) + "]", 0, P - 1) != expected)
        bad_field("pending.spirits", "must be the last deals of 0, 0, 1, 1, ... (player per deal)");
    }
    s.pending_spirits = static_cast<uint8_t>(deals.size());
    const long current = read_int(d["current_player"], "current_player", kTerminalPlayer, P - 1);
    s.over = current == kTerminalPlayer;
    s.move_number = static_cast<uint16_t>(read_int(d["move_number"], "move_number", 0, 60000));
    const std::string rng = read_str(d["rng"], "rng");
    if (rng.size() < 3 || rng.size() > 18 || rng[0] != '0' || rng[1] != 'x' ||
        rng.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
      bad_field("rng", "expected '0x' and 1 to 16 hex digits, got " + quoted(rng));
    // Explicit chance never draws from it: 0 whatever the document says (initial_state's value).
    s.rng.state = g.params().explicit_chance ? 0 : std::stoull(rng.substr(2), nullptr, 16);
    for (int i = 0; i < P; ++i) g.refresh_targets(s.players[i]);
    const std::string problem = g.check_consistency(s);
    if (!problem.empty()) throw py::value_error("inconsistent harmonies state: " + problem);
    if (g.current_player(s) != current)
      bad_field("current_player", "expected " + std::to_string(g.current_player(s)) + " for this position, got " +
                                      std::to_string(current));
    return s;
  }
};

}  // namespace

void bind_harmonies(py::module_& m) {
  using S = PyState<hm::Game>;
  auto [game_class, state_class] = bind_game<hm::Game, HarmoniesTraits>(m, "Harmonies");
  game_class
      .def(py::init(&make_game), py::arg("players") = 2, py::arg("side") = "A", py::arg("spirits") = false,
           py::arg("chance") = "implicit", py::arg("cards"),
           "A Harmonies game; `cards` is the content of cards.json (dict or text).")
      .def(
          "score_board",
          [](const hm::Game& g, const py::handle& board, const py::handle& cards, py::object side) {
            const int s = side.is_none() ? g.params().side : parse_side(read_str(side, "side"));
            return score_board(g, board, cards, s);
          },
          py::arg("board"), py::arg("cards") = py::list(), py::arg("side") = py::none(),
          "Score breakdown of a board {'col,row': [colours]} with cards [{'id', 'cubes_placed'}] (any order); "
          "side defaults to the game's.")
      .def(
          "_bench_score",
          [](const hm::Game& g, const S& s, int player, int64_t n) {
            if (player < 0 || player >= g.num_players()) throw py::value_error("bad player");
            const auto start = std::chrono::steady_clock::now();
            int64_t sink = 0;
            const hm::PlayerState board = s.state.players[player];
            const hm::PlayerState* volatile p = &board;  // re-read each time: no hoisting
            for (int64_t i = 0; i < n; ++i) sink += g.score(*p, g.params().side).total;
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            return py::make_tuple(seconds, sink);
          },
          py::arg("state"), py::arg("player"), py::arg("n"),
          "Scores `player`'s board n times in C++; returns (seconds, checksum).");
  state_class
      .def(
          "score_breakdown",
          [](const S& s, py::object player) {
            return breakdown(s.game->score(s.state, player_argument(*s.game, player)));
          },
          py::arg("player"),
          "Points of `player` now: trees, mountains, fields, buildings, water, animals, spirit, total, cubes.")
      .def(
          "board",
          [](const S& s, py::object player) {
            const hm::Geometry& geo = s.game->geometry();
            const hm::PlayerState& p = s.state.players[player_argument(*s.game, player)];
            py::dict d;
            d["board"] = board_of(geo, p);
            d["cubes"] = cubes_of(geo, p);
            d["cards"] = cards_of(*s.game, p);
            return d;
          },
          py::arg("player"), "`player`'s board in the format of bga_final_boards.json.");
  m.def(
      "harmonies_score_board",
      [](const py::handle& board, const std::string& side, const py::handle& cards, const py::object& card_data) {
        const auto game = make_game(1, side, false, "implicit", card_data);
        return score_board(*game, board, cards, game->params().side);
      },
      py::arg("board"), py::arg("side"), py::arg("cards"), py::arg("card_data"),
      "Score breakdown of a Harmonies board in BGA format (board dict, side 'A'/'B', cards list), "
      "given the cards.json content.");
}

}  // namespace meeple::bindings
