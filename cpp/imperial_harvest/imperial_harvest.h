// Imperial Harvest (2 players), as docs/rules/imperial-harvest.md states it (points 1–33: board,
// turns, hydras, scoring, first-game teams; points 34–65: all 14 cards, sides, drafting,
// interactive setup, random boards); point and decision numbers below refer to it.
//
// Rules implemented (board geometry in board.h):
//  - 7 rounds; each round the Imperial Servants (player 0) take a player turn, then the Northern
//    Raiders (player 1) (16). A turn: `rest` one of three characters — not the one that rested on
//    the team's previous turn (17) — then the two others, in the order the player picks, each
//    `activate` (act until `end`) or `forfeit` (then move a hydra one step; only if a step
//    exists) (18). After both the turn ends; the game ends when the Raiders end a turn with no
//    strawberry on the board, or after round 7 (22).
//  - Activation AP = card AP + strawberry bonus (while carrying) + Ballad − War Cry, never below 0;
//    the bonus comes and goes with the first / last carried strawberry (19). Bards: ±1 to the
//    active character within Manhattan 2 at its start or after any action, once per Bard (20).
//  - Actions (21): move (orthogonal; Bards also diagonal, 10), pluck (+1 VP at once; full slots
//    discard it), deposit (on / next to the own strawberry camp, all carried), pass (n to an
//    adjacent character with room), discard, face (once, 14), abilities (28–32), end (always, D2).
//    Steps (9): onto the board, not water, not across a hedge, along bridge axes. Diagonals (10):
//    one of the two orthogonal routes open, never onto / off a bridge. A voluntary move into an
//    occupied cell needs 1 AP left after it (11).
//  - Adjacent (12): same cell or orthogonal neighbour without a hedge. LOS (13): own cell, then
//    the ray in the facing direction, stopped by a hedge, the edge, or the first cell holding a
//    character or hydra (which is in LOS).
//  - Attacks (23): enemies only (D4), not protected: on their own character camp; within 2 legal
//    steps of an allied Imperial Guardian (not the Guardian itself, D5); the Guardian against an
//    attacker in its facing direction. Tower Shield also blocks Charm / Compulsion from there (24).
//  - Defeat (25): carried strawberries leave the game, the character leaves the board and its
//    owner picks a free cell of its character camp (`respawn`) at once — `current_player` is the
//    owner until the queue (token order) is empty. An active character's defeat ends its
//    activation.
//  - Hydras (26, 27): after every action each hydra defeats every character on the 4 cells next to
//    it (hedges and defences ignored, own camp excepted). A hydra steps along water; onto a bridge
//    it dives and comes up past it.
//  - Scoring (33): 1 VP per plucked strawberry, +1 per carried at the end, +2 per deposited.
//    Returns ±1 by VP, 0 on equal VP.
//
// Decisions of this engine where the documents leave a choice (D1–D17 in the rules doc):
//  - A defeat that coincides with the end of a turn: the turn ends first (the next turn's `rest`
//    becomes `resume_phase`); if the game ends there, nobody respawns (the queue is dropped and the
//    defeated characters stay off the board, `cell` null).
//  - A respawned character keeps its facing. At the game's end the turn fields are reset as at any
//    turn's end (phase "rest", `resting` moved to `last_rested`, `done` emptied); round and team
//    stay those of the last turn.
//  - Ballad and War Cry newly in range after one action are summed before the "not below 0" clamp.
//  - Tower Shield blocks every compulsion from its facing direction, not only the first.
//  - The characters one action defeats join the respawn queue together, in token order.
//  - State dict: `done` in the order the activations finished; hedges sorted as coordinate lists
//    (x1, y1, x2, y2, the order of boards.json). Observation: "ground" is every cell outside the
//    moat ring (bridges are not ground); "VP" is `vp(team)`.
//  (The reference, python/meeple/reference/imperial_harvest.py, reads the documents alike: its
//  readings R1–R23 are numbered for that file.)
//
// Part 2 (docs/rules/imperial-harvest.md points 34–65, D18–D54):
//  - Teams per state: `card[6]` holds a card index (characters.json order) per slot, so teams can
//    be drafted in the game (`teams="draft"`, phase draft, 64); custom / first-game teams are fixed
//    per Game. Card sides are per team (`sides`): an "advanced" object overrides a card's or an
//    ability's numbers. Sentries are tokens 6, 7 of the Regent's team.
//  - Interactive setup (65): phases bridges (I,R,R,I), camps (I,R,R,I), then hydras and
//    strawberries automatically, then placement (I0,R0,I1,R1,I2,R2); bridges, camps and hydras
//    therefore live in the state (a bridge bitset, camp corner bytes).
//  - The 8 new cards (40–63): Poison Blood, Slither, Petrifying Gaze; Retriever, Territorial,
//    Bite; Horns, Master of the Labyrinth (tile flip with transforms 0..7, hedges of the slot's
//    edges rebuilt from all faces), Charge; Alluring Gaze, Aura of Tranquility, Changeling
//    (borrowed abilities use their own ids); Agility, Ventriloquism, Arcane Puppetry (phase
//    puppet); Camouflage, Archer, Silent Sentinel; Point of Order (regent_vp), Command, Sentry;
//    Feral, Wolf Form, Sprint (free moves).
//  - After every action: the effect (with Poison Blood on an adjacent attacker), Petrifying Gaze,
//    then passive attacks in passes (hydras, Feral, sentries; Poison Blood kills a hydra that
//    defeats the Basilisk), then the Bard check. All defeats of one action queue in token order.
//  - Choices where the documents are open are decisions D18–D54 of the rules doc, cited in the
//    code where they are made.
//
// Layout: the state is a plain struct (see `State`, 200 bytes): hedges, strawberries and bridges
// as 128-bit sets, 8 token slots as byte arrays, the card per slot, tile face + transform per slot,
// camp corners, and the turn / activation / respawn-queue fields of the document's state dict.
// Card numbers and ability costs are data (characters.json) held by the Game per team side; card
// abilities are one 64-bit mask per card index. Each ability action has one legality function
// `<name>_ok(state, actor, ...)` used by both is_legal and the generator; the actor is the active
// character, the Nymph borrowing, or the puppet.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../common/core.h"
#include "board.h"

