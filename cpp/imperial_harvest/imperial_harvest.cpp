// Imperial Harvest rules (docs/rules/imperial-harvest.md; overview in imperial_harvest.h).
// Text (action names, the drawn board) and the consistency check are in imperial_harvest_text.cpp.
#include "imperial_harvest.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

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
  for (int t = 0; t < kTokens; ++t) {
    for (int n = 1; n <= kMaxPass; ++n) put(act::kPass + 4 * t + n - 1, Kind::kPass, t, n);
    for (int o = 0; o < Board::kLandingOffsets; ++o) put(act::kGrapple + 12 * t + o, Kind::kGrapple, t, o);
    put(act::kSpear + t, Kind::kSpear, t, 0);
    put(act::kAxe + t, Kind::kAxe, t, 0);
    put(act::kThrow + t, Kind::kThrow, t, 0);
    for (int d = 0; d < 4; ++d) {
      put(act::kCharm + 4 * t + d, Kind::kCharm, t, d);
      put(act::kCompel + 4 * t + d, Kind::kCompel, t, d);
    }
  }
  for (int r = 0; r < 4; ++r) put(act::kRespawn + r, Kind::kRespawn, r, 0);
  for (int d = 0; d < 4; ++d) {
    put(act::kPounce + d, Kind::kPounce, kNE + d, 0);
    put(act::kPlant + d, Kind::kPlant, d, 0);
    put(act::kChop + d, Kind::kChop, d, 0);
    put(act::kShadow + d, Kind::kShadow, d, 0);
  }
  return table;
}
constexpr std::array<Decoded, act::kCount> kDecode = make_decode_table();

int manhattan(int a, int b) { return std::abs(cell_x(a) - cell_x(b)) + std::abs(cell_y(a) - cell_y(b)); }

}  // namespace

Decoded Game::decode(Action a) { return kDecode[a]; }

// =============================================================================== setup

