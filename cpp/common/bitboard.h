// Compact constexpr bit helpers (Stockfish style) for boards of up to 64 / 128 cells.
#pragma once

#include <bit>
#include <cstdint>

namespace meeple::bits {

using Bitboard = uint64_t;

constexpr Bitboard bit(int square) { return Bitboard{1} << square; }
constexpr bool test(Bitboard b, int square) { return (b >> square) & 1u; }
constexpr int popcount(Bitboard b) { return std::popcount(b); }
constexpr int lowest(Bitboard b) { return std::countr_zero(b); }
// Removes and returns the lowest set square: `while (b) { int sq = pop_lowest(b); ... }`.
constexpr int pop_lowest(Bitboard& b) {
  const int square = std::countr_zero(b);
  b &= b - 1;
  return square;
}

}  // namespace meeple::bits
