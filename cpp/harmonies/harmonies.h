// Harmonies (Libellud 2024), as docs/rules/harmonies.md states it (numbers below refer to it).
//
// Rules implemented:
//  - 1–4 players (1 = solo), personal boards side A (23 cells, columns 5,4,5,4,5) or side B (25
//    cells, columns 4,3,4,3,4,3,4) in odd-q offset coordinates; cell index = column-major (point 2).
//  - Pouch of 120 tokens (23 blue, 23 gray, 21 brown, 19 green, 19 yellow, 15 red); 5 central
//    spaces of 3 tokens (solo 3); display of 5 animal cards (solo 3) from the 32 shuffled cards;
//    optional Nature's Spirits: 2 dealt to each player, the first action of a player's first turn
//    keeps one (D1).
//  - Stacking (point 4): empty → any; gray → gray, red; gray,gray → gray; brown → brown, green, red;
//    brown,brown → green; red → red; nothing else, never on a cube.
//  - A turn: take one central space (once, mandatory), place its 3 tokens one action each, take at
//    most one display card (≤ 4 unfinished cards held), place cubes from unfinished cards on cells
//    whose pattern matches in one of 6 rotations (cube cell free of cubes), end (solo: or discard a
//    display card and end, D2). End order (point 17): solo tokens leave; ≤ 2 empty cells triggers
//    the end; the last player ending with the end triggered ends the game at once (D6); refill
//    the space(s) from a pouch of ≥ 3 (else skip and trigger the end, D3/D4); refill the display.
//  - Scoring (points 18–22): trees 1/3/7; mountains 1/3/7 if next to a mountain; 5 per yellow
//    group of ≥ 2; buildings 5 with ≥ 3 top colours around; water A longest shortest path
//    0/2/5/8/11/15 +4, water B 5 per island; animal cards points[k-1]; spirits by cards.json kind;
//    tie-break animal cubes. Returns: pairwise (beats − beaten)/(P−1); solo: suns (point 24, D5).
//  - Chance: pouch and deck draws (points 5–7, 14, 17). Implicit (default): drawn at once from the
//    state's own SplitMix64 — a token is colour c at u = rng.uniform(pouch total) by cumulative
//    counts in colour order; a card is the u-th (u = rng.uniform(cards left)) remaining id in
//    ascending order. Explicit: the same draws, in the same order, are chance nodes.
//
// Readings this engine took where docs/rules/harmonies.md once left room; the doc has since settled
// each (its heading or decision in brackets; the reference's [Rn] tags number its own readings):
//  R1 max_chance_outcomes() is 43 with either chance mode ["Chance"].
//  R2 Without the spirits option, spirit_deck lists all ten spirits (none is ever dealt) [D10].
//  R3 `end`/`discard` counts the turn at once; took_tokens/took_card are cleared and turn_player
//     moves on only when the next turn begins, after the refill draws (point 17f): at a chance
//     node after `end`, turn_player is the player who ended and took_tokens is still true [D7, D8].
//  R4 Solo (D4): the spaces the pouch can fill are drawn (chance nodes if explicit), then the game
//     is over; the display is not refilled [D9].
//  R5 Multiplayer, "the emptied space" = the first empty space (the only one while the pouch
//     holds >= 3 tokens; a skipped refill implies a pouch of < 3 for good) [D9].
//  R6 Chance strings name spirits like cube actions: "draw card 33 (spirit-lion)" [D11].
//  R7 Suns: "+1 with a groups spirit" means the kept spirit (cube placed or not) is a "groups" one
//     [D12].
//  R8 by_group_size: a group scores the first rule whose [min, max] holds its size [point 20; the
//     rules of cards.json do not overlap, so no other reading could score differently].
//  R9 Strings of never-legal actions: "place blue #23 (off the board)", "cube #2 (no such card)
//     0,0", at chance nodes "outcome 7 (not a colour)"; string_to_action ignores case and extra
//     spaces, numbers are plain decimals [D14].
//  R10 state_from_dict: cubes may come in any order; the other lists must be in the order to_dict
//     writes; move_number <= 60000 (room for any game's remaining moves in the 16-bit counter),
//     turns <= 1000; the position must be reachable as far as the
//     dict can tell (check_consistency: token and card totals, turn order, pending draws, display
//     and central spaces, spirit deals, D1, a legal action for the player to move) [D15, D16].
//
// Layout: a player's board is one uint32 bitboard per stack code (W F T1 T2 T3 M1 M2 M3 B, and
// brown, brown-brown, red-alone) plus two masks telling a building's bottom colour, so every
// stack is known from the bitboards and habitat matching, placement legality and scoring are bit
// operations. On both sides the column-major cell index turns the six hex directions into uniform
// shifts (±1, ±a, ±b with a,b = 4,5 on side A and 3,4 on side B) guarded by per-direction source
// masks, so a flood-fill step is a dozen operations, and a pattern cell at a given offset from
// the cube cell is a fixed index delta. Card habitats are precomputed per (card, anchor cell,
// rotation) as one requirement mask per code the card uses: a cube fits iff every
// (bb[code] & mask) == mask (habitat_matches); for all anchors at once, cube_targets ANDs the
// code bitboards shifted by each rotated cell's delta. Each player keeps the cube targets of their
// held cards up to date (a placement recomputes only the cards using a code it changed), so move
// generation reads them instead of matching habitats every ply.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common/bitboard.h"
#include "../common/core.h"