Game::Game(const GameSpec& spec) : board_(spec.board), abilities_(spec.abilities) {
  auto fail = [](const std::string& m) { throw std::invalid_argument(m); };
  for (int team = 0; team < kTeams; ++team) {
    for (int i = 0; i < kTeamSize; ++i) {
      const CharacterSpec& c = spec.teams[team][i];
      const int t = team * kTeamSize + i;
      TokenInfo& k = tokens_[t];
      k.id = c.id;
      k.name = c.name;
      const size_t space = c.name.find_last_of(' ');
      k.short_name = space == std::string::npos ? c.name : c.name.substr(space + 1);
      for (char& ch : k.short_name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (k.short_name.empty()) fail("character '" + c.id + "' has no name");
      k.qualified = (team == 0 ? "imperial-" : "raider-") + k.short_name;
      k.team = team;
      if (c.ap < 0 || c.ap > 20) fail("character '" + c.id + "': ap must be in 0..20");
      if (c.item_slots < 0 || c.item_slots > 8) fail("character '" + c.id + "': item_slots must be in 0..8");
      if (c.bonus_ap < 0 || c.bonus_ap > 10) fail("character '" + c.id + "': bonus_ap must be in 0..10");
      k.ap = c.ap;
      k.slots = c.item_slots;
      k.bonus = c.bonus_ap;
      for (const std::string& name : c.abilities) {
        int found = -1;
        for (int a = 0; a < kAbilityCount; ++a)
          if (name == kAbilityNames[a]) found = a;
        if (found < 0) fail("character '" + c.id + "': unknown ability '" + name + "'");
        k.abilities |= uint64_t{1} << found;
        const int uses = abilities_[found].uses_per_game;
        if (uses > 0) {
          if (k.uses_per_game >= 0) fail("character '" + c.id + "' has two per-game limited abilities");
          if (uses > 200) fail("ability '" + name + "': uses_per_game must be <= 200");
          k.uses_per_game = uses;
        }
      }
      for (int j = 0; j < i; ++j)
        if (tokens_[team * kTeamSize + j].short_name == k.short_name)
          fail("two characters of one team share the short name '" + k.short_name + "'");
    }
  }
  for (int t = kCharacters; t < kTokens; ++t) {
    tokens_[t].short_name = tokens_[t].qualified = "token" + std::to_string(t);
    tokens_[t].team = t - kCharacters;  // reserved slots (part 2: sentries)
  }
  for (int a = 0; a < kAbilityCount; ++a) {
    const AbilityRules& r = abilities_[a];
    if (r.ap < 0 || r.ap > 20 || r.per_activation < 0 || r.per_activation > 20)
      fail(std::string("ability '") + kAbilityNames[a] + "': ap and per_activation must be in 0..20");
  }
  // Letters on the drawn board: first letter of the short name not yet taken in that case.
  std::string taken;
  for (int t = 0; t < num_tokens_; ++t) {
    TokenInfo& k = tokens_[t];
    k.letter = '?';
    for (char ch : k.short_name + "abcdefghijklmnopqrstuvwxyz") {
      if (!std::isalpha(static_cast<unsigned char>(ch))) continue;
      const char l = static_cast<char>(k.team == 0 ? std::toupper(ch) : std::tolower(ch));
      if (taken.find(l) == std::string::npos) {
        k.letter = l;
        break;
      }
    }
    taken += k.letter;
  }
  int ap_max = 0;
  for (int t = 0; t < num_tokens_; ++t) {
    const TokenInfo& k = tokens_[t];
    if (k.has(Ability::kWarCry) || k.has(Ability::kInspirationalBallad)) bards_.push_back(t);
    if (k.has(Ability::kGuardian)) guardians_.push_back(t);
    ap_max = std::max(ap_max, k.ap + k.bonus);
  }
  // Bound (see docs): per activation at most ap_max + Ballads AP-costing actions, plus activate,
  // face, charm and end; per game at most one extra pluck (bonus regained) and one discard per
  // strawberry, and the box's hedge tokens; each action defeats at most 6 characters (respawns).
  const int berries = board_.initial_strawberry_count();
  const int per_activation = ap_max + static_cast<int>(bards_.size()) + 4;
  const int actions = 2 * kRounds * (1 + 2 * per_activation) + 2 * berries + kMaxPlantedHedges + kMaxChoppedHedges;
  // 2310 for the shipped data; the round 3000 is the documented bound both implementations give.
  max_game_length_ = std::max(3000, actions * (1 + kCharacters));
}

State Game::initial_state(uint64_t) const {
  State s;
  s.hedge_east = board_.initial_east_hedges();
  s.hedge_south = board_.initial_south_hedges();
  s.strawberries = board_.initial_strawberries();
  s.hydra = {static_cast<uint8_t>(board_.initial_hydras()[0]), static_cast<uint8_t>(board_.initial_hydras()[1])};
  s.cell.fill(kNone);
  s.facing.fill(0);
  s.uses_left.fill(kNone);
  s.queue.fill(kNone);
  s.done.fill(kNone);
  s.last_rested.fill(kNone);
  for (int team = 0; team < kTeams; ++team) {
    for (int i = 0; i < kTeamSize; ++i) {
      const int t = team * kTeamSize + i, c = board_.start_spaces()[team][i];
      s.cell[t] = static_cast<uint8_t>(c);
      // Face the board centre (4.5, 4.5) along the larger offset; a tie faces vertically (D1).
      const int dx2 = 9 - 2 * cell_x(c), dy2 = 9 - 2 * cell_y(c);
      s.facing[t] = static_cast<uint8_t>(std::abs(dx2) > std::abs(dy2) ? (dx2 > 0 ? kE : kW)
                                                                        : (dy2 > 0 ? kS : kN));
      if (tokens_[t].uses_per_game >= 0) s.uses_left[t] = static_cast<uint8_t>(tokens_[t].uses_per_game);
    }
  }
  return s;
}

// =============================================================================== geometry on a state

uint8_t Game::steps(const State& s, int c) const {
  uint8_t m = board_.open_steps(c);
  if ((m & (1u << kN)) && s.hedge_south.test(c - kSize)) m &= static_cast<uint8_t>(~(1u << kN));
  if ((m & (1u << kE)) && s.hedge_east.test(c)) m &= static_cast<uint8_t>(~(1u << kE));
  if ((m & (1u << kS)) && s.hedge_south.test(c)) m &= static_cast<uint8_t>(~(1u << kS));
  if ((m & (1u << kW)) && s.hedge_east.test(c - 1)) m &= static_cast<uint8_t>(~(1u << kW));
  return m;
}

int Game::diagonal_target(int c, int d) const {
  const int x = cell_x(c) + kDx[d], y = cell_y(c) + kDy[d];
  return on_board(x, y) ? cell_at(x, y) : kNone;
}

bool Game::diagonal_ok(const State& s, int c, int d) const {
  const int target = diagonal_target(c, d);
  if (target == kNone || board_.bridge(c) || board_.bridge(target)) return false;
  const int h = kDiagParts[d][0], v = kDiagParts[d][1];
  const uint8_t here = steps(s, c);
  if (((here >> h) & 1) && ((steps(s, board_.neighbor(c, h)) >> v) & 1)) return true;
  if (((here >> v) & 1) && ((steps(s, board_.neighbor(c, v)) >> h) & 1)) return true;
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

bool Game::within_two_steps(const State& s, int from, int to) const {
  if (from == to) return true;
  const uint8_t first = steps(s, from);
  for (int d = 0; d < 4; ++d) {
    if (!((first >> d) & 1)) continue;
    const int n = board_.neighbor(from, d);
    if (n == to) return true;
    const uint8_t second = steps(s, n);
    for (int e = 0; e < 4; ++e)
      if (((second >> e) & 1) && board_.neighbor(n, e) == to) return true;
  }
  return false;
}

Bits128 Game::occupied(const State& s) const {
  Bits128 out;
  for (int t = 0; t < num_tokens_; ++t)
    if (s.cell[t] != kNone) out.set(s.cell[t]);
  return out;
}

bool Game::other_token_at(const State& s, int c, int t) const {
  for (int u = 0; u < num_tokens_; ++u)
    if (u != t && s.cell[u] == c) return true;
  return false;
}

Bits128 Game::line_of_sight(const State& s, int t, int range) const {
  Bits128 out;
  int c = s.cell[t];
  out.set(c);
  Bits128 blockers = occupied(s);
  blockers.set(s.hydra[0]);
  blockers.set(s.hydra[1]);
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

bool Game::attack_protected(const State& s, int target, int attacker_cell) const {
  const int c = s.cell[target], team = tokens_[target].team;
  if (board_.character_camp(team).test(c)) return true;
  for (int g : guardians_)
    if (g != target && tokens_[g].team == team && s.cell[g] != kNone && within_two_steps(s, s.cell[g], c))
      return true;
  return shield_blocks(s, target, attacker_cell);
}

bool Game::shield_blocks(const State& s, int target, int from_cell) const {
  return tokens_[target].has(Ability::kTowerShield) && in_facing_direction(s.cell[target], s.facing[target], from_cell);
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
  const int n = board_.hydra_step(s.hydra[h], d);
  return n != kNone && n != s.hydra[1 - h];
}

bool Game::any_hydra_step(const State& s) const {
  for (int h = 0; h < 2; ++h)
    for (int d = 0; d < 4; ++d)
      if (hydra_step_ok(s, h, d)) return true;
  return false;
}

bool Game::respawn_ok(const State& s, int r) const {
  if (s.queue_count == 0) return false;
  const auto& camp = board_.character_camp_cells(team_of(s.queue[0]));
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
  int ap = tokens_[t].ap;
  if (s.carried[t] > 0) {
    ap += tokens_[t].bonus;
    s.activation.bonus = 1;
  }
  s.activation.ap = static_cast<uint8_t>(ap);  // Bards are applied by settle() (point 20)
}

void Game::end_activation(State& s) const {
  s.done[s.done_count++] = s.active;
  s.active = kNone;
  s.activation = Activation{};
  after_activation(s);
}

void Game::after_activation(State& s) const {
  if (s.done_count >= 2)
    end_turn(s);
  else
    flow_phase(s) = kPhasePick;
}

void Game::end_turn(State& s) const {
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
  s.carried[t] = 0;
  s.cell[t] = kNone;
  if (s.queue_count < kTokens) s.queue[s.queue_count++] = static_cast<uint8_t>(t);
}

void Game::resolve_hydras(State& s) const {
  const Bits128 zone = board_.around(s.hydra[0]) | board_.around(s.hydra[1]);
  for (int t = 0; t < num_tokens_; ++t) {
    const int c = s.cell[t];
    if (c != kNone && zone.test(c) && !board_.character_camp(tokens_[t].team).test(c)) defeat(s, t);
  }
}

void Game::bard_check(State& s) const {
  const int t = s.active, c = s.cell[t];
  int delta = 0;
  for (int b : bards_) {
    if (b == t || s.cell[b] == kNone || manhattan(s.cell[b], c) > 2) continue;
    const uint8_t bit = static_cast<uint8_t>(1u << b);
    if (!enemy(t, b)) {
      if (tokens_[b].has(Ability::kInspirationalBallad) && !(s.activation.ballad & bit)) {
        s.activation.ballad |= bit;
        ++delta;
      }
    } else if (tokens_[b].has(Ability::kWarCry) && !(s.activation.war_cry & bit)) {
      s.activation.war_cry |= bit;
      --delta;
    }
  }
  if (delta) s.activation.ap = static_cast<uint8_t>(std::clamp(s.activation.ap + delta, 0, 255));
}

// After every action: hydras strike, a defeated active character's activation ends, Bards act on
// the active character, and the respawn queue takes the turn while it is not empty.
void Game::settle(State& s, int queued_before) const {
  resolve_hydras(s);
  // The characters one action defeats (an attack, then the hydras) queue together in token order.
  std::sort(s.queue.begin() + queued_before, s.queue.begin() + s.queue_count);
  if (s.active != kNone) {
    if (s.cell[s.active] == kNone)
      end_activation(s);
    else
      bard_check(s);
  }
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
    s.activation.ap = static_cast<uint8_t>(std::min(255, s.activation.ap + tokens_[t].bonus));
    s.activation.bonus = 1;
  }
}

void Game::lose_strawberries(State& s, int t, int n) const {
  s.carried[t] = static_cast<uint8_t>(s.carried[t] - n);
  if (t == s.active && s.carried[t] == 0 && s.activation.bonus) {
    s.activation.ap = static_cast<uint8_t>(std::max(0, s.activation.ap - tokens_[t].bonus));
    s.activation.bonus = 0;
  }
}

bool Game::can_enter(const State& s, int t, int dest, int cost) const {
  const int ap = s.activation.ap;
  return ap >= cost && (ap >= cost + 1 || !other_token_at(s, dest, t));
}

int Game::vp(const State& s, int team) const {
  int total = s.plucked[team] + 2 * s.deposited[team];
  for (int t = team * kTeamSize; t < (team + 1) * kTeamSize; ++t) total += s.carried[t];
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
    default: return legal_act_action(s, d);
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
      s.hydra[d.a] = static_cast<uint8_t>(board_.hydra_step(s.hydra[d.a], d.b));
      after_activation(s);
      break;
    case Kind::kRespawn: {
      const int t = s.queue[0];
      s.cell[t] = board_.character_camp_cells(team_of(t))[d.a];
      for (int i = 1; i < s.queue_count; ++i) s.queue[i - 1] = s.queue[i];
      s.queue[--s.queue_count] = kNone;
      --queued_before;
      break;
    }
    default:
      apply_act(s, d);
  }
  ++s.move_number;
  settle(s, queued_before);
}

void Game::returns(const State& s, double* out) const {
  out[0] = out[1] = 0.0;
  if (!is_terminal(s)) return;
  const int a = vp(s, 0), b = vp(s, 1);
  if (a == b) return;
  out[0] = a > b ? 1.0 : -1.0;
  out[1] = -out[0];
}

void Game::observation(const State& s, int player, float* out) const {
  std::fill(out, out + kObservationSize, 0.0f);
  const int me = player, them = 1 - player;
  auto plane = [&](int p, int c) -> float& { return out[p * kCells + c]; };
  for (int c = 0; c < kCells; ++c) {
    plane(0, c) = board_.ring(c) ? 0.0f : 1.0f;
    plane(1, c) = board_.water(c) ? 1.0f : 0.0f;
    plane(2, c) = board_.bridge(c) ? 1.0f : 0.0f;
    plane(3, c) = board_.character_camp(me).test(c) ? 1.0f : 0.0f;
    plane(4, c) = board_.strawberry_camp(me).test(c) ? 1.0f : 0.0f;
    plane(5, c) = board_.character_camp(them).test(c) ? 1.0f : 0.0f;
    plane(6, c) = board_.strawberry_camp(them).test(c) ? 1.0f : 0.0f;
    plane(7, c) = s.hedge_east.test(c) ? 1.0f : 0.0f;
    plane(8, c) = s.hedge_south.test(c) ? 1.0f : 0.0f;
    plane(9, c) = s.strawberries.test(c) ? 1.0f : 0.0f;
  }
  plane(10, s.hydra[0]) = 1.0f;
  plane(10, s.hydra[1]) = 1.0f;
  float* per = out + 17 * kCells;
  for (int k = 0; k < kCharacters; ++k) {
    const int t = (k < kTeamSize ? me : them) * kTeamSize + k % kTeamSize;
    if (s.cell[t] != kNone) plane(11 + k, s.cell[t]) = 1.0f;
    float* v = per + 12 * k;
    v[s.facing[t] & 3] = 1.0f;
    v[4] = s.carried[t];
    v[5] = s.resting == t;
    v[6] = s.last_rested[team_of(t)] == t;
    v[7] = s.active == t;
    v[8] = s.active == t ? s.activation.ap : 0;
    v[9] = is_done(s, t);
    v[10] = s.uses_left[t] == kNone ? 0 : s.uses_left[t];
    v[11] = s.cell[t] != kNone;
  }
  float* g = per + 12 * kCharacters;
  g[0] = s.round;
  g[1] = s.team == me;
  g[2] = static_cast<float>(vp(s, me));
  g[3] = static_cast<float>(vp(s, them));
  g[4] = s.deposited[me];
  g[5] = s.deposited[them];
  g[6 + std::min<int>(s.phase, 4)] = 1.0f;
  g[11] = s.hedges_planted;
  g[12] = s.hedges_chopped;
  float* a = g + 13;
  const uint64_t used = s.activation.used;
  a[0] = s.activation.face_used;
  a[1] = (used & ability_bit(Ability::kGrapple)) != 0;
  a[2] = (used & ability_bit(Ability::kDragonPounce)) != 0;
  a[3] = (used & ability_bit(Ability::kThrowingAxe)) != 0;
  a[4] = (used & ability_bit(Ability::kCharm)) != 0;
  a[5] = s.activation.compulsions;
}

// =============================================================================== the activation

bool Game::move_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  if (d < 4) return ((steps(s, c) >> d) & 1) && can_enter(s, t, board_.neighbor(c, d), 1);
  return tokens_[t].has(Ability::kAgility) && diagonal_ok(s, c, d) && can_enter(s, t, diagonal_target(c, d), 1);
}

