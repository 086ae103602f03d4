#include "harmonies.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "../common/text.h"

namespace meeple::harmonies {

namespace {

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

// ------------------------------------------------------------------ a small JSON reader

struct Json {
  enum Type { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  // An object's members: keys[i] names values[i]. Two vectors, not one of pairs: a vector of an
  // incomplete type is allowed (C++17), a pair of one is not (clang with libstdc++ refuses it).
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json* get(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == key) return &values[i];
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : t_(text) {}

  Json document() {
    Json v = value(0);
    skip();
    if (i_ != t_.size()) error("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail("cards JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) error(std::string("expected '") + c + "'");
  }
  bool word(std::string_view w) {
    if (t_.substr(i_, w.size()) == w) {
      i_ += w.size();
      return true;
    }
    return false;
  }

  Json value(int depth) {
    if (depth > 64) error("nested too deeply");
    skip();
    if (i_ >= t_.size()) error("unexpected end");
    Json v;
    const char c = t_[i_];
    if (c == '{') {
      ++i_;
      v.type = Json::kObject;
      if (eat('}')) return v;
      do {
        skip();
        if (i_ >= t_.size() || t_[i_] != '"') error("expected a key");
        std::string key = string();
        expect(':');
        v.values.push_back(value(depth + 1));
        v.keys.push_back(std::move(key));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.type = Json::kArray;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::kString;
      v.text = string();
    } else if (word("true")) {
      v.type = Json::kBool;
      v.boolean = true;
    } else if (word("false")) {
      v.type = Json::kBool;
    } else if (word("null")) {
      v.type = Json::kNull;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const size_t start = i_;
      ++i_;
      while (i_ < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[i_])) || t_[i_] == '.' ||
                                t_[i_] == 'e' || t_[i_] == 'E' || t_[i_] == '+' || t_[i_] == '-'))
        ++i_;
      const std::string number(t_.substr(start, i_ - start));
      char* end = nullptr;
      v.type = Json::kNumber;
      v.number = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size()) error("bad number");
    } else {
      error("unexpected character");
    }
    return v;
  }

  std::string string() {
    ++i_;  // opening quote
    std::string out;
    while (true) {
      if (i_ >= t_.size()) error("unterminated string");
      const char c = t_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= t_.size()) error("unterminated string");
      const char e = t_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > t_.size()) error("bad \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(std::string(t_.substr(i_, 4)), nullptr, 16));
          i_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {  // surrogates are kept as three-byte sequences: names never use them
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default: error("bad escape");
      }
    }
  }

  std::string_view t_;
  size_t i_ = 0;
};

// member() and as_array() return a part of their first argument, never of `where` (a temporary
// string at most calls); GCC 14+ would otherwise warn of a possibly dangling reference at each.
#if defined(__has_cpp_attribute)
#if __has_cpp_attribute(gnu::no_dangling)
#define MEEPLE_NO_DANGLING [[gnu::no_dangling]]
#endif
#endif
#ifndef MEEPLE_NO_DANGLING
#define MEEPLE_NO_DANGLING
#endif

MEEPLE_NO_DANGLING const Json& member(const Json& object, std::string_view key, const std::string& where) {
  const Json* v = object.type == Json::kObject ? object.get(key) : nullptr;
  if (!v) fail("cards JSON: " + where + " lacks '" + std::string(key) + "'");
  return *v;
}

int as_int(const Json& v, const std::string& where) {
  if (v.type != Json::kNumber || v.number != static_cast<double>(static_cast<int>(v.number)))
    fail("cards JSON: " + where + " must be an integer");
  return static_cast<int>(v.number);
}

MEEPLE_NO_DANGLING const std::vector<Json>& as_array(const Json& v, const std::string& where) {
  if (v.type != Json::kArray) fail("cards JSON: " + where + " must be a list");
  return v.items;
}

int code_of_name(const std::string& name, const std::string& where) {
  for (int k = 0; k < kNumPatternCodes; ++k)
    if (name == kCodeNames[k]) return k;
  fail("cards JSON: " + where + " has unknown stack code '" + name + "'");
}

CardSpec read_card(const Json& c, bool spirit, int index) {
  const std::string where = std::string(spirit ? "spirit_cards" : "animal_cards") + "[" + std::to_string(index) + "]";
  CardSpec card;
  card.id = as_int(member(c, "id", where), where + ".id");
  const Json& name = member(c, "name", where);
  if (name.type != Json::kString || name.text.empty()) fail("cards JSON: " + where + ".name must be a string");
  card.name = name.text;
  for (const Json& cell : as_array(member(c, "pattern", where), where + ".pattern")) {
    PatternCell pc;
    pc.q = as_int(member(cell, "q", where + ".pattern"), where + ".pattern.q");
    pc.r = as_int(member(cell, "r", where + ".pattern"), where + ".pattern.r");
    const Json& stack = member(cell, "stack", where + ".pattern");
    if (stack.type != Json::kString) fail("cards JSON: " + where + ".pattern.stack must be a string");
    pc.code = code_of_name(stack.text, where);
    const Json* cube = cell.get("cube");
    pc.cube = cube && cube->type == Json::kBool && cube->boolean;
    card.pattern.push_back(pc);
  }
  if (!spirit) {
    for (const Json& p : as_array(member(c, "points", where), where + ".points"))
      card.points.push_back(as_int(p, where + ".points"));
    return card;
  }
  const Json* family = c.get("family");
  card.groups_family = family && family->type == Json::kString && family->text == "groups";
  const Json& scoring = member(c, "scoring", where);
  const Json& kind = member(scoring, "kind", where + ".scoring");
  if (kind.type != Json::kString) fail("cards JSON: " + where + ".scoring.kind must be a string");
  const std::string& k = kind.text;
  if (k == "yellow_groups" || k == "building_groups" || k == "blue_groups") {
    card.kind = k == "yellow_groups"     ? SpiritKind::kYellowGroups
                : k == "building_groups" ? SpiritKind::kBuildingGroups
                                         : SpiritKind::kBlueGroups;
    for (const Json& rule : as_array(member(scoring, "by_group_size", where + ".scoring"), where + ".by_group_size")) {
      const auto& r = as_array(rule, where + ".by_group_size[]");
      if (r.size() != 3) fail("cards JSON: " + where + ".by_group_size entries are [min, max|null, points]");
      GroupRule g;
      g.min_size = as_int(r[0], where + ".by_group_size min");
      g.max_size = r[1].type == Json::kNull ? 0 : as_int(r[1], where + ".by_group_size max");
      g.points = as_int(r[2], where + ".by_group_size points");
      if (g.min_size < 1 || (g.max_size != 0 && g.max_size < g.min_size))
        fail("cards JSON: " + where + ".by_group_size has an empty size range");
      card.groups.push_back(g);
    }
  } else if (k == "trees" || k == "mountains") {
    card.kind = k == "trees" ? SpiritKind::kTrees : SpiritKind::kMountains;
    const Json& by = member(scoring, "by_height", where + ".scoring");
    for (int h = 1; h <= 3; ++h)
      card.by_height[h - 1] = as_int(member(by, std::to_string(h), where + ".by_height"), where + ".by_height");
    const Json* isolated = scoring.get("isolated_count");
    card.isolated_count = !isolated || (isolated->type == Json::kBool && isolated->boolean);
  } else if (k == "blue_tokens") {
    card.kind = SpiritKind::kBlueTokens;
    card.per_token = as_int(member(scoring, "per_token", where + ".scoring"), where + ".per_token");
  } else {
    fail("cards JSON: " + where + " has unknown scoring kind '" + k + "'");
  }
  return card;
}

