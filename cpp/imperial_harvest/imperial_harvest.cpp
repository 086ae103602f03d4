// Imperial Harvest rules (docs/rules/imperial-harvest.md, points 1–65 and D1–D54; overview in
// imperial_harvest.h). Text (action names, the drawn board) and the consistency check are in
// imperial_harvest_text.cpp.
#include "imperial_harvest.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "../common/float_planes.h"
#include "../common/text.h"  // quoted

namespace meeple::imperial_harvest {

namespace {

constexpr std::array<Decoded, act::kCount> make_decode_table() {
  std::array<Decoded, act::kCount> table{};
  auto put = [&](int id, Kind kind, int a, int b) {
    table[id] = Decoded{kind, static_cast<uint8_t>(a), static_cast<uint8_t>(b)};
  };
  for (int c = 0; c < 3; ++c) {
    put(act::kRest + c, Kind::kRest, c, 0);
    put(act::kActivate + c, Kind::kActivate, c, 0);
    put(act::kForfeit + c, Kind::kForfeit, c, 0);
  }
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d) put(act::kHydra + 4 * h + d, Kind::kHydra, h, d);
  for (int d = 0; d < 8; ++d) put(act::kMove + d, Kind::kMove, d, 0);
  for (int d = 0; d < 4; ++d) put(act::kFace + d, Kind::kFace, d, 0);
  put(act::kPluck, Kind::kPluck, 0, 0);
  put(act::kDeposit, Kind::kDeposit, 0, 0);
  put(act::kDiscard, Kind::kDiscard, 0, 0);
  put(act::kEnd, Kind::kEnd, 0, 0);
  put(act::kFlip, Kind::kFlip, 0, 0);
  put(act::kCharge, Kind::kCharge, 0, 0);
  put(act::kWolf, Kind::kWolf, 0, 0);
  put(act::kSprint, Kind::kSprint, 0, 0);
  for (int t = 0; t < kTokens; ++t) {
    for (int n = 1; n <= kMaxPass; ++n) put(act::kPass + 4 * t + n - 1, Kind::kPass, t, n);
    for (int o = 0; o < Board::kLandingOffsets; ++o) put(act::kGrapple + 12 * t + o, Kind::kGrapple, t, o);
    put(act::kSpear + t, Kind::kSpear, t, 0);
    put(act::kAxe + t, Kind::kAxe, t, 0);
    put(act::kThrow + t, Kind::kThrow, t, 0);
    put(act::kHorns + t, Kind::kHorns, t, 0);
    put(act::kPuppet + t, Kind::kPuppet, t, 0);
    put(act::kArcher + t, Kind::kArcher, t, 0);
    for (int n = 1; n <= 2; ++n) put(act::kLure + 2 * t + n - 1, Kind::kLure, t, n);
    for (int d = 0; d < 4; ++d) {
      put(act::kCharm + 4 * t + d, Kind::kCharm, t, d);
      put(act::kCompel + 4 * t + d, Kind::kCompel, t, d);
      put(act::kBite + 4 * t + d, Kind::kBite, t, d);
      put(act::kVent + 4 * t + d, Kind::kVent, t, d);
      put(act::kCommand + 4 * t + d, Kind::kCommand, t, d);
    }
  }
  for (int r = 0; r < 4; ++r) put(act::kRespawn + r, Kind::kRespawn, r, 0);
  for (int d = 0; d < 4; ++d) {
    put(act::kPounce + d, Kind::kPounce, kNE + d, 0);
    put(act::kPlant + d, Kind::kPlant, d, 0);
    put(act::kChop + d, Kind::kChop, d, 0);
    put(act::kShadow + d, Kind::kShadow, d, 0);
    put(act::kSlither + d, Kind::kSlither, d, 0);
    for (int f = 0; f < 4; ++f) {
      put(act::kSentry + 4 * d + f, Kind::kSentry, d, f);
      put(act::kPlace + 4 * d + f, Kind::kPlace, d, f);  // d: camp cell r
      put(act::kCamp + 4 * d + f, Kind::kCamp, d, f);    // d: kind, f: corner
    }
  }
  for (int k = 0; k < kCards; ++k) put(act::kDraft + k, Kind::kDraft, k, 0);
  for (int b = 0; b < kBridgeSpots; ++b) put(act::kBridge + b, Kind::kBridge, b, 0);
  return table;
}
constexpr std::array<Decoded, act::kCount> kDecode = make_decode_table();

// The ability an action kind uses (kCount: not an ability action).
constexpr Ability ability_of(Kind k) {
  switch (k) {
    case Kind::kGrapple: return Ability::kGrapple;
    case Kind::kPounce: return Ability::kDragonPounce;
    case Kind::kPlant: return Ability::kPlant;
    case Kind::kSpear: return Ability::kSpear;
    case Kind::kChop: return Ability::kChop;
    case Kind::kAxe: return Ability::kBattleAxe;
    case Kind::kThrow: return Ability::kThrowingAxe;
    case Kind::kCharm: return Ability::kCharm;
    case Kind::kShadow: return Ability::kShadowWalk;
    case Kind::kCompel: return Ability::kCompulsion;
    case Kind::kSlither: return Ability::kSlither;
    case Kind::kBite: return Ability::kBite;
    case Kind::kHorns: return Ability::kHorns;
    case Kind::kFlip: return Ability::kMasterOfTheLabyrinth;
    case Kind::kCharge: return Ability::kCharge;
    case Kind::kLure: return Ability::kAlluringGaze;
    case Kind::kVent: return Ability::kVentriloquism;
    case Kind::kPuppet: return Ability::kArcanePuppetry;
    case Kind::kArcher: return Ability::kArcher;
    case Kind::kCommand: return Ability::kCommand;
    case Kind::kSentry: return Ability::kSentry;
    case Kind::kWolf: return Ability::kWolfForm;
    case Kind::kSprint: return Ability::kSprint;
    default: return Ability::kCount;
  }
}

// The active abilities in the order of their action ids (each one's ids are one range), and the
// rank of each ability in that list.
constexpr Ability kAbilitiesById[] = {
    Ability::kGrapple, Ability::kDragonPounce, Ability::kPlant, Ability::kSpear, Ability::kChop,
    Ability::kBattleAxe, Ability::kThrowingAxe, Ability::kCharm, Ability::kShadowWalk, Ability::kCompulsion,
    Ability::kSlither, Ability::kBite, Ability::kHorns, Ability::kMasterOfTheLabyrinth, Ability::kCharge,
    Ability::kAlluringGaze, Ability::kVentriloquism, Ability::kArcanePuppetry, Ability::kArcher,
    Ability::kCommand, Ability::kSentry, Ability::kWolfForm, Ability::kSprint};
constexpr int kActiveCount = static_cast<int>(sizeof(kAbilitiesById) / sizeof(kAbilitiesById[0]));
constexpr std::array<uint8_t, kAbilityCount> make_rank_table() {
  std::array<uint8_t, kAbilityCount> rank{};
  for (int i = 0; i < kActiveCount; ++i) rank[static_cast<int>(kAbilitiesById[i])] = static_cast<uint8_t>(i);
  return rank;
}
constexpr std::array<uint8_t, kAbilityCount> kAbilityRank = make_rank_table();
constexpr bool abilities_by_id_ok() {
  uint64_t all = 0;
  for (Ability a : kAbilitiesById) all |= ability_bit(a);
  return all == kActiveAbilities && std::popcount(all) == kActiveCount;
}
static_assert(abilities_by_id_ok(), "kAbilitiesById lists every active ability once");

// Whether cell x is in the line of sight of range `range` of a token on c, given `sight`, its
// line of sight of range kSize: the ray is straight, so the shorter one is its cells within range.
bool in_sight(const Bits128& sight, int c, int x, int range) {
  return sight.test(x) && std::abs(cell_x(c) - cell_x(x)) + std::abs(cell_y(c) - cell_y(x)) <= range;
}

int manhattan(int a, int b) { return std::abs(cell_x(a) - cell_x(b)) + std::abs(cell_y(a) - cell_y(b)); }

}  // namespace

Decoded Game::decode(Action a) { return kDecode[a]; }

// =============================================================================== setup