bool Game::near_own_strawberry_camp(const State& s, int t) const {
  const int c = s.cell[t];
  const Bits128& camp = board_.strawberry_camp(tokens_[t].team);
  if (camp.test(c)) return true;
  for (int d = 0; d < 4; ++d) {
    const int n = board_.neighbor(c, d);
    if (n != kNone && camp.test(n) && !hedge(s, c, d)) return true;
  }
  return false;
}

bool Game::pass_ok(const State& s, int u, int n) const {
  const int t = s.active;
  return u != t && present(s, u) && s.activation.ap >= 1 && n <= s.carried[t] &&
         tokens_[u].slots - s.carried[u] >= n && adjacent(s, s.cell[t], s.cell[u]);
}

bool Game::legal_act_action(const State& s, const Decoded& d) const {
  const int t = s.active, c = s.cell[t];
  const int ap = s.activation.ap;
  switch (d.kind) {
    case Kind::kMove: return move_ok(s, d.a);
    case Kind::kFace: return !s.activation.face_used && d.a != s.facing[t];
    case Kind::kPluck: return ap >= 1 && s.strawberries.test(c);
    case Kind::kDeposit: return ap >= 1 && s.carried[t] > 0 && near_own_strawberry_camp(s, t);
    case Kind::kDiscard: return s.carried[t] > 0;
    case Kind::kEnd: return true;
    case Kind::kPass: return pass_ok(s, d.a, d.b);
    case Kind::kGrapple: return grapple_ok(s, d.a, d.b);
    case Kind::kPounce: return pounce_ok(s, d.a);
    case Kind::kPlant: return plant_ok(s, d.a);
    case Kind::kSpear: return spear_ok(s, d.a);
    case Kind::kChop: return chop_ok(s, d.a);
    case Kind::kAxe: return axe_ok(s, d.a);
    case Kind::kThrow: return throw_ok(s, d.a);
    case Kind::kCharm: return charm_ok(s, d.a, d.b);
    case Kind::kShadow: return shadow_ok(s, d.a);
    case Kind::kCompel: return compel_ok(s, d.a, d.b);
    default: return false;
  }
}

