// Abacuachego — a 2×n mancala (default 2×10, 5 grains a pit), as docs/rules/abacuachego.md states.
//
// Rules implemented (numbers refer to docs/rules/abacuachego.md):
//  - Zipa (player 0, south) moves first; each player owns the near row and the store on their left.
//  - Harvest all h grains of an own pit k; default direction from the parity of h (or of k):
//    even = clockwise (toward your own store), odd = counter-clockwise. The other direction is legal
//    only if it drops a grain into an opponent pit (CW iff h >= k+1, CCW iff h >= n+1-k).
//  - Sow one grain per pit; the opponent's store is always skipped, the own store only takes the
//    last grain (extra turn, no capture). Laps sow into the origin pit unless skip_origin_on_lap.
//  - Capture after the last grain lands in a pit if its count matches h (or its board number matches
//    the origin's) or a neighbour's count (opponent row: left/right/front; own row: front), by last
//    digit (or exactly): an opponent destination is emptied into your store, an own destination has
//    its front pit emptied into your store.
//  - After each move: own store >= win_threshold ends the game; an empty row makes the mover sweep
//    the board; max_plies makes each player take their own row. Most grains wins.
//
// Layout: cell p*kRowStride + (k-1) holds pit k of player p (Zipa = 0, Zaque = 1); cells past a
// row's n pits stay 0, so "is a row empty" is three 64-bit loads. Counter-clockwise runs Zipa's
// pits 1..n, Zaque's pits 1..n, and round again; per-game tables give each cell's next cell in
// both directions, its front cell and its board number, so the sowing loop has no arithmetic on
// the ring. A player's own store sits just before their pit 1 in counter-clockwise order.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "../common/bitboard.h"
#include "../common/core.h"

namespace meeple::abacuachego {

inline constexpr int kMaxPitsPerRow = 12;
inline constexpr int kRowStride = kMaxPitsPerRow;
inline constexpr int kCells = 2 * kRowStride;
inline constexpr int kMaxGrains = 60000;  // grain counts are uint16

enum class Parity : uint8_t { kCount, kPit };
enum class OriginMatch : uint8_t { kCount, kPit };
enum class Match : uint8_t { kDigit, kExact };

struct Params {
  int pits_per_row = 10;
  int seeds_per_pit = 5;
  int win_threshold = 51;
  int max_plies = 1000;
  Parity parity = Parity::kCount;
  OriginMatch origin_match = OriginMatch::kCount;
  Match match = Match::kDigit;
  bool skip_origin_on_lap = false;
};

// Throws std::invalid_argument naming the first bad parameter.
void validate(const Params& params);

struct State {
  std::array<uint16_t, kCells> pits{};  // see Layout; cells past n stay 0
  std::array<uint16_t, 2> stores{};
  uint16_t ply = 0;
  int8_t player = 0;  // player to move, or kTerminalPlayer
  uint8_t unused = 0;  // always 0: no padding, so the bytes are the value (state_key)

  bool operator==(const State&) const = default;
};

class Game {
 public:
  static constexpr int kMaxActions = 2 * kMaxPitsPerRow;
  static constexpr int kMaxChanceOutcomes = 0;
  using State = abacuachego::State;

  explicit Game(const Params& params);

  const Params& params() const { return params_; }
  int num_players() const { return 2; }
  int num_distinct_actions() const { return 2 * n_; }
  int max_chance_outcomes() const { return 0; }
  int observation_size() const { return 2 * n_ + 2; }
  int max_game_length() const { return params_.max_plies; }
  double min_utility() const { return -1.0; }  // returns(): +1 / -1 to the larger store, else 0 / 0
  double max_utility() const { return 1.0; }
  std::optional<double> utility_sum() const { return 0.0; }

  State initial_state(uint64_t /*seed: no chance in this game*/) const;

  int current_player(const State& s) const { return s.player; }
  bool is_terminal(const State& s) const { return s.player == kTerminalPlayer; }
  bool is_chance_node(const State&) const { return false; }
  int move_number(const State& s) const { return s.ply; }