namespace meeple::harmonies {

// Bit counting and selection shared with the other engines (cpp/common/bitboard.h).
using bits::popcount32;
using bits::select_bit32;

// Colour counts (central spaces, the hand): 6 used, padded to 8 bytes so a whole set is one
// 64-bit word (the padding stays 0).
using Tokens = std::array<uint8_t, 8>;
inline uint64_t load8(const std::array<uint8_t, 8>& a) {
  uint64_t v;
  std::memcpy(&v, a.data(), 8);
  return v;
}
// Bit i set iff byte i of x is not 0 (x as little-endian bytes).
constexpr uint32_t nonzero_bytes(uint64_t x) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const uint64_t t = ((((x & ~kHigh) + ~kHigh) | x) & kHigh) >> 7;
  return static_cast<uint32_t>((t * 0x0102040810204080ull) >> 56);
}
// Sum of the bytes of x, if below 256.
constexpr int byte_sum(uint64_t x) { return static_cast<int>((x * 0x0101010101010101ull) >> 56); }

inline constexpr int kColours = 6;  // blue, gray, brown, green, yellow, red
enum Colour : uint8_t { kBlue, kGray, kBrown, kGreen, kYellow, kRed };
inline constexpr const char* kColourNames[kColours] = {"blue", "gray", "brown", "green", "yellow", "red"};
inline constexpr std::array<uint8_t, kColours> kPouchStart = {23, 23, 21, 19, 19, 15};

inline constexpr int kMaxPlayers = 4;
inline constexpr int kMaxCells = 25;
inline constexpr int kMaxSpaces = 5;
inline constexpr int kMaxSlots = 5;
inline constexpr int kMaxHeld = 4;  // unfinished cards a player may hold
inline constexpr int kNumAnimals = 32;
inline constexpr int kNumSpirits = 10;
inline constexpr int kFirstSpirit = 33;
inline constexpr int kNumCards = 42;

// Actions (point "Actions"); cells use the index of point 2.
inline constexpr int kTake = 0;       // + space
inline constexpr int kPlace = 5;      // + 25 * colour + cell
inline constexpr int kCard = 155;     // + slot
inline constexpr int kCube = 160;     // + 25 * held card + cell
inline constexpr int kSpirit = 260;   // + dealt spirit 0/1
inline constexpr int kDiscard = 262;  // + slot (solo)
inline constexpr int kEnd = 267;
inline constexpr int kNumActions = 268;

// Bitboard codes. The first nine are the pattern codes of cards.json.
enum Code : uint8_t { kW, kF, kT1, kT2, kT3, kM1, kM2, kM3, kB, kN1, kN2, kR1, kNumCodes };
inline constexpr int kNumPatternCodes = 9;
inline constexpr const char* kCodeNames[kNumPatternCodes] = {"W", "F", "T1", "T2", "T3", "M1", "M2", "M3", "B"};

// Stack kinds (bottom → top), the content of one cell. Every stack the rules allow is one of these.
enum Kind : uint8_t {
  kEmpty, kKBlue, kKYellow, kKGreen, kKBrownGreen, kKBrownBrownGreen, kKGray, kKGrayGray,
  kKGrayGrayGray, kKGrayRed, kKBrownRed, kKRedRed, kKBrown, kKBrownBrown, kKRed, kNumKinds
};
inline constexpr uint8_t kNone = 0xFF;
inline constexpr std::array<uint8_t, kNumKinds> kCodeOfKind = {
    kNone, kW, kF, kT1, kT2, kT3, kM1, kM2, kM3, kB, kB, kB, kN1, kN2, kR1};
// next kind after placing a colour on a kind, kNone if stacking forbids it (point 4)
inline constexpr std::array<std::array<uint8_t, kColours>, kNumKinds> kNextKind = [] {
  std::array<std::array<uint8_t, kColours>, kNumKinds> t{};
  for (auto& row : t) row.fill(kNone);
  t[kEmpty] = {kKBlue, kKGray, kKBrown, kKGreen, kKYellow, kKRed};
  t[kKGray][kGray] = kKGrayGray;
  t[kKGray][kRed] = kKGrayRed;
  t[kKGrayGray][kGray] = kKGrayGrayGray;
  t[kKBrown][kBrown] = kKBrownBrown;
  t[kKBrown][kGreen] = kKBrownGreen;
  t[kKBrown][kRed] = kKBrownRed;
  t[kKBrownBrown][kGreen] = kKBrownBrownGreen;
  t[kKRed][kRed] = kKRedRed;
  return t;
}();
// The kind on a cell whose code accepts some colour (those codes hold one kind each).
inline constexpr std::array<uint8_t, 12> kKindOfAcceptingCode = {
    kNone, kNone, kNone, kNone, kNone, kKGray, kKGrayGray, kNone, kNone, kKBrown, kKBrownBrown, kKRed};