void Game::legal_act(const State& s, Actions& out) const {
  const int t = s.active, c = s.cell[t];
  const int ap = s.activation.ap;
  const TokenInfo& me = tokens_[t];
  const Bits128 occ = occupied(s);  // a destination other than c is shared iff it is in occ
  // In increasing action id, so that the list is sorted as generated (random playouts pick
  // actions[uniform(n)] from it; the C++ test driver checks the order).
  if (ap >= 1) {
    const uint8_t open = steps(s, c);
    for (int d = 0; d < 4; ++d)
      if ((open >> d) & 1) out.push_back_if(act::kMove + d, ap >= 2 || !occ.test(board_.neighbor(c, d)));
    if (me.has(Ability::kAgility))
      for (int d = kNE; d <= kNW; ++d)
        if (diagonal_ok(s, c, d)) out.push_back_if(act::kMove + d, ap >= 2 || !occ.test(diagonal_target(c, d)));
  }
  if (!s.activation.face_used)
    for (int d = 0; d < 4; ++d) out.push_back_if(act::kFace + d, d != s.facing[t]);
  if (ap >= 1 && s.strawberries.test(c)) out.push_back(act::kPluck);
  if (ap >= 1 && s.carried[t] && near_own_strawberry_camp(s, t)) out.push_back(act::kDeposit);
  if (s.carried[t]) out.push_back(act::kDiscard);
  out.push_back(act::kEnd);
  if (ap >= 1 && s.carried[t]) {
    for (int u = 0; u < num_tokens_; ++u) {
      if (u == t || s.cell[u] == kNone || !adjacent(s, c, s.cell[u])) continue;
      const int most = std::min({static_cast<int>(s.carried[t]), tokens_[u].slots - s.carried[u], kMaxPass});
      for (int n = 1; n <= most; ++n) out.push_back(act::kPass + 4 * u + n - 1);
    }
  }
  gen_abilities(s, out);
}

