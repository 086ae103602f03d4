// Imperial Harvest: action names, the drawn board and the consistency check of a state.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "../common/text.h"
#include "imperial_harvest.h"

namespace meeple::imperial_harvest {

namespace {

std::string xy(int x, int y) { return std::to_string(x) + "," + std::to_string(y); }
std::string cell_name(int c) { return xy(cell_x(c), cell_y(c)); }
std::string signed_text(int v) {
  char text[16];
  std::snprintf(text, sizeof text, "%+d", v);
  return text;
}
constexpr char kArrows[4] = {'^', '>', 'v', '<'};
const char* kTeamNames[2] = {"Imperial Servants", "Northern Raiders"};

}  // namespace

std::string Game::short_name(const State& s, int t) const {
  if (t >= kCharacters) return "sentry";
  const CardInfo* k = info(s, t);
  return k ? k->short_name : "token" + std::to_string(t);
}

std::string Game::qualified_name(const State& s, int t) const {
  if (t >= kCharacters) return "sentry" + std::to_string(t - kCharacters + 1);
  const CardInfo* k = info(s, t);
  if (!k) return "token" + std::to_string(t);
  return (team_of(t) == 0 ? "imperial-" : "raider-") + k->short_name;
}

std::string Game::target_name(const State& s, int t) const {
  const int c = s.cell[t];
  if (c == kNone) return qualified_name(s, t);
  bool alone = true, short_unique = true;
  const std::string mine = short_name(s, t);
  for (int u = 0; u < kTokens; ++u) {
    if (u == t || s.cell[u] != c) continue;
    alone = false;
    if (short_name(s, u) == mine) short_unique = false;
  }
  if (alone) return cell_name(c);
  return cell_name(c) + ":" + (short_unique ? mine : qualified_name(s, t));
}

std::string Game::action_to_string(const State& s, Action a) const {
  const Decoded d = decode(a);
  const int team = s.team;
  switch (d.kind) {
    case Kind::kRest: return "rest " + short_name(s, team * kTeamSize + d.a);
    case Kind::kActivate: return "activate " + short_name(s, team * kTeamSize + d.a);
    case Kind::kForfeit: return "forfeit " + short_name(s, team * kTeamSize + d.a);
    case Kind::kHydra: return "hydra " + std::to_string(d.a + 1) + " " + kDirNames[d.b];
    case Kind::kMove: return std::string("move ") + kDirNames[d.a];
    case Kind::kFace: return std::string("face ") + kDirNames[d.a];
    case Kind::kPluck: return "pluck";
    case Kind::kDeposit: return "deposit";
    case Kind::kDiscard: return "discard";
    case Kind::kEnd: return "end";
    case Kind::kPass: return "pass " + target_name(s, d.a) + " " + std::to_string(d.b);
    case Kind::kRespawn: {
      const int owner = s.queue_count ? team_of(s.queue[0]) : team;
      if (s.camp[2 * owner] >= kCorners) return "respawn r" + std::to_string(d.a);
      return "respawn " + cell_name(board_.corner_cell_list(s.camp[2 * owner])[d.a]);
    }
    case Kind::kGrapple: {
      // Landing written as a cell relative to the grappler (the actor if it may grapple, else the
      // first character that can); as an offset if there is none on the board.
      int base = kNone;
      const int doer = s.phase == kPhaseAct || s.phase == kPhasePuppet ? actor(s) : kNone;
      if (doer != kNone && (actor_abilities(s) & ability_bit(Ability::kGrapple))) base = doer;
      if (base == kNone) base = token_with(s, Ability::kGrapple);
      const int dx = Board::kLandingDx[d.b], dy = Board::kLandingDy[d.b];
      std::string landing = base != kNone && s.cell[base] != kNone
                                ? xy(cell_x(s.cell[base]) + dx, cell_y(s.cell[base]) + dy)
                                : signed_text(dx) + "," + signed_text(dy);
      return "grapple " + target_name(s, d.a) + " " + landing;
    }
    case Kind::kPounce: return std::string("pounce ") + kDirNames[d.a];
    case Kind::kPlant: return std::string("plant ") + kDirNames[d.a];
    case Kind::kSpear: return "spear " + target_name(s, d.a);
    case Kind::kChop: return std::string("chop ") + kDirNames[d.a];
    case Kind::kAxe: return "axe " + target_name(s, d.a);
    case Kind::kThrow: return "throw " + target_name(s, d.a);
    case Kind::kCharm: return "charm " + target_name(s, d.a) + " " + kDirNames[d.b];
    case Kind::kShadow: return std::string("shadow ") + kDirNames[d.a];
    case Kind::kCompel: return "compel " + target_name(s, d.a) + " " + kDirNames[d.b];
    case Kind::kSlither: return std::string("slither ") + kDirNames[d.a];
    case Kind::kBite: return "bite " + target_name(s, d.a) + " " + kDirNames[d.b];
    case Kind::kHorns: return "horns " + target_name(s, d.a);
    case Kind::kFlip: return "flip";
    case Kind::kCharge: return "charge";
    case Kind::kLure: return "lure " + target_name(s, d.a) + " " + std::to_string(d.b);
    case Kind::kVent: return "vent " + target_name(s, d.a) + " " + kDirNames[d.b];
    case Kind::kPuppet: return "puppet " + target_name(s, d.a);
    case Kind::kArcher: return "archer " + target_name(s, d.a);
    case Kind::kCommand: return "command " + target_name(s, d.a) + " " + kDirNames[d.b];
    case Kind::kSentry: return std::string("sentry ") + kDirNames[d.a] + " " + kDirNames[d.b];
    case Kind::kWolf: return "wolf";
    case Kind::kSprint: return "sprint";
    case Kind::kDraft: return std::string("draft ") + kCardIds[d.a];
    case Kind::kBridge: return "bridge " + cell_name(board_.bridge_spot(d.a));
    case Kind::kCamp: return std::string("camp ") + kCampKindNames[d.a] + " " + kCornerNames[d.b];
    case Kind::kPlace: {
      // The camp of the team placing now (or in turn); a slot number while it has no camp.
      const int tm = s.phase == kPhasePlacement ? (s.setup_step & 1) : team;
      const std::string where = s.camp[2 * tm] < kCorners ? cell_name(board_.corner_cell_list(s.camp[2 * tm])[d.a])
                                                          : "r" + std::to_string(d.a);
      return "place " + where + " " + kDirNames[d.b];
    }
  }
  return "?";
}

// Every action id has a distinct name in a given state, so the text is compared with the names
// of all of them (case and repeated spaces ignored).
Action Game::string_to_action(const State& s, const std::string& text) const {
  std::string t;
  bool space = false;
  for (char ch : text) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      space = !t.empty();
      continue;
    }
    if (space) t += ' ';
    space = false;
    t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (t.empty() || t.size() > 64) return -1;
  for (Action a = 0; a < act::kCount; ++a)
    if (action_to_string(s, a) == t) return a;
  return -1;
}