Game::Game(const GameSpec& spec)
    : board_(spec.board),
      parameters_json_(spec.parameters_json),
      random_boards_(spec.random_boards),
      team_mode_(spec.team_mode),
      setup_(spec.setup) {
  if (random_boards_ && !board_.has_tiles())
    throw std::invalid_argument("random boards need a board with tiles (its camps, hydras and strawberries)");
  auto fail = [](const std::string& m) { throw std::invalid_argument(m); };
  abilities_[0] = spec.abilities;
  abilities_[1] = spec.has_advanced_abilities ? spec.advanced_abilities : spec.abilities;
  advanced_ = spec.advanced;
  for (int side = 0; side < 2; ++side)
    for (int a = 0; a < kAbilityCount; ++a) {
      const AbilityRules& r = abilities_[side][a];
      if (r.ap < 0 || r.ap > 20 || r.per_activation < 0 || r.per_activation > 20 || r.param < 0 || r.param > 20)
        fail(std::string("ability '") + kAbilityNames[a] + "': ap, per_activation and its number must be in 0..20");
      if (r.uses_per_game < 0 || r.uses_per_game > 200)
        fail(std::string("ability '") + kAbilityNames[a] + "': uses_per_game must be in 0..200");
    }
  // Cards by card index.
  std::array<bool, kCards> seen{};
  for (const CharacterSpec& c : spec.cards) {
    int k = -1;
    for (int i = 0; i < kCards; ++i)
      if (c.id == kCardIds[i]) k = i;
    if (k < 0) fail("unknown character " + quoted(c.id));
    if (seen[k]) fail("character '" + c.id + "' listed twice");
    seen[k] = true;
    for (int team = 0; team < kTeams; ++team) {
      const bool adv = advanced_[team] != 0;
      CardInfo& info = cards_[team][k];
      info.id = c.id;
      info.name = c.name;
      info.archetype = c.archetype;
      const size_t space = c.name.find_last_of(' ');
      info.short_name = space == std::string::npos ? c.name : c.name.substr(space + 1);
      for (char& ch : info.short_name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (info.short_name.empty()) fail("character '" + c.id + "' has no name");
      info.ap = adv && c.adv_ap >= 0 ? c.adv_ap : c.ap;
      info.slots = adv && c.adv_item_slots >= 0 ? c.adv_item_slots : c.item_slots;
      info.bonus = adv && c.adv_bonus_ap >= 0 ? c.adv_bonus_ap : c.bonus_ap;
      if (info.ap < 0 || info.ap > 20) fail("character '" + c.id + "': ap must be in 0..20");
      if (info.slots < 0 || info.slots > 8) fail("character '" + c.id + "': item_slots must be in 0..8");
      if (info.bonus < 0 || info.bonus > 10) fail("character '" + c.id + "': bonus_ap must be in 0..10");
      for (const std::string& name : c.abilities) {
        int found = -1;
        for (int a = 0; a < kAbilityCount; ++a)
          if (name == kAbilityNames[a]) found = a;
        if (found < 0) fail("character '" + c.id + "': unknown ability " + quoted(name));
        info.abilities |= uint64_t{1} << found;
        const int uses = abilities_[advanced_[team]][found].uses_per_game;
        if (uses > 0) {
          if (info.uses_per_game >= 0) fail("character '" + c.id + "' has two per-game limited abilities");
          info.uses_per_game = uses;
        }
      }
    }
    card_abilities_[k] = cards_[0][k].abilities;
  }
  for (int k = 0; k < kCards; ++k)
    if (!seen[k]) fail(std::string("character '") + kCardIds[k] + "' is missing from the card table");
  for (int k = 0; k < kCards; ++k) {  // archetypes as small ids: the first card index sharing it
    archetype_[k] = static_cast<uint8_t>(k);
    for (int j = 0; j < k; ++j)
      if (cards_[0][j].archetype == cards_[0][k].archetype) {
        archetype_[k] = static_cast<uint8_t>(j);
        break;
      }
  }
  // An ability with an action belongs to one card at most (Changeling's lender is implied, D30),
  // and so does a passive one read from one card (kOneCardPassives).
  for (int a = 0; a < kAbilityCount; ++a) {
    int owners = 0;
    for (int k = 0; k < kCards; ++k) owners += (card_abilities_[k] >> a) & 1;
    owner_card_[a] = static_cast<int8_t>(owners == 0 ? kNoOwnerCard : kManyOwnerCards);
    for (int k = 0; k < kCards && owners == 1; ++k)
      if ((card_abilities_[k] >> a) & 1) owner_card_[a] = static_cast<int8_t>(k);
    if (owners > 1 && (((kActiveAbilities | kOneCardPassives) >> a) & 1))
      fail(std::string("ability '") + kAbilityNames[a] + "' belongs to two cards");
  }
  if (team_mode_ != Teams::kDraft) {
    for (int team = 0; team < kTeams; ++team)
      for (int i = 0; i < kTeamSize; ++i) {
        int k = -1;
        for (int j = 0; j < kCards; ++j)
          if (spec.team_ids[team][i] == kCardIds[j]) k = j;
        if (k < 0) fail("unknown character " + quoted(spec.team_ids[team][i]) + " in the teams");
        fixed_teams_[team][i] = k;
      }
    for (int t = 0; t < kCharacters; ++t)
      for (int u = 0; u < t; ++u) {
        const int a = fixed_teams_[team_of(t)][t % 3], b = fixed_teams_[team_of(u)][u % 3];
        if (a == b) fail(std::string("character '") + kCardIds[a] + "' is in the teams twice");
        if (team_of(t) == team_of(u) && cards_[0][a].archetype == cards_[0][b].archetype)
          fail(std::string("characters '") + kCardIds[b] + "' and '" + kCardIds[a] +
               "' of one team share the archetype " + quoted(cards_[0][a].archetype));
      }
  }
  fixed_token_with_.fill(kNone);
  if (team_mode_ != Teams::kDraft)
    for (int a = 0; a < kAbilityCount; ++a)
      for (int t = kCharacters - 1; t >= 0; --t)  // the first token holding it
        if ((card_abilities_[fixed_teams_[team_of(t)][t % kTeamSize]] >> a) & 1)
          fixed_token_with_[a] = static_cast<uint8_t>(t);
  strawberry_total_ = std::max(14, board_.initial_strawberry_count());
  // Bound (D17, D38): 3000 for cards of up to 4 AP with the strawberry bonus (the shipped ones); a
  // user's table with more AP scales it, since every activation's length grows with its AP.
  int ap_max = 0;
  for (int team = 0; team < kTeams; ++team)
    for (int k = 0; k < kCards; ++k) ap_max = std::max(ap_max, cards_[team][k].ap + cards_[team][k].bonus);
  max_game_length_ = 3000 * std::max(1, (ap_max + 3) / 4);
}

void Game::place_fixed(State& s) const {
  for (int t = 0; t < kCharacters; ++t) {
    const int c = board_.start_spaces()[team_of(t)][t % kTeamSize];
    s.cell[t] = static_cast<uint8_t>(c);
    // Face the board centre (4.5, 4.5) along the larger offset; a tie faces vertically (D1).
    const int dx2 = 9 - 2 * cell_x(c), dy2 = 9 - 2 * cell_y(c);
    s.facing[t] = static_cast<uint8_t>(std::abs(dx2) > std::abs(dy2) ? (dx2 > 0 ? kE : kW) : (dy2 > 0 ? kS : kN));
  }
}

void Game::start_game(State& s) const {
  s.phase = kPhaseRest;
  s.round = 1;
  s.team = 0;
  s.player = 0;
  s.setup_step = 0;
}

State Game::initial_state(uint64_t seed) const {
  State s;
  s.hedge_east = board_.initial_east_hedges();
  s.hedge_south = board_.initial_south_hedges();
  s.cell.fill(kNone);
  s.facing.fill(0);
  s.uses_left.fill(kNone);
  s.queue.fill(kNone);
  s.done.fill(kNone);
  s.last_rested.fill(kNone);
  s.card.fill(kNone);
  s.camp.fill(kNone);
  s.hydra.fill(kNone);
  for (int i = 0; i < board_.slot_count(); ++i) {
    s.tile_face[i] = static_cast<uint8_t>(board_.initial_face(i));
    s.tile_transform[i] = static_cast<uint8_t>(board_.tiles()[i].rotation);
  }
  Bits128 bridges = board_.bridge_cells();
  if (random_boards_) {  // D37: this game's own board, drawn from its seed
    const RandomDraw draw = board_.draw_random(seed);
    for (int i = 0; i < board_.slot_count(); ++i) {
      s.tile_face[i] = draw.face[i];
      s.tile_transform[i] = draw.transform[i];
    }
    s.hedge_east = draw.east;
    s.hedge_south = draw.south;
    bridges = draw.bridges;
  }
  if (setup_ == Setup::kFixed) {
    s.strawberries = board_.initial_strawberries();
    s.bridges = bridges;
    s.camp = board_.initial_camps();
    s.hydra = {static_cast<uint8_t>(board_.initial_hydras()[0]), static_cast<uint8_t>(board_.initial_hydras()[1])};
  }
  if (team_mode_ == Teams::kDraft) {
    s.phase = kPhaseDraft;
    return s;
  }
  for (int t = 0; t < kCharacters; ++t) {
    const int k = fixed_teams_[team_of(t)][t % kTeamSize];
    s.card[t] = static_cast<uint8_t>(k);
    const CardInfo& info = cards_[team_of(t)][k];
    if (info.uses_per_game >= 0) s.uses_left[t] = static_cast<uint8_t>(info.uses_per_game);
    if (k == kCardRegent) {
      s.regent_team = static_cast<uint8_t>(team_of(t));
      s.regent_vp[team_of(t)] = static_cast<uint8_t>(rules_for_team(team_of(t), Ability::kPointOfOrder).param);
    }
  }
  if (setup_ == Setup::kInteractive) {
    s.phase = kPhaseBridges;
    return s;
  }
  place_fixed(s);
  return s;
}

// ------------------------------------------------------------------ setup phases (64, 65)

int Game::setup_team(const State& s) const {
  switch (s.phase) {
    case kPhaseBridges:
    case kPhaseCamps: return kIRRI[s.setup_step & 3];
    default: return s.setup_step & 1;  // draft, placement
  }
}

bool Game::draft_ok(const State& s, int k) const {
  const int tm = setup_team(s);
  for (int t = 0; t < kCharacters; ++t) {
    if (s.card[t] == k) return false;
    if (team_of(t) == tm && s.card[t] < kCards && archetype_[s.card[t]] == archetype_[k]) return false;
  }
  return true;
}

bool Game::bridge_ok(const State& s, int b) const {
  const int c = board_.bridge_spot(b);
  const int tile = board_.moat_tile(c);
  bool taken = false;
  s.bridges.for_each([&](int x) { taken = taken || board_.moat_tile(x) == tile; });
  if (taken) return false;
  // Both joins unhedged (P1): along the bridge's axis.
  const bool east_west = cell_x(c) == 2 || cell_x(c) == 7;
  return east_west ? !hedge(s, c, kE) && !hedge(s, c, kW) : !hedge(s, c, kN) && !hedge(s, c, kS);
}

bool Game::camp_ok(const State& s, int kind, int corner) const {
  if (kind / 2 != setup_team(s) || s.camp[kind] != kNone) return false;
  for (int k = 0; k < kCampKinds; ++k)
    if (s.camp[k] == corner) return false;
  return true;
}

bool Game::place_ok(const State& s, int r) const {
  const int corner = s.camp[2 * setup_team(s)];
  if (corner >= kCorners) return false;
  const int c = board_.corner_cell_list(corner)[r];
  return c != board_.insignia(corner) && !occupied(s).test(c);
}

void Game::finish_camps(State& s) const {
  // Hydras on the elbows nearest the strawberry camps, hydra 1 the lower cell index (D34).
  int a = board_.elbow(s.camp[1]), b = board_.elbow(s.camp[3]);
  if (a > b) std::swap(a, b);
  s.hydra = {static_cast<uint8_t>(a), static_cast<uint8_t>(b)};
  s.strawberries = board_.marked_strawberries();
  s.strawberries.set(Board::interior_corner(a));  // D35: not doubled
  s.strawberries.set(Board::interior_corner(b));
}

bool Game::setup_legal(const State& s, const Decoded& d) const {
  switch (s.phase) {
    case kPhaseDraft: return d.kind == Kind::kDraft && draft_ok(s, d.a);
    case kPhaseBridges: return d.kind == Kind::kBridge && bridge_ok(s, d.a);
    case kPhaseCamps: return d.kind == Kind::kCamp && camp_ok(s, d.a, d.b);
    case kPhasePlacement: return d.kind == Kind::kPlace && place_ok(s, d.a);
    default: return false;
  }
}

void Game::setup_apply(State& s, const Decoded& d) const {
  const int tm = setup_team(s);
  switch (d.kind) {
    case Kind::kDraft: {
      const int t = tm * kTeamSize + s.setup_step / 2;
      s.card[t] = d.a;
      const CardInfo& info = cards_[tm][d.a];
      if (info.uses_per_game >= 0) s.uses_left[t] = static_cast<uint8_t>(info.uses_per_game);
      if (d.a == kCardRegent) {
        s.regent_team = static_cast<uint8_t>(tm);
        s.regent_vp[tm] = static_cast<uint8_t>(rules_for_team(tm, Ability::kPointOfOrder).param);
      }
      if (++s.setup_step == 6) {
        s.setup_step = 0;
        if (setup_ == Setup::kInteractive) {
          s.phase = kPhaseBridges;
        } else {
          place_fixed(s);
          start_game(s);
        }
      }
      break;
    }
    case Kind::kBridge:
      s.bridges.set(board_.bridge_spot(d.a));
      if (++s.setup_step == 4) {
        s.setup_step = 0;
        s.phase = kPhaseCamps;
      }
      break;
    case Kind::kCamp:
      s.camp[d.a] = d.b;
      if (++s.setup_step == 4) {
        s.setup_step = 0;
        s.phase = kPhasePlacement;
        finish_camps(s);
      }
      break;
    case Kind::kPlace: {
      const int t = token_to_place(s);
      s.cell[t] = board_.corner_cell_list(s.camp[2 * tm])[d.a];
      s.facing[t] = d.b;
      if (++s.setup_step == 6) start_game(s);
      break;
    }
    default:
      break;
  }
  if (s.phase >= kPhaseDraft) {
    s.team = static_cast<uint8_t>(setup_team(s));
    s.player = static_cast<int8_t>(s.team);
  }
}

// =============================================================================== geometry on a state

uint8_t Game::unhedged_steps(const State& s, int c) const {
  if (board_.ring(c) && !s.bridges.test(c)) return 0;  // water
  uint8_t m = board_.dry_steps(c);
  for (uint8_t r = board_.ring_dirs(c) & m; r; r &= static_cast<uint8_t>(r - 1)) {
    const int d = std::countr_zero(r);
    if (!s.bridges.test(board_.neighbor(c, d))) m &= static_cast<uint8_t>(~(1u << d));
  }
  return m;
}

uint8_t Game::steps(const State& s, int c) const {
  uint8_t m = unhedged_steps(s, c);
  if ((m & (1u << kN)) && s.hedge_south.test(c - kSize)) m &= static_cast<uint8_t>(~(1u << kN));
  if ((m & (1u << kE)) && s.hedge_east.test(c)) m &= static_cast<uint8_t>(~(1u << kE));
  if ((m & (1u << kS)) && s.hedge_south.test(c)) m &= static_cast<uint8_t>(~(1u << kS));
  if ((m & (1u << kW)) && s.hedge_east.test(c - 1)) m &= static_cast<uint8_t>(~(1u << kW));
  return m;
}

uint8_t Game::token_steps(const State& s, int c, int t) const {
  uint8_t m = steps(s, c);
  const int hc = enemy_hound_cell(s, t);
  if (hc != kNone)
    for (int d = 0; d < 4; ++d)
      if (board_.neighbor(c, d) == hc) m &= static_cast<uint8_t>(~(1u << d));
  return m;
}

int Game::diagonal_target(int c, int d) const {
  const int x = cell_x(c) + kDx[d], y = cell_y(c) + kDy[d];
  return on_board(x, y) ? cell_at(x, y) : kNone;
}

bool Game::diagonal_ok(const State& s, int c, int d, int t) const {
  const int target = diagonal_target(c, d);
  if (target == kNone || s.bridges.test(c) || s.bridges.test(target)) return false;
  const int h = kDiagParts[d][0], v = kDiagParts[d][1];
  const uint8_t here = token_steps(s, c, t);  // Territorial: never through or onto the Hound (44)
  if (((here >> h) & 1) && ((token_steps(s, board_.neighbor(c, h), t) >> v) & 1)) return true;
  if (((here >> v) & 1) && ((token_steps(s, board_.neighbor(c, v), t) >> h) & 1)) return true;
  return false;
}

bool Game::adjacent(const State& s, int a, int b) const {
  if (a == b) return true;
  switch (b - a) {
    case 1: return cell_y(a) == cell_y(b) && !s.hedge_east.test(a);
    case -1: return cell_y(a) == cell_y(b) && !s.hedge_east.test(b);
    case kSize: return !s.hedge_south.test(a);
    case -kSize: return !s.hedge_south.test(b);
    default: return false;
  }
}

bool Game::within_steps(const State& s, int from, int to, int n) const {
  if (from == to) return true;
  if (manhattan(from, to) > n) return false;
  Bits128 reached, frontier;
  reached.set(from);
  frontier.set(from);
  for (int i = 0; i < n && frontier.any(); ++i) {
    Bits128 next;
    frontier.for_each([&](int c) {
      const uint8_t m = steps(s, c);
      for (int d = 0; d < 4; ++d)
        if ((m >> d) & 1) next.set(board_.neighbor(c, d));
    });
    next &= ~reached;
    if (next.test(to)) return true;
    reached |= next;
    frontier = next;
  }
  return false;
}

Bits128 Game::occupied(const State& s) const {
  Bits128 out;
  for (int t = 0; t < kTokens; ++t)
    if (s.cell[t] != kNone) out.set(s.cell[t]);
  return out;
}

bool Game::other_token_at(const State& s, int c, int t) const {
  for (int u = 0; u < kTokens; ++u)
    if (u != t && s.cell[u] == c) return true;
  return false;
}

Bits128 Game::line_of_sight(const State& s, int t, int range) const {
  Bits128 out;
  int c = s.cell[t];
  out.set(c);
  Bits128 blockers = occupied(s);
  for (int h = 0; h < 2; ++h)
    if (s.hydra[h] != kNone) blockers.set(s.hydra[h]);
  const int d = s.facing[t];
  for (int k = 1; k <= range; ++k) {
    const int n = board_.neighbor(c, d);
    if (n == kNone || hedge(s, c, d)) break;
    out.set(n);
    if (blockers.test(n)) break;
    c = n;
  }
  return out;
}

bool Game::in_facing_direction(int c, int facing, int from) const {
  const int dx = cell_x(from) - cell_x(c), dy = cell_y(from) - cell_y(c);
  switch (facing) {
    case kN: return dx == 0 && dy < 0;
    case kE: return dy == 0 && dx > 0;
    case kS: return dx == 0 && dy > 0;
    default: return dy == 0 && dx < 0;
  }
}

int Game::token_with(const State& s, Ability a) const {
  // Fixed teams: the state's cards are the Game's (check_consistency holds states to them).
  if (team_mode_ != Teams::kDraft) return fixed_token_with_[static_cast<int>(a)];
  const int k = owner_card_[static_cast<int>(a)];
  if (k >= 0) {  // one card has it: find that card among the slots (each card is in one slot at most)
    uint64_t v = 0xFFFF000000000000ull;  // bytes 6, 7 never match a card index
    for (int t = 0; t < kCharacters; ++t) v |= uint64_t{s.card[t]} << (8 * t);
    const uint64_t x = v ^ (0x0101010101010101ull * static_cast<uint64_t>(k));
    const uint64_t zero = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
    return zero ? std::countr_zero(zero) / 8 : kNone;  // the lowest flagged byte is exact
  }
  if (k == kNoOwnerCard) return kNone;
  const uint64_t bit = ability_bit(a);
  for (int t = 0; t < kCharacters; ++t)
    if (card_abilities_[s.card[t]] & bit) return t;
  return kNone;
}

int Game::enemy_hound_cell(const State& s, int t) const {
  const int h = token_with(s, Ability::kTerritorial);
  if (h == kNone || s.cell[h] == kNone || team(s, h) == team(s, t)) return kNone;
  return s.cell[h];
}

bool Game::under_aura(const State& s, int t) const {
  const int n = token_with(s, Ability::kAuraOfTranquility);
  return n != kNone && n != t && s.cell[n] != kNone && s.cell[t] != kNone && manhattan(s.cell[n], s.cell[t]) <= 1;
}

int Game::hydra_step(const State& s, int h, int d) const {
  const int c = s.hydra[h];
  if (c == kNone) return kNone;
  int n = board_.neighbor(c, d);
  while (n != kNone && s.bridges.test(n)) n = board_.neighbor(n, d);  // dives under bridges
  return n != kNone && board_.ring(n) && !s.bridges.test(n) ? n : kNone;
}

const AbilityRules& Game::rules(const State& s, Ability a) const {
  if (advanced_[0] == advanced_[1]) return abilities_[advanced_[0]][static_cast<int>(a)];  // one side for both
  const int owner = token_with(s, a);
  return abilities_[advanced_[owner == kNone ? 0 : team_of(owner)]][static_cast<int>(a)];
}

bool Game::attack_protected(const State& s, int target, int attacker_cell) const {
  const int c = s.cell[target], tm = team(s, target);
  if (character_camp(s, tm).test(c)) return true;
  const int g = token_with(s, Ability::kGuardian);  // D5, D14
  if (g != kNone && g != target && team_of(g) == tm && s.cell[g] != kNone && within_steps(s, s.cell[g], c, 2))
    return true;
  if (shield_blocks(s, target, attacker_cell)) return true;
  if (has(s, target, Ability::kCamouflage))  // 55: a hedge on one of its edges
    for (int d = 0; d < 4; ++d)
      if (board_.neighbor(c, d) != kNone && hedge(s, c, d)) return true;
  const int r = token_with(s, Ability::kSilentSentinel);  // 57: allies in the Ranger's ray (D32)
  if (r != kNone && r != target && team_of(r) == tm && s.cell[r] != kNone && line_of_sight(s, r, kSize).test(c))
    return true;
  return false;
}

bool Game::shield_blocks(const State& s, int target, int from_cell) const {
  return has(s, target, Ability::kTowerShield) && in_facing_direction(s.cell[target], s.facing[target], from_cell);
}

void Game::tile_hedges(const State& s, Bits128& east, Bits128& south) const {
  east = south = Bits128{};
  for (int i = 0; i < board_.slot_count(); ++i) {
    Bits128 e, so;
    if (board_.tile_hedges(i, s.tile_face[i], s.tile_transform[i], e, so)) {
      east |= e;
      south |= so;
    }
  }
}

// =============================================================================== turn structure

bool Game::is_done(const State& s, int t) const {
  for (int i = 0; i < s.done_count; ++i)
    if (s.done[i] == t) return true;
  return false;
}

bool Game::can_rest(const State& s, int c) const { return slot_token(s, c) != s.last_rested[s.team]; }

bool Game::can_activate(const State& s, int c) const {
  const int t = slot_token(s, c);
  return t != s.resting && !is_done(s, t) && s.cell[t] != kNone;
}

bool Game::can_forfeit(const State& s, int c) const { return can_activate(s, c) && any_hydra_step(s); }

bool Game::hydra_step_ok(const State& s, int h, int d) const {
  const int n = hydra_step(s, h, d);
  return n != kNone && n != s.hydra[1 - h];
}

bool Game::any_hydra_step(const State& s) const {
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d)
      if (hydra_step_ok(s, h, d)) return true;
  return false;
}