void Game::apply_act(State& s, const Decoded& d) const {
  const int t = s.active, c = s.cell[t], team = tokens_[t].team;
  switch (d.kind) {
    case Kind::kMove:
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
      ++s.plucked[team];
      if (s.carried[t] < tokens_[t].slots) gain_strawberry(s, t);  // full slots: discarded
      break;
    case Kind::kDeposit:
      pay(s, 1);
      s.deposited[team] = static_cast<uint8_t>(s.deposited[team] + s.carried[t]);
      lose_strawberries(s, t, s.carried[t]);
      break;
    case Kind::kDiscard:
      lose_strawberries(s, t, 1);
      break;
    case Kind::kEnd:
      end_activation(s);
      break;
    case Kind::kPass:
      pay(s, 1);
      s.carried[d.a] = static_cast<uint8_t>(s.carried[d.a] + d.b);
      lose_strawberries(s, t, d.b);
      break;
    // --- abilities
    case Kind::kGrapple:  // Monk: the target lands at the chosen offset from the Monk
      pay(s, cost(Ability::kGrapple));
      s.activation.used |= ability_bit(Ability::kGrapple);
      s.cell[d.a] = static_cast<uint8_t>(board_.landing(c, d.b));
      break;
    case Kind::kPounce:  // Monk: a diagonal step
      pay(s, cost(Ability::kDragonPounce));
      s.activation.used |= ability_bit(Ability::kDragonPounce);
      s.cell[t] = static_cast<uint8_t>(diagonal_target(c, d.a));
      break;
    case Kind::kPlant: {  // Monk: a hedge on an edge of its cell
      pay(s, cost(Ability::kPlant));
      const Edge e = board_.edge(c, d.a);
      (e.south ? s.hedge_south : s.hedge_east).set(e.bit);
      --s.uses_left[t];
      ++s.hedges_planted;
      break;
    }
    case Kind::kChop: {  // Barbarian: removes a hedge on an edge of its cell
      pay(s, cost(Ability::kChop));
      const Edge e = board_.edge(c, d.a);
      (e.south ? s.hedge_south : s.hedge_east).reset(e.bit);
      --s.uses_left[t];
      ++s.hedges_chopped;
      break;
    }
    case Kind::kSpear:  // Imperial Guardian
      pay(s, cost(Ability::kSpear));
      defeat(s, d.a);
      break;
    case Kind::kAxe:  // Barbarian: Battle Axe
      pay(s, cost(Ability::kBattleAxe));
      defeat(s, d.a);
      break;
    case Kind::kThrow:  // Barbarian: Throwing Axe
      pay(s, cost(Ability::kThrowingAxe));
      s.activation.used |= ability_bit(Ability::kThrowingAxe);
      defeat(s, d.a);
      break;
    case Kind::kCharm:  // Sorceress
      pay(s, cost(Ability::kCharm));
      s.activation.used |= ability_bit(Ability::kCharm);
      s.cell[d.a] = static_cast<uint8_t>(board_.neighbor(s.cell[d.a], d.b));
      break;
    case Kind::kShadow:  // Sorceress: Shadow Walk across a hedge
      pay(s, cost(Ability::kShadowWalk));
      s.cell[t] = static_cast<uint8_t>(board_.neighbor(c, d.a));
      break;
    case Kind::kCompel:  // Sorceress: Compulsion, one step per use (D6)
      pay(s, cost(Ability::kCompulsion));
      ++s.activation.compulsions;
      s.activation.compel_target = d.a;
      s.cell[d.a] = static_cast<uint8_t>(board_.neighbor(s.cell[d.a], d.b));
      break;
    default:
      break;
  }
}