  // Bit 2(k-1)+d is set iff action 2(k-1)+d is legal (rule 7): pit k non-empty, and CW legal iff
  // CW by parity or h >= k+1, CCW legal iff CCW by parity or h >= n+1-k.
  uint32_t legal_mask(const State& s) const {
    const uint16_t* own = &s.pits[s.player * kRowStride];
    uint32_t mask = 0;
    for (int k = 0; k < kRowStride; ++k) {  // cells past n hold 0 grains: no bits
      const unsigned h = own[k];
      mask |= legal_bits_[k][h < kLegalTableGrains ? h : kLegalTableGrains - 2 + (h & 1)];
    }
    return mask;
  }

  void legal_actions(const State& s, ActionList<kMaxActions>& out) const {
    for (uint32_t mask = legal_mask(s); mask; mask &= mask - 1) out.push_back(std::countr_zero(mask));
  }

  // The legal actions as a bitset (bit a of words[0], the one word stored), and one of them drawn
  // as sample_legal_action does (kNoAction, with no draw, if there is none).
  template <class Random>
  Action sample_and_mark_legal(const State& s, uint64_t* words, Random& rng) const {
    const uint32_t mask = legal_mask(s);
    words[0] = mask;
    return mask ? draw(mask, rng) : kNoAction;
  }

  bool is_legal(const State& s, Action a) const {
    return !is_terminal(s) && a >= 0 && a < 2 * n_ && ((legal_mask(s) >> a) & 1u);
  }

  // Uniform legal action without building the list (the random-playout hot path).
  template <class Random>
  Action sample_legal_action(const State& s, Random& rng) const {
    return draw(legal_mask(s), rng);
  }
  // One set bit of a nonzero legal mask, uniformly: the j-th in ascending order, one draw.
  template <class Random>
  static Action draw(uint32_t mask, Random& rng) {
    return bits::select_set_bit(mask, rng.uniform(static_cast<uint32_t>(bits::count24(mask))));
  }

  void apply_action(State& s, Action a) const {
    const int p = s.player;
    const int ccw = a & 1;
    const int origin = p * kRowStride + a / 2;
    const int harvested = s.pits[origin];

    // Sow all but the last grain; `pos` ends on the cell that took the last of them.
    int pos = origin;
    if (harvested < 2 * n_) {
      // No lap: exactly the cells at walking distance 1..h-1 get one grain each (vectorised;
      // the origin is at distance 0 and is emptied after, so no scalar store precedes the
      // vector loads).
      const uint16_t* distance = distance_[ccw][origin].data();
      const uint16_t below = static_cast<uint16_t>(harvested - 1);
      for (int c = 0; c < kCells; ++c)
        s.pits[c] += static_cast<uint16_t>(static_cast<uint16_t>(distance[c] - 1) < below);
      s.pits[origin] = 0;
      pos = cell_at_[ccw][origin][harvested - 1];
    } else {
      s.pits[origin] = 0;
      pos = sow_laps(s, ccw, origin, harvested);
    }
    // The own store lies just after `gate` in the walking direction; it takes the last grain.
    const int gate = gate_[ccw][p];
    const uint8_t* next = next_[ccw].data();
    const bool skip_origin = params_.skip_origin_on_lap;
    const bool extra_turn = pos == gate || (skip_origin && gate == origin && next[pos] == origin);
    if (extra_turn) {
      ++s.stores[p];
    } else {
      pos = next[pos];
      if (skip_origin && pos == origin) pos = next[pos];
      ++s.pits[pos];
      capture_after_sowing(s, p, origin, pos, harvested);
    }
    ++s.ply;
    finish_move(s, p, extra_turn);
  }

  void returns(const State& s, double* out) const {
    out[0] = out[1] = 0.0;
    if (!is_terminal(s) || s.stores[0] == s.stores[1]) return;
    const int winner = s.stores[0] > s.stores[1] ? 0 : 1;
    out[winner] = 1.0;
    out[1 - winner] = -1.0;
  }

  void observation(const State& s, int player, float* out) const {
    const int opponent = 1 - player;
    for (int k = 0; k < n_; ++k) {
      out[k] = s.pits[player * kRowStride + k];
      out[n_ + k] = s.pits[opponent * kRowStride + k];
    }
    out[2 * n_] = s.stores[player];
    out[2 * n_ + 1] = s.stores[opponent];
  }

  template <class List>
  void chance_outcomes(const State&, List&) const {}

  std::string action_to_string(const State&, Action a) const;
  // -1 if `text` names no action.
  Action string_to_action(const State&, const std::string& text) const;
  std::string to_string(const State& s) const;
  // Empty if `s` is a position this game can reach the middle or end of; else what is wrong.
  std::string check_consistency(const State& s) const;