bool Game::respawn_ok(const State& s, int r) const {
  if (s.queue_count == 0 || s.camp[2 * team_of(s.queue[0])] >= kCorners) return false;
  const auto& camp = board_.corner_cell_list(s.camp[2 * team_of(s.queue[0])]);
  const Bits128 occ = occupied(s);
  if (!occ.test(camp[r])) return true;
  for (int c : camp)
    if (!occ.test(c)) return false;  // a free cell exists: only free cells
  return true;
}

void Game::start_activation(State& s, int t) const {
  s.active = static_cast<uint8_t>(t);
  s.phase = kPhaseAct;
  s.activation = Activation{};
  const CardInfo& me = *info(s, t);
  int ap = me.ap;
  if (s.carried[t] > 0) {
    ap += me.bonus;
    s.activation.bonus = 1;
  }
  s.activation.ap = static_cast<uint8_t>(ap);  // Bards are applied by settle() (point 20)
}

void Game::end_activation(State& s) const {
  s.done[s.done_count++] = s.active;
  s.active = kNone;
  s.activation = Activation{};
  if (s.phase == kPhasePuppet) s.phase = kPhaseAct;
  after_activation(s);
  // Wolf Form lasts the activation (D33): cleared after the passes of a turn end (D49), which
  // still saw it on; settle() runs the passes again unless the game is over.
  s.wolf = 0;
}