// Codes on which each colour may be placed (bit per code; empty cells always accept).
inline constexpr std::array<uint16_t, kColours> kAcceptCodes = {
    0, (1u << kM1) | (1u << kM2), 1u << kN1, (1u << kN1) | (1u << kN2), 0,
    (1u << kM1) | (1u << kN1) | (1u << kR1)};

// For each set of colours (6 bits): how many (<= 3 used), and 3 colours: those in the set in
// colour order, then colours not in it (a step beyond the set touches a colour not in hand).
struct HandColours {
  int n;
  std::array<uint8_t, 3> colour;
};
inline constexpr std::array<HandColours, 64> kHandColours = [] {
  std::array<HandColours, 64> table{};
  for (int set = 0; set < 64; ++set) {
    HandColours h{0, {0, 0, 0}};
    int k = 0;
    for (int c = 0; c < kColours && k < 3; ++c)
      if ((set >> c) & 1) h.colour[k++] = static_cast<uint8_t>(c);
    h.n = k;
    for (int c = 0; c < kColours && k < 3; ++c)
      if (!((set >> c) & 1)) h.colour[k++] = static_cast<uint8_t>(c);
    table[set] = h;
  }
  return table;
}();

struct KindStack {
  uint8_t height;
  std::array<uint8_t, 3> colours;
};
inline constexpr std::array<KindStack, kNumKinds> kKindStack = {{
    {0, {0, 0, 0}},
    {1, {kBlue, 0, 0}},
    {1, {kYellow, 0, 0}},
    {1, {kGreen, 0, 0}},
    {2, {kBrown, kGreen, 0}},
    {3, {kBrown, kBrown, kGreen}},
    {1, {kGray, 0, 0}},
    {2, {kGray, kGray, 0}},
    {3, {kGray, kGray, kGray}},
    {2, {kGray, kRed, 0}},
    {2, {kBrown, kRed, 0}},
    {2, {kRed, kRed, 0}},
    {1, {kBrown, 0, 0}},
    {2, {kBrown, kBrown, 0}},
    {1, {kRed, 0, 0}},
}};

// ------------------------------------------------------------------------------ card data

enum class SpiritKind : uint8_t { kNone, kYellowGroups, kBuildingGroups, kBlueGroups, kTrees, kMountains, kBlueTokens };

struct GroupRule {
  int min_size = 1;
  int max_size = 0;  // 0 = no upper bound
  int points = 0;
};

struct PatternCell {
  int q = 0, r = 0;
  int code = 0;  // Code, < kNumPatternCodes
  bool cube = false;
};

struct CardSpec {
  int id = 0;  // 1..32 animals, 33..42 spirits
  std::string name;
  std::vector<int> points;  // animals: points[k-1] after k cubes
  std::vector<PatternCell> pattern;
  // spirits
  bool groups_family = false;
  SpiritKind kind = SpiritKind::kNone;
  std::vector<GroupRule> groups;       // *_groups kinds
  std::array<int, 3> by_height{};      // trees / mountains, heights 1..3
  bool isolated_count = true;          // mountains: isolated ones count too
  int per_token = 0;                   // blue_tokens
};

struct CardData {
  std::vector<CardSpec> cards;  // the 42 cards, any order
};

// Reads cards.json (schema harmonies-cards/1) with a small self-contained JSON reader; throws
// std::invalid_argument naming what is wrong.
CardData parse_cards_json(std::string_view text);

// ------------------------------------------------------------------------------ parameters, state

struct Params {
  int players = 2;
  int side = 0;  // 0 = A, 1 = B
  bool spirits = false;
  bool explicit_chance = false;
};

void validate(const Params& params);  // throws std::invalid_argument

