// Compact constexpr bit helpers (Stockfish style) for boards of up to 64 cells (Imperial Harvest's
// 128-bit cell sets, Bits128, are in imperial_harvest/board.h).
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace meeple::bits {

using Bitboard = uint64_t;

// Wheels target baseline x86-64, which may lack the POPCNT instruction (x86-64-v2 and every CPU
// since ~2009 has it): the compiler then counts bits with a dozen shifts and masks, or a library
// call. So the instruction is used when this CPU has it, checked once when the module loads; a
// well-predicted branch on that flag costs far less than the fallback (Harmonies' random play
// runs ~9 % faster with it).
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__POPCNT__)
#define MEEPLE_POPCNT_DISPATCH 1
inline const bool kHavePopcnt = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("popcnt") != 0;
}();
// The instruction itself, only where kHavePopcnt (inline asm: no target flag needed).
inline int popcnt_instruction(uint64_t v) {
  uint64_t n;
  asm("popcntq %1, %0" : "=r"(n) : "r"(v) : "cc");
  return static_cast<int>(n);
}
#endif

constexpr Bitboard bit(int square) { return Bitboard{1} << square; }
constexpr bool test(Bitboard b, int square) { return (b >> square) & 1u; }
constexpr int popcount(Bitboard b) {
#if MEEPLE_POPCNT_DISPATCH
  if (!std::is_constant_evaluated() && kHavePopcnt) return popcnt_instruction(b);
#endif
  return std::popcount(b);
}
constexpr int lowest(Bitboard b) { return std::countr_zero(b); }
// Removes and returns the lowest set square: `while (b) { int sq = pop_lowest(b); ... }`.
constexpr int pop_lowest(Bitboard& b) {
  const int square = std::countr_zero(b);
  b &= b - 1;
  return square;
}

// Byte tables for counting and selecting bits of small masks (cheaper than a popcount without
// the POPCNT instruction, see above).
struct ByteTables {
  uint8_t count[256];
  uint8_t select[256][8];  // select[b][j]: position of the j-th set bit of byte b
  constexpr ByteTables() : count{}, select{} {
    for (int b = 0; b < 256; ++b) {
      int n = 0;
      for (int i = 0; i < 8; ++i)
        if ((b >> i) & 1) select[b][n++] = static_cast<uint8_t>(i);
      count[b] = static_cast<uint8_t>(n);
    }
  }
};
inline constexpr ByteTables kByteTables{};

// Set bits of a mask below 2^24.
constexpr int count24(uint32_t mask) {
  return kByteTables.count[mask & 0xFF] + kByteTables.count[(mask >> 8) & 0xFF] +
         kByteTables.count[mask >> 16];
}

// Position of the j-th (from 0) set bit of a mask below 2^24; j < count24(mask).
constexpr int select_set_bit(uint32_t mask, uint32_t j) {
  const uint32_t c0 = kByteTables.count[mask & 0xFF];
  const uint32_t c1 = c0 + kByteTables.count[(mask >> 8) & 0xFF];
  const int byte = (j >= c0) + (j >= c1);
  const uint32_t before = byte == 0 ? 0 : byte == 1 ? c0 : c1;
  return 8 * byte + kByteTables.select[(mask >> (8 * byte)) & 0xFF][j - before];
}

// Set bits of a 32-bit mask by a few shifts: popcount32 without the POPCNT instruction.
constexpr int popcount32_portable(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return static_cast<int>((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

// Set bits of a 32-bit mask: the POPCNT instruction where the CPU has it (see above).
constexpr int popcount32(uint32_t v) {
#if defined(__POPCNT__)
  return std::popcount(v);
#else
#if MEEPLE_POPCNT_DISPATCH
  if (!std::is_constant_evaluated() && kHavePopcnt) return popcnt_instruction(v);
#endif
  return popcount32_portable(v);
#endif
}

// Position of the j-th (from 0) set bit of a 32-bit mask, j < popcount32(mask): byte counts,
// then the byte's table entry.
constexpr int select_bit32(uint32_t mask, uint32_t j) {
  for (int byte = 0; byte < 4; ++byte, mask >>= 8) {
    const uint32_t n = kByteTables.count[mask & 0xFF];
    if (j < n) return 8 * byte + kByteTables.select[mask & 0xFF][j];
    j -= n;
  }
  return 32;  // j out of range: a caller's bug, kept well defined
}

// Set bits of each byte of v, in that byte (SWAR).
constexpr uint64_t byte_counts64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  return (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0Full;
}

// Set bits of a 64-bit mask, without the POPCNT instruction.
constexpr int popcount64(uint64_t v) {
  return static_cast<int>((byte_counts64(v) * 0x0101010101010101ull) >> 56);
}

// Position of the j-th (from 0) set bit of a 64-bit mask, j < popcount64(mask), without a
// branch (broadword select): byte k of `below` counts the set bits of bytes 0..k; the bytes
// counting at most j bits precede the byte holding the bit, then that byte's table entry.
constexpr int select_bit64(uint64_t mask, uint32_t j) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  const uint64_t below = byte_counts64(mask) * kOnes;  // every byte <= 64: no carries
  const uint64_t at_most_j = ((j * kOnes | kHigh) - below) & kHigh;
  const int byte = static_cast<int>(((at_most_j >> 7) * kOnes) >> 56);
  const uint32_t before = static_cast<uint32_t>(((below << 8) >> (8 * byte)) & 0xFF);
  return 8 * byte + kByteTables.select[(mask >> (8 * byte)) & 0xFF][(j - before) & 7];
}

// Bits 0..11 of `even` go to bits 0,2,..,22 and those of `odd` to 1,3,..,23.
constexpr uint32_t interleave12(uint32_t even, uint32_t odd) {
  auto spread = [](uint32_t x) {
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    return (x | (x << 1)) & 0x55555555u;
  };
  return spread(even) | (spread(odd) << 1);
}

// Last decimal digit of every uint16 value (branch-free "same last digit" tests).
struct LastDigitTable {
  uint8_t of[65536];
  constexpr LastDigitTable() : of{} {
    for (unsigned v = 0; v < 65536; ++v) of[v] = static_cast<uint8_t>(v % 10);
  }
};
inline constexpr LastDigitTable kLastDigit{};

}  // namespace meeple::bits