void Game::after_activation(State& s) const {
  if (s.done_count >= 2)
    end_turn(s);
  else
    flow_phase(s) = kPhasePick;
}

void Game::end_turn(State& s) const {
  // D49: the passes of the action that ends the turn run before the turn ends (Wolf Form still on),
  // and again after it in settle() — unless the game ended with the turn.
  resolve_passives(s);
  s.last_rested[s.team] = s.resting;
  s.resting = kNone;
  s.done_count = 0;
  s.done.fill(kNone);
  flow_phase(s) = kPhaseRest;
  if (s.team == 1 && (s.round >= kRounds || !s.strawberries.any())) {
    s.player = kTerminalPlayer;
    return;
  }
  if (s.team == 1) s.round = static_cast<uint8_t>(s.round + 1);
  s.team = static_cast<uint8_t>(s.team ^ 1);
}

void Game::defeat(State& s, int t) const {
  if (s.cell[t] == kNone) return;
  const int tm = team(s, t);
  s.cell[t] = kNone;
  if (t >= kCharacters) {
    s.facing[t] = 0;  // sentries leave the board without respawn
  } else {
    s.carried[t] = 0;
    if (s.queue_count < kTokens) s.queue[s.queue_count++] = static_cast<uint8_t>(t);
  }
  // D56: the compulsion ends with its target, a sentry too (a character after a respawn, or a
  // sentry placed again, would be another presence)
  if (s.activation.compulsions != 0 && s.activation.compel_target == t)
    s.activation.compulsions = static_cast<uint8_t>(rules(s, Ability::kCompulsion).per_activation);
  if (tm == s.regent_team && s.regent_vp[tm] > 0) --s.regent_vp[tm];  // Point of Order (58)
}

// Step 3 of "After every action": hydras, Feral and sentries strike in passes until none does.
void Game::resolve_passives(State& s) const {
  const int basilisk = token_with(s, Ability::kPoisonBlood);
  const int feral = token_with(s, Ability::kFeral);
  for (;;) {
    uint8_t hit = 0, poisoned_hydras = 0, poisoned_tokens = 0;
    // Both hydras' zones at once; which hydra struck matters only for the Basilisk.
    Bits128 zone;
    for (int h = 0; h < 2; ++h)
      if (s.hydra[h] != kNone) zone |= board_.around(s.hydra[h]);
    if (zone.any())
      for (int t = 0; t < kTokens; ++t) {
        const int c = s.cell[t];
        if (c == kNone || !zone.test(c) || ((s.wolf >> t) & 1) || character_camp(s, team(s, t)).test(c)) continue;
        hit = static_cast<uint8_t>(hit | (1u << t));
        if (t == basilisk)
          for (int h = 0; h < 2; ++h)
            if (s.hydra[h] != kNone && board_.around(s.hydra[h]).test(c))
              poisoned_hydras = static_cast<uint8_t>(poisoned_hydras | (1u << h));
      }
    if (feral != kNone && s.cell[feral] != kNone) {
      const int c = s.cell[feral];
      for (int u = 0; u < kTokens; ++u)
        if (s.cell[u] == c && enemy(s, feral, u) && !attack_protected(s, u, c)) {
          hit = static_cast<uint8_t>(hit | (1u << u));
          if (u == basilisk) poisoned_tokens = static_cast<uint8_t>(poisoned_tokens | (1u << feral));
        }
    }
    for (int k = kCharacters; k < kTokens; ++k) {
      const int c = s.cell[k];
      if (c == kNone) continue;
      const Bits128 sight = line_of_sight(s, k, kSize);
      for (int u = 0; u < kTokens; ++u) {
        const int cu = s.cell[u];
        if (cu == kNone || !enemy(s, k, u) || !adjacent(s, c, cu) || !sight.test(cu) || attack_protected(s, u, c))
          continue;
        hit = static_cast<uint8_t>(hit | (1u << u));
        if (u == basilisk) poisoned_tokens = static_cast<uint8_t>(poisoned_tokens | (1u << k));
      }
    }
    if (!hit) return;
    for (int t = 0; t < kTokens; ++t)
      if ((hit >> t) & 1) defeat(s, t);
    for (int h = 0; h < 2; ++h)
      if ((poisoned_hydras >> h) & 1) s.hydra[h] = kNone;  // Poison Blood kills the hydra (40)
    for (int k = 0; k < kTokens; ++k)
      if (((poisoned_tokens >> k) & 1) && s.cell[k] != kNone && !character_camp(s, team(s, k)).test(s.cell[k]))
        defeat(s, k);
  }
}

void Game::bard_check(State& s) const {
  const int t = s.active, c = s.cell[t];
  int delta = 0;
  for (int b = 0; b < kCharacters; ++b) {
    const uint64_t ab = abilities_of(s, b);
    if (!(ab & (ability_bit(Ability::kWarCry) | ability_bit(Ability::kInspirationalBallad)))) continue;
    if (b == t || s.cell[b] == kNone || manhattan(s.cell[b], c) > 2) continue;
    const uint8_t bit = static_cast<uint8_t>(1u << b);
    if (team_of(b) == team_of(t)) {
      if ((ab & ability_bit(Ability::kInspirationalBallad)) && !(s.activation.ballad & bit)) {
        s.activation.ballad |= bit;
        ++delta;
      }
    } else if ((ab & ability_bit(Ability::kWarCry)) && !(s.activation.war_cry & bit)) {
      s.activation.war_cry |= bit;
      --delta;
    }
  }
  if (delta) s.activation.ap = static_cast<uint8_t>(std::clamp(s.activation.ap + delta, 0, 255));
}

// After every action: passive attacks, a defeated active character's activation ends, Bards act
// on the active character, and the respawn queue takes the turn while it is not empty.
void Game::settle(State& s, int queued_before) const {
  if (s.phase >= kPhaseDraft) return;  // setup: nothing on the board strikes yet
  if (s.player != kTerminalPlayer) resolve_passives(s);  // D49: nothing strikes once the game is over
  if (s.active != kNone) {
    if (s.cell[s.active] == kNone) {
      // The defeated character's activation ends, perhaps the turn with it (Wolf Form cleared):
      // the passes run again (step 5), as after an `end`.
      end_activation(s);
      if (s.player != kTerminalPlayer) resolve_passives(s);
    } else {
      bard_check(s);
    }
  }
  // The characters one action defeats queue together in token order (D9).
  std::sort(s.queue.begin() + queued_before, s.queue.begin() + s.queue_count);
  if (s.player == kTerminalPlayer) {  // nobody respawns once the game is over
    s.queue.fill(kNone);
    s.queue_count = 0;
    if (s.phase == kPhaseRespawn) s.phase = s.resume_phase;
    s.resume_phase = kNone;
    return;
  }
  if (s.queue_count) {
    if (s.phase != kPhaseRespawn) {
      s.resume_phase = s.phase;
      s.phase = kPhaseRespawn;
    }
    s.player = static_cast<int8_t>(team_of(s.queue[0]));
  } else {
    if (s.phase == kPhaseRespawn) {
      s.phase = s.resume_phase;
      s.resume_phase = kNone;
    }
    s.player = static_cast<int8_t>(s.team);
  }
}

void Game::gain_strawberry(State& s, int t) const {
  ++s.carried[t];
  if (t == s.active && s.carried[t] == 1 && !s.activation.bonus) {
    s.activation.ap = static_cast<uint8_t>(std::min(255, s.activation.ap + info(s, t)->bonus));
    s.activation.bonus = 1;
  }
}

void Game::lose_strawberries(State& s, int t, int n) const {
  s.carried[t] = static_cast<uint8_t>(s.carried[t] - n);
  if (t == s.active && s.carried[t] == 0 && s.activation.bonus) {
    s.activation.ap = static_cast<uint8_t>(std::max(0, s.activation.ap - info(s, t)->bonus));
    s.activation.bonus = 0;
  }
}

// Point 11 for a voluntary move of the active character; free moves count as AP (D24).
bool Game::can_enter(const State& s, int t, int dest, int cost) const {
  const int ap = s.activation.ap;
  return ap >= cost && (ap - cost + s.activation.free_moves >= 1 || !other_token_at(s, dest, t));
}

int Game::vp(const State& s, int tm) const {
  int total = s.plucked[tm] + 2 * s.deposited[tm] + s.regent_vp[tm];
  for (int t = tm * kTeamSize; t < (tm + 1) * kTeamSize; ++t) total += s.carried[t];
  return total;
}

// =============================================================================== protocol