struct PlayerState {
  std::array<uint32_t, kNumCodes> bb{};  // per code, cells holding a stack of that code
  uint32_t b_gray = 0, b_brown = 0;      // buildings on gray / on brown (the rest of bb[kB]: on red)
  uint32_t cubes = 0;                    // cells holding a cube
  uint32_t animals_done = 0;             // finished animal cards, bit id-1
  // Derived, kept up to date: the cells where a cube of each held card may go now
  // (Game::cube_targets; 0 for empty slots). A placement recomputes only the cards whose pattern
  // uses a code the placement changed.
  std::array<uint32_t, kMaxHeld> targets{};
  uint16_t spirits_done = 0;             // finished (cube placed) spirit, bit id-33
  uint16_t turns = 0;                    // turns ended
  std::array<uint8_t, kMaxHeld> card{};   // unfinished card ids in the order taken (spirit first)
  std::array<uint8_t, kMaxHeld> placed{};  // cubes placed from each
  uint8_t held = 0;                        // number of unfinished cards
  std::array<uint8_t, 2> spirit_options{};  // dealt, not yet chosen (0 = none)
  uint8_t unused = 0;  // always 0: no padding, so the bytes are the value (state_key)

  uint32_t occupied() const {
    uint32_t o = 0;
    for (uint32_t b : bb) o |= b;
    return o;
  }
  // The stack on a cell, from the bitboards.
  uint8_t kind(int cell) const {
    static constexpr std::array<uint8_t, kNumCodes> kKindOfCode = {
        kKBlue, kKYellow, kKGreen, kKBrownGreen, kKBrownBrownGreen, kKGray, kKGrayGray, kKGrayGrayGray,
        kKRedRed, kKBrown, kKBrownBrown, kKRed};
    for (int c = 0; c < kNumCodes; ++c)
      if ((bb[c] >> cell) & 1u) {
        if (c != kB) return kKindOfCode[c];
        return ((b_gray >> cell) & 1u) ? kKGrayRed : ((b_brown >> cell) & 1u) ? kKBrownRed : kKRedRed;
      }
    return kEmpty;
  }
  bool operator==(const PlayerState&) const = default;
};

struct State {
  std::array<PlayerState, kMaxPlayers> players{};
  Rng rng;
  std::array<Tokens, kMaxSpaces> central{};  // colour counts per space
  std::array<uint8_t, 8> display{};          // card id per slot, 0 = empty (slots 5..7 unused)
  Tokens hand{};
  std::array<uint8_t, kColours> pouch{};
  uint16_t spirit_deck = 0;   // spirit ids not dealt, bit id-33
  uint32_t deck = 0;          // animal ids left, bit id-1
  uint16_t move_number = 0;
  uint8_t turn_player = 0;
  bool took_tokens = false;   // stays set until the next player's turn begins (point 17f)
  bool took_card = false;
  bool end_triggered = false;
  bool over = false;
  uint8_t pending_spaces = 0;   // chance work left (point "State dict"): spaces, in index order,
  uint8_t pending_slots = 0;    // then display slots, in index order,
  uint8_t pending_spirits = 0;  // then this many spirit deals (the last ones of 0,0,1,1,...)
  std::array<uint8_t, 2> unused{};  // always 0: no padding, so the bytes are the value (state_key)

  bool operator==(const State&) const = default;
};

struct Score {
  int trees = 0, mountains = 0, fields = 0, buildings = 0, water = 0, animals = 0, spirit = 0;
  int total = 0;
  int cubes = 0;  // animal cubes placed (tie-break)
};

// Board geometry of one side, shared by every state.
struct Geometry {
  int ncells = 0;
  int ncols = 0;
  uint32_t all = 0;
  std::array<int8_t, kMaxCells> col{}, row{}, q{}, r{};
  std::array<uint32_t, kMaxCells> nbr{};
  std::array<std::array<int8_t, 12>, 8> cell_of_axial{};  // [q][r + 4], -1 if none
  int a = 0, b = 0;                                       // direction shifts ±1, ±a, ±b
  std::array<uint32_t, 6> src{};  // cells that have a neighbour at +1, -1, +a, -a, +b, -b

  int cell_at(int c, int rr) const;  // -1 if not on the board
  int axial_cell(int qq, int rr) const {
    return (qq < 0 || qq >= 8 || rr + 4 < 0 || rr + 4 >= 12) ? -1 : cell_of_axial[qq][rr + 4];
  }
  // Cells next to some cell of `s` (may include cells of `s`).
  uint32_t spread(uint32_t s) const {
    return ((s & src[0]) << 1) | ((s & src[1]) >> 1) | ((s & src[2]) << a) | ((s & src[3]) >> a) |
           ((s & src[4]) << b) | ((s & src[5]) >> b);
  }
};

class Game {
 public:
  static constexpr int kMaxActions = kNumActions;
  static constexpr int kMaxChanceOutcomes = 43;
  using State = harmonies::State;

  Game(const Params& params, const CardData& cards);