namespace meeple::imperial_harvest {

inline constexpr int kTeams = 2;
inline constexpr int kTeamSize = 3;
inline constexpr int kCharacters = kTeams * kTeamSize;  // tokens 0..5
inline constexpr int kTokens = 8;                       // 6..7 reserved (part 2: sentries)
inline constexpr int kRounds = 7;
inline constexpr int kMaxPlantedHedges = 4;  // box limits (spec: 4 hedge and 4 chopped-hedge tokens)
inline constexpr int kMaxChoppedHedges = 4;
inline constexpr int kMaxCompulsions = 3;
inline constexpr int kMaxPass = 4;

// Every ability of characters.json (names in kAbilityNames, same order).
enum class Ability : uint8_t {
  kChop, kBattleAxe, kThrowingAxe, kAgility, kWarCry, kInspirationalBallad, kCharm, kShadowWalk,
  kCompulsion, kFeral, kWolfForm, kSprint, kTowerShield, kGuardian, kSpear, kGrapple,
  kDragonPounce, kPlant, kPointOfOrder, kCommand, kSentry, kPoisonBlood, kSlither,
  kPetrifyingGaze, kRetriever, kTerritorial, kBite, kHorns, kMasterOfTheLabyrinth, kCharge,
  kAlluringGaze, kAuraOfTranquility, kChangeling, kVentriloquism, kArcanePuppetry, kCamouflage,
  kArcher, kSilentSentinel, kCount
};
inline constexpr int kAbilityCount = static_cast<int>(Ability::kCount);
inline constexpr const char* kAbilityNames[kAbilityCount] = {
    "chop", "battle_axe", "throwing_axe", "agility", "war_cry", "inspirational_ballad", "charm",
    "shadow_walk", "compulsion", "feral", "wolf_form", "sprint", "tower_shield", "guardian",
    "spear", "grapple", "dragon_pounce", "plant", "point_of_order", "command", "sentry",
    "poison_blood", "slither", "petrifying_gaze", "retriever", "territorial", "bite", "horns",
    "master_of_the_labyrinth", "charge", "alluring_gaze", "aura_of_tranquility", "changeling",
    "ventriloquism", "arcane_puppetry", "camouflage", "archer", "silent_sentinel"};
constexpr uint64_t ability_bit(Ability a) { return uint64_t{1} << static_cast<int>(a); }
// Active abilities with action ids (Changeling is active but has none; docs "Part 2: abilities in
// general").
inline constexpr uint64_t kActiveAbilities =
    ability_bit(Ability::kChop) | ability_bit(Ability::kBattleAxe) | ability_bit(Ability::kThrowingAxe) |
    ability_bit(Ability::kCharm) | ability_bit(Ability::kShadowWalk) | ability_bit(Ability::kCompulsion) |
    ability_bit(Ability::kWolfForm) | ability_bit(Ability::kSprint) | ability_bit(Ability::kSpear) |
    ability_bit(Ability::kGrapple) | ability_bit(Ability::kDragonPounce) | ability_bit(Ability::kPlant) |
    ability_bit(Ability::kCommand) | ability_bit(Ability::kSentry) | ability_bit(Ability::kSlither) |
    ability_bit(Ability::kBite) | ability_bit(Ability::kHorns) | ability_bit(Ability::kMasterOfTheLabyrinth) |
    ability_bit(Ability::kCharge) | ability_bit(Ability::kAlluringGaze) | ability_bit(Ability::kVentriloquism) |
    ability_bit(Ability::kArcanePuppetry) | ability_bit(Ability::kArcher);
// Passive abilities whose rules the engine reads from one card (token_with): a card table giving
// one of them to two cards is refused, as for an ability with an action (the rules would then
// ask every holder: two Guardians each protect their allies). Others may sit on several cards,
// as Agility, War Cry and Inspirational Ballad on both Bards.
inline constexpr uint64_t kOneCardPassives =
    ability_bit(Ability::kFeral) | ability_bit(Ability::kGuardian) | ability_bit(Ability::kPoisonBlood) |
    ability_bit(Ability::kPetrifyingGaze) | ability_bit(Ability::kTerritorial) |
    ability_bit(Ability::kAuraOfTranquility) | ability_bit(Ability::kSilentSentinel);
// What Changeling cannot borrow (51) and what a puppet cannot use (D31).
inline constexpr uint64_t kNotBorrowable = ability_bit(Ability::kChangeling) | ability_bit(Ability::kArcanePuppetry);
inline constexpr uint64_t kNotPuppetable = kNotBorrowable | ability_bit(Ability::kSprint);

// An ability's numbers from characters.json "abilities" (one set per card side).
struct AbilityRules {
  int ap = 0;              // AP per use (compulsion: per step)
  int per_activation = 0;  // 0: unlimited
  int uses_per_game = 0;   // 0: unlimited
  bool attack = false;
  bool passive = false;
  // The one extra number some abilities have: point_of_order "vp", petrifying_gaze "ap_loss",
  // sentry "max_on_board", horns "ap_when_charging".
  int param = 0;
};

// The 14 cards, by card index k (the shipped characters.json order; docs point 37).
inline constexpr int kCards = 14;
inline constexpr const char* kCardIds[kCards] = {
    "barbarian", "raider_bard", "sorceress", "skin_changer", "imperial_bard", "imperial_guardian", "monk",
    "regent",    "basilisk",    "hound",     "minotaur",     "nymph",         "puppeteer",         "ranger"};
inline constexpr int kCardRegent = 7;

// One character card (characters.json; defaults applied), with its numbers on both sides.
struct CharacterSpec {
  std::string id, name, faction, archetype;
  int ap = 3, item_slots = 2, bonus_ap = 1;                        // basic side
  int adv_ap = -1, adv_item_slots = -1, adv_bonus_ap = -1;         // advanced side, -1: as basic
  std::vector<std::string> abilities;
};

enum class Teams : uint8_t { kFirstGame, kDraft, kCustom };
enum class Setup : uint8_t { kFixed, kInteractive };

struct GameSpec {
  BoardSpec board;
  // first_game / custom teams: card ids in token order (point 7). Unused with kDraft.
  std::array<std::array<std::string, kTeamSize>, kTeams> team_ids;
  // All 14 cards, in any order (each of kCardIds once).
  std::vector<CharacterSpec> cards;
  std::array<AbilityRules, kAbilityCount> abilities{};           // basic side
  std::array<AbilityRules, kAbilityCount> advanced_abilities{};  // advanced side
  bool has_advanced_abilities = false;                           // false: as basic
  Teams team_mode = Teams::kFirstGame;
  std::array<uint8_t, kTeams> advanced{};  // per team: 1 advanced side
  Setup setup = Setup::kFixed;
  // The public parameters as the Python layer gave them (JSON text), reported back verbatim by
  // parameters() so that a game rebuilds from them; empty: derived from the fields above.
  std::string parameters_json;
  // D37: each initial state draws its tiles, hedges and bridges from its seed (Board::draw_random).
  bool random_boards = false;
};

// A card of this game as the engine uses it (one per team side).
struct CardInfo {
  std::string id, name, short_name, archetype;
  int ap = 0, slots = 0, bonus = 0;
  uint64_t abilities = 0;  // ability_bit set
  int uses_per_game = -1;  // of its per-game limited ability (plant / chop), -1: none
  bool has(Ability a) const { return (abilities & ability_bit(a)) != 0; }
};

enum Phase : uint8_t {
  kPhaseRest, kPhasePick, kPhaseAct, kPhaseHydra, kPhaseRespawn, kPhasePuppet,
  kPhaseDraft, kPhaseBridges, kPhaseCamps, kPhasePlacement, kPhaseCount
};
// Setup turn orders (docs points 64, 65): bridges and camps I,R,R,I (the team placing the k-th);
// draft and placement alternate.
inline constexpr int kIRRI[4] = {0, 1, 1, 0};
inline constexpr const char* kPhaseNames[kPhaseCount] = {"rest",  "pick",    "act",     "hydra", "respawn",
                                                         "puppet", "draft", "bridges", "camps", "placement"};

// Action ids (docs tables; t = token 0..7, c = own character slot 0..2, d = direction).
namespace act {
inline constexpr int kRest = 0, kActivate = 3, kForfeit = 6, kHydra = 9, kMove = 17, kFace = 25,
                     kPluck = 29, kDeposit = 30, kDiscard = 31, kEnd = 32, kPass = 33,
                     kRespawn = 65, kGrapple = 69, kPounce = 165, kPlant = 169, kSpear = 173,
                     kChop = 181, kAxe = 185, kThrow = 193, kCharm = 201, kShadow = 233,
                     kCompel = 237, kSlither = 269, kBite = 273, kHorns = 305, kFlip = 313,
                     kCharge = 314, kLure = 315, kVent = 331, kPuppet = 363, kArcher = 371,
                     kCommand = 379, kSentry = 411, kWolf = 427, kSprint = 428, kDraft = 429,
                     kBridge = 443, kCamp = 459, kPlace = 475, kCount = 491;
}  // namespace act

enum class Kind : uint8_t {
  kRest, kActivate, kForfeit, kHydra, kMove, kFace, kPluck, kDeposit, kDiscard, kEnd, kPass,
  kRespawn, kGrapple, kPounce, kPlant, kSpear, kChop, kAxe, kThrow, kCharm, kShadow, kCompel,
  kSlither, kBite, kHorns, kFlip, kCharge, kLure, kVent, kPuppet, kArcher, kCommand, kSentry,
  kWolf, kSprint, kDraft, kBridge, kCamp, kPlace
};
// An action id taken apart: `a` is the slot / hydra / direction / token / cell index, `b` the
// direction / count / landing offset / facing.
struct Decoded {
  Kind kind = Kind::kEnd;
  uint8_t a = 0, b = 0;
};

// The activation in progress (all defaults when none).
struct Activation {
  uint64_t used = 0;  // once-per-activation abilities used (incl. Retriever), by ability_bit
  uint8_t ap = 0;
  uint8_t face_used = 0;
  uint8_t bonus = 0;  // the strawberry bonus is counted in `ap`
  uint8_t compulsions = 0;
  uint8_t compel_target = kNone;
  uint8_t ballad = 0;   // Bard tokens whose Ballad applied (bit per token)
  uint8_t war_cry = 0;  // Bard tokens whose War Cry applied
  uint8_t charged = 0;  // a Charge happened and no Horns since (46)
  uint8_t free_moves = 0;
  uint8_t gaze = 0;      // Basilisk tokens whose Petrifying Gaze applied (bit per token)
  uint8_t puppet = kNone;  // phase puppet: the puppet token
  std::array<uint8_t, 5> unused{};  // always 0: no padding, so the bytes are the value (state_key)
  bool operator==(const Activation&) const = default;
};

// A set of at most N edges (board.h `Edge`), stored as codes 1 + bit (+ 128 for a south edge) in
// increasing order, 0 past the last: every set has one representation, so states compare bytewise.
template <int N>
struct EdgeTokens {
  std::array<uint8_t, N> code{};