void Game::legal_actions(const State& s, Actions& out) const {
  if (is_terminal(s)) return;
  switch (s.phase) {
    case kPhaseRest:
      for (int c = 0; c < kTeamSize; ++c)
        if (can_rest(s, c)) out.push_back(act::kRest + c);
      return;
    case kPhasePick: {
      for (int c = 0; c < kTeamSize; ++c)
        if (can_activate(s, c)) out.push_back(act::kActivate + c);
      if (any_hydra_step(s))
        for (int c = 0; c < kTeamSize; ++c)
          if (can_activate(s, c)) out.push_back(act::kForfeit + c);
      return;
    }
    case kPhaseHydra:
      for (int h = 0; h < 2; ++h)
        for (int d = 0; d < 4; ++d)
          if (hydra_step_ok(s, h, d)) out.push_back(act::kHydra + 4 * h + d);
      return;
    case kPhaseRespawn:
      for (int r = 0; r < 4; ++r)
        if (respawn_ok(s, r)) out.push_back(act::kRespawn + r);
      return;
    case kPhaseDraft:
      for (int k = 0; k < kCards; ++k) out.push_back_if(act::kDraft + k, draft_ok(s, k));
      return;
    case kPhaseBridges:
      for (int b = 0; b < kBridgeSpots; ++b) out.push_back_if(act::kBridge + b, bridge_ok(s, b));
      return;
    case kPhaseCamps:
      for (int k = 0; k < kCampKinds; ++k)
        for (int c = 0; c < kCorners; ++c) out.push_back_if(act::kCamp + 4 * k + c, camp_ok(s, k, c));
      return;
    case kPhasePlacement:
      for (int r = 0; r < 4; ++r)
        if (place_ok(s, r))
          for (int f = 0; f < 4; ++f) out.push_back(act::kPlace + 4 * r + f);
      return;
    default:
      legal_act(s, out);
  }
}

bool Game::is_legal(const State& s, Action a) const {
  if (a < 0 || a >= act::kCount || is_terminal(s)) return false;
  const Decoded d = kDecode[a];
  switch (s.phase) {
    case kPhaseRest: return d.kind == Kind::kRest && can_rest(s, d.a);
    case kPhasePick:
      return (d.kind == Kind::kActivate && can_activate(s, d.a)) ||
             (d.kind == Kind::kForfeit && can_forfeit(s, d.a));
    case kPhaseHydra: return d.kind == Kind::kHydra && hydra_step_ok(s, d.a, d.b);
    case kPhaseRespawn: return d.kind == Kind::kRespawn && respawn_ok(s, d.a);
    case kPhaseAct:
    case kPhasePuppet: return legal_act_action(s, d);
    default: return setup_legal(s, d);
  }
}

void Game::apply_action(State& s, Action a) const {
  const Decoded d = kDecode[a];
  int queued_before = s.queue_count;  // defeats of this action queue after these
  switch (d.kind) {
    case Kind::kRest:
      s.resting = static_cast<uint8_t>(slot_token(s, d.a));
      s.phase = kPhasePick;
      break;
    case Kind::kActivate:
      start_activation(s, slot_token(s, d.a));
      break;
    case Kind::kForfeit:
      s.done[s.done_count++] = static_cast<uint8_t>(slot_token(s, d.a));
      s.phase = kPhaseHydra;
      break;
    case Kind::kHydra:
      s.hydra[d.a] = static_cast<uint8_t>(hydra_step(s, d.a, d.b));
      after_activation(s);
      break;
    case Kind::kRespawn: {
      const int t = s.queue[0];
      s.cell[t] = board_.corner_cell_list(s.camp[2 * team_of(t)])[d.a];
      for (int i = 1; i < s.queue_count; ++i) s.queue[i - 1] = s.queue[i];
      s.queue[--s.queue_count] = kNone;
      --queued_before;
      break;
    }
    case Kind::kDraft:
    case Kind::kBridge:
    case Kind::kCamp:
    case Kind::kPlace:
      setup_apply(s, d);
      break;
    default: {
      // Petrifying Gaze (42) watches the voluntary moves of the active character (a Charge
      // watches each of its steps itself, see apply_act).
      const bool moving = s.phase == kPhaseAct && (d.kind == Kind::kMove || d.kind == Kind::kPounce ||
                                                   d.kind == Kind::kShadow || d.kind == Kind::kSlither);
      const int watcher = moving ? gaze_watcher(s) : kNone;
      const bool seen_before = watcher != kNone && line_of_sight(s, watcher, kSize).test(s.cell[s.active]);
      apply_act(s, d);
      if (watcher != kNone && !seen_before) petrifying_gaze(s, watcher);
    }
  }
  ++s.move_number;
  settle(s, queued_before);
}

// The Basilisk whose gaze a voluntary move of the active character may still meet, or kNone.
int Game::gaze_watcher(const State& s) const {
  const int basilisk = token_with(s, Ability::kPetrifyingGaze);
  if (basilisk == kNone || basilisk == s.active || s.cell[basilisk] == kNone || ((s.activation.gaze >> basilisk) & 1))
    return kNone;
  return basilisk;
}

// Petrifying Gaze (42) on the active character, which was outside `basilisk`'s LOS before its move.
void Game::petrifying_gaze(State& s, int basilisk) const {
  const int mover = s.active;
  if (mover == kNone || s.cell[mover] == kNone || s.cell[basilisk] == kNone ||
      !line_of_sight(s, basilisk, kSize).test(s.cell[mover]) || shield_blocks(s, mover, s.cell[basilisk]))
    return;
  const int loss = rules(s, Ability::kPetrifyingGaze).param;
  s.activation.ap = static_cast<uint8_t>(std::max(0, s.activation.ap - loss));
  s.activation.gaze = static_cast<uint8_t>(s.activation.gaze | (1u << basilisk));
}

// Between the steps of a multi-step move (Charge, Alluring Gaze): every step is a change, after
// which hydras, Feral and sentries strike (spec: "check after every change") and Bards act on the
// active character, as after an action (D53). The action's last step is followed by settle().
void Game::between_steps(State& s) const {
  resolve_passives(s);
  if (s.active != kNone && s.cell[s.active] != kNone) bard_check(s);
}

void Game::returns(const State& s, double* out) const {
  out[0] = out[1] = 0.0;
  if (!is_terminal(s)) return;
  const int a = vp(s, 0), b = vp(s, 1);
  if (a == b) return;
  out[0] = a > b ? 1.0 : -1.0;
  out[1] = -out[0];
}

// `out` arrives zeroed (game_concept.h); only the nonzero entries are written, planes by walking
// bitsets.
void Game::observation(const State& s, int player, float* out) const {
  const int me = player, them = 1 - player;
  // Planes of cells: 16 cells per store where the CPU allows (float_planes.h), not cell by cell.
  const float_planes::Writer write_plane = float_planes::best_writer();
  auto set_plane = [&](int p, const Bits128& bits) {
    const uint64_t words[2] = {bits.lo, bits.hi};
    write_plane(words, out + p * kCells, kCells);
  };
  const Bits128 water = board_.ring_cells() & ~s.bridges;
  Bits128 ground = ~board_.ring_cells();
  set_plane(0, ground);
  set_plane(1, water);
  set_plane(2, s.bridges);
  set_plane(3, character_camp(s, me));
  set_plane(4, strawberry_camp(s, me));
  set_plane(5, character_camp(s, them));
  set_plane(6, strawberry_camp(s, them));
  set_plane(7, s.hedge_east);
  set_plane(8, s.hedge_south);
  set_plane(9, s.strawberries);
  for (int h = 0; h < 2; ++h)
    if (s.hydra[h] != kNone) out[10 * kCells + s.hydra[h]] = 1.0f;
  for (int k = kCharacters; k < kTokens; ++k)
    if (s.cell[k] != kNone) out[(s.regent_team == me ? 17 : 18) * kCells + s.cell[k]] = 1.0f;
  float* per = out + 19 * kCells;
  for (int k = 0; k < kCharacters; ++k) {
    const int t = (k < kTeamSize ? me : them) * kTeamSize + k % kTeamSize;
    if (s.cell[t] != kNone) out[(11 + k) * kCells + s.cell[t]] = 1.0f;
    float* v = per + 28 * k;
    v[s.facing[t] & 3] = 1.0f;
    v[4] = s.carried[t];
    v[5] = s.resting == t;
    v[6] = s.last_rested[team_of(t)] == t;
    v[7] = s.active == t;
    v[8] = s.active == t ? s.activation.ap : 0;
    v[9] = is_done(s, t);
    v[10] = s.uses_left[t] == kNone ? 0 : s.uses_left[t];
    v[11] = s.cell[t] != kNone;
    if (s.card[t] < kCards) v[12 + s.card[t]] = 1.0f;
    v[26] = (s.wolf >> t) & 1;
    v[27] = s.active == t ? s.activation.free_moves : 0;
  }
  float* g = per + 28 * kCharacters;
  g[0] = s.round;
  g[1] = s.team == me;
  g[2] = static_cast<float>(vp(s, me));
  g[3] = static_cast<float>(vp(s, them));
  g[4] = s.deposited[me];
  g[5] = s.deposited[them];
  g[6 + std::min<int>(s.phase, kPhaseCount - 1)] = 1.0f;
  g[16] = s.hedges_planted;
  g[17] = s.hedges_chopped;
  g[18] = s.regent_vp[me];
  g[19] = s.regent_vp[them];
  g[20] = s.hydra[0] != kNone;
  g[21] = s.hydra[1] != kNone;
  g[22] = advanced_[me];
  g[23] = advanced_[them];
  float* a = g + 24;
  const Activation& A = s.activation;
  auto used = [&](Ability ab) { return (A.used & ability_bit(ab)) != 0 ? 1.0f : 0.0f; };
  a[0] = A.face_used;
  a[1] = used(Ability::kGrapple);
  a[2] = used(Ability::kDragonPounce);
  a[3] = used(Ability::kThrowingAxe);
  a[4] = used(Ability::kCharm);
  a[5] = A.compulsions;
  a[6] = used(Ability::kSlither);
  a[7] = used(Ability::kCharge);
  a[8] = A.charged;
  a[9] = used(Ability::kAlluringGaze);
  a[10] = used(Ability::kCommand);
  a[11] = used(Ability::kSentry);
  a[12] = used(Ability::kSprint);
  a[13] = used(Ability::kRetriever);
  a[14] = static_cast<float>(std::popcount(A.gaze));
  if (A.puppet < kTokens) a[15 + A.puppet] = 1.0f;
  a[23] = s.setup_step;
  float* draft = a + 25;
  for (int k = 0; k < kCards; ++k) draft[k] = 1.0f;
  for (int t = 0; t < kCharacters; ++t)
    if (s.card[t] < kCards) draft[s.card[t]] = 0.0f;
}