// Letters on the drawn board: first letter of the short name not yet taken in that case (upper
// case imperial, lower case raiders); sentries '$'.
static std::array<char, kTokens> letters(const Game& g, const State& s) {
  std::array<char, kTokens> out{};
  std::string taken;
  for (int t = 0; t < kTokens; ++t) {
    out[t] = '?';
    if (t >= kCharacters) {
      out[t] = '$';
      continue;
    }
    for (char ch : g.short_name(s, t) + "abcdefghijklmnopqrstuvwxyz") {
      if (!std::isalpha(static_cast<unsigned char>(ch))) continue;
      const char l = static_cast<char>(Game::team_of(t) == 0 ? std::toupper(ch) : std::tolower(ch));
      if (taken.find(l) == std::string::npos) {
        out[t] = l;
        break;
      }
    }
    taken += out[t];
  }
  return out;
}

// The board as drawn by to_string: 3 characters per cell, hedges as | and ---.
//   ~~~ water, H1~ / H2~ hydras, === / ::: bridges (east–west / north–south),
//   a token as its letter and facing arrow (two tokens: both letters), then a marker:
//   * strawberry, I / R character camp, i / r strawberry camp (imperial / raiders).
std::string Game::to_string(const State& s) const {
  const std::array<char, kTokens> letter = letters(*this, s);
  std::ostringstream out;
  // board="random": each game draws its own board from its seed (the template is not its name).
  out << "Imperial Harvest (board " << (random_boards_ ? std::string("random") : board_.name()) << "), round "
      << int(s.round) << " of " << kRounds;
  if (!is_terminal(s)) out << ", " << kTeamNames[s.team & 1] << "' turn";  // none once it is over
  out << "\n";
  std::string status;
  if (is_terminal(s)) {
    const int a = vp(s, 0), b = vp(s, 1);
    status = std::string("Game over: ") + (a == b ? "draw" : a > b ? "Imperial Servants win" : "Northern Raiders win");
  } else {
    status = std::string("Phase ") + kPhaseNames[std::min<int>(s.phase, kPhaseCount - 1)];
    if (s.phase >= kPhaseDraft) status += " (step " + std::to_string(s.setup_step) + ")";
    if (s.phase == kPhasePlacement) status += ", " + qualified_name(s, token_to_place(s)) + " to place";
    if (s.active != kNone)
      status += " (" + qualified_name(s, s.active) + " acting, " + std::to_string(s.activation.ap) + " AP left)";
    if (s.activation.puppet != kNone) status += ", puppet " + qualified_name(s, s.activation.puppet);
    if (s.queue_count) status += ", " + qualified_name(s, s.queue[0]) + " to respawn";
  }
  out << wrapped(status, "  ");
  for (int team = 0; team < 2; ++team) {  // every term of the VP (point 33), so that the line adds up
    int carried = 0;
    for (int t = team * kTeamSize; t < (team + 1) * kTeamSize; ++t) carried += s.carried[t];
    out << (team ? "    raiders " : "VP: imperial ") << vp(s, team) << " = plucked " << int(s.plucked[team])
        << " + carried " << carried << " + 2 x deposited " << int(s.deposited[team]) << " + regent "
        << int(s.regent_vp[team]) << "\n";
  }
  out << "Strawberries on the board: " << s.strawberries.count() << "\n";
  out << "    ";
  for (int x = 0; x < kSize; ++x) out << "  " << x << " ";
  out << "\n";
  auto horizontal = [&](int y) {  // the edge line under row y (y = -1: top border)
    out << "    +";
    for (int x = 0; x < kSize; ++x) {
      const bool wall = y < 0 || y == kSize - 1 || s.hedge_south.test(cell_at(x, y));
      out << (wall ? "---" : "   ") << "+";
    }
    out << "\n";
  };
  horizontal(-1);
  for (int y = 0; y < kSize; ++y) {
    out << " " << y << "  |";
    for (int x = 0; x < kSize; ++x) {
      const int c = cell_at(x, y);
      std::string text = "   ";
      if (water(s, c)) {
        text = s.hydra[0] == c ? "H1~" : s.hydra[1] == c ? "H2~" : "~~~";
      } else {
        if (s.bridges.test(c)) text = (cell_x(c) == 2 || cell_x(c) == 7) ? "===" : ":::";
        char marker = text[2];
        if (s.strawberries.test(c))
          marker = '*';
        else if (character_camp(s, 0).test(c))
          marker = 'I';
        else if (character_camp(s, 1).test(c))
          marker = 'R';
        else if (strawberry_camp(s, 0).test(c))
          marker = 'i';
        else if (strawberry_camp(s, 1).test(c))
          marker = 'r';
        text[2] = marker;
        int here[kTokens], n = 0;
        for (int t = 0; t < kTokens; ++t)
          if (s.cell[t] == c) here[n++] = t;
        if (n == 1) {
          text[0] = letter[here[0]];
          text[1] = kArrows[s.facing[here[0]] & 3];
        } else if (n >= 2) {
          text[0] = letter[here[0]];
          text[1] = n == 2 ? letter[here[1]] : '+';
        }
      }
      out << text << (x == kSize - 1 || s.hedge_east.test(c) ? "|" : " ");
    }
    out << "\n";
    horizontal(y);
  }
  for (int t = 0; t < kTokens; ++t) {
    if (t >= kCharacters && s.cell[t] == kNone) continue;
    if (t < kCharacters && !info(s, t)) {  // a draft slot still empty: nothing to show but its letter
      out << "  " << letter[t] << " " << (team_of(t) == 0 ? "imperial" : "raider") << " character "
          << t % kTeamSize + 1 << ": not drafted yet\n";
      continue;
    }
    out << "  " << letter[t] << " " << qualified_name(s, t) << ": ";
    if (s.cell[t] == kNone)
      out << "off the board";
    else
      out << cell_name(s.cell[t]) << " facing " << kDirNames[s.facing[t] & 3];
    if (t < kCharacters) out << ", carries " << int(s.carried[t]);
    if (s.uses_left[t] != kNone) out << ", uses left " << int(s.uses_left[t]);
    if ((s.wolf >> t) & 1) out << " [wolf form]";
    if (s.resting == t) out << " [resting]";
    if (s.active == t) out << " [active]";
    if (is_done(s, t)) out << " [done]";
    out << "\n";
  }
  out << wrapped("  (Mv: a token's letter, as listed above, and its facing ^ > v <; two tokens on a cell: "
                 "both letters; ~ water, H1/H2 hydras, === / ::: bridges, * strawberry, I/R character camps, "
                 "i/r strawberry camps, $ sentries, | and --- hedges)", "   ");
  return out.str();
}