  const Params& params() const { return params_; }
  int num_players() const { return params_.players; }
  int num_distinct_actions() const { return kNumActions; }
  int max_chance_outcomes() const { return kMaxChanceOutcomes; }  // R1
  int observation_size() const { return params_.players * 612 + 256 + params_.players; }
  int max_game_length() const { return 1000; }
  // Returns (P22-P24): 2-4 players (beats - beaten) / (P - 1) in -1..1, zero-sum; solo the suns,
  // from the bonuses alone (D5) to 8 for points plus the bonuses and a "groups" spirit (R7).
  double min_utility() const { return params_.players > 1 ? -1.0 : solo_bonus_suns(); }
  double max_utility() const { return params_.players > 1 ? 1.0 : 8 + solo_bonus_suns() + (params_.spirits ? 1 : 0); }
  std::optional<double> utility_sum() const {
    return params_.players > 1 ? std::optional<double>(0.0) : std::nullopt;
  }
  // Suns every solo game scores, whatever its points (P24, D5): +1 on side A, +2 without spirits.
  int solo_bonus_suns() const { return (params_.side == 0 ? 1 : 0) + (params_.spirits ? 0 : 2); }
  int num_spaces() const { return spaces_; }
  int num_slots() const { return slots_; }
  const Geometry& geometry(int side) const { return geo_[side]; }
  const Geometry& geometry() const { return geo_[params_.side]; }

  State initial_state(uint64_t seed) const;
  // A new generator for implicit chance: the draws still to come follow from `seed`, the position
  // is unchanged. Search determinises with it (common/mcts.h), so it cannot read the future from
  // the state; explicit chance never draws from the generator, so it is left alone there.
  void reseed(State& s, uint64_t seed) const {
    if (!params_.explicit_chance) s.rng = Rng(seed);
  }
  // Recomputes PlayerState::targets (for boards built cell by cell, e.g. from a dict).
  void refresh_targets(PlayerState& p) const {
    for (int j = 0; j < kMaxHeld; ++j) p.targets[j] = cube_targets(p, p.card[j]);
  }

  bool has_pending(const State& s) const {
    return (s.pending_spaces | s.pending_slots | s.pending_spirits) != 0;
  }
  int current_player(const State& s) const {
    return s.over ? kTerminalPlayer : has_pending(s) ? kChancePlayer : s.turn_player;
  }
  bool is_terminal(const State& s) const { return s.over; }
  bool is_chance_node(const State& s) const { return !s.over && has_pending(s); }
  int move_number(const State& s) const { return s.move_number; }

  void legal_actions(const State& s, ActionList<kMaxActions>& out) const;
  // The legal actions as one mask per group, in action order (ascending numbers). `count` is
  // how many there are; legal_actions lists them, sample_legal_action picks one.
  struct LegalMasks {
    uint32_t take = 0;                       // spaces
    std::array<uint32_t, kColours> place{};  // cells per colour
    uint32_t card = 0;                       // slots
    std::array<uint32_t, kMaxHeld> cube{};   // cells per held card
    uint32_t spirit = 0;                     // 0b11 while the spirit choice is due (D1)
    uint32_t discard = 0;                    // slots (solo)
    bool end = false;
    int count = 0;
    uint8_t take_count = 0, card_count = 0, discard_count = 0;
    std::array<uint8_t, kColours> place_count{};
    std::array<uint8_t, kMaxHeld> cube_count{};
    uint8_t hand_set = 0;  // colours in hand, bit per colour
  };
  // Inline (defined below the class): the random-playout and VectorGame paths read `m` right
  // after it is filled, from registers rather than through memory.
  MEEPLE_ALWAYS_INLINE void legal_masks(const State& s, LegalMasks& m) const;
  // The j-th legal action in ascending order, uniformly: the same choice as
  // legal_actions()[rng.uniform(size)] without listing them (the random-playout hot path).
  template <class Random>
  Action sample_legal_action(const State& s, Random& rng) const {
    LegalMasks m;
    legal_masks(s, m);
    return jth_legal(m, rng.uniform(static_cast<uint32_t>(m.count)));
  }
  // The legal actions as a bitset (bit a of words[a / 64], all 5 words stored), and one of them
  // drawn as sample_legal_action does (kNoAction, with no draw, if there is none): what
  // VectorGame publishes for a state.
  template <class Random>
  MEEPLE_ALWAYS_INLINE Action sample_and_mark_legal(const State& s, uint64_t* words, Random& rng) const {
    LegalMasks m;
    legal_masks(s, m);
    // Each word built in a register and stored once, its shifts constants (storing group by
    // group would chain read-modify-writes of memory through store forwarding).
    [&]<int... K>(std::integer_sequence<int, K...>) {
      ((words[K] = action_word<K>(m)), ...);
    }(std::make_integer_sequence<int, (kNumActions + 63) / 64>{});
    if (m.count == 0) return kNoAction;
    return jth_legal(m, rng.uniform(static_cast<uint32_t>(m.count)));
  }
  // Word K of the legal-action bitset: each group's mask (< 2^25) shifted to its first action.
  template <int K>
  static uint64_t action_word(const LegalMasks& m) {
    uint64_t word = 0;
    auto put = [&word]<int Base>(uint32_t mask) {
      constexpr int shift = Base - 64 * K;
      if constexpr (shift >= 0 && shift < 64) word |= uint64_t{mask} << shift;
      else if constexpr (shift < 0 && shift > -32) word |= uint64_t{mask} >> -shift;
    };
    put.template operator()<kTake>(m.take);
    [&]<int... C>(std::integer_sequence<int, C...>) {
      (put.template operator()<kPlace + 25 * C>(m.place[C]), ...);
    }(std::make_integer_sequence<int, kColours>{});
    put.template operator()<kCard>(m.card);
    [&]<int... J>(std::integer_sequence<int, J...>) {
      (put.template operator()<kCube + 25 * J>(m.cube[J]), ...);
    }(std::make_integer_sequence<int, kMaxHeld>{});
    put.template operator()<kSpirit>(m.spirit);
    put.template operator()<kDiscard>(m.discard);
    put.template operator()<kEnd>(m.end);
    return word;
  }
  // The j-th (from 0, j < m.count) legal action in ascending order, from the group counts.
  Action jth_legal(const LegalMasks& m, uint32_t j) const {
    auto pick = [&j](uint32_t mask, uint32_t n, Action base, Action& out) {
      if (j >= n) {
        j -= n;
        return false;
      }
      out = base + select_bit32(mask, j);
      return true;
    };
    Action a = kEnd;
    if (pick(m.take, m.take_count, kTake, a)) return a;
    const HandColours& h = kHandColours[m.hand_set];  // the colours in hand, ascending
    for (int i = 0; i < 3; ++i) {
      const int c = h.colour[i];
      if (pick(m.place[c], m.place_count[c], kPlace + 25 * c, a)) return a;
    }
    if (pick(m.card, m.card_count, kCard, a)) return a;
    for (int k = 0; k < kMaxHeld; ++k)
      if (pick(m.cube[k], m.cube_count[k], kCube + 25 * k, a)) return a;
    if (pick(m.spirit, m.spirit ? 2 : 0, kSpirit, a)) return a;
    if (pick(m.discard, m.discard_count, kDiscard, a)) return a;
    return kEnd;
  }
  bool is_legal(const State& s, Action a) const;
  template <class List>
  void chance_outcomes(const State& s, List& out) const;
  void apply_action(State& s, Action a) const;
  void returns(const State& s, double* out) const;
  void observation(const State& s, int player, float* out) const;

