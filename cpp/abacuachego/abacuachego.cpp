#include "abacuachego.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace meeple::abacuachego {

void validate(const Params& p) {
  auto fail = [](const std::string& message) { throw std::invalid_argument(message); };
  if (p.pits_per_row < 2 || p.pits_per_row > kMaxPitsPerRow)
    fail("pits_per_row must be in 2.." + std::to_string(kMaxPitsPerRow) + ", got " +
         std::to_string(p.pits_per_row));
  if (p.seeds_per_pit < 1 || 2L * p.pits_per_row * p.seeds_per_pit > kMaxGrains)
    fail("seeds_per_pit must be >= 1 with 2*pits_per_row*seeds_per_pit <= " +
         std::to_string(kMaxGrains) + ", got " + std::to_string(p.seeds_per_pit));
  if (p.win_threshold < 1 || p.win_threshold > kMaxGrains)
    fail("win_threshold must be in 1.." + std::to_string(kMaxGrains) + ", got " +
         std::to_string(p.win_threshold));
  if (p.max_plies < 1 || p.max_plies > 65535)
    fail("max_plies must be in 1..65535, got " + std::to_string(p.max_plies));
}

namespace {
int cell_of(int player, int k) { return player * kRowStride + k - 1; }  // k = 1..n
}  // namespace

Game::Game(const Params& params) : params_(params), n_(params.pits_per_row) {
  validate(params_);
  // Counter-clockwise ring: Zipa 1..n, Zaque 1..n (stores are not cells; see apply_action).
  std::array<int, kCells> ring{};
  for (int i = 0; i < 2 * n_; ++i) ring[i] = cell_of(i / n_, i % n_ + 1);
  for (int i = 0; i < 2 * n_; ++i) {
    next_[1][ring[i]] = static_cast<uint8_t>(ring[(i + 1) % (2 * n_)]);
    next_[0][ring[i]] = static_cast<uint8_t>(ring[(i + 2 * n_ - 1) % (2 * n_)]);
    board_number_[ring[i]] = static_cast<uint8_t>(i + 1);
  }
  // Walking distances: distance_[d][from][to] in 1..2n-1, 0 for `from` itself and for cells
  // past n (so the no-lap sowing never touches them).
  for (int d = 0; d < 2; ++d) {
    for (int i = 0; i < 2 * n_; ++i) {
      int cell = ring[i];
      for (int dist = 0; dist < 2 * n_; ++dist) {
        cell_at_[d][ring[i]][dist] = static_cast<uint8_t>(cell);
        distance_[d][ring[i]][cell] = static_cast<uint16_t>(dist);
        cell = next_[d][cell];
      }
    }
  }
  for (int k = 1; k <= n_; ++k) {
    for (unsigned h = 1; h < kLegalTableGrains; ++h) {
      const bool ccw_by_parity = ((params_.parity == Parity::kCount ? h : unsigned(k)) & 1) != 0;
      const bool cw_legal = !ccw_by_parity || h >= unsigned(k) + 1;
      const bool ccw_legal = ccw_by_parity || h >= unsigned(n_ + 1 - k);
      legal_bits_[k - 1][h] = (uint32_t(cw_legal) << (2 * (k - 1))) | (uint32_t(ccw_legal) << (2 * (k - 1) + 1));
    }
  }
  for (int p = 0; p < 2; ++p) {
    for (int k = 1; k <= n_; ++k) front_[cell_of(p, k)] = static_cast<uint8_t>(cell_of(1 - p, n_ + 1 - k));
    gate_[1][p] = static_cast<uint8_t>(cell_of(1 - p, n_));  // counter-clockwise: opponent's pit n
    gate_[0][p] = static_cast<uint8_t>(cell_of(p, 1));       // clockwise: own pit 1
  }
}

State Game::initial_state(uint64_t) const {
  State s;
  for (int p = 0; p < 2; ++p)
    for (int k = 1; k <= n_; ++k) s.pits[cell_of(p, k)] = static_cast<uint16_t>(params_.seeds_per_pit);
  return s;
}

std::string Game::action_to_string(const State&, Action a) const {
  return std::to_string(a / 2 + 1) + ((a & 1) ? "ccw" : "cw");
}