  static constexpr uint8_t code_of(bool south, int bit) { return static_cast<uint8_t>(1 + bit + (south ? 128 : 0)); }
  constexpr int size() const {
    int n = 0;
    while (n < N && code[n]) ++n;
    return n;
  }
  constexpr bool contains(bool south, int bit) const {
    for (uint8_t c : code)
      if (c == code_of(south, bit)) return true;
    return false;
  }
  // Adds the edge (nothing if it is there); the caller keeps the set within N (the box limits).
  constexpr void add(bool south, int bit) {
    if (contains(south, bit)) return;
    int n = size();
    if (n == N) return;
    const uint8_t c = code_of(south, bit);
    for (; n > 0 && code[n - 1] > c; --n) code[n] = code[n - 1];
    code[n] = c;
  }
  constexpr void remove(bool south, int bit) {
    const uint8_t c = code_of(south, bit);
    int k = 0;
    for (int i = 0; i < N; ++i)
      if (code[i] != c) code[k++] = code[i];
    for (; k < N; ++k) code[k] = 0;
  }
  // The set as edge bitsets.
  constexpr void to_bits(Bits128& east, Bits128& south) const {
    east = south = Bits128{};
    for (int i = 0; i < N && code[i]; ++i) (code[i] & 128 ? south : east).set((code[i] & 127) - 1);
  }
  // The set of the edges in `east` and `south`; false (and nothing stored) for more than N.
  constexpr bool from_bits(const Bits128& east, const Bits128& south) {
    if (east.count() + south.count() > N) return false;
    *this = EdgeTokens{};
    east.for_each([&](int bit) { add(false, bit); });
    south.for_each([&](int bit) { add(true, bit); });
    return true;
  }
  bool operator==(const EdgeTokens&) const = default;
};

struct State {
  Bits128 hedge_east, hedge_south;  // see board.h `Edge`
  Bits128 strawberries;             // on the board
  Bits128 bridges;                  // bridge cells (setup may place them)
  Activation activation;
  std::array<uint8_t, kTokens> cell{};       // kNone: off the board (awaiting respawn / unused)
  std::array<uint8_t, kTokens> facing{};     // Dir kN..kW
  std::array<uint8_t, kTokens> carried{};    // strawberries
  std::array<uint8_t, kTokens> uses_left{};  // per-game uses left (plant / chop), kNone: none
  std::array<uint8_t, kTokens> queue{};      // respawn queue (first queue_count entries)
  std::array<uint8_t, kCharacters> card{};   // card index per slot, kNone while undrafted
  std::array<uint8_t, kMaxSlots> tile_face{}, tile_transform{};  // per tile slot
  std::array<uint8_t, kCampKinds> camp{};    // corner per camp kind, kNone: not placed
  std::array<uint8_t, 2> hydra{};            // kNone: removed (Poison Blood) or not placed yet
  std::array<uint8_t, 2> plucked{}, deposited{};  // per team
  std::array<uint8_t, 2> last_rested{};           // per team, kNone: none
  std::array<uint8_t, 2> done{};                  // first done_count entries, in order
  std::array<uint8_t, 2> regent_vp{};             // per team (58)
  uint8_t wolf = 0;                // Wolf Form on, bit per token
  uint8_t regent_team = kNone;     // team of the Regent (and of the sentries), kNone: none drafted
  uint8_t done_count = 0;
  uint8_t queue_count = 0;
  uint8_t hedges_planted = 0, hedges_chopped = 0;
  uint8_t round = 1, team = 0;
  uint8_t phase = kPhaseRest, resume_phase = kNone;
  uint8_t resting = kNone, active = kNone;
  uint8_t setup_step = 0;
  int8_t player = 0;  // current player, or kTerminalPlayer
  uint32_t move_number = 0;
  // Edges holding a hedge token (Plant) / a chopped-hedge token (Chop): tokens keep their edges
  // when a tile flips (D54). A few bytes at the end: only Plant, Chop and flips read them (the
  // state as edge sets, 64 bytes more, made VectorGame steps about 3% slower).
  EdgeTokens<kMaxPlantedHedges> planted;
  EdgeTokens<kMaxChoppedHedges> chopped;