  std::string action_to_string(const State& s, Action a) const;
  Action string_to_action(const State& s, const std::string& text) const;
  std::string to_string(const State& s) const;
  // Empty if `s` is a consistent position of this game, else what is wrong.
  std::string check_consistency(const State& s) const;

  // Scoring (point 18–21) of one board on `side` (0 = A, 1 = B).
  Score score(const PlayerState& p, int side) const;
  Score score(const State& s, int player) const { return score(s.players[player], params_.side); }
  int suns(const State& s) const;

  // Card facts.
  bool card_exists(int id) const { return id >= 1 && id <= kNumCards; }
  int card_cubes(int id) const { return cards_[id].ncubes; }
  bool is_spirit(int id) const { return id >= kFirstSpirit; }
  const std::string& card_name(int id) const { return cards_[id].name; }  // spirits: "spirit-x"
  bool spirit_is_groups(int id) const { return cards_[id].groups_family; }
  // Does the habitat of card `id` match with its cube cell on `cell` (ignoring cubes)?
  bool habitat_matches(const PlayerState& p, int id, int cell) const {
    const CardInfo& c = cards_[id];
    const Rotation* rot = rotations_.data() + c.first[cell];
    for (int i = 0, n = c.count[cell]; i < n; ++i) {
      const Rotation& m = rot[i];
      const bool fits0 = (p.bb[c.codes[0]] & m.mask[0]) == m.mask[0];
      const bool fits1 = (p.bb[c.codes[1]] & m.mask[1]) == m.mask[1];
      const bool fits2 = (p.bb[c.codes[2]] & m.mask[2]) == m.mask[2];
      const bool fits3 = (p.bb[c.codes[3]] & m.mask[3]) == m.mask[3];
      if (fits0 & fits1 & fits2 & fits3) return true;  // all four tested: no branch per code
    }
    return false;
  }
  // Cells where a cube of held card `id` may go now, for every anchor at once: the column-major
  // index turns each rotated pattern cell into a fixed index delta, so a rotation matches on
  // valid & AND over its cells of (bb[code] shifted by -delta). Same result as habitat_matches
  // on each cell without a cube (the C++ test driver checks it).
  uint32_t cube_targets(const PlayerState& p, int id) const {
    const Habitat& c = habitats_[id];
    const uint32_t anchors = p.bb[c.anchor_code] & c.anchors & ~p.cubes;
    if (!anchors) return 0;
    switch (c.pattern_cells) {  // fixed trip counts per pattern size (rotations padded to 6)
      case 1:  // one cell next to the cube cell, any direction: a neighbour holds that code
        if (c.neighbour_code != kNone) return anchors & geometry().spread(p.bb[c.neighbour_code]);
        return match_rotations<1>(p, c, anchors);
      case 2: return match_rotations<2>(p, c, anchors);
      default: return match_rotations<3>(p, c, anchors);
    }
  }
  // Cells where a token of colour c may go.
  uint32_t accept_mask(const PlayerState& p, int colour) const {
    const Geometry& g = geometry();
    uint32_t occupied = 0, accept = 0;
    for (int k = 0; k < kNumCodes; ++k) {
      occupied |= p.bb[k];
      if ((kAcceptCodes[colour] >> k) & 1u) accept |= p.bb[k];
    }
    return (accept | (g.all & ~occupied)) & ~p.cubes;
  }

