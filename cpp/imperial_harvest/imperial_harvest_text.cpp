// Imperial Harvest: action names, the drawn board and the consistency check of a state.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

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

std::string Game::target_name(const State& s, int t) const {
  if (t >= num_tokens_) return tokens_[t].qualified;
  const int c = s.cell[t];
  if (c == kNone) return tokens_[t].qualified;
  bool alone = true, short_unique = true;
  for (int u = 0; u < num_tokens_; ++u) {
    if (u == t || s.cell[u] != c) continue;
    alone = false;
    if (tokens_[u].short_name == tokens_[t].short_name) short_unique = false;
  }
  if (alone) return cell_name(c);
  return cell_name(c) + ":" + (short_unique ? tokens_[t].short_name : tokens_[t].qualified);
}

std::string Game::action_to_string(const State& s, Action a) const {
  const Decoded d = decode(a);
  const int team = s.team;
  switch (d.kind) {
    case Kind::kRest: return "rest " + tokens_[team * kTeamSize + d.a].short_name;
    case Kind::kActivate: return "activate " + tokens_[team * kTeamSize + d.a].short_name;
    case Kind::kForfeit: return "forfeit " + tokens_[team * kTeamSize + d.a].short_name;
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
      return "respawn " + cell_name(board_.character_camp_cells(owner)[d.a]);
    }
    case Kind::kGrapple: {
      // Landing written as a cell relative to the grappler (the active character if it can
      // grapple, else the first character that can); as an offset if there is none on the board.
      int base = kNone;
      if (s.active != kNone && tokens_[s.active].has(Ability::kGrapple)) base = s.active;
      for (int t = 0; t < num_tokens_ && base == kNone; ++t)
        if (tokens_[t].has(Ability::kGrapple)) base = t;
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

// The board as drawn by to_string: 3 characters per cell, hedges as | and ---.
//   ~~~ water, H1~ / H2~ hydras, === / ::: bridges (east–west / north–south),
//   a token as its letter and facing arrow (two tokens: both letters), then a marker:
//   * strawberry, I / R character camp, i / r strawberry camp (imperial / raiders).
std::string Game::to_string(const State& s) const {
  std::ostringstream out;
  out << "Imperial Harvest (board " << board_.name() << "), round " << int(s.round) << " of " << kRounds
      << ", " << kTeamNames[s.team & 1] << "' turn";
  if (is_terminal(s)) {
    const int a = vp(s, 0), b = vp(s, 1);
    out << " — game over: " << (a == b ? "draw" : a > b ? "Imperial Servants win" : "Northern Raiders win");
  } else {
    out << ", phase " << kPhaseNames[std::min<int>(s.phase, 4)];
    if (s.active != kNone)
      out << " (" << tokens_[s.active].qualified << " acting, " << int(s.activation.ap) << " AP left)";
    if (s.queue_count) out << ", " << tokens_[s.queue[0]].qualified << " to respawn";
  }
  out << "\nVP: imperial " << vp(s, 0) << " (plucked " << int(s.plucked[0]) << ", deposited "
      << int(s.deposited[0]) << "), raiders " << vp(s, 1) << " (plucked " << int(s.plucked[1])
      << ", deposited " << int(s.deposited[1]) << "); strawberries on the board "
      << s.strawberries.count() << "\n";
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
      if (board_.water(c)) {
        text = s.hydra[0] == c ? "H1~" : s.hydra[1] == c ? "H2~" : "~~~";
      } else {
        if (board_.bridge(c)) text = board_.bridge_axis(c) == kE ? "===" : ":::";
        char marker = text[2];
        if (s.strawberries.test(c))
          marker = '*';
        else if (board_.character_camp(0).test(c))
          marker = 'I';
        else if (board_.character_camp(1).test(c))
          marker = 'R';
        else if (board_.strawberry_camp(0).test(c))
          marker = 'i';
        else if (board_.strawberry_camp(1).test(c))
          marker = 'r';
        text[2] = marker;
        int here[kTokens], n = 0;
        for (int t = 0; t < num_tokens_; ++t)
          if (s.cell[t] == c) here[n++] = t;
        if (n == 1) {
          text[0] = tokens_[here[0]].letter;
          text[1] = kArrows[s.facing[here[0]] & 3];
        } else if (n >= 2) {
          text[0] = tokens_[here[0]].letter;
          text[1] = n == 2 ? tokens_[here[1]].letter : '+';
        }
      }
      out << text << (x == kSize - 1 || s.hedge_east.test(c) ? "|" : " ");
    }
    out << "\n";
    horizontal(y);
  }
  for (int t = 0; t < num_tokens_; ++t) {
    const TokenInfo& k = tokens_[t];
    out << "  " << k.letter << " " << k.qualified << ": ";
    if (s.cell[t] == kNone)
      out << "off the board";
    else
      out << cell_name(s.cell[t]) << " facing " << kDirNames[s.facing[t] & 3];
    out << ", carries " << int(s.carried[t]);
    if (s.uses_left[t] != kNone) out << ", uses left " << int(s.uses_left[t]);
    if (s.resting == t) out << " [resting]";
    if (s.active == t) out << " [active]";
    if (is_done(s, t)) out << " [done]";
    out << "\n";
  }
  out << "  (~ water, H1/H2 hydras, === / ::: bridges, * strawberry, I/R character camps, "
         "i/r strawberry camps, | and --- hedges)\n";
  return out.str();
}