  bool operator==(const State&) const = default;
};
static_assert(sizeof(State) <= 512, "a state must stay small: clone = copy");

class Game {
 public:
  static constexpr int kMaxActions = act::kCount;
  static constexpr int kMaxChanceOutcomes = 0;
  // 19 planes, 28 per character, 24 globals, 25 activation values, 14 draft values (docs).
  static constexpr int kObservationSize = 19 * kCells + kCharacters * 28 + 24 + 25 + 14;  // 2131
  using State = imperial_harvest::State;
  using Actions = ActionList<kMaxActions>;

  // Throws std::invalid_argument naming what is wrong with `spec`.
  explicit Game(const GameSpec& spec);

  const Board& board() const { return board_; }
  // The card of index k as team `team` plays it (its side's numbers).
  const CardInfo& card_info(int team, int k) const { return cards_[team][k]; }
  int card_count() const { return kCards; }
  Teams team_mode() const { return team_mode_; }
  Setup setup_mode() const { return setup_; }
  const std::string& parameters_json() const { return parameters_json_; }
  bool random_boards() const { return random_boards_; }
  bool advanced(int team) const { return advanced_[team] != 0; }
  const std::array<std::array<int, kTeamSize>, kTeams>& fixed_teams() const { return fixed_teams_; }
  const AbilityRules& rules_for_team(int team, Ability a) const {
    return abilities_[advanced_[team]][static_cast<int>(a)];
  }
  int initial_strawberry_total() const { return strawberry_total_; }