// =============================================================================== the activation

uint64_t Game::actor_abilities(const State& s) const {
  if (s.phase == kPhasePuppet) return abilities_of(s, s.activation.puppet) & kActiveAbilities & ~kNotPuppetable;
  const int t = s.active;
  if (under_aura(s, t)) return 0;  // 50
  uint64_t m = abilities_of(s, t) & kActiveAbilities;
  if (has(s, t, Ability::kChangeling))  // 51: every adjacent character's active abilities
    for (int u = 0; u < kCharacters; ++u)
      if (u != t && s.cell[u] != kNone && adjacent(s, s.cell[t], s.cell[u]))
        m |= abilities_of(s, u) & kActiveAbilities & ~kNotBorrowable;
  return m;
}

bool Game::move_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  const int budget = s.activation.ap + s.activation.free_moves;  // D24
  int dest;
  if (d < 4) {
    if (!((token_steps(s, c, t) >> d) & 1)) return false;
    dest = board_.neighbor(c, d);
  } else {
    if (!has(s, t, Ability::kAgility) || !diagonal_ok(s, c, d, t)) return false;
    dest = diagonal_target(c, d);
  }
  return budget >= 1 && (budget >= 2 || !other_token_at(s, dest, t));
}

bool Game::near_own_strawberry_camp(const State& s, int t) const {
  const int c = s.cell[t];
  const Bits128& camp = strawberry_camp(s, team_of(t));
  if (camp.test(c)) return true;
  for (int d = 0; d < 4; ++d) {
    const int n = board_.neighbor(c, d);
    if (n != kNone && camp.test(n) && !hedge(s, c, d)) return true;
  }
  return false;
}

bool Game::pass_ok(const State& s, int u, int n) const {
  const int t = s.active;
  if (u == t || u >= kCharacters || !present(s, u) || s.activation.ap < 1 || n > s.carried[t]) return false;
  return info(s, u)->slots - s.carried[u] >= n && adjacent(s, s.cell[t], s.cell[u]);
}

bool Game::legal_act_action(const State& s, const Decoded& d) const {
  const int t = s.active, c = s.cell[t];
  const int ap = s.activation.ap;
  if (s.phase == kPhaseAct) {
    switch (d.kind) {
      case Kind::kMove: return move_ok(s, d.a);
      case Kind::kFace: return !s.activation.face_used && d.a != s.facing[t];
      case Kind::kPluck: return ap >= 1 && s.strawberries.test(c);
      case Kind::kDeposit: return ap >= 1 && s.carried[t] > 0 && near_own_strawberry_camp(s, t);
      case Kind::kDiscard: return s.carried[t] > 0;
      case Kind::kEnd: return true;
      case Kind::kPass: return pass_ok(s, d.a, d.b);
      default: break;
    }
  }
  return ability_action_ok(s, actor(s), actor_abilities(s), d);
}

bool Game::ability_action_ok(const State& s, int t, uint64_t mask, const Decoded& d) const {
  const Ability a = ability_of(d.kind);
  if (a == Ability::kCount || !(mask & ability_bit(a))) return false;
  switch (d.kind) {
    case Kind::kGrapple: return grapple_ok(s, t, d.a, d.b);
    case Kind::kPounce: return pounce_ok(s, t, d.a);
    case Kind::kPlant: return plant_ok(s, t, d.a);
    case Kind::kSpear: return spear_ok(s, t, d.a, line_of_sight(s, t, kSize));
    case Kind::kChop: return chop_ok(s, t, d.a);
    case Kind::kAxe: return axe_ok(s, t, d.a);
    case Kind::kThrow: return throw_ok(s, t, d.a, line_of_sight(s, t, kSize));
    case Kind::kCharm: return charm_target_ok(s, t, d.a, line_of_sight(s, t, kSize)) && target_steps(s, d.a, d.b);
    case Kind::kShadow: return shadow_ok(s, t, d.a, Ability::kShadowWalk);
    case Kind::kCompel: return compel_target_ok(s, t, d.a, line_of_sight(s, t, kSize)) && target_steps(s, d.a, d.b);
    case Kind::kSlither: return shadow_ok(s, t, d.a, Ability::kSlither);
    case Kind::kBite: return bite_target_ok(s, t, d.a) && target_steps(s, d.a, d.b);
    case Kind::kHorns: return horns_ok(s, t, d.a);
    case Kind::kFlip: return flip_ok(s, t);
    case Kind::kCharge: return charge_steps(s, t) > 0;
    case Kind::kLure: return lure_ok(s, t, d.a, d.b, line_of_sight(s, t, kSize));
    case Kind::kVent: return vent_target_ok(s, t, d.a) && target_steps(s, d.a, d.b);
    case Kind::kPuppet: return puppet_ok(s, t, d.a);
    case Kind::kArcher: return archer_ok(s, t, d.a, line_of_sight(s, t, kSize));
    case Kind::kCommand: return command_target_ok(s, t, d.a) && target_steps(s, d.a, d.b);
    case Kind::kSentry: return sentry_ok(s, t, d.a) && d.b < 4;
    case Kind::kWolf: return simple_ok(s, Ability::kWolfForm);
    case Kind::kSprint: return simple_ok(s, Ability::kSprint);
    default: return false;
  }
}

// Every ability action of `mask` for actor t, through the legality functions, in increasing id:
// the abilities are visited in the order of their action ids (kAbilitiesById), each one's actions
// in increasing id. kAny: stop after the first ability that has an action (puppet_ok).
template <bool kAny>
void Game::gen_ability_actions(const State& s, int t, uint64_t mask, Actions& out) const {
  constexpr uint64_t kSighted = ability_bit(Ability::kSpear) | ability_bit(Ability::kThrowingAxe) |
                                ability_bit(Ability::kArcher) | ability_bit(Ability::kCharm) |
                                ability_bit(Ability::kCompulsion) | ability_bit(Ability::kAlluringGaze);
  // t's line of sight, once (the shorter ranges are its first cells, see in_sight).
  const Bits128 sight = (mask & kSighted) ? line_of_sight(s, t, kSize) : Bits128{};
  uint32_t ranks = 0;
  for (uint64_t bits = mask & kActiveAbilities; bits; bits &= bits - 1)
    ranks |= uint32_t{1} << kAbilityRank[std::countr_zero(bits)];
  for (; ranks; ranks &= ranks - 1) {
    if (kAny && !out.empty()) return;
    const Ability a = kAbilitiesById[std::countr_zero(ranks)];
    if (s.activation.ap < cost(s, a) && a != Ability::kHorns && a != Ability::kArcanePuppetry) continue;
    switch (a) {
      case Ability::kGrapple:
        if (once_used(s, a)) break;
        for (int u = 0; u < kTokens; ++u)
          if (u != t && s.cell[u] != kNone && adjacent(s, s.cell[t], s.cell[u]))
            for (int o = 0; o < Board::kLandingOffsets; ++o)
              out.push_back_if(act::kGrapple + 12 * u + o, grapple_ok(s, t, u, o));
        break;
      case Ability::kDragonPounce:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kPounce + d, pounce_ok(s, t, kNE + d));
        break;
      case Ability::kPlant:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kPlant + d, plant_ok(s, t, d));
        break;
      case Ability::kChop:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kChop + d, chop_ok(s, t, d));
        break;
      case Ability::kShadowWalk:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kShadow + d, shadow_ok(s, t, d, a));
        break;
      case Ability::kSlither:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kSlither + d, shadow_ok(s, t, d, a));
        break;
      case Ability::kSpear:
        for (int u = 0; u < kTokens; ++u) out.push_back_if(act::kSpear + u, spear_ok(s, t, u, sight));
        break;
      case Ability::kBattleAxe:
        for (int u = 0; u < kTokens; ++u) out.push_back_if(act::kAxe + u, axe_ok(s, t, u));
        break;
      case Ability::kThrowingAxe:
        for (int u = 0; u < kTokens; ++u) out.push_back_if(act::kThrow + u, throw_ok(s, t, u, sight));
        break;
      case Ability::kHorns:
        for (int u = 0; u < kTokens; ++u) out.push_back_if(act::kHorns + u, horns_ok(s, t, u));
        break;
      case Ability::kArcher:
        for (int u = 0; u < kTokens; ++u) out.push_back_if(act::kArcher + u, archer_ok(s, t, u, sight));
        break;
      case Ability::kArcanePuppetry:
        for (int u = 0; u < kCharacters; ++u) out.push_back_if(act::kPuppet + u, puppet_ok(s, t, u));
        break;
      case Ability::kCharm:
      case Ability::kCompulsion:
      case Ability::kBite:
      case Ability::kVentriloquism:
      case Ability::kCommand: {
        const int base = a == Ability::kCharm         ? act::kCharm
                         : a == Ability::kCompulsion  ? act::kCompel
                         : a == Ability::kBite        ? act::kBite
                         : a == Ability::kVentriloquism ? act::kVent
                                                        : act::kCommand;
        for (int u = 0; u < kTokens; ++u) {
          if (u == t || s.cell[u] == kNone) continue;
          bool ok = false;
          switch (a) {
            case Ability::kCharm: ok = charm_target_ok(s, t, u, sight); break;
            case Ability::kCompulsion: ok = compel_target_ok(s, t, u, sight); break;
            case Ability::kBite: ok = bite_target_ok(s, t, u); break;
            case Ability::kVentriloquism: ok = vent_target_ok(s, t, u); break;
            default: ok = command_target_ok(s, t, u); break;
          }
          if (!ok) continue;
          const uint8_t m = token_steps(s, s.cell[u], u);  // the directions u may be moved in
          for (int d = 0; d < 4; ++d) out.push_back_if(base + 4 * u + d, (m >> d) & 1);
        }
        break;
      }
      case Ability::kAlluringGaze:
        for (int u = 0; u < kTokens; ++u)
          for (int n = 1; n <= 2; ++n) out.push_back_if(act::kLure + 2 * u + n - 1, lure_ok(s, t, u, n, sight));
        break;
      case Ability::kMasterOfTheLabyrinth:
        out.push_back_if(act::kFlip, flip_ok(s, t));
        break;
      case Ability::kCharge:
        out.push_back_if(act::kCharge, charge_steps(s, t) > 0);
        break;
      case Ability::kSentry:
        for (int d = 0; d < 4; ++d)
          if (sentry_ok(s, t, d))
            for (int f = 0; f < 4; ++f) out.push_back(act::kSentry + 4 * d + f);
        break;
      case Ability::kWolfForm:
        out.push_back_if(act::kWolf, simple_ok(s, a));
        break;
      case Ability::kSprint:
        out.push_back_if(act::kSprint, simple_ok(s, a));
        break;
      default:
        break;
    }
  }
}