Action Game::string_to_action(const State&, const std::string& text) const {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t digits = 0;
  while (digits < t.size() && digits < 3 && std::isdigit(static_cast<unsigned char>(t[digits])))
    ++digits;
  if (digits == 0 || t[0] == '0') return -1;  // no leading zeros: one spelling per action
  const int k = std::stoi(t.substr(0, digits));
  const std::string direction = t.substr(digits);
  if (k < 1 || k > n_ || (direction != "cw" && direction != "ccw")) return -1;
  return 2 * (k - 1) + (direction == "ccw" ? 1 : 0);
}

// Drawn as seen from above with north up: Zaque's row on top (pit n at the west end), Zipa's row
// below (pit 1 at the west end); Zipa's store on the west, Zaque's on the east.
std::string Game::to_string(const State& s) const {
  auto cell = [](int v) {
    std::string t = std::to_string(v);
    return std::string(t.size() < 3 ? 3 - t.size() : 0, ' ') + t;
  };
  std::ostringstream out;
  std::string margin(9, ' ');
  out << margin << " ";
  for (int k = n_; k >= 1; --k) out << cell(k) << " ";
  out << "  Zaque's pits (north)\n";  // short: 12 pits a row still fit 80 columns
  out << margin << "+";
  for (int k = 0; k < n_; ++k) out << "----";
  out << "+\n" << margin << "|";
  for (int k = n_; k >= 1; --k) out << cell(s.pits[cell_of(1, k)]) << " ";
  out << "|\n";
  out << "Zipa " << cell(s.stores[0]) << " |";
  for (int k = 0; k < n_; ++k) out << "    ";
  out << "| " << cell(s.stores[1]) << " Zaque store\n";
  out << "store    |";
  for (int k = 1; k <= n_; ++k) out << cell(s.pits[cell_of(0, k)]) << " ";
  out << "|\n" << margin << "+";
  for (int k = 0; k < n_; ++k) out << "----";
  out << "+\n" << margin << " ";
  for (int k = 1; k <= n_; ++k) out << cell(k) << " ";
  out << "  Zipa's pits (south)\n";
  if (is_terminal(s)) {
    out << "Game over after " << s.ply << " plies: ";
    const int winner = s.stores[0] > s.stores[1] ? 0 : 1;  // its score first
    if (s.stores[0] == s.stores[1])
      out << "draw";
    else
      out << (winner == 0 ? "Zipa" : "Zaque") << " wins";
    out << " " << s.stores[winner] << "-" << s.stores[1 - winner] << "\n";
  } else {
    out << "Ply " << s.ply << ", " << (s.player == 0 ? "Zipa" : "Zaque") << " to move\n";
  }
  return out.str();
}

std::string Game::check_consistency(const State& s) const {
  long total = s.stores[0] + s.stores[1];
  for (int i = 0; i < kCells; ++i) {
    if (i % kRowStride >= n_ && s.pits[i] != 0) return "pits beyond the board must be empty";
    total += s.pits[i];
  }
  const long expected = 2L * n_ * params_.seeds_per_pit;
  if (total != expected)
    return "grains on the board and in stores total " + std::to_string(total) + ", expected " +
           std::to_string(expected);
  if (s.ply > params_.max_plies)
    return "ply " + std::to_string(s.ply) + " exceeds max_plies " +
           std::to_string(params_.max_plies);
  if (s.player != 0 && s.player != 1 && s.player != kTerminalPlayer)
    return "current_player must be 0, 1 or -4, got " + std::to_string(s.player);
  if (s.player != kTerminalPlayer) {
    if (s.stores[0] >= params_.win_threshold || s.stores[1] >= params_.win_threshold)
      return "a store has reached win_threshold but the game is not over";
    if (row_empty(s, 0) || row_empty(s, 1)) return "a row is empty but the game is not over";
    if (s.ply >= params_.max_plies) return "max_plies reached but the game is not over";
  } else {
    if ((!row_empty(s, 0) || !row_empty(s, 1)) && s.stores[0] < params_.win_threshold &&
        s.stores[1] < params_.win_threshold)
      return "a finished game below win_threshold leaves no grain in the pits";
  }
  return "";
}

}  // namespace meeple::abacuachego