Geometry make_geometry(int side) {
  Geometry g;
  const std::vector<int> heights = side == 0 ? std::vector<int>{5, 4, 5, 4, 5} : std::vector<int>{4, 3, 4, 3, 4, 3, 4};
  g.ncols = static_cast<int>(heights.size());
  for (auto& row : g.cell_of_axial) row.fill(-1);
  int x = 0;
  for (int c = 0; c < g.ncols; ++c)
    for (int r = 0; r < heights[c]; ++r, ++x) {
      g.col[x] = static_cast<int8_t>(c);
      g.row[x] = static_cast<int8_t>(r);
      g.q[x] = static_cast<int8_t>(c);
      g.r[x] = static_cast<int8_t>(r - (c - (c & 1)) / 2);
      g.cell_of_axial[g.q[x]][g.r[x] + 4] = static_cast<int8_t>(x);
    }
  g.ncells = x;
  g.all = (1u << x) - 1;
  static constexpr int kEven[6][2] = {{0, -1}, {1, -1}, {1, 0}, {0, 1}, {-1, 0}, {-1, -1}};
  static constexpr int kOdd[6][2] = {{0, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}};
  std::vector<int> deltas;
  for (int i = 0; i < g.ncells; ++i) {
    const auto& dirs = (g.col[i] & 1) ? kOdd : kEven;
    for (const auto& d : dirs) {
      const int n = g.cell_at(g.col[i] + d[0], g.row[i] + d[1]);
      if (n < 0) continue;
      g.nbr[i] |= 1u << n;
      if (std::find(deltas.begin(), deltas.end(), n - i) == deltas.end()) deltas.push_back(n - i);
    }
  }
  // Neighbour index deltas are ±1, ±a, ±b on both sides (see the header); check it.
  std::sort(deltas.begin(), deltas.end());
  if (deltas.size() != 6 || deltas[2] != -1 || deltas[3] != 1 || deltas[4] + 1 != deltas[5] ||
      deltas[0] != -deltas[5] || deltas[1] != -deltas[4])
    throw std::logic_error("harmonies: unexpected board geometry");
  g.a = deltas[4];
  g.b = deltas[5];
  const int order[6] = {1, -1, g.a, -g.a, g.b, -g.b};
  for (int i = 0; i < g.ncells; ++i)
    for (int k = 0; k < 6; ++k) {
      const int n = i + order[k];
      if (n >= 0 && n < g.ncells && ((g.nbr[i] >> n) & 1u)) g.src[k] |= 1u << i;
    }
  for (int i = 0; i < g.ncells; ++i)
    if (g.spread(1u << i) != g.nbr[i]) throw std::logic_error("harmonies: shift neighbours disagree");
  return g;
}

int popcount(uint32_t v) { return popcount32(v); }

int water_points(int tokens) {
  static constexpr int kTable[7] = {0, 0, 2, 5, 8, 11, 15};
  return tokens <= 6 ? kTable[tokens] : 15 + 4 * (tokens - 6);
}

template <class F>
void for_each_group(const Geometry& g, uint32_t set, F&& f) {
  while (set) {
    uint32_t group = set & (~set + 1);
    for (;;) {
      const uint32_t next = (group | g.spread(group)) & set;
      if (next == group) break;
      group = next;
    }
    f(group);
    set &= ~group;
  }
}

// Tokens on the longest shortest path inside a connected group (diameter + 1).
int river_tokens(const Geometry& g, uint32_t group) {
  const int n = popcount(group);
  if (n <= 2) return n;
  int best = 0;
  for (uint32_t rest = group; rest; rest &= rest - 1) {
    uint32_t reach = rest & (~rest + 1);
    int d = 0;
    while (reach != group) {
      reach = (reach | g.spread(reach)) & group;
      ++d;
    }
    if (d > best) {
      best = d;
      if (best == n - 1) break;
    }
  }
  return best + 1;
}

int group_points(const std::vector<GroupRule>& rules, int size) {  // R8
  for (const GroupRule& r : rules)
    if (size >= r.min_size && (r.max_size == 0 || size <= r.max_size)) return r.points;
  return 0;
}

// "#n" (GCC 12 warns falsely on `"#" + std::to_string(n)`).
std::string hashed(int n) {
  std::string t(1, '#');
  t += std::to_string(n);
  return t;
}

std::string lower(std::string t) {
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

}  // namespace

int Geometry::cell_at(int c, int rr) const {
  if (c < 0 || c >= ncols || rr < 0) return -1;
  for (int x = 0; x < ncells; ++x)
    if (col[x] == c && row[x] == rr) return x;
  return -1;
}

CardData parse_cards_json(std::string_view text) {
  const Json doc = JsonReader(text).document();
  if (doc.type != Json::kObject) fail("cards JSON: expected an object");
  CardData data;
  int i = 0;
  for (const Json& c : as_array(member(doc, "animal_cards", "document"), "animal_cards")) data.cards.push_back(read_card(c, false, i++));
  i = 0;
  for (const Json& c : as_array(member(doc, "spirit_cards", "document"), "spirit_cards")) data.cards.push_back(read_card(c, true, i++));
  return data;
}

void validate(const Params& p) {
  if (p.players < 1 || p.players > kMaxPlayers)
    fail("players must be in 1..4, got " + std::to_string(p.players));
  if (p.side != 0 && p.side != 1) fail("side must be 'A' or 'B'");
}