// =============================================================================== Abilities
//
// Each ability with an action: `<name>_ok` is its whole legality (is_legal uses it); the generator
// below enumerates candidates through the same functions. To add a character: its abilities'
// `_ok` functions, a case in gen_abilities / legal_act_action / apply_act, and its action ids.

bool Game::once_used(const State& s, Ability a) const {
  return rules(a).per_activation == 1 && (s.activation.used & ability_bit(a)) != 0;
}

bool Game::grapple_ok(const State& s, int u, int o) const {
  const int t = s.active, c = s.cell[t];
  if (!tokens_[t].has(Ability::kGrapple) || once_used(s, Ability::kGrapple) ||
      s.activation.ap < cost(Ability::kGrapple) || u == t || !present(s, u) || !adjacent(s, c, s.cell[u]))
    return false;
  const int landing = board_.landing(c, o);
  return landing != kNone && !board_.water(landing) && landing != s.cell[u];
}

bool Game::pounce_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kDragonPounce) && !once_used(s, Ability::kDragonPounce) &&
         diagonal_ok(s, c, d) && can_enter(s, t, diagonal_target(c, d), cost(Ability::kDragonPounce));
}

bool Game::plant_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kPlant) && s.uses_left[t] != kNone && s.uses_left[t] > 0 &&
         s.hedges_planted < kMaxPlantedHedges && s.activation.ap >= cost(Ability::kPlant) &&
         board_.neighbor(c, d) != kNone && !hedge(s, c, d);
}