  int num_players() const { return 2; }
  int num_distinct_actions() const { return act::kCount; }
  int max_chance_outcomes() const { return 0; }
  int observation_size() const { return kObservationSize; }
  int max_game_length() const { return max_game_length_; }
  double min_utility() const { return -1.0; }  // returns(): +1 / -1 to the team with more VP, else 0 / 0
  double max_utility() const { return 1.0; }
  std::optional<double> utility_sum() const { return 0.0; }

  State initial_state(uint64_t /*seed: no chance in this game*/) const;

  int current_player(const State& s) const { return s.player; }
  bool is_terminal(const State& s) const { return s.player == kTerminalPlayer; }
  // VectorGame on one thread steps its games grouped by this (game_concept.h): the phase, the
  // active character and whether it has AP left decide most of a ply's branches (< 180 groups).
  static uint8_t vector_group(const State& s) {
    return static_cast<uint8_t>(((s.phase & 15) * 9 + (s.active < 8 ? s.active : 8)) * 2 + (s.activation.ap > 0));
  }
  bool is_chance_node(const State&) const { return false; }
  int move_number(const State& s) const { return s.move_number; }

  void legal_actions(const State& s, Actions& out) const;
  bool is_legal(const State& s, Action a) const;
  void apply_action(State& s, Action a) const;
  void returns(const State& s, double* out) const;
  void observation(const State& s, int player, float* out) const;
  template <class List>
  void chance_outcomes(const State&, List&) const {}