Game::Game(const Params& params, const CardData& data) : params_(params) {
  validate(params_);
  spaces_ = params_.players == 1 ? 3 : 5;
  slots_ = params_.players == 1 ? 3 : 5;
  geo_[0] = make_geometry(0);
  geo_[1] = make_geometry(1);
  const Geometry& g = geometry();

  std::array<bool, kNumCards + 1> seen{};
  for (const CardSpec& spec : data.cards) {
    const int id = spec.id;
    const std::string where = "card " + std::to_string(id);
    if (id < 1 || id > kNumCards) fail("cards: id must be in 1..42, got " + std::to_string(id));
    if (seen[id]) fail("cards: id " + std::to_string(id) + " appears twice");
    seen[id] = true;
    const bool spirit = id >= kFirstSpirit;
    if (spirit != (spec.kind != SpiritKind::kNone))
      fail("cards: " + where + (spirit ? " is a spirit id without spirit scoring" : " is an animal id with spirit scoring"));
    CardInfo& c = cards_[id];
    c.name = spirit ? "spirit-" + spec.name : spec.name;
    for (char ch : c.name)
      if (std::isspace(static_cast<unsigned char>(ch)) || std::isupper(static_cast<unsigned char>(ch)) || ch == '#')
        fail("cards: " + where + " name '" + spec.name + "' must be lower case without spaces");
    c.spirit = spirit;
    if (spirit) {
      c.ncubes = 1;
    } else {
      if (spec.points.empty() || spec.points.size() > 5) fail("cards: " + where + " must have 1..5 points entries");
      c.ncubes = static_cast<uint8_t>(spec.points.size());
      for (size_t k = 0; k < spec.points.size(); ++k) c.points[k] = spec.points[k];
    }
    c.groups_family = spec.groups_family;
    c.kind = spec.kind;
    c.groups = spec.groups;
    c.by_height = spec.by_height;
    c.isolated_count = spec.isolated_count;
    c.per_token = spec.per_token;

    // Pattern: the cube cell at (0,0), ≤ 4 cells, ≤ 4 distinct codes (anchor code first).
    int anchor = -1;
    if (spec.pattern.size() < 2 || spec.pattern.size() > 4) fail("cards: " + where + " pattern must have 2..4 cells");
    for (size_t k = 0; k < spec.pattern.size(); ++k) {
      const PatternCell& pc = spec.pattern[k];
      if (pc.cube) {
        if (anchor >= 0 || pc.q != 0 || pc.r != 0) fail("cards: " + where + " needs exactly one cube cell, at q=0, r=0");
        anchor = static_cast<int>(k);
      }
      for (size_t m = 0; m < k; ++m)
        if (spec.pattern[m].q == pc.q && spec.pattern[m].r == pc.r) fail("cards: " + where + " pattern repeats a cell");
    }
    if (anchor < 0) fail("cards: " + where + " pattern has no cube cell");
    c.anchor_code = static_cast<uint8_t>(spec.pattern[anchor].code);
    int ncodes = 0;
    std::array<int, 4> codes{};
    codes[ncodes++] = c.anchor_code;
    for (const PatternCell& pc : spec.pattern)
      if (std::find(codes.begin(), codes.begin() + ncodes, pc.code) == codes.begin() + ncodes) codes[ncodes++] = pc.code;
    for (int k = 0; k < 4; ++k) c.codes[k] = static_cast<uint8_t>(k < ncodes ? codes[k] : 0);
    c.ncodes = static_cast<uint8_t>(ncodes);
    c.pattern_cells = static_cast<uint8_t>(spec.pattern.size() - 1);
    for (size_t k = 0, i = 0; k < spec.pattern.size(); ++k)
      if (!spec.pattern[k].cube) c.cell_code[i++] = static_cast<uint8_t>(spec.pattern[k].code);
    for (const PatternCell& other : spec.pattern) {  // axial neighbours: |q|, |r|, |q + r| <= 1
      const int q = other.q, r = other.r;
      if (!other.cube && std::abs(q) <= 1 && std::abs(r) <= 1 && std::abs(q + r) <= 1) {
        c.neighbour_code = static_cast<uint8_t>(other.code);
        break;
      }
    }

    // Rotation `rot` of pattern cell k, as an axial offset from the cube cell.
    auto rotated = [&](const PatternCell& pc, int rot) {
      int dq = pc.q, dr = pc.r;
      for (int t = 0; t < rot; ++t) {  // 60° clockwise: (q, r) -> (-r, q + r)
        const int nq = -dr, nr = dq + dr;
        dq = nq;
        dr = nr;
      }
      return std::pair<int, int>(dq, dr);
    };
    for (int x = 0; x < g.ncells; ++x) {
      c.first[x] = static_cast<uint16_t>(rotations_.size());
      for (int rot = 0; rot < 6; ++rot) {
        Rotation m;
        bool fits = true;
        for (const PatternCell& pc : spec.pattern) {
          const auto [dq, dr] = rotated(pc, rot);
          const int cell = g.axial_cell(g.q[x] + dq, g.r[x] + dr);
          if (cell < 0) {
            fits = false;
            break;
          }
          const int slot = static_cast<int>(std::find(codes.begin(), codes.begin() + ncodes, pc.code) - codes.begin());
          m.mask[slot] |= 1u << cell;
        }
        if (!fits) continue;
        bool duplicate = false;
        for (size_t k = c.first[x]; k < rotations_.size(); ++k) duplicate = duplicate || rotations_[k].mask == m.mask;
        if (!duplicate) rotations_.push_back(m);
      }
      c.count[x] = static_cast<uint8_t>(rotations_.size() - c.first[x]);
      if (c.count[x]) c.anchors |= 1u << x;
    }
    for (int rot = 0; rot < 6; ++rot) {
      Shifted r;
      std::array<int, 4> delta{};
      std::array<bool, 4> known{};
      for (int x = 0; x < g.ncells; ++x) {
        bool fits = true;
        std::array<int, 4> cells{};
        for (size_t k = 0; k < spec.pattern.size() && fits; ++k) {
          const auto [dq, dr] = rotated(spec.pattern[k], rot);
          cells[k] = g.axial_cell(g.q[x] + dq, g.r[x] + dr);
          fits = cells[k] >= 0;
        }
        if (!fits) continue;
        r.valid |= 1u << x;
        for (size_t k = 0; k < spec.pattern.size(); ++k) {
          if (known[k] && delta[k] != cells[k] - x) throw std::logic_error("harmonies: pattern offsets are not uniform shifts");
          known[k] = true;
          delta[k] = cells[k] - x;
        }
      }
      if (!r.valid) continue;
      for (size_t k = 0; k < spec.pattern.size(); ++k) {
        if (spec.pattern[k].cube) continue;  // the cube cell: the anchor code, checked first
        const int i = r.cells++;
        r.code[i] = static_cast<uint8_t>(spec.pattern[k].code);
        r.delta[i] = static_cast<int8_t>(delta[k]);
        if (delta[k] < -16 || delta[k] > 32) throw std::logic_error("harmonies: pattern too wide");
        r.shift[i] = static_cast<uint8_t>(16 + delta[k]);
      }
      bool duplicate = false;  // a symmetric pattern repeats itself under rotation
      for (int k = 0; k < c.nshifted; ++k) {
        const Shifted& o = c.shifted[k];
        bool same = o.valid == r.valid;
        for (int i = 0; i < r.cells && same; ++i) {
          bool found = false;
          for (int j = 0; j < o.cells; ++j) found = found || (o.code[j] == r.code[i] && o.delta[j] == r.delta[i]);
          same = found;
        }
        duplicate = duplicate || same;
      }
      if (!duplicate) c.shifted[c.nshifted++] = r;
    }
  }
  for (int id = 1; id <= kNumCards; ++id) {
    const CardInfo& c = cards_[id];
    Habitat& h = habitats_[id];
    h.anchors = c.anchors;
    h.anchor_code = c.anchor_code;
    h.pattern_cells = c.pattern_cells;
    h.neighbour_code = c.neighbour_code;
    h.cell_code = c.cell_code;
    for (int k = 0; k < c.ncodes; ++k) h.codes_used = static_cast<uint16_t>(h.codes_used | (1u << c.codes[k]));
    for (int k = 0; k < c.nshifted; ++k) {
      h.valid[k] = c.shifted[k].valid;
      h.shift[k] = c.shifted[k].shift;
    }
  }
  for (int id = 1; id <= kNumCards; ++id)
    if (!seen[id]) fail("cards: card " + std::to_string(id) + " is missing (need animals 1..32 and spirits 33..42)");
}

// ------------------------------------------------------------------------------ play

State Game::initial_state(uint64_t seed) const {
  State s;
  // Explicit chance draws nothing from the generator: one fixed value, so that the same position
  // is the same state (==, transposition_key) whatever seed the game started from.
  s.rng = Rng(params_.explicit_chance ? 0 : seed);
  s.pouch = kPouchStart;
  s.deck = 0xFFFFFFFFu;
  s.spirit_deck = (1u << kNumSpirits) - 1;  // R2: all ten stay when the option is off
  s.pending_spaces = static_cast<uint8_t>((1u << spaces_) - 1);
  s.pending_slots = static_cast<uint8_t>((1u << slots_) - 1);
  s.pending_spirits = static_cast<uint8_t>(params_.spirits ? 2 * params_.players : 0);
  settle(s);
  return s;
}


void Game::legal_actions(const State& s, ActionList<kMaxActions>& out) const {
  LegalMasks m;
  legal_masks(s, m);
  auto add = [&out](uint32_t mask, Action base) {
    for (; mask; mask &= mask - 1) out.push_back(base + std::countr_zero(mask));
  };
  add(m.take, kTake);
  for (int c = 0; c < kColours; ++c) add(m.place[c], kPlace + 25 * c);
  add(m.card, kCard);
  for (int k = 0; k < kMaxHeld; ++k) add(m.cube[k], kCube + 25 * k);
  add(m.spirit, kSpirit);
  add(m.discard, kDiscard);
  if (m.end) out.push_back(kEnd);
}

bool Game::is_legal(const State& s, Action a) const {
  if (s.over || a < 0 || a >= kNumActions) return false;
  if (has_pending(s)) {
    if (s.pending_spaces) return a < kColours && s.pouch[a] > 0;
    if (s.pending_slots) return a >= 1 && a <= kNumAnimals && ((s.deck >> (a - 1)) & 1u);
    return a >= kFirstSpirit && a <= kNumCards && ((s.spirit_deck >> (a - kFirstSpirit)) & 1u);
  }
  const PlayerState& p = s.players[s.turn_player];
  if (p.spirit_options[0]) return a == kSpirit || a == kSpirit + 1;
  const bool hand_empty = (s.hand[0] | s.hand[1] | s.hand[2] | s.hand[3] | s.hand[4] | s.hand[5]) == 0;
  const int ncells = geometry().ncells;
  if (a < kPlace) {
    if (s.took_tokens || a >= spaces_) return false;
    const auto& t = s.central[a];
    return (t[0] | t[1] | t[2] | t[3] | t[4] | t[5]) != 0;
  }
  if (a < kCard) {
    const int c = (a - kPlace) / 25, x = (a - kPlace) % 25;
    return s.took_tokens && s.hand[c] && x < ncells && ((accept_mask(p, c) >> x) & 1u);
  }
  if (a < kCube) {
    const int d = a - kCard;
    return !s.took_card && p.held < kMaxHeld && d < slots_ && s.display[d];
  }
  if (a < kSpirit) {
    const int j = (a - kCube) / 25, x = (a - kCube) % 25;
    return j < p.held && x < ncells && ((p.targets[j] >> x) & 1u);
  }
  if (a < kDiscard) return false;
  if (a < kEnd) {
    const int d = a - kDiscard;
    return params_.players == 1 && s.took_tokens && hand_empty && !s.took_card && d < slots_ && s.display[d];
  }
  return s.took_tokens && hand_empty;
}