bool Game::chop_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kChop) && s.uses_left[t] != kNone && s.uses_left[t] > 0 &&
         s.hedges_chopped < kMaxChoppedHedges && s.activation.ap >= cost(Ability::kChop) &&
         board_.neighbor(c, d) != kNone && hedge(s, c, d);
}

bool Game::spear_ok(const State& s, int u) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kSpear) && s.activation.ap >= cost(Ability::kSpear) && present(s, u) &&
         enemy(t, u) && adjacent(s, c, s.cell[u]) && line_of_sight(s, t, 1).test(s.cell[u]) &&
         !attack_protected(s, u, c);
}

bool Game::axe_ok(const State& s, int u) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kBattleAxe) && s.activation.ap >= cost(Ability::kBattleAxe) &&
         present(s, u) && enemy(t, u) && adjacent(s, c, s.cell[u]) && !attack_protected(s, u, c);
}

bool Game::throw_ok(const State& s, int u) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kThrowingAxe) && !once_used(s, Ability::kThrowingAxe) &&
         s.activation.ap >= cost(Ability::kThrowingAxe) && present(s, u) && enemy(t, u) &&
         line_of_sight(s, t, 2).test(s.cell[u]) && !attack_protected(s, u, c);
}

bool Game::charm_ok(const State& s, int u, int d) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kCharm) && !once_used(s, Ability::kCharm) &&
         s.activation.ap >= cost(Ability::kCharm) && u != t && present(s, u) &&
         line_of_sight(s, t, kSize).test(s.cell[u]) && !shield_blocks(s, u, c) &&
         ((steps(s, s.cell[u]) >> d) & 1);
}

bool Game::shadow_ok(const State& s, int d) const {
  const int t = s.active, c = s.cell[t];
  return tokens_[t].has(Ability::kShadowWalk) && ((board_.open_steps(c) >> d) & 1) && hedge(s, c, d) &&
         can_enter(s, t, board_.neighbor(c, d), cost(Ability::kShadowWalk));
}