  // VP of `team` if the game ended now: plucked + carried + 2 × deposited + regent_vp (33, 58).
  int vp(const State& s, int team) const;

  std::string action_to_string(const State& s, Action a) const;
  Action string_to_action(const State& s, const std::string& text) const;  // -1 if none
  std::string to_string(const State& s) const;
  // Empty if `s` is a position of this game the rules can hold, with a legal action unless the
  // game is over; else what is wrong.
  std::string check_consistency(const State& s) const;

  static Decoded decode(Action a);
  static int team_of(int t) { return t < kTeamSize ? 0 : 1; }
  // Team of token t in `s` (sentries: the Regent's team), kNone for unused sentries.
  static int team(const State& s, int t) { return t < kCharacters ? team_of(t) : s.regent_team; }
  // The card info of token t (nullptr: undrafted slot or sentry).
  const CardInfo* info(const State& s, int t) const {
    return t < kCharacters && s.card[t] < kCards ? &cards_[team_of(t)][s.card[t]] : nullptr;
  }
  uint64_t abilities_of(const State& s, int t) const { return t < kCharacters ? card_abilities_[s.card[t]] : 0; }
  bool has(const State& s, int t, Ability a) const { return (abilities_of(s, t) & ability_bit(a)) != 0; }
  // The short / qualified names of token t in `s` (point 8; sentries `sentry`, `sentry1/2`).
  std::string short_name(const State& s, int t) const;
  std::string qualified_name(const State& s, int t) const;
  // The text naming token t as an action target in `s` (docs: "x,y", "x,y:short", ...).
  std::string target_name(const State& s, int t) const;
  // Character camp cells of `team` (empty while its camp is not placed).
  const Bits128& character_camp(const State& s, int tm) const { return board_.corner_cells(camp_corner(s, 2 * tm)); }
  const Bits128& strawberry_camp(const State& s, int tm) const { return board_.corner_cells(camp_corner(s, 2 * tm + 1)); }
  static int camp_corner(const State& s, int kind) { return s.camp[kind] < kCorners ? s.camp[kind] : kCorners; }
  bool water(const State& s, int c) const { return board_.ring(c) && !s.bridges.test(c); }
  // Hedges (east, south) the tile builder gives for the current faces of all slots (D28).
  void tile_hedges(const State& s, Bits128& east, Bits128& south) const;

