// Expanding a bitset into one byte (0/1) per bit: how VectorGame publishes legal-action masks
// to numpy (or, with masks="packed", copying it as packed bytes: write_packed). A mask row is written for every state at every step, so this is on VectorGame's
// hot path; it costs more than a ply of some games when done a byte or 8 bytes at a time.
//
// The engine is built for the baseline of its platform (wheels must run everywhere), so the
// wide versions are chosen at run time: AVX-512BW turns 64 bits into 64 bytes in one
// instruction, AVX2 does 32 at a time; otherwise SSE2 (every x86-64 CPU) or a table.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define MEEPLE_BYTE_MASK_DISPATCH 1
#endif

namespace meeple::byte_mask {

// Writes mask[0..n) = bits 0..n-1 of bits[] (bit a of bits[a / 64]). Nothing past mask[n - 1]
// is written, so rows of one array may be written by different threads.
using Writer = void (*)(const uint64_t* bits, uint8_t* mask, int n);

// of[b]: 8 bytes in memory order, byte k = bit k of b.
struct ByteTable {
  uint64_t of[256];
  constexpr ByteTable() : of{} {
    for (int b = 0; b < 256; ++b)
      for (int k = 0; k < 8; ++k) {
        const int shift = std::endian::native == std::endian::little ? 8 * k : 8 * (7 - k);
        if ((b >> k) & 1) of[b] |= uint64_t{1} << shift;
      }
  }
};
inline constexpr ByteTable kByteTable{};

#if defined(__SSE2__) || defined(_M_X64)
// out[0..16) = bits 0..15 of bits16.
inline void put16(uint32_t bits16, uint8_t* out) {
  __m128i v = _mm_cvtsi32_si128(static_cast<int>(bits16 & 0xFFFF));  // bytes L, H, 0, ...
  v = _mm_unpacklo_epi8(v, v);                                        // L L H H
  v = _mm_unpacklo_epi16(v, v);                                       // L x4, H x4
  v = _mm_unpacklo_epi32(v, v);                                       // L x8, H x8
  const __m128i bit = _mm_set_epi8(-128, 64, 32, 16, 8, 4, 2, 1, -128, 64, 32, 16, 8, 4, 2, 1);
  v = _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(v, bit), bit), _mm_set1_epi8(1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
}
#endif

// Up to 64 bytes from one word: 16 at a time with SSE2, else 8 at a time from the table; a row
// that is not a whole number of groups ends with a group overlapping the one before (no
// variable-length copy).
inline void expand_word(uint64_t bits, uint8_t* mask, int n) {
#if defined(__SSE2__) || defined(_M_X64)
  if (n >= 16) {
    for (int k = 0; k + 16 <= n; k += 16) put16(static_cast<uint32_t>(bits >> k), mask + k);
    if (n % 16) put16(static_cast<uint32_t>(bits >> (n - 16)), mask + n - 16);
    return;
  }
#endif
  if (n < 8) {
    for (int k = 0; k < n; ++k) mask[k] = static_cast<uint8_t>((bits >> k) & 1);
    return;
  }
  const int whole = n / 8;
  for (int k = 0; k < whole; ++k) std::memcpy(mask + 8 * k, &kByteTable.of[(bits >> (8 * k)) & 0xFF], 8);
  if (n % 8) std::memcpy(mask + n - 8, &kByteTable.of[(bits >> (n - 8)) & 0xFF], 8);
}

// Bits p..p+width-1 of the bitset (width <= 32), from the words that hold them only.
inline uint32_t window(const uint64_t* bits, int p, int width) {
  const int w = p >> 6, shift = p & 63;
  uint64_t v = bits[w] >> shift;
  if (shift > 64 - width) v |= bits[w + 1] << (64 - shift);
  return static_cast<uint32_t>(v);
}

// 16 bytes per group with SSE2 (put16); a row that is not a whole number of groups ends with a
// group overlapping the one before (rows of fewer than 16 bytes use the table).
inline void write_portable(const uint64_t* bits, uint8_t* mask, int n) {
#if defined(__SSE2__) || defined(_M_X64)
  if (n >= 16) {
    const int groups = n / 16;
    for (int k = 0; k < groups; ++k) put16(static_cast<uint32_t>(bits[k >> 2] >> (16 * (k & 3))), mask + 16 * k);
    if (n % 16) put16(window(bits, n - 16, 16), mask + n - 16);
    return;
  }
#endif
  for (int w = 0; 64 * w < n; ++w) expand_word(bits[w], mask + 64 * w, n - 64 * w < 64 ? n - 64 * w : 64);
}

#if MEEPLE_BYTE_MASK_DISPATCH
__attribute__((target("avx2"), always_inline)) inline void put32_avx2(uint32_t bits32, uint8_t* out) {
  // Byte k of the result looks at byte k / 8 of bits32, then at bit k % 8 of it.
  const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
  __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits32)), spread);
  v = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit), _mm256_set1_epi8(1));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
}