void Game::apply_chance(State& s, Action a) const {
  if (s.pending_spaces) {
    const int sp = std::countr_zero(static_cast<unsigned>(s.pending_spaces));
    auto& t = s.central[sp];
    const int before = byte_sum(load8(t));  // read before the stores below
    --s.pouch[a];
    ++t[a];
    if (before == 2) s.pending_spaces &= static_cast<uint8_t>(s.pending_spaces - 1);
  } else if (s.pending_slots) {
    const int d = std::countr_zero(static_cast<unsigned>(s.pending_slots));
    s.display[d] = static_cast<uint8_t>(a);
    s.deck &= ~(1u << (a - 1));
    s.pending_slots &= static_cast<uint8_t>(s.pending_slots - 1);
  } else {
    const int deal = 2 * params_.players - s.pending_spirits;
    s.players[deal / 2].spirit_options[deal % 2] = static_cast<uint8_t>(a);
    s.spirit_deck &= static_cast<uint16_t>(~(1u << (a - kFirstSpirit)));
    --s.pending_spirits;
  }
}

Action Game::draw_implicit(State& s) const {
  if (s.pending_spaces) {
    int total = 0;
    for (int c = 0; c < kColours; ++c) total += s.pouch[c];
    const int u = static_cast<int>(s.rng.uniform(static_cast<uint32_t>(total)));
    int below = 0, colour = 0;  // colour = how many cumulative counts are <= u (no branches)
    for (int c = 0; c < kColours - 1; ++c) {
      below += s.pouch[c];
      colour += u >= below;
    }
    return colour;
  }
  const uint32_t left = s.pending_slots ? s.deck : s.spirit_deck;
  const int base = s.pending_slots ? 1 : kFirstSpirit;
  return base + select_bit32(left, s.rng.uniform(static_cast<uint32_t>(popcount32(left))));  // u-th id left
}

void Game::settle(State& s) const {
  if (!params_.explicit_chance)
    while (has_pending(s)) apply_chance(s, draw_implicit(s));
  if (!has_pending(s)) after_pending(s);
}

void Game::after_pending(State& s) const {
  if (s.took_tokens) {  // else the setup is done: player 0 starts
    if (s.end_triggered && s.turn_player == params_.players - 1) {
      s.over = true;  // solo (D4): the last possible refills are done, the game is over
      return;
    }
    s.turn_player = static_cast<uint8_t>((s.turn_player + 1) % params_.players);
    s.took_tokens = false;  // R3
    s.took_card = false;
  }
}

void Game::end_turn(State& s) const {
  const int P = params_.players;
  const int p = s.turn_player;
  PlayerState& ps = s.players[p];
  if (P == 1) s.central = {};  // (a) the untaken tokens leave the game
  if (ps.turns < 65535) ++ps.turns;  // R3
  if (popcount32(geometry().all & ~ps.occupied()) <= 2) s.end_triggered = true;  // (b)
  if (s.end_triggered && p == P - 1) {  // (c) D6
    s.over = true;
    return;
  }
  int pouch = 0;
  for (int c = 0; c < kColours; ++c) pouch += s.pouch[c];
  if (P > 1) {  // (d) refill the emptied space
    uint32_t empty = 0;  // R5: the emptied space is the first empty one
    for (int sp = 0; sp < kMaxSpaces; ++sp) empty |= static_cast<uint32_t>(load8(s.central[sp]) == 0) << sp;
    empty &= (1u << spaces_) - 1;
    if (pouch >= 3) {
      s.pending_spaces = static_cast<uint8_t>(empty & (~empty + 1));
    } else {  // D3
      s.end_triggered = true;
      if (p == P - 1) {
        s.over = true;
        return;
      }
    }
  } else {  // solo: spaces 0, 1, 2 in order while the pouch has 3 tokens (D4)
    const int k = std::min(3, pouch / 3);
    s.pending_spaces = static_cast<uint8_t>((1u << k) - 1);
    if (k < 3) {
      s.end_triggered = true;  // R4: the game is over once the possible refills are drawn
      if (!s.pending_spaces) s.over = true;
      else settle(s);
      return;
    }
  }
  // (e) refill empty display slots in slot order while the deck has cards
  uint32_t empty_slots = ~nonzero_bytes(load8(s.display)) & ((1u << slots_) - 1);
  const int left = popcount32(s.deck);
  if (popcount32(empty_slots) > left)  // the deck runs out: the first `left` empty slots
    empty_slots = left ? empty_slots & ((2u << select_bit32(empty_slots, static_cast<uint32_t>(left - 1))) - 1) : 0;
  s.pending_slots = static_cast<uint8_t>(empty_slots);
  settle(s);  // (f) after the draws: the next player's turn
}

void Game::apply_action(State& s, Action a) const {
  ++s.move_number;
  if (has_pending(s)) {
    apply_chance(s, a);
    if (!has_pending(s)) after_pending(s);
    return;
  }
  PlayerState& p = s.players[s.turn_player];
  if (a < kPlace) {
    s.hand = s.central[a];
    s.central[a] = {};
    s.took_tokens = true;
  } else if (a < kCard) {
    const int c = (a - kPlace) / 25, x = (a - kPlace) % 25;
    --s.hand[c];
    // Only cards whose pattern uses the cell's old or new code can gain or lose a habitat.
    const uint32_t changed = place_token(p, c, x);
    for (int j = 0; j < kMaxHeld; ++j)  // empty slots: id 0 uses no code
      if (habitats_[p.card[j]].codes_used & changed) p.targets[j] = cube_targets(p, p.card[j]);
  } else if (a < kCube) {
    const int d = a - kCard;
    p.card[p.held] = s.display[d];
    p.placed[p.held] = 0;
    p.targets[p.held] = cube_targets(p, p.card[p.held]);
    ++p.held;
    s.display[d] = 0;
    s.took_card = true;
  } else if (a < kSpirit) {
    const int j = (a - kCube) / 25, x = (a - kCube) % 25;
    p.cubes |= 1u << x;
    for (uint32_t& cells : p.targets) cells &= ~(1u << x);
    const int id = p.card[j];
    if (++p.placed[j] == cards_[id].ncubes) {  // finished: leaves the 4-card limit
      if (id >= kFirstSpirit)
        p.spirits_done |= static_cast<uint16_t>(1u << (id - kFirstSpirit));
      else
        p.animals_done |= 1u << (id - 1);
      for (int k = j; k + 1 < p.held; ++k) {
        p.card[k] = p.card[k + 1];
        p.placed[k] = p.placed[k + 1];
        p.targets[k] = p.targets[k + 1];
      }
      --p.held;
      p.card[p.held] = 0;
      p.placed[p.held] = 0;
      p.targets[p.held] = 0;
    }
  } else if (a < kDiscard) {
    const uint8_t id = p.spirit_options[a - kSpirit];
    p.spirit_options = {};
    for (int k = p.held; k > 0; --k) {  // the kept spirit goes first
      p.card[k] = p.card[k - 1];
      p.placed[k] = p.placed[k - 1];
      p.targets[k] = p.targets[k - 1];
    }
    p.card[0] = id;
    p.placed[0] = 0;
    p.targets[0] = cube_targets(p, id);
    ++p.held;
  } else if (a < kEnd) {
    s.display[a - kDiscard] = 0;  // D2: discard and end in one action
    end_turn(s);
  } else {
    end_turn(s);
  }
}

// ------------------------------------------------------------------------------ scoring

int Game::spirit_score(const CardInfo& c, const PlayerState& p, const Geometry& g) const {
  const auto& bb = p.bb;
  int points = 0;
  switch (c.kind) {
    case SpiritKind::kYellowGroups:
    case SpiritKind::kBuildingGroups:
    case SpiritKind::kBlueGroups: {
      const uint32_t set = c.kind == SpiritKind::kYellowGroups ? bb[kF] : c.kind == SpiritKind::kBuildingGroups ? bb[kB] : bb[kW];
      for_each_group(g, set, [&](uint32_t group) { points += group_points(c.groups, popcount(group)); });
      break;
    }
    case SpiritKind::kTrees:
      points = c.by_height[0] * popcount(bb[kT1]) + c.by_height[1] * popcount(bb[kT2]) + c.by_height[2] * popcount(bb[kT3]);
      break;
    case SpiritKind::kMountains: {
      uint32_t counted = g.all;
      if (!c.isolated_count) counted = g.spread(bb[kM1] | bb[kM2] | bb[kM3]);
      points = c.by_height[0] * popcount(bb[kM1] & counted) + c.by_height[1] * popcount(bb[kM2] & counted) +
               c.by_height[2] * popcount(bb[kM3] & counted);
      break;
    }
    case SpiritKind::kBlueTokens:
      points = c.per_token * popcount(bb[kW]);
      break;
    case SpiritKind::kNone:
      break;
  }
  return points;
}