std::string Game::check_consistency(const State& s) const {
  // Geometry.
  for (int c = 0; c < 128; ++c) {
    if (s.hedge_east.test(c) && (c >= kCells || cell_x(c) == kSize - 1)) return "a hedge lies off the board";
    if (s.hedge_south.test(c) && c >= kCells - kSize) return "a hedge lies off the board";
    if (s.strawberries.test(c) && (c >= kCells || board_.water(c))) return "a strawberry lies off the board or on water";
  }
  const int berries = s.strawberries.count();
  for (int h = 0; h < 2; ++h)
    if (s.hydra[h] >= kCells || !board_.water(s.hydra[h])) return "a hydra is not on a water cell";
  if (s.hydra[0] == s.hydra[1]) return "the two hydras share a cell";
  // Tokens.
  int carried = 0;
  const Bits128 zone = board_.around(s.hydra[0]) | board_.around(s.hydra[1]);
  for (int t = 0; t < kTokens; ++t) {
    const TokenInfo& k = tokens_[t];
    if (t >= num_tokens_) {
      if (s.cell[t] != kNone || s.facing[t] || s.carried[t] || s.uses_left[t] != kNone)
        return "token " + std::to_string(t) + " is not in this game";
      continue;
    }
    if (s.cell[t] != kNone && (s.cell[t] >= kCells || board_.water(s.cell[t])))
      return k.qualified + " stands off the board or on water";
    if (s.facing[t] > 3) return k.qualified + " has no valid facing";
    if (s.carried[t] > k.slots) return k.qualified + " carries more than its slots";
    if (s.cell[t] == kNone && s.carried[t]) return k.qualified + " is off the board but carries strawberries";
    if ((s.uses_left[t] == kNone) != (k.uses_per_game < 0)) return k.qualified + ": uses_left must be null exactly for characters without per-game uses";
    if (s.uses_left[t] != kNone && s.uses_left[t] > k.uses_per_game) return k.qualified + " has more uses left than per game";
    if (s.cell[t] != kNone && zone.test(s.cell[t]) && !board_.character_camp(k.team).test(s.cell[t]))
      return k.qualified + " stands next to a hydra";
    carried += s.carried[t];
  }
  const int plucked = s.plucked[0] + s.plucked[1], deposited = s.deposited[0] + s.deposited[1];
  if (plucked + berries > board_.initial_strawberry_count())
    return "more strawberries plucked and on the board than the game has";
  if (carried + deposited > plucked) return "more strawberries carried and deposited than plucked";
  if (s.hedges_planted > kMaxPlantedHedges) return "more hedges planted than the box holds";
  if (s.hedges_chopped > kMaxChoppedHedges) return "more hedges chopped than the box holds";
  // Turn.
  if (s.round < 1 || s.round > kRounds) return "round must be in 1..7";
  if (s.team > 1) return "team must be 0 or 1";
  if (s.phase > kPhaseRespawn) return "unknown phase";
  const bool respawning = s.phase == kPhaseRespawn;
  if (respawning != (s.resume_phase != kNone)) return "resume_phase is set exactly in the respawn phase";
  if (respawning && s.resume_phase >= kPhaseRespawn) return "resume_phase must be rest, pick, act or hydra";
  const int flow = respawning ? s.resume_phase : s.phase;
  auto own = [&](int t) { return t < kCharacters && team_of(t) == s.team; };
  for (int team = 0; team < 2; ++team)
    if (s.last_rested[team] != kNone && (s.last_rested[team] >= kCharacters || team_of(s.last_rested[team]) != team))
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
    if (a.face_used > 1 || a.bonus > 1) return "activation flags must be true/false";
    if (a.bonus != (s.carried[t] > 0 ? 1 : 0)) return "activation bonus must be true exactly while the active character carries";
    if (a.used & ~tokens_[t].abilities) return "activation uses an ability the active character lacks";
    if (a.compulsions > rules(Ability::kCompulsion).per_activation || (a.compulsions && !tokens_[t].has(Ability::kCompulsion)))
      return "too many compulsions";
    if ((a.compulsions == 0) != (a.compel_target == kNone)) return "compel_target is set exactly after a compulsion";
    if (a.compel_target != kNone && (a.compel_target >= num_tokens_ || a.compel_target == t))
      return "compel_target must be another character";
    for (int b = 0; b < kTokens; ++b) {
      const bool ballad = (a.ballad >> b) & 1, war_cry = (a.war_cry >> b) & 1;
      if (ballad && (b >= num_tokens_ || b == t || enemy(t, b) || !tokens_[b].has(Ability::kInspirationalBallad)))
        return "ballad lists a token that is not an allied Bard";
      if (war_cry && (b >= num_tokens_ || !enemy(t, b) || !tokens_[b].has(Ability::kWarCry)))
        return "war_cry lists a token that is not an enemy Bard";
    }
  }
  // Respawn queue and who moves.
  if (s.queue_count > kCharacters) return "respawn queue too long";
  for (int i = 0; i < kTokens; ++i) {
    if (i >= s.queue_count) {
      if (s.queue[i] != kNone) return "respawn queue holds unused entries";
      continue;
    }
    if (s.queue[i] >= num_tokens_ || s.cell[s.queue[i]] != kNone) return "respawn queue lists a character on the board";
    for (int j = 0; j < i; ++j)
      if (s.queue[j] == s.queue[i]) return "respawn queue lists a character twice";
  }
  if (s.player == kTerminalPlayer) {
    if (s.phase != kPhaseRest || s.team != 1 || (s.round < kRounds && berries > 0))
      return "the game is over only after the Raiders' turn of round 7 or with no strawberry on the board";
    if (s.queue_count) return "a finished game has no respawn queue";
    return "";
  }
  for (int t = 0; t < num_tokens_; ++t) {
    bool queued = false;
    for (int i = 0; i < s.queue_count; ++i) queued = queued || s.queue[i] == t;
    if (s.cell[t] == kNone && !queued) return tokens_[t].qualified + " is off the board but not awaiting respawn";
  }
  if (respawning != (s.queue_count > 0)) return "the respawn phase lasts exactly while the queue is not empty";
  const int expected = s.queue_count ? team_of(s.queue[0]) : s.team;
  if (s.player != expected) return "current_player must be " + std::to_string(expected);
  return "";
}

}  // namespace meeple::imperial_harvest