 private:
  struct Rotation {  // requirement mask per code slot of the card, for one anchor and rotation
    std::array<uint32_t, 4> mask{};
  };
  struct Shifted {  // one rotation for all anchors: cell i needs code[i] at anchor + delta[i]
    uint32_t valid = 0;  // anchors where the rotated pattern lies on the board
    uint8_t cells = 0;   // pattern cells other than the cube cell
    std::array<uint8_t, 3> code{};
    std::array<int8_t, 3> delta{};
    std::array<uint8_t, 3> shift{};  // 16 + delta (see match_rotations)
  };
  struct CardInfo {
    std::string name;
    uint8_t ncubes = 0;
    std::array<uint8_t, 4> codes{};  // codes used, anchor code first; unused slots mask 0
    uint8_t ncodes = 0;
    uint8_t anchor_code = 0;
    std::array<int, 5> points{};
    bool spirit = false;
    bool groups_family = false;
    SpiritKind kind = SpiritKind::kNone;
    std::vector<GroupRule> groups;
    std::array<int, 3> by_height{};
    bool isolated_count = true;
    int per_token = 0;
    uint32_t anchors = 0;                       // cells where some rotation fits the board
    std::array<Shifted, 6> shifted{};
    uint8_t nshifted = 0;       // distinct rotations (the rest of `shifted` has valid = 0)
    uint8_t pattern_cells = 0;  // cells besides the cube cell, 1..3
    std::array<uint8_t, 3> cell_code{};  // their codes (the order of Shifted's cells)
    uint8_t neighbour_code = kNone;  // code of a pattern cell next to the cube cell (kNone: none)
    std::array<uint16_t, kMaxCells> first{};   // into rotations_
    std::array<uint8_t, kMaxCells> count{};
  };

  // The hot part of a card for cube_targets, one cache line per card.
  struct alignas(64) Habitat {
    uint32_t anchors = 0;  // cells where some rotation fits the board
    uint8_t anchor_code = 0;
    uint8_t pattern_cells = 0;          // cells besides the cube cell, 1..3
    uint8_t neighbour_code = kNone;     // code of a pattern cell next to the cube cell (kNone: none)
    std::array<uint8_t, 3> cell_code{};  // their codes, the same in every rotation
    std::array<uint32_t, 6> valid{};     // per rotation: anchors where it lies on the board (0: unused)
    std::array<std::array<uint8_t, 3>, 6> shift{};  // per rotation and cell: 16 + index delta
    uint16_t codes_used = 0;  // bit per code of the pattern (cube cell included)
  };

  template <int Cells>
  static uint32_t match_rotations(const PlayerState& p, const Habitat& c, uint32_t anchors) {
    std::array<uint64_t, Cells> cell{};  // each pattern cell's code mask, 16 bits up: a shift
    for (int i = 0; i < Cells; ++i) cell[i] = static_cast<uint64_t>(p.bb[c.cell_code[i]]) << 16;
    uint32_t result = 0;                 // right by 16 + delta moves cell x + delta to x
    for (int k = 0; k < 6; ++k) {
      uint32_t m = c.valid[k] & anchors;
      for (int i = 0; i < Cells; ++i) m &= static_cast<uint32_t>(cell[i] >> c.shift[k][i]);
      result |= m;
    }
    return result;
  }

  // Puts a token of `colour` on `cell` (stacking allows it); returns the codes changed (bits).
  static uint32_t place_token(PlayerState& p, int colour, int cell) {
    const uint32_t bit = 1u << cell;
    uint8_t k = kEmpty;  // the current stack: only the codes that accept this colour can be there
    for (uint32_t codes = kAcceptCodes[colour]; codes; codes &= codes - 1) {
      const int c = std::countr_zero(codes);
      if (p.bb[c] & bit) k = kKindOfAcceptingCode[c];
    }
    const uint8_t next = kNextKind[k][colour];
    uint32_t changed = 1u << kCodeOfKind[next];
    if (k != kEmpty) {
      p.bb[kCodeOfKind[k]] &= ~bit;
      changed |= 1u << kCodeOfKind[k];
    }
    p.bb[kCodeOfKind[next]] |= bit;
    if (next == kKGrayRed) p.b_gray |= bit;
    if (next == kKBrownRed) p.b_brown |= bit;
    return changed;
  }
  // Sets an empty cell to a stack (building boards from a dict).
 public:
  static void set_stack(PlayerState& p, int cell, uint8_t kind) {
    if (kind == kEmpty) return;
    const uint32_t bit = 1u << cell;
    p.bb[kCodeOfKind[kind]] |= bit;
    if (kind == kKGrayRed) p.b_gray |= bit;
    if (kind == kKBrownRed) p.b_brown |= bit;
  }