void Game::legal_act(const State& s, Actions& out) const {
  if (s.phase == kPhaseAct) {
    const int t = s.active, c = s.cell[t];
    const int ap = s.activation.ap;
    // Moves as move_ok, with t's steps from c computed once.
    const int budget = ap + s.activation.free_moves;  // D24
    if (budget >= 1) {
      const uint8_t here = token_steps(s, c, t);
      for (int d = 0; d < 4; ++d)
        if ((here >> d) & 1) {
          const int dest = board_.neighbor(c, d);
          out.push_back_if(act::kMove + d, budget >= 2 || !other_token_at(s, dest, t));
        }
      if (has(s, t, Ability::kAgility) && !s.bridges.test(c)) {  // diagonal_ok
        std::array<uint8_t, 4> next{};  // token_steps from the orthogonal neighbours t may step to
        for (int d = 0; d < 4; ++d)
          if ((here >> d) & 1) next[d] = token_steps(s, board_.neighbor(c, d), t);
        for (int d = kNE; d <= kNW; ++d) {
          const int target = diagonal_target(c, d);
          if (target == kNone || s.bridges.test(target)) continue;
          const int h = kDiagParts[d][0], v = kDiagParts[d][1];
          if (!((((here >> h) & 1) && ((next[h] >> v) & 1)) || (((here >> v) & 1) && ((next[v] >> h) & 1))))
            continue;
          out.push_back_if(act::kMove + d, budget >= 2 || !other_token_at(s, target, t));
        }
      }
    }
    if (!s.activation.face_used)
      for (int d = 0; d < 4; ++d) out.push_back_if(act::kFace + d, d != s.facing[t]);
    if (ap >= 1 && s.strawberries.test(c)) out.push_back(act::kPluck);
    if (ap >= 1 && s.carried[t] && near_own_strawberry_camp(s, t)) out.push_back(act::kDeposit);
    if (s.carried[t]) out.push_back(act::kDiscard);
    out.push_back(act::kEnd);
    if (ap >= 1 && s.carried[t]) {
      for (int u = 0; u < kCharacters; ++u) {
        if (u == t || s.cell[u] == kNone || !adjacent(s, c, s.cell[u])) continue;
        const int most = std::min({static_cast<int>(s.carried[t]), info(s, u)->slots - s.carried[u], kMaxPass});
        for (int n = 1; n <= most; ++n) out.push_back(act::kPass + 4 * u + n - 1);
      }
    }
  }
  // Ability actions come in id order after the ones above (ids below act::kGrapple).
  gen_ability_actions<false>(s, actor(s), actor_abilities(s), out);
}

void Game::apply_act(State& s, const Decoded& d) const {
  const int t = actor(s), c = s.cell[t];
  const int tm = team(s, t);
  const bool puppet = s.phase == kPhasePuppet;
  const Ability ab = ability_of(d.kind);
  // Measured before the ability is marked used (charge_steps checks the once-per-activation flag).
  const int charge_length = d.kind == Kind::kCharge ? charge_steps(s, t) : 0;
  if (ab != Ability::kCount && rules(s, ab).per_activation == 1) s.activation.used |= ability_bit(ab);
  // An attack by the actor on u; Poison Blood strikes back at an adjacent attacker (40).
  auto attack = [&](int u) {
    const bool poison = has(s, u, Ability::kPoisonBlood) && adjacent(s, c, s.cell[u]);
    defeat(s, u);
    if (poison && !character_camp(s, tm).test(c)) defeat(s, t);
  };
  auto step = [&](int u, int dir) { s.cell[u] = static_cast<uint8_t>(board_.neighbor(s.cell[u], dir)); };
  switch (d.kind) {
    case Kind::kMove:
      if (s.activation.free_moves > 0)
        --s.activation.free_moves;
      else
        pay(s, 1);
      s.cell[t] = static_cast<uint8_t>(d.a < 4 ? board_.neighbor(c, d.a) : diagonal_target(c, d.a));
      break;
    case Kind::kFace:
      s.facing[t] = d.a;
      s.activation.face_used = 1;
      break;
    case Kind::kPluck:
      pay(s, 1);
      s.strawberries.reset(c);
      ++s.plucked[tm];
      if (s.carried[t] < info(s, t)->slots) gain_strawberry(s, t);  // full slots: discarded
      if (has(s, t, Ability::kRetriever) && !(s.activation.used & ability_bit(Ability::kRetriever))) {
        s.activation.used |= ability_bit(Ability::kRetriever);  // 43
        ++s.activation.free_moves;
      }
      break;
    case Kind::kDeposit:
      pay(s, 1);
      s.deposited[tm] = static_cast<uint8_t>(s.deposited[tm] + s.carried[t]);
      lose_strawberries(s, t, s.carried[t]);
      break;
    case Kind::kDiscard:
      lose_strawberries(s, t, 1);
      break;
    case Kind::kEnd:
      end_activation(s);
      return;
    case Kind::kPass:
      pay(s, 1);
      s.carried[d.a] = static_cast<uint8_t>(s.carried[d.a] + d.b);
      lose_strawberries(s, t, d.b);
      break;
    // --- abilities (the actor t: the active character, the Nymph borrowing, or the puppet)
    case Kind::kGrapple:
      pay(s, cost(s, ab));
      s.cell[d.a] = static_cast<uint8_t>(board_.landing(c, d.b));
      break;
    case Kind::kPounce:
      pay(s, cost(s, ab));
      s.cell[t] = static_cast<uint8_t>(diagonal_target(c, d.a));
      break;
    case Kind::kPlant:
    case Kind::kChop: {
      pay(s, cost(s, ab));
      const Edge e = board_.edge(c, d.a);
      Bits128& hedges = e.south ? s.hedge_south : s.hedge_east;
      if (d.kind == Kind::kPlant) {
        hedges.set(e.bit);
        s.planted.add(e.south, e.bit);  // a hedge token, on this edge from now on (D54)
        ++s.hedges_planted;
      } else {
        hedges.reset(e.bit);
        s.planted.remove(e.south, e.bit);  // a hedge token chopped leaves the game
        s.chopped.add(e.south, e.bit);
        ++s.hedges_chopped;
      }
      --s.uses_left[ability_owner(s, ab)];  // the card owner's uses (38)
      break;
    }
    case Kind::kSpear:
    case Kind::kAxe:
    case Kind::kThrow:
    case Kind::kArcher:
      pay(s, cost(s, ab));
      attack(d.a);
      break;
    case Kind::kHorns:
      pay(s, s.activation.charged ? rules(s, ab).param : cost(s, ab));
      s.activation.charged = 0;
      attack(d.a);
      break;
    case Kind::kCharm:
    case Kind::kVent:
    case Kind::kCommand:
      pay(s, cost(s, ab));
      step(d.a, d.b);
      break;
    case Kind::kShadow:
    case Kind::kSlither:
      pay(s, cost(s, ab));
      step(t, d.a);
      break;
    case Kind::kCompel:
      pay(s, cost(s, ab));
      ++s.activation.compulsions;
      s.activation.compel_target = d.a;
      step(d.a, d.b);
      break;
    case Kind::kBite: {  // 45: drop one carried strawberry (VP unchanged), then one step
      pay(s, cost(s, ab));
      const int u = d.a;
      if (s.carried[u] > 0) {
        lose_strawberries(s, u, 1);
        s.strawberries.set(s.cell[u]);  // already one there: the dropped one leaves the game
      }
      step(u, d.b);
      break;
    }
    case Kind::kFlip: {  // 47, D27, D28
      pay(s, cost(s, ab));
      const int slot = board_.slot_of(c);
      int tf = s.tile_transform[slot];
      const int k = tf % 4, mirror = tf / 4;
      tf = (s.facing[t] == kN || s.facing[t] == kS) ? k + 4 * (1 - mirror) : (k + 2) % 4 + 4 * (1 - mirror);
      s.tile_face[slot] = static_cast<uint8_t>(board_.other_face(s.tile_face[slot]));
      s.tile_transform[slot] = static_cast<uint8_t>(tf);
      Bits128 east, south;
      tile_hedges(s, east, south);
      const Bits128& me = board_.slot_edges_east(slot);
      const Bits128& ms = board_.slot_edges_south(slot);
      // The printed hedges of the new faces, less those under chopped-hedge tokens, plus the
      // hedge tokens: tokens keep their edges (D28, D54).
      Bits128 planted_east, planted_south, chopped_east, chopped_south;
      s.planted.to_bits(planted_east, planted_south);
      s.chopped.to_bits(chopped_east, chopped_south);
      east = (east & ~chopped_east) | planted_east;
      south = (south & ~chopped_south) | planted_south;
      s.hedge_east = (s.hedge_east & ~me) | (east & me);
      s.hedge_south = (s.hedge_south & ~ms) | (south & ms);
      break;
    }
    case Kind::kCharge: {
      pay(s, cost(s, ab));
      // One step at a time (D53); the gaze watches each step of a voluntary charge; a defeated
      // Minotaur stops.
      const bool voluntary = !puppet && t == s.active;
      for (int i = 0; i < charge_length; ++i) {
        if (i > 0) between_steps(s);
        if (s.cell[t] == kNone) break;
        const int watcher = voluntary ? gaze_watcher(s) : kNone;
        const bool seen_before = watcher != kNone && line_of_sight(s, watcher, kSize).test(s.cell[t]);
        step(t, s.facing[t]);
        if (watcher != kNone && !seen_before) petrifying_gaze(s, watcher);
      }
      s.activation.charged = 1;
      break;
    }
    case Kind::kLure: {
      pay(s, cost(s, ab));
      const int toward = (s.facing[t] + 2) % 4;
      for (int i = 0; i < d.b; ++i) {
        if (i > 0) between_steps(s);
        if (s.cell[d.a] == kNone) break;  // the lured token was defeated on the way (D53)
        step(d.a, toward);
      }
      break;
    }
    case Kind::kPuppet:
      s.phase = kPhasePuppet;
      s.activation.puppet = d.a;
      return;
    case Kind::kSentry: {
      pay(s, cost(s, ab));
      const int k = s.cell[kCharacters] == kNone ? kCharacters : kCharacters + 1;  // lowest first
      s.cell[k] = static_cast<uint8_t>(board_.neighbor(c, d.a));
      s.facing[k] = d.b;
      break;
    }
    case Kind::kWolf:
      pay(s, cost(s, ab));
      s.wolf = static_cast<uint8_t>(s.wolf | (1u << t));
      break;
    case Kind::kSprint:
      pay(s, cost(s, ab));
      s.activation.free_moves = static_cast<uint8_t>(s.activation.free_moves + 3);
      break;
    default:
      break;
  }
  if (puppet) {  // one action, then back to the Puppeteer (54)
    s.phase = kPhaseAct;
    s.activation.puppet = kNone;
  }
}