Score Game::score(const PlayerState& p, int side) const {
  const Geometry& g = geo_[side];
  const auto& bb = p.bb;
  Score s;
  s.trees = popcount(bb[kT1]) + 3 * popcount(bb[kT2]) + 7 * popcount(bb[kT3]);

  const uint32_t mountains = bb[kM1] | bb[kM2] | bb[kM3];
  const uint32_t paired = g.spread(mountains);  // cells next to a mountain
  s.mountains = popcount(bb[kM1] & paired) + 3 * popcount(bb[kM2] & paired) + 7 * popcount(bb[kM3] & paired);

  const uint32_t yellow = bb[kF];
  for_each_group(g, yellow & g.spread(yellow), [&](uint32_t) { s.fields += 5; });

  if (bb[kB]) {
    const std::array<uint32_t, kColours> tops = {bb[kW], mountains, bb[kN1] | bb[kN2], bb[kT1] | bb[kT2] | bb[kT3],
                                                 yellow, bb[kB] | bb[kR1]};
    for (uint32_t m = bb[kB]; m; m &= m - 1) {
      const uint32_t around = g.nbr[std::countr_zero(m)];
      int colours = 0;
      for (uint32_t t : tops) colours += (t & around) != 0;
      if (colours >= 3) s.buildings += 5;
    }
  }

  if (side == 0) {
    int longest = 0;
    for_each_group(g, bb[kW], [&](uint32_t group) { longest = std::max(longest, river_tokens(g, group)); });
    s.water = water_points(longest);
  } else {
    for_each_group(g, g.all & ~bb[kW], [&](uint32_t) { s.water += 5; });
  }

  for (int j = 0; j < p.held; ++j) {
    const CardInfo& c = cards_[p.card[j]];
    if (c.spirit || !p.placed[j]) continue;
    s.animals += c.points[p.placed[j] - 1];
    s.cubes += p.placed[j];
  }
  for (uint32_t m = p.animals_done; m; m &= m - 1) {
    const CardInfo& c = cards_[1 + std::countr_zero(m)];
    s.animals += c.points[c.ncubes - 1];
    s.cubes += c.ncubes;
  }
  for (uint32_t m = p.spirits_done; m; m &= m - 1) s.spirit += spirit_score(cards_[kFirstSpirit + std::countr_zero(m)], p, g);
  s.total = s.trees + s.mountains + s.fields + s.buildings + s.water + s.animals + s.spirit;
  return s;
}

int Game::suns(const State& s) const {
  static constexpr int kThresholds[8] = {40, 70, 90, 110, 130, 140, 150, 160};
  const PlayerState& p = s.players[0];
  const int total = score(p, params_.side).total;
  int suns = solo_bonus_suns();
  for (int t : kThresholds) suns += total >= t;
  bool groups = false;
  for (int j = 0; j < p.held; ++j) groups = groups || (p.card[j] >= kFirstSpirit && cards_[p.card[j]].groups_family);
  for (uint32_t m = p.spirits_done; m; m &= m - 1) groups = groups || cards_[kFirstSpirit + std::countr_zero(m)].groups_family;
  return suns + (groups ? 1 : 0);  // R7
}

void Game::returns(const State& s, double* out) const {
  const int P = params_.players;
  for (int i = 0; i < P; ++i) out[i] = 0.0;
  if (!s.over) return;
  if (P == 1) {
    out[0] = suns(s);
    return;
  }
  std::array<std::pair<int, int>, kMaxPlayers> key{};
  for (int i = 0; i < P; ++i) {
    const Score sc = score(s, i);
    key[i] = {sc.total, sc.cubes};
  }
  for (int i = 0; i < P; ++i) {
    int balance = 0;
    for (int j = 0; j < P; ++j) balance += (key[i] > key[j]) - (key[j] > key[i]);
    out[i] = static_cast<double>(balance) / (P - 1);
  }
}

// ------------------------------------------------------------------------------ observation

// `out` comes zeroed (every caller zeroes it): only the nonzero entries are written. A board is
// written from its bitboards with no branch per token or code: the stack kind of every cell
// (4 bits) is sliced into 4 bitboards, and each occupied cell stores its kind's 3 stack entries
// and its cube entry.
namespace {
// Per kind: the cell entries of its tokens (height h: 6h + colour) with value 1; a kind of
// height < 3 stores 0 into entry 18 (the cube entry, written last) for the heights it lacks.
struct CellWrites {
  std::array<uint8_t, 3> entry;
  std::array<float, 3> value;
};
constexpr std::array<CellWrites, kNumKinds> kCellWrites = [] {
  std::array<CellWrites, kNumKinds> t{};
  for (int k = 0; k < kNumKinds; ++k)
    for (int h = 0; h < 3; ++h) {
      const bool has = h < kKindStack[k].height;
      t[k].entry[h] = static_cast<uint8_t>(has ? 6 * h + kKindStack[k].colours[h] : 18);
      t[k].value[h] = has ? 1.0f : 0.0f;
    }
  return t;
}();
static_assert(kNumKinds <= 16, "a kind fits in 4 bits");
}  // namespace

void Game::observation(const State& s, int o, float* out) const {
  static constexpr std::array<uint8_t, kNumCodes> kKindOfCode = {
      kKBlue, kKYellow, kKGreen, kKBrownGreen, kKBrownBrownGreen, kKGray, kKGrayGray, kKGrayGrayGray,
      kEmpty /* kB: by its bottom colour, below */, kKBrown, kKBrownBrown, kKRed};
  const int P = params_.players;
  float* w = out;
  for (int i = 0; i < P; ++i) {
    const PlayerState& p = s.players[(o + i) % P];
    std::array<uint32_t, 4> plane{};  // bit b of each cell's kind
    auto add = [&plane](uint32_t cells, int kind) {
      for (int b = 0; b < 4; ++b) plane[b] |= cells & (0u - ((kind >> b) & 1u));
    };
    for (int c = 0; c < kNumCodes; ++c)
      if (c != kB) add(p.bb[c], kKindOfCode[c]);
    add(p.bb[kB] & p.b_gray, kKGrayRed);
    add(p.bb[kB] & ~p.b_gray & p.b_brown, kKBrownRed);
    add(p.bb[kB] & ~p.b_gray & ~p.b_brown, kKRedRed);
    for (uint32_t m = plane[0] | plane[1] | plane[2] | plane[3] | p.cubes; m; m &= m - 1) {
      const int x = std::countr_zero(m);
      const int kind = ((plane[0] >> x) & 1) | (((plane[1] >> x) & 1) << 1) | (((plane[2] >> x) & 1) << 2) |
                       (((plane[3] >> x) & 1) << 3);
      const CellWrites cw = kCellWrites[kind];
      float* cell = w + 19 * x;
      cell[cw.entry[0]] = cw.value[0];
      cell[cw.entry[1]] = cw.value[1];
      cell[cw.entry[2]] = cw.value[2];
      cell[18] = static_cast<float>((p.cubes >> x) & 1u);
    }
    w += 25 * 19;
    for (int j = 0; j < p.held; ++j) {
      w[3 * (p.card[j] - 1)] = 1.0f;
      w[3 * (p.card[j] - 1) + 2] = p.placed[j];
    }
    for (uint32_t m = p.animals_done; m; m &= m - 1) {
      const int id = 1 + std::countr_zero(m);
      w[3 * (id - 1) + 1] = 1.0f;
      w[3 * (id - 1) + 2] = cards_[id].ncubes;
    }
    for (uint32_t m = p.spirits_done; m; m &= m - 1) {
      const int id = kFirstSpirit + std::countr_zero(m);
      w[3 * (id - 1) + 1] = 1.0f;
      w[3 * (id - 1) + 2] = 1.0f;
    }
    w += 3 * kNumCards;
    for (uint8_t id : p.spirit_options)
      if (id) w[id - kFirstSpirit] = 1.0f;
    w += kNumSpirits;
    w[0] = static_cast<float>(score(p, params_.side).total / 100.0);
    w += 1;
  }
  for (int sp = 0; sp < kMaxSpaces; ++sp)
    for (int c = 0; c < kColours; ++c) w[6 * sp + c] = s.central[sp][c];
  w += 30;
  for (int d = 0; d < kMaxSlots; ++d)
    if (s.display[d]) w[42 * d + s.display[d] - 1] = 1.0f;
  w += 210;
  for (int c = 0; c < kColours; ++c) w[c] = s.pouch[c];
  w += 6;
  w[0] = static_cast<float>(popcount32(s.deck));
  w += 1;
  for (int c = 0; c < kColours; ++c) w[c] = s.hand[c];
  w += 6;
  w[0] = s.took_tokens;
  w[1] = s.took_card;
  w[2] = s.end_triggered;
  w += 3;
  for (int i = 0; i < P; ++i) w[i] = s.players[(o + i) % P].turns;
}