std::string Game::check_consistency(const State& s) const {
  std::string problem = check_fields(s);
  if (problem.empty() && !is_terminal(s)) {
    // Every state play reaches has one; a document must not start where the game is stuck
    // (search and random play would have nothing to choose from).
    Actions legal;
    legal_actions(s, legal);
    if (legal.empty()) problem = "the player to move has no legal action";
  }
  return problem;
}

std::string Game::check_fields(const State& s) const {
  const bool setup = s.phase >= kPhaseDraft && s.phase < kPhaseCount;
  if (s.phase >= kPhaseCount) return "unknown phase";
  // Cards: drafted in slot order, distinct, archetypes distinct within a team.
  int drafted = 0;
  for (int t = 0; t < kCharacters; ++t) {
    if (s.card[t] == kNone) continue;
    if (s.card[t] >= kCards) return "unknown card";
    ++drafted;
    for (int u = 0; u < t; ++u) {
      if (s.card[u] == s.card[t]) return std::string("character '") + kCardIds[s.card[t]] + "' plays twice";
      if (team_of(u) == team_of(t) && s.card[u] < kCards &&
          cards_[0][s.card[u]].archetype == cards_[0][s.card[t]].archetype)
        return "two characters of one team share an archetype";
    }
  }
  if (team_mode_ != Teams::kDraft)
    for (int t = 0; t < kCharacters; ++t)
      if (s.card[t] != fixed_teams_[team_of(t)][t % kTeamSize]) return "the teams are not this game's teams";
  if (s.phase == kPhaseDraft) {
    if (s.setup_step > 5 || drafted != s.setup_step) return "draft: setup_step must count the drafted characters";
    for (int i = 0; i < s.setup_step; ++i)
      if (s.card[(i & 1) * kTeamSize + i / 2] == kNone) return "draft: characters are drafted in slot order";
  } else if (drafted != kCharacters) {
    return "every slot holds a character outside the draft";
  }
  int regent = kNone;
  for (int t = 0; t < kCharacters; ++t)
    if (s.card[t] == kCardRegent) regent = team_of(t);
  if (s.regent_team != regent) return "regent_team does not match the Regent's team";
  for (int tm = 0; tm < 2; ++tm) {
    const int most = tm == regent ? rules_for_team(tm, Ability::kPointOfOrder).param : 0;
    if (s.regent_vp[tm] > most) return "regent_vp out of range";
  }
  // Geometry.
  for (int c = 0; c < 128; ++c) {
    if (s.hedge_east.test(c) && (c >= kCells || cell_x(c) == kSize - 1)) return "a hedge lies off the board";
    if (s.hedge_south.test(c) && c >= kCells - kSize) return "a hedge lies off the board";
    if (s.strawberries.test(c) && (c >= kCells || water(s, c))) return "a strawberry lies off the board or on water";
    if (s.bridges.test(c) && (c >= kCells || board_.spot_index(c) == kNone)) return "a bridge is not on a non-elbow moat cell";
  }
  // D54 (token edges are board edges: the state dict reads them as adjacent cells): hedge tokens
  // lie on hedges; a chopped-hedge token's edge has no hedge but a token's;
  // no more tokens on the board than were used.
  Bits128 planted_east, planted_south, chopped_east, chopped_south;
  s.planted.to_bits(planted_east, planted_south);
  s.chopped.to_bits(chopped_east, chopped_south);
  if ((planted_east & ~s.hedge_east).any() || (planted_south & ~s.hedge_south).any())
    return "a planted hedge (planted_hedges) is not a hedge";
  if ((chopped_east & s.hedge_east & ~planted_east).any() || (chopped_south & s.hedge_south & ~planted_south).any())
    return "a chopped hedge (chopped_hedges) is a hedge, and no planted one";
  if (s.planted.size() > s.hedges_planted) return "more planted_hedges than hedges_planted";
  if (s.chopped.size() > s.hedges_chopped) return "more chopped_hedges than hedges_chopped";
  int per_tile[4] = {0, 0, 0, 0};
  s.bridges.for_each([&](int c) {
    if (c < kCells && board_.moat_tile(c) < 4) ++per_tile[board_.moat_tile(c)];
  });
  for (int k = 0; k < 4; ++k)
    if (per_tile[k] > 1) return "two bridges on one moat tile";
  for (int k = 0; k < kCampKinds; ++k) {
    if (s.camp[k] != kNone && s.camp[k] >= kCorners) return "a camp is not in a corner";
    for (int j = 0; j < k; ++j)
      if (s.camp[k] != kNone && s.camp[j] == s.camp[k]) return "two camps share a corner";
  }
  for (int i = 0; i < kMaxSlots; ++i) {
    if (i >= board_.slot_count()) {
      if (s.tile_face[i] || s.tile_transform[i]) return "tile of a slot the board does not have";
      continue;
    }
    Bits128 e, so;
    if (!board_.tile_hedges(i, s.tile_face[i], s.tile_transform[i], e, so)) return "a tile does not fit its slot";
  }
  const int berries = s.strawberries.count();
  for (int h = 0; h < 2; ++h)
    if (s.hydra[h] != kNone && (s.hydra[h] >= kCells || !water(s, s.hydra[h]))) return "a hydra is not on a water cell";
  if (s.hydra[0] != kNone && s.hydra[0] == s.hydra[1]) return "the two hydras share a cell";
  const bool before_board = setup && s.phase != kPhasePlacement && setup_ == Setup::kInteractive;
  if (setup_ == Setup::kInteractive && (s.phase == kPhaseDraft || s.phase == kPhaseBridges || s.phase == kPhaseCamps)) {
    if (berries || s.hydra[0] != kNone || s.hydra[1] != kNone) return "hydras and strawberries come after the camps";
    if (s.phase != kPhaseCamps) {
      for (int k = 0; k < kCampKinds; ++k)
        if (s.camp[k] != kNone) return "camps come after the bridges";
    }
    if (s.phase == kPhaseDraft && s.bridges.any()) return "bridges come after the draft";
  } else {
    for (int k = 0; k < kCampKinds; ++k)
      if (s.camp[k] == kNone) return "a camp is missing";
  }
  if (s.phase == kPhaseBridges && (s.setup_step > 3 || s.bridges.count() != s.setup_step))
    return "bridges: setup_step must count the bridges";
  if (s.phase == kPhaseCamps) {
    int placed = 0;
    for (int k = 0; k < kCampKinds; ++k) placed += s.camp[k] != kNone;
    if (s.setup_step > 3 || placed != s.setup_step) return "camps: setup_step must count the camps";
    if (s.bridges.count() != 4) return "camps: the camps come after the 4 bridges";
    for (int tm = 0; tm < 2; ++tm) {  // each team's camps so far are its turns so far (kIRRI)
      int turns = 0;
      for (int i = 0; i < s.setup_step; ++i) turns += kIRRI[i] == tm;
      if ((s.camp[2 * tm] != kNone) + (s.camp[2 * tm + 1] != kNone) != turns)
        return "camps: a team placed more or fewer camps than its turns so far (imperials, raiders, raiders, "
               "imperials)";
    }
  }
  if (setup_ == Setup::kInteractive && (s.phase == kPhaseDraft || s.phase == kPhaseBridges)) {
    // Hedges do not change before play, so a moat tile still without a bridge needs a spot
    // whose joins are unhedged now, or the bridges phase would get stuck there.
    bool open[4] = {false, false, false, false}, bridged[4] = {false, false, false, false};
    s.bridges.for_each([&](int c) { bridged[board_.moat_tile(c)] = true; });
    for (int b = 0; b < kBridgeSpots; ++b)
      if (bridge_ok(s, b)) open[board_.moat_tile(board_.bridge_spot(b))] = true;
    for (int k = 0; k < 4; ++k)
      if (!bridged[k] && !open[k]) return "the hedges leave a moat tile without a bridge spot (both joins unhedged)";
  }
  if (!setup && s.setup_step) return "setup_step is 0 after the setup";
  (void)before_board;
  // Tokens.
  int carried = 0;
  for (int t = 0; t < kTokens; ++t) {
    const std::string name = qualified_name(s, t);
    if (t >= kCharacters) {
      if (s.carried[t] || s.uses_left[t] != kNone) return name + " carries or has uses";
      if (s.cell[t] == kNone && s.facing[t]) return name + " is off the board with a facing";
      if (s.cell[t] != kNone && s.regent_team == kNone) return "a sentry plays without a Regent";
    }
    if (s.facing[t] > 3) return name + " has no valid facing";
    if (s.cell[t] != kNone && (s.cell[t] >= kCells || water(s, s.cell[t]))) return name + " stands off the board or on water";
    if (t >= kCharacters) continue;
    const CardInfo* k = info(s, t);
    if (!k) {
      if (s.cell[t] != kNone || s.facing[t] || s.carried[t] || s.uses_left[t] != kNone || ((s.wolf >> t) & 1))
        return name + " is not drafted yet but has a position or items";
      continue;
    }
    if (s.carried[t] > k->slots) return name + " carries more than its slots";
    if (s.cell[t] == kNone && s.carried[t]) return name + " is off the board but carries strawberries";
    if ((s.uses_left[t] == kNone) != (k->uses_per_game < 0))
      return name + ": uses_left must be null exactly for characters without per-game uses";
    if (s.uses_left[t] != kNone && s.uses_left[t] > k->uses_per_game) return name + " has more uses left than per game";
    carried += s.carried[t];
  }
  if (s.wolf & ~0x3f) return "a sentry has Wolf Form";
  // Also during the setup (as the reference checks): a state play reaches from there must pass.
  const int plucked = s.plucked[0] + s.plucked[1], deposited = s.deposited[0] + s.deposited[1];
  if (berries + carried + deposited > strawberry_total_)
    return "more strawberries on the board, carried and deposited than the game has";
  if (setup) {
    for (int t = 0; t < kTokens; ++t) {
      const bool placed = s.phase == kPhasePlacement && t < kCharacters &&
                          (t % kTeamSize) * 2 + team_of(t) < s.setup_step;
      if ((s.cell[t] != kNone) != placed) return qualified_name(s, t) + " is placed out of order";
      if (s.cell[t] == kNone && s.facing[t]) return qualified_name(s, t) + " is off the board with a facing";
      if (placed && (s.cell[t] == board_.insignia(s.camp[2 * team_of(t)]) ||
                     !character_camp(s, team_of(t)).test(s.cell[t])))
        return qualified_name(s, t) + " is not on a start cell of its camp";
    }
    if (s.plucked[0] || s.plucked[1] || s.deposited[0] || s.deposited[1] || carried || s.wolf || s.hedges_planted ||
        s.hedges_chopped || s.round != 1 || s.resting != kNone || s.active != kNone || s.done_count ||
        s.queue_count || s.resume_phase != kNone || s.last_rested[0] != kNone || s.last_rested[1] != kNone ||
        !(s.activation == Activation{}))
      return "nothing happens before the setup ends";
    for (int tm = 0; tm < 2; ++tm)
      if (tm == regent && s.regent_vp[tm] != rules_for_team(tm, Ability::kPointOfOrder).param)
        return "regent_vp is full before play";
    if (s.player != setup_team(s) || s.team != s.player) return "current_player and team must be the team in turn";
    if (s.phase == kPhasePlacement) {
      int a = board_.elbow(s.camp[1]), b = board_.elbow(s.camp[3]);
      if (setup_ == Setup::kInteractive && (s.hydra[0] != std::min(a, b) || s.hydra[1] != std::max(a, b)))
        return "the hydras are not on the elbows nearest the strawberry camps";
    }
    return "";
  }
  // Passive attacks are resolved after every action: nobody stands where one would strike. Not
  // once the game is over: the action that ends it runs no passes (D49), so a Wolf Form that its
  // `end` cleared can leave the character next to a hydra.
  for (int t = 0; t < kTokens && s.player != kTerminalPlayer; ++t) {
    const int c = s.cell[t];
    if (c == kNone || ((s.wolf >> t) & 1) || character_camp(s, team(s, t)).test(c)) continue;
    for (int h = 0; h < 2; ++h)
      if (s.hydra[h] != kNone && board_.around(s.hydra[h]).test(c)) return qualified_name(s, t) + " stands next to a hydra";
  }
  if (carried + deposited > plucked) return "more strawberries carried and deposited than plucked";
  if (plucked > strawberry_total_) return "more strawberries plucked than the game has";
  if (s.hedges_planted > kMaxPlantedHedges) return "more hedges planted than the box holds";
  if (s.hedges_chopped > kMaxChoppedHedges) return "more hedges chopped than the box holds";
  // Turn.
  if (s.round < 1 || s.round > kRounds) return "round must be in 1..7";
  if (s.team > 1) return "team must be 0 or 1";
  const bool respawning = s.phase == kPhaseRespawn;
  if (respawning != (s.resume_phase != kNone)) return "resume_phase is set exactly in the respawn phase";
  if (respawning && s.resume_phase >= kPhaseRespawn) return "resume_phase must be rest, pick, act or hydra";
  const int flow = respawning ? s.resume_phase : s.phase;
  auto own = [&](int t) { return t < kCharacters && team_of(t) == s.team; };
  for (int tm = 0; tm < 2; ++tm)
    if (s.last_rested[tm] != kNone && (s.last_rested[tm] >= kCharacters || team_of(s.last_rested[tm]) != tm))
      return "last_rested of a team must be one of its characters";
  if (s.done_count > 2) return "at most two characters finish a turn";
  for (int i = 0; i < 2; ++i) {
    if (i >= s.done_count) {
      if (s.done[i] != kNone) return "done holds unused entries";
      continue;
    }
    if (!own(s.done[i]) || s.done[i] == s.resting) return "done must list active characters of the team in turn";
    if (i == 1 && s.done[0] == s.done[1]) return "done lists a character twice";
  }
  if (s.resting != kNone && !own(s.resting)) return "resting must be a character of the team in turn";
  if (s.active != kNone && !own(s.active)) return "active must be a character of the team in turn";
  switch (flow) {
    case kPhaseRest:
      if (s.resting != kNone || s.done_count || s.active != kNone) return "phase rest: nobody rests, acts or is done yet";
      break;
    case kPhasePick:
      if (s.resting == kNone || s.active != kNone || s.done_count > 1) return "phase pick: one resting, nobody acting, at most one done";
      break;
    case kPhaseAct:
    case kPhasePuppet:
      if (s.resting == kNone || s.active == kNone || s.done_count > 1 || s.active == s.resting || is_done(s, s.active))
        return "phase act: one resting, one acting, at most one other done";
      if (s.cell[s.active] == kNone) return "the active character is off the board";
      break;
    case kPhaseHydra:
      if (s.resting == kNone || s.active != kNone || s.done_count < 1) return "phase hydra: one resting, nobody acting, the forfeiting character done";
      if (!any_hydra_step(s)) return "phase hydra: no hydra can step";
      break;
  }
  if (flow != kPhaseRest && s.resting == s.last_rested[s.team]) return "the character that rested last turn rests again";
  // Activation.
  const Activation& a = s.activation;
  if (s.active == kNone) {
    if (!(a == Activation{})) return "activation fields must be defaults when nobody acts";
  } else {
    const int t = s.active;
    if (a.ap > 60) return "activation ap out of range";
    if (a.face_used > 1 || a.bonus > 1 || a.charged > 1) return "activation flags must be true/false";
    if (a.free_moves > 60) return "free_moves out of range";
    if (a.bonus != (s.carried[t] > 0 ? 1 : 0)) return "activation bonus must be true exactly while the active character carries";
    uint64_t known = ability_bit(Ability::kRetriever);
    for (int u = 0; u < kCharacters; ++u) known |= abilities_of(s, u) & kActiveAbilities;
    if (a.used & ~known) return "activation uses an ability no character of this game has";
    if ((a.used & ability_bit(Ability::kRetriever)) && !has(s, t, Ability::kRetriever))
      return "retriever_used only for an active Hound";
    if (a.compulsions > rules(s, Ability::kCompulsion).per_activation) return "too many compulsions";
    if (a.compulsions && !(known & ability_bit(Ability::kCompulsion)))
      return "compulsions are counted but no character of this game has Compulsion";
    if ((a.compulsions == 0) != (a.compel_target == kNone)) return "compel_target is set exactly after a compulsion";
    if (a.compel_target != kNone && a.compel_target >= kTokens) return "compel_target must be a token";
    // Only a Puppeteer's puppet (a Sorceress forced to compel) can be her own compel target.
    if (a.compel_target == t && !(known & ability_bit(Ability::kArcanePuppetry)))
      return "compel_target must be another character than the active one";
    if (a.charged && !(a.used & ability_bit(Ability::kCharge))) return "charged only after a charge";
    for (int b = 0; b < kTokens; ++b) {
      const bool ballad = (a.ballad >> b) & 1, war_cry = (a.war_cry >> b) & 1;
      if (ballad && (b >= kCharacters || b == t || team_of(b) != team_of(t) || !has(s, b, Ability::kInspirationalBallad)))
        return "ballad lists a token that is not an allied Bard";
      if (war_cry && (b >= kCharacters || team_of(b) == team_of(t) || !has(s, b, Ability::kWarCry)))
        return "war_cry lists a token that is not an enemy Bard";
      if (((a.gaze >> b) & 1) && (b >= kCharacters || b == t || !has(s, b, Ability::kPetrifyingGaze)))
        return "gaze lists a token that is not a Basilisk";
    }
  }
  if ((s.phase == kPhasePuppet) != (a.puppet != kNone)) return "activation.puppet is set exactly in phase puppet";
  if (a.puppet != kNone && (a.puppet >= kCharacters || a.puppet == s.active || s.cell[a.puppet] == kNone))
    return "the puppet must be another character on the board";
  // Respawn queue and who moves.
  if (s.queue_count > kCharacters) return "respawn queue too long";
  for (int i = 0; i < kTokens; ++i) {
    if (i >= s.queue_count) {
      if (s.queue[i] != kNone) return "respawn queue holds unused entries";
      continue;
    }
    if (s.queue[i] >= kCharacters || s.cell[s.queue[i]] != kNone) return "respawn queue lists a character on the board";
    for (int j = 0; j < i; ++j)
      if (s.queue[j] == s.queue[i]) return "respawn queue lists a character twice";
  }
  if (s.wolf && s.active == kNone) return "Wolf Form lasts one activation: wolf_form is true only while a character acts";
  if (s.player == kTerminalPlayer) {
    if (s.phase != kPhaseRest || s.team != 1 || (s.round < kRounds && berries > 0))
      return "the game is over only after the Raiders' turn of round 7 or with no strawberry on the board";
    if (s.queue_count) return "a finished game has no respawn queue";
    return "";
  }
  for (int t = 0; t < kCharacters; ++t) {
    bool queued = false;
    for (int i = 0; i < s.queue_count; ++i) queued = queued || s.queue[i] == t;
    if (s.cell[t] == kNone && !queued) return qualified_name(s, t) + " is off the board but not awaiting respawn";
  }
  if (respawning != (s.queue_count > 0)) return "the respawn phase lasts exactly while the queue is not empty";
  const int expected = s.queue_count ? team_of(s.queue[0]) : s.team;
  if (s.player != expected) return "current_player must be " + std::to_string(expected);
  return "";
}

}  // namespace meeple::imperial_harvest