  int pits_per_row() const { return n_; }

 private:
  static constexpr unsigned kLegalTableGrains = 32;  // >= 2 * kMaxPitsPerRow, even

  // Sowing of h >= 2n grains (laps), one grain at a time; returns the cell of grain h-1.
  int sow_laps(State& s, int ccw, int origin, int harvested) const {
    const uint8_t* next = next_[ccw].data();
    const bool skip_origin = params_.skip_origin_on_lap;
    int pos = origin;
    for (int grains = harvested; grains > 1; --grains) {
      pos = next[pos];
      if (skip_origin && pos == origin) pos = next[pos];
      ++s.pits[pos];
    }
    return pos;
  }

  bool same(unsigned a, unsigned b) const {
    return params_.match == Match::kDigit ? bits::kLastDigit.of[a] == bits::kLastDigit.of[b] : a == b;
  }

  // The capture rule (spec step 5): one function, separate from sowing, so a third capture type
  // can be added here alone.
  void capture_after_sowing(State& s, int mover, int origin, int dest, int h) const {
    const int count = s.pits[dest];
    const int dest_row = dest >= kRowStride ? 1 : 0;
    const bool on_opponent_row = dest_row != mover;
    const int k = dest - dest_row * kRowStride;  // 0-based pit in its row
    const int front = front_[dest];
    // Pit numbers always compare by last digit: match="exact" is about grain counts (D5).
    const bool origin_matched =
        params_.origin_match == OriginMatch::kCount
            ? same(count, h)
            : bits::kLastDigit.of[board_number_[dest]] == bits::kLastDigit.of[board_number_[origin]];
    // Left/right neighbours count only on the opponent's row and inside it (no wrap). Evaluated
    // without branches; the clamped index keeps the read inside the row.
    const bool has_left = on_opponent_row && k > 0;
    const bool has_right = on_opponent_row && k < n_ - 1;
    const bool front_matched = same(count, s.pits[front]);
    const bool left_matched = same(count, s.pits[dest - has_left]);
    const bool right_matched = same(count, s.pits[dest + has_right]);
    const bool matched = origin_matched | front_matched | (has_left & left_matched) | (has_right & right_matched);
    const int source = on_opponent_row ? dest : front;
    const uint16_t captured = matched ? s.pits[source] : 0;
    s.stores[mover] += captured;
    s.pits[source] -= captured;
  }

  static bool row_empty(const State& s, int player) {  // cells past n are always 0
    uint64_t words[3];
    std::memcpy(words, &s.pits[player * kRowStride], sizeof words);
    return (words[0] | words[1] | words[2]) == 0;
  }

  int row_total(const State& s, int player) const {
    int total = 0;
    for (int k = 0; k < n_; ++k) total += s.pits[player * kRowStride + k];
    return total;
  }

  void finish_move(State& s, int mover, bool extra_turn) const {
    if (s.stores[mover] >= params_.win_threshold) {
      s.player = kTerminalPlayer;
      return;
    }
    if (row_empty(s, 0) || row_empty(s, 1)) {
      s.stores[mover] += row_total(s, 0) + row_total(s, 1);
      s.pits = {};
      s.player = kTerminalPlayer;
    } else if (s.ply >= params_.max_plies) {
      s.stores[0] += row_total(s, 0);
      s.stores[1] += row_total(s, 1);
      s.pits = {};
      s.player = kTerminalPlayer;
    } else {
      s.player = static_cast<int8_t>(extra_turn ? mover : 1 - mover);
    }
  }

  Params params_;
  int n_;
  std::array<std::array<uint32_t, kLegalTableGrains>, kRowStride> legal_bits_{};  // [k-1][h]
  std::array<std::array<std::array<uint16_t, kCells>, kCells>, 2> distance_{};  // [ccw][from][to]
  std::array<std::array<std::array<uint8_t, kCells>, kCells>, 2> cell_at_{};  // [ccw][from][dist]
  std::array<std::array<uint8_t, kCells>, 2> next_{};  // [ccw][cell] -> next cell that way
  std::array<std::array<uint8_t, 2>, 2> gate_{};       // [ccw][player] -> cell before own store
  std::array<uint8_t, kCells> front_{};
  std::array<uint8_t, kCells> board_number_{};         // 1..2n counter-clockwise from Zipa's pit 1
};

}  // namespace meeple::abacuachego