// ------------------------------------------------------------------------------ strings

namespace {

std::string cell_name(const Geometry& g, int x) {
  if (x < 0 || x >= g.ncells) return hashed(x) + " (off the board)";
  return std::to_string(g.col[x]) + "," + std::to_string(g.row[x]);
}

// A non-negative decimal without sign or leading zeros, else -1.
int read_number(const std::string& t) {
  if (t.empty() || t.size() > 4 || (t.size() > 1 && t[0] == '0')) return -1;
  int v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return -1;
    v = 10 * v + (c - '0');
  }
  return v;
}

int read_colour(const std::string& t) {
  for (int c = 0; c < kColours; ++c)
    if (t == kColourNames[c]) return c;
  return -1;
}

// "col,row" on the board, else -1.
int read_cell(const Geometry& g, const std::string& t) {
  const size_t comma = t.find(',');
  if (comma == std::string::npos) return -1;
  const int c = read_number(t.substr(0, comma)), r = read_number(t.substr(comma + 1));
  if (c < 0 || r < 0) return -1;
  return g.cell_at(c, r);
}

}  // namespace

std::string Game::action_to_string(const State& s, Action a) const {
  const Geometry& g = geometry();
  if (is_chance_node(s)) {
    if (s.pending_spaces)
      return a >= 0 && a < kColours ? std::string("draw ") + kColourNames[a] : "outcome " + std::to_string(a) + " (not a colour)";
    if (card_exists(a)) return "draw card " + std::to_string(a) + " (" + cards_[a].name + ")";  // R6
    return "outcome " + std::to_string(a) + " (not a card)";
  }
  if (a < 0 || a >= kNumActions) return hashed(a);
  if (a < kPlace) return "take " + std::to_string(a);
  if (a < kCard) return std::string("place ") + kColourNames[(a - kPlace) / 25] + " " + cell_name(g, (a - kPlace) % 25);
  if (a < kCube) return "card " + std::to_string(a - kCard);
  if (a < kSpirit) {
    const int j = (a - kCube) / 25;
    const PlayerState& p = s.players[s.turn_player];
    const std::string name = j < p.held ? cards_[p.card[j]].name : hashed(j) + " (no such card)";
    return "cube " + name + " " + cell_name(g, (a - kCube) % 25);
  }
  if (a < kDiscard) return "spirit " + std::to_string(a - kSpirit);
  if (a < kEnd) return "discard " + std::to_string(a - kDiscard);
  return "end";
}

Action Game::string_to_action(const State& s, const std::string& text) const {
  std::vector<std::string> words;
  {
    std::istringstream in(lower(text));
    std::string w;
    while (in >> w) words.push_back(w);
  }
  const size_t n = words.size();
  if (n == 0) return -1;
  const Geometry& g = geometry();
  if (is_chance_node(s)) {
    if (words[0] != "draw") return -1;
    if (s.pending_spaces) return n == 2 ? read_colour(words[1]) : -1;
    if (n < 3 || words[1] != "card") return -1;
    const int id = read_number(words[2]);
    if (!card_exists(id)) return -1;
    if (n == 3) return id;
    std::string rest;
    for (size_t k = 3; k < n; ++k) rest += (k > 3 ? " " : "") + words[k];
    return rest == "(" + cards_[id].name + ")" ? id : -1;
  }
  const std::string& verb = words[0];
  if (n == 1) return verb == "end" ? kEnd : -1;
  if (n == 2) {
    const int v = read_number(words[1]);
    if (v < 0) return -1;
    if (verb == "take" && v < kMaxSpaces) return kTake + v;
    if (verb == "card" && v < kMaxSlots) return kCard + v;
    if (verb == "discard" && v < kMaxSlots) return kDiscard + v;
    if (verb == "spirit" && v < 2) return kSpirit + v;
    return -1;
  }
  if (n != 3) return -1;
  const int x = read_cell(g, words[2]);
  if (x < 0) return -1;
  if (verb == "place") {
    const int c = read_colour(words[1]);
    return c < 0 ? -1 : kPlace + 25 * c + x;
  }
  if (verb == "cube") {
    const PlayerState& p = s.players[s.turn_player];
    for (int j = 0; j < p.held; ++j)
      if (cards_[p.card[j]].name == words[1]) return kCube + 25 * j + x;
  }
  return -1;
}

std::string Game::to_string(const State& s) const {
  static constexpr char kLetters[kColours] = {'B', 'S', 'T', 'G', 'Y', 'R'};
  const Geometry& g = geometry();
  const int P = params_.players;
  std::ostringstream out;
  auto append_stack = [&](std::string& text, const PlayerState& p, int x) {  // "[TTG*]"
    const KindStack& k = kKindStack[p.kind(x)];
    char cell[6] = {'[', '.', ' ', ' ', ' ', ']'};
    for (int h = 0; h < k.height; ++h) cell[1 + h] = kLetters[k.colours[h]];
    if ((p.cubes >> x) & 1u) cell[1 + k.height] = '*';
    text.append(cell, sizeof cell);
  };
  int max_rows = 0;
  for (int x = 0; x < g.ncells; ++x) max_rows = std::max(max_rows, g.row[x] + 1);
  for (int i = 0; i < P; ++i) {
    const PlayerState& p = s.players[i];
    const Score sc = score(p, params_.side);
    out << "Player " << i << (!s.over && !has_pending(s) && s.turn_player == i ? " (to move)" : "") << ": "
        << sc.total << (sc.total == 1 ? " point, " : " points, ") << int(p.turns)
        << (p.turns == 1 ? " turn\n" : " turns\n");
    // Each row of hexes takes two text lines; odd columns sit half a hex lower. Column numbers
    // on top and each line's row number on the left spell the "col,row" of the action names.
    std::string header = "    ";
    for (int c = 0; c < g.ncols; ++c) header += "  " + std::to_string(c) + "   ";
    while (header.back() == ' ') header.pop_back();
    out << header << "\n";
    for (int line = 0; line < 2 * max_rows + 1; ++line) {
      std::string text = "  " + std::to_string(line / 2) + " ";
      for (int c = 0; c < g.ncols; ++c) {
        const int r = (c & 1) ? (line - 1) / 2 : line / 2;
        const bool here = (c & 1) ? (line >= 1 && (line - 1) % 2 == 0) : line % 2 == 0;
        const int x = here ? g.cell_at(c, r) : -1;
        if (x >= 0)
          append_stack(text, p, x);
        else
          text.append(6, ' ');
      }
      while (text.back() == ' ') text.pop_back();
      if (text.size() > 4) out << text << "\n";  // more than the row number
    }
    std::string cards = "  cards:";
    if (!p.held && !p.animals_done && !p.spirits_done) cards += " none";
    for (int j = 0; j < p.held; ++j)
      cards += " " + cards_[p.card[j]].name + " " + std::to_string(p.placed[j]) + "/" +
               std::to_string(cards_[p.card[j]].ncubes);
    for (uint32_t m = p.animals_done; m; m &= m - 1) cards += " " + cards_[1 + std::countr_zero(m)].name + " done";
    for (uint32_t m = p.spirits_done; m; m &= m - 1)
      cards += " " + cards_[kFirstSpirit + std::countr_zero(m)].name + " done";
    if (p.spirit_options[0] || p.spirit_options[1]) {
      cards += "; spirits dealt:";
      for (uint8_t id : p.spirit_options)
        if (id) cards += " " + cards_[id].name;
    }
    out << wrapped(cards, "         ");  // continued under the first card
  }
  out << "Central:";
  for (int sp = 0; sp < spaces_; ++sp) {
    out << " " << sp << ":";
    std::string t;
    for (int c = 0; c < kColours; ++c) t += std::string(s.central[sp][c], kLetters[c]);
    out << (t.empty() ? "-" : t);
  }
  out << "\nDisplay:";
  for (int d = 0; d < slots_; ++d) out << " " << d << ":" << (s.display[d] ? cards_[s.display[d]].name : "-");
  out << "\nPouch:";
  for (int c = 0; c < kColours; ++c) out << " " << kLetters[c] << int(s.pouch[c]);
  out << "; deck " << popcount32(s.deck) << " cards\n";
  std::string status;  // the game's result, a chance draw, or whose turn
  if (s.over) {
    double r[kMaxPlayers] = {};
    returns(s, r);
    status = "Game over: ";
    if (P == 1) {
      const int suns = static_cast<int>(r[0]);
      status += std::to_string(score(s, 0).total) + " points, " + std::to_string(suns) + (suns == 1 ? " sun" : " suns");
    } else {
      const double best = *std::max_element(r, r + P);
      std::string top;
      int tied = 0, most_points = 0, with_most = 0;
      for (int i = 0; i < P; ++i) {
        if (r[i] == best) top += (tied++ ? " and " : "") + std::to_string(i);
        const int points = score(s, i).total;
        with_most = points > most_points ? 1 : with_most + (points == most_points);
        most_points = std::max(most_points, points);
      }
      status += (tied == 1 ? "player " + top + " wins" : "players " + top + " share the win") +
                (tied < with_most ? " on cubes placed" : "") + " (points";
      for (int i = 0; i < P; ++i) status += (i ? ", " : " ") + std::to_string(score(s, i).total);
      status += ")";
    }
  } else if (has_pending(s)) {
    status = std::string("Chance: drawing ") +
             (s.pending_spaces ? "tokens" : s.pending_slots ? "display cards" : "spirit cards");
  } else {
    status = "Player " + std::to_string(s.turn_player) + " to move; hand:";
    std::string t;
    for (int c = 0; c < kColours; ++c) t += std::string(s.hand[c], kLetters[c]);
    status += (t.empty() ? "-" : t) + (s.took_tokens ? ", tokens taken" : "") + (s.took_card ? ", card taken" : "");
  }
  if (s.end_triggered && !s.over) status += " (end triggered)";
  out << wrapped(status, "  ")
      << wrapped("Tokens: B blue, S gray, T brown, G green, Y yellow, R red; a cell lists its stack from the "
                 "bottom, * a cube", "  ");
  return out.str();
}