 private:
  void apply_chance(State& s, Action a) const;
  Action draw_implicit(State& s) const;
  void settle(State& s) const;        // implicit draws, then what follows the pending work
  void after_pending(State& s) const;
  void end_turn(State& s) const;
  int spirit_score(const CardInfo& c, const PlayerState& p, const Geometry& g) const;

  Params params_;
  int spaces_ = 5, slots_ = 5;
  std::array<Geometry, 2> geo_{};
  std::array<CardInfo, kNumCards + 1> cards_{};  // by id, [0] unused
  std::array<Habitat, kNumCards + 1> habitats_{};  // by id, [0]: no anchors
  std::vector<Rotation> rotations_;
};

template <class List>
void Game::chance_outcomes(const State& s, List& out) const {
  if (!is_chance_node(s)) return;
  if (s.pending_spaces) {
    int total = 0;
    for (int c = 0; c < kColours; ++c) total += s.pouch[c];
    for (int c = 0; c < kColours; ++c)
      if (s.pouch[c]) out.push_back({c, static_cast<double>(s.pouch[c]) / total});
    return;
  }
  const uint32_t left = s.pending_slots ? s.deck : s.spirit_deck;
  const int base = s.pending_slots ? 1 : kFirstSpirit;
  const double p = 1.0 / popcount32(left);
  for (uint32_t m = left; m; m &= m - 1) out.push_back({base + std::countr_zero(m), p});
}

MEEPLE_ALWAYS_INLINE void Game::legal_masks(const State& s, LegalMasks& m) const {
  if (s.over || has_pending(s)) return;
  const PlayerState& p = s.players[s.turn_player];
  if (p.spirit_options[0]) {  // D1: the spirit choice comes first
    m.spirit = 3;
    m.count = 2;
    return;
  }
  int count = 0;
  bool hand_empty = true;
  if (!s.took_tokens) {
    for (int sp = 0; sp < kMaxSpaces; ++sp) m.take |= static_cast<uint32_t>(load8(s.central[sp]) != 0) << sp;
    m.take_count = bits::kByteTables.count[m.take];
    count += m.take_count;
  } else {
    const auto& bb = p.bb;
    const uint32_t free = geometry().all & ~p.occupied();
    const std::array<uint32_t, kColours> accept = {  // point 4 (kAcceptCodes)
        free, free | bb[kM1] | bb[kM2], free | bb[kN1], free | bb[kN1] | bb[kN2], free,
        free | bb[kM1] | bb[kN1] | bb[kR1]};
    const uint32_t in_hand = nonzero_bytes(load8(s.hand)) & 63;
    m.hand_set = static_cast<uint8_t>(in_hand);
    // The <= 3 colours in hand, without a branch on the hand (random play cannot predict it):
    // three fixed steps; a step past the colours in hand writes 0 for a colour not in hand.
    const HandColours& h = kHandColours[in_hand];
    for (int i = 0; i < 3; ++i) {
      const int c = h.colour[i];
      m.place[c] = accept[c] & ~p.cubes & (0u - static_cast<uint32_t>(i < h.n));
      m.place_count[c] = static_cast<uint8_t>(popcount32(m.place[c]));
      count += m.place_count[c];
    }
    hand_empty = in_hand == 0;
  }
  const uint32_t slots = nonzero_bytes(load8(s.display));
  m.card = slots & (0u - static_cast<uint32_t>(!s.took_card && p.held < kMaxHeld));
  m.card_count = bits::kByteTables.count[m.card];
  count += m.card_count;
  m.cube = p.targets;
  if (p.targets[0] | p.targets[1] | p.targets[2] | p.targets[3]) {  // rare: few habitats are complete
    for (int j = 0; j < kMaxHeld; ++j) {
      m.cube_count[j] = static_cast<uint8_t>(popcount32(m.cube[j]));
      count += m.cube_count[j];
    }
  }
  if (s.took_tokens && hand_empty) {
    if (params_.players == 1 && !s.took_card) {
      m.discard = slots;
      m.discard_count = bits::kByteTables.count[slots];
      count += m.discard_count;
    }
    m.end = true;
    count += 1;
  }
  m.count = count;
}

}  // namespace meeple::harmonies