// =============================================================================== Abilities
//
// `<name>_ok(s, t, ...)` is the whole legality of one ability action with actor t (is_legal and the
// generator both use it). The mask check (own, borrowed, puppeted, Aura) is the caller's.

bool Game::once_used(const State& s, Ability a) const {
  return rules(s, a).per_activation == 1 && (s.activation.used & ability_bit(a)) != 0;
}

bool Game::grapple_ok(const State& s, int t, int u, int o) const {
  const int c = s.cell[t];
  if (once_used(s, Ability::kGrapple) || s.activation.ap < cost(s, Ability::kGrapple) || u == t ||
      !present(s, u) || !adjacent(s, c, s.cell[u]))
    return false;
  const int landing = board_.landing(c, o);
  return landing != kNone && !water(s, landing) && landing != s.cell[u] && landing != enemy_hound_cell(s, u);
}

bool Game::pounce_ok(const State& s, int t, int d) const {
  const int c = s.cell[t], k = cost(s, Ability::kDragonPounce);
  if (once_used(s, Ability::kDragonPounce) || s.activation.ap < k || !diagonal_ok(s, c, d, t)) return false;
  return !voluntary(s) || can_enter(s, t, diagonal_target(c, d), k);
}

bool Game::plant_ok(const State& s, int t, int d) const {
  const int c = s.cell[t], owner = ability_owner(s, Ability::kPlant);
  return owner != kNone && s.uses_left[owner] != kNone && s.uses_left[owner] > 0 &&
         s.hedges_planted < kMaxPlantedHedges && s.activation.ap >= cost(s, Ability::kPlant) &&
         board_.neighbor(c, d) != kNone && !hedge(s, c, d);
}

bool Game::chop_ok(const State& s, int t, int d) const {
  const int c = s.cell[t], owner = ability_owner(s, Ability::kChop);
  return owner != kNone && s.uses_left[owner] != kNone && s.uses_left[owner] > 0 &&
         s.hedges_chopped < kMaxChoppedHedges && s.activation.ap >= cost(s, Ability::kChop) &&
         board_.neighbor(c, d) != kNone && hedge(s, c, d);
}

bool Game::spear_ok(const State& s, int t, int u, const Bits128& sight) const {
  const int c = s.cell[t];
  return s.activation.ap >= cost(s, Ability::kSpear) && present(s, u) && enemy(s, t, u) &&
         adjacent(s, c, s.cell[u]) && in_sight(sight, c, s.cell[u], 1) && !attack_protected(s, u, c);
}

bool Game::axe_ok(const State& s, int t, int u) const {
  const int c = s.cell[t];
  return s.activation.ap >= cost(s, Ability::kBattleAxe) && present(s, u) && enemy(s, t, u) &&
         adjacent(s, c, s.cell[u]) && !attack_protected(s, u, c);
}

bool Game::throw_ok(const State& s, int t, int u, const Bits128& sight) const {
  const int c = s.cell[t];
  return !once_used(s, Ability::kThrowingAxe) && s.activation.ap >= cost(s, Ability::kThrowingAxe) &&
         present(s, u) && enemy(s, t, u) && in_sight(sight, c, s.cell[u], 2) && !attack_protected(s, u, c);
}

bool Game::horns_ok(const State& s, int t, int u) const {
  const int c = s.cell[t];
  const int k = s.activation.charged ? rules(s, Ability::kHorns).param : cost(s, Ability::kHorns);
  return s.activation.ap >= k && present(s, u) && enemy(s, t, u) && adjacent(s, c, s.cell[u]) &&
         !attack_protected(s, u, c);
}

bool Game::archer_ok(const State& s, int t, int u, const Bits128& sight) const {
  const int c = s.cell[t];
  // Distance 0..2, as the Throwing Axe with the same words (D44): its own cell is in its LOS.
  return s.activation.ap >= cost(s, Ability::kArcher) && present(s, u) && enemy(s, t, u) &&
         in_sight(sight, c, s.cell[u], 2) && !attack_protected(s, u, c);
}

bool Game::charm_target_ok(const State& s, int t, int u, const Bits128& sight) const {
  const int c = s.cell[t];
  return !once_used(s, Ability::kCharm) && s.activation.ap >= cost(s, Ability::kCharm) && u != t &&
         present(s, u) && sight.test(s.cell[u]) && !shield_blocks(s, u, c);
}

bool Game::shadow_ok(const State& s, int t, int d, Ability a) const {
  const int c = s.cell[t], k = cost(s, a);
  if ((a == Ability::kSlither && once_used(s, a)) || s.activation.ap < k || !hedge(s, c, d)) return false;
  // The step as point 9 would allow it without that hedge (and Territorial, 44).
  const int n = board_.neighbor(c, d);
  if (!((unhedged_steps(s, c) >> d) & 1) || n == enemy_hound_cell(s, t)) return false;
  return !voluntary(s) || can_enter(s, t, n, k);
}

bool Game::compel_target_ok(const State& s, int t, int u, const Bits128& sight) const {
  const int c = s.cell[t];
  const Activation& a = s.activation;
  if (a.compulsions >= rules(s, Ability::kCompulsion).per_activation || a.ap < cost(s, Ability::kCompulsion) ||
      !present(s, u))
    return false;
  const bool target_ok = a.compulsions == 0 ? (u != t && sight.test(s.cell[u])) : u == a.compel_target && u != t;
  return target_ok && !shield_blocks(s, u, c);
}

bool Game::bite_target_ok(const State& s, int t, int u) const {
  return s.activation.ap >= cost(s, Ability::kBite) && present(s, u) && enemy(s, t, u) &&
         adjacent(s, s.cell[t], s.cell[u]);
}

bool Game::flip_ok(const State& s, int t) const {
  return board_.has_tiles() && s.activation.ap >= cost(s, Ability::kMasterOfTheLabyrinth) &&
         board_.slot_of(s.cell[t]) != kNone;
}

int Game::charge_steps(const State& s, int t) const {
  if (once_used(s, Ability::kCharge) || s.activation.ap < cost(s, Ability::kCharge)) return 0;
  const int f = s.facing[t];
  // The first cell of the ray (beyond its own cell) holding a token or a hydra.
  Bits128 blockers = occupied(s);
  int c = s.cell[t], dist = 0, target = kNone;
  for (int k = 1; k < kSize; ++k) {
    const int n = board_.neighbor(c, f);
    if (n == kNone || hedge(s, c, f)) break;
    if (blockers.test(n) || n == s.hydra[0] || n == s.hydra[1]) {
      dist = k;
      target = n;
      break;
    }
    c = n;
  }
  if (target == kNone || dist < 2 || target == s.hydra[0] || target == s.hydra[1]) return 0;
  bool enemy_there = false;
  for (int u = 0; u < kTokens; ++u) enemy_there = enemy_there || (s.cell[u] == target && enemy(s, t, u));
  if (!enemy_there) return 0;
  int steps_taken = 0;
  c = s.cell[t];
  for (int i = 0; i < std::min(3, dist - 1); ++i) {
    if (!((token_steps(s, c, t) >> f) & 1)) break;
    c = board_.neighbor(c, f);
    ++steps_taken;
  }
  return steps_taken;
}

bool Game::lure_ok(const State& s, int t, int u, int n, const Bits128& sight) const {
  if (once_used(s, Ability::kAlluringGaze) || s.activation.ap < cost(s, Ability::kAlluringGaze) || u == t ||
      !present(s, u))
    return false;
  const int c = s.cell[t], cu = s.cell[u];
  if (cu == c || !sight.test(cu) || n > std::min(2, manhattan(c, cu)) ||
      shield_blocks(s, u, c))
    return false;
  const int toward = (s.facing[t] + 2) % 4;
  int x = cu;
  for (int i = 0; i < n; ++i) {
    if (!((token_steps(s, x, u) >> toward) & 1)) return false;
    x = board_.neighbor(x, toward);
  }
  return true;
}

bool Game::vent_target_ok(const State& s, int t, int u) const {
  return s.activation.ap >= cost(s, Ability::kVentriloquism) && u != t && present(s, u) &&
         within_steps(s, s.cell[t], s.cell[u], 3);
}

bool Game::puppet_ok(const State& s, int t, int u) const {
  if (u >= kCharacters || u == t || !present(s, u) || s.phase != kPhaseAct || under_aura(s, u) ||
      !within_steps(s, s.cell[t], s.cell[u], 3))
    return false;
  const uint64_t mask = abilities_of(s, u) & kActiveAbilities & ~kNotPuppetable;
  if (!mask) return false;
  State as_puppet = s;  // the puppet's actions as they would be legal in phase puppet
  as_puppet.phase = kPhasePuppet;
  as_puppet.activation.puppet = static_cast<uint8_t>(u);
  Actions actions;
  gen_ability_actions<true>(as_puppet, u, mask, actions);
  return !actions.empty();
}

bool Game::command_target_ok(const State& s, int t, int u) const {
  return !once_used(s, Ability::kCommand) && s.activation.ap >= cost(s, Ability::kCommand) && u != t &&
         present(s, u) && !enemy(s, t, u);
}

bool Game::sentry_ok(const State& s, int t, int d) const {
  if (once_used(s, Ability::kSentry) || s.activation.ap < cost(s, Ability::kSentry) || s.regent_team == kNone)
    return false;
  const int on_board = (s.cell[kCharacters] != kNone) + (s.cell[kCharacters + 1] != kNone);
  if (on_board >= 2 || on_board >= rules(s, Ability::kSentry).param) return false;
  const int c = s.cell[t];
  return ((steps(s, c) >> d) & 1) && !occupied(s).test(board_.neighbor(c, d));
}

bool Game::simple_ok(const State& s, Ability a) const {
  return !once_used(s, a) && s.activation.ap >= cost(s, a);
}

}  // namespace meeple::imperial_harvest