 private:
  // --- geometry on a state
  bool hedge(const State& s, int c, int d) const {
    const Edge e = board_.edge(c, d);
    return (e.south ? s.hedge_south : s.hedge_east).test(e.bit);
  }
  uint8_t unhedged_steps(const State& s, int c) const;    // point 9's steps, hedges aside (water, bridge axes)
  uint8_t steps(const State& s, int c) const;             // legal orthogonal steps (point 9)
  uint8_t token_steps(const State& s, int c, int t) const;  // + Territorial for token t (44)
  bool diagonal_ok(const State& s, int c, int d, int t) const;  // point 10, d in kNE..kNW
  int diagonal_target(int c, int d) const;                // kNone off the board
  bool adjacent(const State& s, int a, int b) const;      // point 12
  bool within_steps(const State& s, int from, int to, int n) const;  // point 15
  Bits128 occupied(const State& s) const;                 // cells holding a token
  bool other_token_at(const State& s, int c, int t) const;
  Bits128 line_of_sight(const State& s, int t, int range) const;  // point 13
  bool in_facing_direction(int c, int facing, int from) const;
  bool attack_protected(const State& s, int target, int attacker_cell) const;  // 23, 55, 57
  bool shield_blocks(const State& s, int target, int from_cell) const;         // point 24
  bool enemy(const State& s, int t, int u) const { return team(s, t) != team(s, u); }
  bool present(const State& s, int t) const { return s.cell[t] != kNone; }
  int token_with(const State& s, Ability a) const;  // first character token whose card has a
  int enemy_hound_cell(const State& s, int t) const;  // Territorial: a cell t may not enter
  bool under_aura(const State& s, int t) const;        // 50
  int hydra_step(const State& s, int h, int d) const;  // cell or kNone
  const AbilityRules& rules(const State& s, Ability a) const;  // numbers of the card owner's side

  // --- turn structure
  int slot_token(const State& s, int c) const { return s.team * kTeamSize + c; }
  bool is_done(const State& s, int t) const;
  bool can_rest(const State& s, int c) const;
  bool can_activate(const State& s, int c) const;
  bool can_forfeit(const State& s, int c) const;
  bool hydra_step_ok(const State& s, int h, int d) const;
  bool any_hydra_step(const State& s) const;
  bool respawn_ok(const State& s, int r) const;
  void start_activation(State& s, int t) const;
  void end_activation(State& s) const;
  void after_activation(State& s) const;
  void end_turn(State& s) const;
  void defeat(State& s, int t) const;
  void resolve_passives(State& s) const;
  void bard_check(State& s) const;
  int gaze_watcher(const State& s) const;
  void petrifying_gaze(State& s, int basilisk) const;
  void between_steps(State& s) const;
  void settle(State& s, int queued_before) const;
  static uint8_t& flow_phase(State& s) { return s.phase == kPhaseRespawn ? s.resume_phase : s.phase; }
  void gain_strawberry(State& s, int t) const;
  void lose_strawberries(State& s, int t, int n) const;
  bool can_enter(const State& s, int t, int dest, int cost) const;  // point 11
  void pay(State& s, int cost) const { s.activation.ap = static_cast<uint8_t>(s.activation.ap - cost); }
  void place_fixed(State& s) const;      // point 5 with the state's teams
  void finish_camps(State& s) const;     // setup 3 and 4: hydras and strawberries
  void start_game(State& s) const;       // round 1, Imperial rest

  // --- setup phases
  bool setup_legal(const State& s, const Decoded& d) const;
  void setup_apply(State& s, const Decoded& d) const;
  bool draft_ok(const State& s, int k) const;
  bool bridge_ok(const State& s, int b) const;
  std::string check_fields(const State& s) const;  // check_consistency less the legal action
  bool camp_ok(const State& s, int kind, int corner) const;
  bool place_ok(const State& s, int r) const;
  int setup_team(const State& s) const;
  // The character the placement phase places next: I0, R0, I1, R1, I2, R2.
  int token_to_place(const State& s) const { return setup_team(s) * kTeamSize + s.setup_step / 2; }