// ------------------------------------------------------------------------------ consistency

std::string Game::check_consistency(const State& s) const {
  const int P = params_.players;
  const Geometry& g = geometry();
  std::array<int, kColours> tokens{};
  uint32_t animals_seen = 0;
  uint16_t spirits_seen = 0;
  auto see_card = [&](int id) -> bool {  // false if seen before
    if (id < kFirstSpirit) {
      if ((animals_seen >> (id - 1)) & 1u) return false;
      animals_seen |= 1u << (id - 1);
    } else {
      if ((spirits_seen >> (id - kFirstSpirit)) & 1u) return false;
      spirits_seen |= static_cast<uint16_t>(1u << (id - kFirstSpirit));
    }
    return true;
  };
  const int dealt = params_.spirits ? 2 * P - s.pending_spirits : 0;
  if (s.pending_spirits > (params_.spirits ? 2 * P : 0)) return "more spirit deals pending than the game has";
  for (int i = P; i < kMaxPlayers; ++i)
    if (!(s.players[i] == PlayerState{})) return "player " + std::to_string(i) + " does not exist";
  for (int i = 0; i < P; ++i) {
    const PlayerState& p = s.players[i];
    const std::string who = "player " + std::to_string(i) + ": ";
    uint32_t seen_cells = 0;
    for (int c = 0; c < kNumCodes; ++c) {
      if (p.bb[c] & seen_cells) return who + "a cell holds two stacks";
      seen_cells |= p.bb[c];
    }
    if (seen_cells & ~g.all) return who + "a stack lies off the board";
    if ((p.b_gray | p.b_brown) & ~p.bb[kB] || (p.b_gray & p.b_brown)) return who + "building bottoms disagree with buildings";
    for (int x = 0; x < g.ncells; ++x) {
      const KindStack& k = kKindStack[p.kind(x)];
      for (int h = 0; h < k.height; ++h) ++tokens[k.colours[h]];
    }
    {
      PlayerState fresh = p;
      refresh_targets(fresh);
      if (fresh.targets != p.targets) return who + "cached cube targets are out of date";
    }
    if (p.cubes & ~p.occupied()) return who + "a cube lies on a cell without tokens";
    if (p.held > kMaxHeld) return who + "holds more than 4 unfinished cards";
    int cubes = 0;
    bool has_spirit = false;
    for (int j = 0; j < kMaxHeld; ++j) {
      const int id = p.card[j];
      if (j >= p.held) {
        if (id || p.placed[j]) return who + "card slots beyond the held cards must be empty";
        continue;
      }
      if (!card_exists(id)) return who + "holds an unknown card";
      if (!see_card(id)) return "card " + std::to_string(id) + " appears twice";
      if (p.placed[j] >= cards_[id].ncubes) return who + "an unfinished card has all its cubes placed";
      if (is_spirit(id)) {
        if (j != 0) return who + "an unfinished spirit must come first among the cards";
        has_spirit = true;
      }
      cubes += p.placed[j];
    }
    if (p.spirits_done >> kNumSpirits != 0) return who + "unknown finished card";
    for (uint32_t m = p.animals_done; m; m &= m - 1) {
      const int id = 1 + std::countr_zero(m);
      if (!see_card(id)) return "card " + std::to_string(id) + " appears twice";
      cubes += cards_[id].ncubes;
    }
    for (uint32_t m = p.spirits_done; m; m &= m - 1) {
      const int id = kFirstSpirit + std::countr_zero(m);
      if (!see_card(id)) return "card " + std::to_string(id) + " appears twice";
      if (has_spirit) return who + "holds two spirits";
      has_spirit = true;
      cubes += 1;
    }
    if (cubes != popcount32(p.cubes)) return who + "cubes on the board (" + std::to_string(popcount32(p.cubes)) +
                                                    ") differ from cubes placed from cards (" + std::to_string(cubes) + ")";
    int options = 0;
    for (int k = 0; k < 2; ++k) {
      const int id = p.spirit_options[k];
      if (!id) continue;
      if (k == 1 && !p.spirit_options[0]) return who + "spirit options must fill the first entry first";
      if (id < kFirstSpirit || id > kNumCards) return who + "a spirit option is not a spirit card";
      if (!see_card(id)) return "card " + std::to_string(id) + " appears twice";
      ++options;
    }
    if (!params_.spirits) {
      if (has_spirit || options) return who + "holds spirit cards without the spirits option";
    } else {
      const int own_deals = std::clamp(dealt - 2 * i, 0, 2);
      if (has_spirit ? (options != 0 || own_deals != 2) : options != own_deals)
        return who + "spirit cards do not match the deals made";
      if (options == 2) {
        if (p.turns != 0 || p.held != 0 || p.cubes) return who + "a player who has played must have chosen a spirit";
        if (s.turn_player == i && (s.took_tokens || s.took_card)) return who + "the spirit must be chosen first (D1)";
      }
    }
  }
  // tokens
  for (int sp = 0; sp < kMaxSpaces; ++sp)
    for (int c = 0; c < kColours; ++c) tokens[c] += s.central[sp][c];
  for (int c = 0; c < kColours; ++c) {
    tokens[c] += s.hand[c] + s.pouch[c];
    if (P > 1 ? tokens[c] != kPouchStart[c] : tokens[c] > kPouchStart[c])
      return std::string(kColourNames[c]) + " tokens total " + std::to_string(tokens[c]) + (P > 1 ? ", expected " : ", at most ") +
             std::to_string(kPouchStart[c]);
  }
  // central board and pending draws
  const int first_pending = s.pending_spaces ? std::countr_zero(static_cast<unsigned>(s.pending_spaces)) : -1;
  if (s.pending_spaces >> spaces_) return "a pending space does not exist";
  if (s.pending_slots >> slots_) return "a pending display slot does not exist";
  int needed = 0;
  std::array<int, kMaxSpaces> held{};  // tokens on each central space
  for (int sp = 0; sp < kMaxSpaces; ++sp) {
    int& n = held[sp];
    for (int c = 0; c < kColours; ++c) n += s.central[sp][c];
    if (sp >= spaces_ && n) return "central space " + std::to_string(sp) + " does not exist";
    if ((s.pending_spaces >> sp) & 1u) {
      if (sp == first_pending ? n >= 3 : n != 0) return "central space " + std::to_string(sp) + " is pending but holds " + std::to_string(n) + " tokens";
      needed += 3 - n;
    } else if (n != 0 && n != 3) {
      return "central space " + std::to_string(sp) + " holds " + std::to_string(n) + " tokens";
    }
  }
  if (s.pending_spaces) {  // D16: which spaces a refill can leave pending
    const int last_pending = 31 - std::countl_zero(static_cast<unsigned>(s.pending_spaces));
    if (static_cast<unsigned>(s.pending_spaces) >> first_pending != (1u << (last_pending - first_pending + 1)) - 1)
      return "the pending central spaces are not consecutive";
    for (int sp = 0; sp < first_pending; ++sp)
      if (held[sp] != 3) return "central space " + std::to_string(sp) + " is empty but comes before the pending ones";
    const int after = spaces_ - 1 - last_pending;  // spaces after the pending ones
    if (!s.took_tokens) {
      if (after) return "the setup refills every central space, but space " + std::to_string(spaces_ - 1) + " is not pending";
    } else if (P > 1) {
      if (first_pending != last_pending) return "a refill after a turn fills one central space, not several";
      for (int sp = last_pending + 1; sp < spaces_; ++sp)
        if (held[sp] != 3) return "central space " + std::to_string(sp) + " is empty but not pending";
    } else {
      for (int sp = last_pending + 1; sp < spaces_; ++sp)
        if (held[sp]) return "central space " + std::to_string(sp) + " holds tokens after the pending refills";
      if (after && !s.end_triggered) return "a solo refill leaves a space empty only when the pouch runs out, which triggers the end";
    }
  }
  int pouch = 0;
  for (int c = 0; c < kColours; ++c) pouch += s.pouch[c];
  if (pouch < needed) return "the pouch cannot fill the pending spaces";
  // cards
  for (int d = 0; d < kMaxSlots; ++d) {
    const int id = s.display[d];
    if (!id) continue;
    if (d >= slots_) return "display slot " + std::to_string(d) + " does not exist";
    if (id > kNumAnimals) return "display slot " + std::to_string(d) + " holds a non-animal card";
    if ((s.pending_slots >> d) & 1u) return "display slot " + std::to_string(d) + " is pending but holds a card";
    if (!see_card(id)) return "card " + std::to_string(id) + " appears twice";
  }
  if (s.deck & animals_seen) return "a card in the deck is also elsewhere";
  if (P > 1 && (s.deck | animals_seen) != 0xFFFFFFFFu) return "an animal card is missing";
  if (popcount32(static_cast<unsigned>(s.pending_slots)) > popcount32(s.deck)) return "the deck cannot fill the pending slots";
  if (s.spirit_deck >> kNumSpirits) return "unknown spirit card in the spirit deck";
  if (s.spirit_deck & spirits_seen) return "a spirit card in the spirit deck is also elsewhere";
  if (params_.spirits ? popcount32(static_cast<unsigned>(s.spirit_deck)) != kNumSpirits - dealt
                      : s.spirit_deck != (1u << kNumSpirits) - 1)
    return "the spirit deck does not match the deals made";
  // turn
  if (s.turn_player >= P) return "turn_player out of range";
  int hand = 0;
  for (int c = 0; c < kColours; ++c) hand += s.hand[c];
  if (hand > 3) return "more than 3 tokens in hand";
  if (!s.took_tokens && hand) return "tokens in hand before taking tokens";
  if (has_pending(s)) {
    if (!params_.explicit_chance) return "pending draws with implicit chance";
    if (hand) return "pending draws while tokens are in hand";
    if (s.pending_spirits && s.took_tokens) return "spirit deals pending after a turn";
    if (s.over) return "a finished game has no pending draws";
    // D6: the last player's `end` with the end triggered ends the game at once; only a solo refill
    // cut short by the pouch (D9, D4) draws the spaces before the one it could not fill, and no
    // display card, before the end.
    if (s.took_tokens && s.end_triggered && s.turn_player == P - 1 &&
        (P > 1 || s.pending_slots || !s.pending_spaces || ((s.pending_spaces >> (spaces_ - 1)) & 1u)))
      return "the last player's turn ended with the end triggered: the game is over at once (D6), but for the "
             "solo token refills before the space the pouch cannot fill (D9, D4)";
  }
  if (s.over && !(s.end_triggered && s.turn_player == P - 1 && s.took_tokens && hand == 0))
    return "the game can only be over after player " + std::to_string(P - 1) + " ends a turn with the end triggered";
  // turns: players play in order; a turn ends at `end` (then the draws, then the next player)
  const int tp = s.turn_player;
  const bool ended = s.took_tokens && (s.over || has_pending(s));
  const int base = s.players[P - 1].turns - (tp == P - 1 && ended ? 1 : 0);
  for (int i = 0; i < P; ++i) {
    const PlayerState& p = s.players[i];
    const std::string who = "player " + std::to_string(i) + ": ";
    if (p.turns != base + ((i < tp || (i == tp && ended)) ? 1 : 0))
      return who + std::to_string(p.turns) + " turns played does not fit player " + std::to_string(tp) + "'s turn";
    bool kept = p.spirits_done != 0;
    for (int j = 0; j < p.held; ++j) kept = kept || is_spirit(p.card[j]);
    if (kept && p.turns == 0 && !(i == tp && !has_pending(s))) return who + "kept a spirit before its first turn";
    if ((i != tp || ended) && p.turns && popcount32(g.all & ~p.occupied()) <= 2 && !s.end_triggered)
      return who + "ended a turn with <= 2 empty cells but the end is not triggered";
  }
  if (has_pending(s) && !s.took_tokens && (base != 0 || tp != 0 || s.took_card))
    return "setup draws pending after a turn was played";
  if (s.took_card && s.players[tp].held == 0 && !s.players[tp].animals_done && !s.players[tp].spirits_done)
    return "took_card is set but the player holds no card";
  int empty_slots = 0, unpending_empty_slots = 0;
  for (int d = 0; d < slots_; ++d)
    if (!s.display[d]) {
      ++empty_slots;
      unpending_empty_slots += !((s.pending_slots >> d) & 1u);
    }
  const int deck = popcount32(s.deck);
  if (has_pending(s)) {
    const bool last_draws = s.took_tokens && s.end_triggered && tp == P - 1;  // solo D4: no display refill
    if (!last_draws && unpending_empty_slots && deck > popcount32(s.pending_slots))
      return "an empty display slot is not pending while the deck has cards";
  }
  if (!s.over && !s.pending_spaces) {
    int empty_spaces = 0;
    for (int sp = 0; sp < spaces_; ++sp) {
      int n = 0;
      for (int c = 0; c < kColours; ++c) n += s.central[sp][c];
      empty_spaces += n == 0;
    }
    if (!has_pending(s)) {
      if ((P == 1 || pouch >= 3) ? empty_spaces != (s.took_tokens ? 1 : 0) : (s.took_tokens && empty_spaces == 0))
        return std::to_string(empty_spaces) + " empty central spaces do not fit took_tokens";
    } else if (P == 1 ? empty_spaces != 0 : pouch >= 3 ? empty_spaces != 0 : empty_spaces && !s.end_triggered) {
      // A card or spirit draw: the central spaces are settled. Token refills come first, so with
      // a pouch of 3 or more every space is full; an empty space is a refill the pouch could not
      // make, which triggered the end. Solo: an `end` clears all three spaces and refills them
      // all, or the game is over (D15).
      return std::to_string(empty_spaces) + " empty central spaces at a draw do not fit the pouch (" +
             std::to_string(pouch) + " tokens) and the end" + (s.end_triggered ? "" : " not") + " triggered";
    }
  }
  if (!s.over && !has_pending(s)) {
    if (deck && empty_slots > (s.took_card ? 1 : 0)) return "empty display slots while the deck has cards";
    ActionList<kMaxActions> actions;
    legal_actions(s, actions);
    if (actions.empty()) return "the player to move has no legal action";
  }
  return "";
}

}  // namespace meeple::harmonies