__attribute__((target("avx2"))) inline void write_avx2(const uint64_t* bits, uint8_t* mask, int n) {
  if (n < 32) return write_portable(bits, mask, n);
  const int groups = n / 32;
  for (int k = 0; k < groups; ++k) put32_avx2(static_cast<uint32_t>(bits[k >> 1] >> (32 * (k & 1))), mask + 32 * k);
  if (n % 32) put32_avx2(window(bits, n - 32, 32), mask + n - 32);
}

__attribute__((target("avx512f,avx512bw"))) inline void write_avx512(const uint64_t* bits, uint8_t* mask, int n) {
  const __m512i ones = _mm512_set1_epi8(1);
  const int whole = n / 64;
  for (int w = 0; w < whole; ++w) _mm512_storeu_si512(mask + 64 * w, _mm512_maskz_mov_epi8(bits[w], ones));
  if (const int rest = n % 64)  // a masked store: bytes past the row are not touched
    _mm512_mask_storeu_epi8(mask + 64 * whole, (__mmask64{1} << rest) - 1, _mm512_maskz_mov_epi8(bits[whole], ones));
}
#endif

// The bitset as packed bytes instead: mask[0..bytes) = bits 0..8 * bytes - 1, bit a in bit a % 8
// of mask[a / 8] (numpy's packbits with bitorder="little"). On a little-endian CPU these are the
// words' own bytes, copied 8, 4, 2, 1 at a time (no call for a variable-length copy); nothing past
// mask[bytes - 1] is written.
inline void write_packed(const uint64_t* bits, uint8_t* mask, int bytes) {
  if constexpr (std::endian::native == std::endian::little) {
    const auto* from = reinterpret_cast<const uint8_t*>(bits);
    int k = 0;
    for (; k + 8 <= bytes; k += 8) std::memcpy(mask + k, from + k, 8);
    if (bytes & 4) std::memcpy(mask + k, from + k, 4), k += 4;
    if (bytes & 2) std::memcpy(mask + k, from + k, 2), k += 2;
    if (bytes & 1) mask[k] = from[k];
  } else {
    for (int k = 0; k < bytes; ++k) mask[k] = static_cast<uint8_t>(bits[k / 8] >> (8 * (k % 8)));
  }
}

// Every writer this CPU runs, fastest first (tests check that they agree); returns how many.
inline int available_writers(Writer* out) {
  int count = 0;
#if MEEPLE_BYTE_MASK_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw")) out[count++] = &write_avx512;
  if (__builtin_cpu_supports("avx2")) out[count++] = &write_avx2;
#endif
  out[count++] = &write_portable;
  return count;
}

// The fastest writer this CPU runs.
inline Writer best_writer() {
  Writer writers[3];
  available_writers(writers);
  return writers[0];
}

// For rows of at most 64 bytes: the AVX-512 writer (one masked store) if this CPU has it, else
// null (expand_word, inline, then costs less than a call to another writer).
inline Writer small_row_writer() {
#if MEEPLE_BYTE_MASK_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw")) return &write_avx512;
#endif
  return nullptr;
}

}  // namespace meeple::byte_mask