  // --- the activation's actions (generation, legality, effect)
  int actor(const State& s) const { return s.phase == kPhasePuppet ? s.activation.puppet : s.active; }
  uint64_t actor_abilities(const State& s) const;  // active abilities the actor may use now
  void legal_act(const State& s, Actions& out) const;
  bool legal_act_action(const State& s, const Decoded& d) const;
  bool ability_action_ok(const State& s, int t, uint64_t mask, const Decoded& d) const;
  template <bool kAny>
  void gen_ability_actions(const State& s, int t, uint64_t mask, Actions& out) const;
  void apply_act(State& s, const Decoded& d) const;
  bool move_ok(const State& s, int d) const;
  bool near_own_strawberry_camp(const State& s, int t) const;
  bool pass_ok(const State& s, int u, int n) const;

  // --- Abilities: one legality function per ability action; t is the actor.
  int cost(const State& s, Ability a) const { return rules(s, a).ap; }
  bool once_used(const State& s, Ability a) const;
  bool voluntary(const State& s) const { return s.phase == kPhaseAct; }
  bool grapple_ok(const State& s, int t, int u, int o) const;   // Monk
  bool pounce_ok(const State& s, int t, int d) const;           // Monk
  bool plant_ok(const State& s, int t, int d) const;            // Monk
  // `sight`: line_of_sight(s, t, kSize); `*_target_ok`: all but the direction the target moves in,
  // which is target_steps (the generator asks token_steps once per target).
  bool target_steps(const State& s, int u, int d) const { return (token_steps(s, s.cell[u], u) >> d) & 1; }
  bool spear_ok(const State& s, int t, int u, const Bits128& sight) const;  // Imperial Guardian
  bool chop_ok(const State& s, int t, int d) const;             // Barbarian
  bool axe_ok(const State& s, int t, int u) const;              // Barbarian
  bool throw_ok(const State& s, int t, int u, const Bits128& sight) const;  // Barbarian
  bool charm_target_ok(const State& s, int t, int u, const Bits128& sight) const;  // Sorceress
  bool shadow_ok(const State& s, int t, int d, Ability a) const;  // Sorceress, Basilisk (slither)
  bool compel_target_ok(const State& s, int t, int u, const Bits128& sight) const;  // Sorceress
  bool bite_target_ok(const State& s, int t, int u) const;      // Hound
  bool horns_ok(const State& s, int t, int u) const;            // Minotaur
  bool flip_ok(const State& s, int t) const;                    // Minotaur
  int charge_steps(const State& s, int t) const;                // Minotaur: 0 if illegal
  bool lure_ok(const State& s, int t, int u, int n, const Bits128& sight) const;  // Nymph
  bool vent_target_ok(const State& s, int t, int u) const;      // Puppeteer
  bool puppet_ok(const State& s, int t, int u) const;           // Puppeteer
  bool archer_ok(const State& s, int t, int u, const Bits128& sight) const;  // Ranger
  bool command_target_ok(const State& s, int t, int u) const;   // Regent
  bool sentry_ok(const State& s, int t, int d) const;           // Regent
  bool simple_ok(const State& s, Ability a) const;              // wolf, sprint
  int ability_owner(const State& s, Ability a) const { return token_with(s, a); }

  Board board_;
  std::string parameters_json_;
  bool random_boards_ = false;
  std::array<std::array<AbilityRules, kAbilityCount>, 2> abilities_{};  // [side][ability]
  std::array<std::array<CardInfo, kCards>, kTeams> cards_{};             // [team][card] (team's side)
  std::array<uint64_t, 256> card_abilities_{};                           // by card index, 0 else
  // The one card index holding each ability, or one of these (token_with's fast path).
  static constexpr int8_t kNoOwnerCard = -1, kManyOwnerCards = -2;
  std::array<int8_t, kAbilityCount> owner_card_{};
  std::array<uint8_t, kAbilityCount> fixed_token_with_{};  // token_with for fixed teams (not draft)
  std::array<uint8_t, kCards> archetype_{};  // per card index: the lowest card index of its archetype
  std::array<std::array<int, kTeamSize>, kTeams> fixed_teams_{};         // card indices (not draft)
  std::array<uint8_t, kTeams> advanced_{};
  Teams team_mode_ = Teams::kFirstGame;
  Setup setup_ = Setup::kFixed;
  int strawberry_total_ = 14;
  int max_game_length_ = 0;
};

}  // namespace meeple::imperial_harvest