bool Game::compel_ok(const State& s, int u, int d) const {
  const int t = s.active, c = s.cell[t];
  const Activation& a = s.activation;
  if (!tokens_[t].has(Ability::kCompulsion) || a.compulsions >= rules(Ability::kCompulsion).per_activation ||
      a.ap < cost(Ability::kCompulsion) || !present(s, u))
    return false;
  const bool target_ok = a.compulsions == 0 ? (u != t && line_of_sight(s, t, kSize).test(s.cell[u]))
                                            : u == a.compel_target;
  return target_ok && !shield_blocks(s, u, c) && ((steps(s, s.cell[u]) >> d) & 1);
}

// Abilities are visited in enum order; a character's action ids must increase in that order too
// (true for the first-game teams) so that the generated list stays sorted.
void Game::gen_abilities(const State& s, Actions& out) const {
  const int t = s.active;
  for (uint64_t bits = tokens_[t].abilities; bits; bits &= bits - 1) {
    switch (static_cast<Ability>(std::countr_zero(bits))) {
      case Ability::kGrapple: {
        const int c = s.cell[t];
        if (once_used(s, Ability::kGrapple) || s.activation.ap < cost(Ability::kGrapple)) break;
        for (int u = 0; u < num_tokens_; ++u) {
          if (u == t || s.cell[u] == kNone || !adjacent(s, c, s.cell[u])) continue;
          for (int o = 0; o < Board::kLandingOffsets; ++o) {
            const int landing = board_.landing(c, o);
            out.push_back_if(act::kGrapple + 12 * u + o,
                             landing != kNone && !board_.water(landing) && landing != s.cell[u]);
          }
        }
        break;
      }
      case Ability::kDragonPounce:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kPounce + d, pounce_ok(s, kNE + d));
        break;
      case Ability::kPlant:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kPlant + d, plant_ok(s, d));
        break;
      case Ability::kChop:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kChop + d, chop_ok(s, d));
        break;
      case Ability::kShadowWalk:
        for (int d = 0; d < 4; ++d) out.push_back_if(act::kShadow + d, shadow_ok(s, d));
        break;
      case Ability::kSpear:
      case Ability::kBattleAxe:
      case Ability::kThrowingAxe: {
        const Ability a = static_cast<Ability>(std::countr_zero(bits));
        if (s.activation.ap < cost(a) || once_used(s, a)) break;
        const int c = s.cell[t];
        const int range = a == Ability::kSpear ? 1 : 2;
        const Bits128 sight = a == Ability::kBattleAxe ? Bits128{} : line_of_sight(s, t, range);
        const int base = a == Ability::kSpear ? act::kSpear : a == Ability::kBattleAxe ? act::kAxe : act::kThrow;
        for (int u = 0; u < num_tokens_; ++u) {
          const int cu = s.cell[u];
          if (cu == kNone || !enemy(t, u)) continue;
          const bool reach = a == Ability::kSpear       ? adjacent(s, c, cu) && sight.test(cu)
                             : a == Ability::kBattleAxe ? adjacent(s, c, cu)
                                                        : sight.test(cu);
          if (reach && !attack_protected(s, u, c)) out.push_back(base + u);
        }
        break;
      }
      case Ability::kCharm:
      case Ability::kCompulsion: {
        const Ability a = static_cast<Ability>(std::countr_zero(bits));
        const Activation& A = s.activation;
        if (A.ap < cost(a)) break;
        if (a == Ability::kCharm && once_used(s, a)) break;
        if (a == Ability::kCompulsion && A.compulsions >= rules(a).per_activation) break;
        const int c = s.cell[t];
        const int base = a == Ability::kCharm ? act::kCharm : act::kCompel;
        if (a == Ability::kCompulsion && A.compulsions > 0) {
          const int u = A.compel_target;
          if (u >= num_tokens_ || s.cell[u] == kNone || shield_blocks(s, u, c)) break;
          const uint8_t open = steps(s, s.cell[u]);
          for (int d = 0; d < 4; ++d) out.push_back_if(base + 4 * u + d, (open >> d) & 1);
          break;
        }
        const Bits128 sight = line_of_sight(s, t, kSize);
        for (int u = 0; u < num_tokens_; ++u) {
          const int cu = s.cell[u];
          if (u == t || cu == kNone || !sight.test(cu) || shield_blocks(s, u, c)) continue;
          const uint8_t open = steps(s, cu);
          for (int d = 0; d < 4; ++d) out.push_back_if(base + 4 * u + d, (open >> d) & 1);
        }
        break;
      }
      default:
        break;  // passive abilities, or abilities of part 2
    }
  }
}

}  // namespace meeple::imperial_harvest
