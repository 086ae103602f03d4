// Setting the cells of a bitset to 1.0 in a float plane that starts zeroed: how games write the
// board planes of an observation (VectorGame zeroes a row, then the game writes its nonzero
// entries). An RL user asks for an observation at every ply of every game, and a plane written
// cell by cell costs a loop trip per set cell.
//
// As in byte_mask.h, the engine is built for the baseline of its platform, so the wide version is
// chosen at run time, once: with AVX-512F one masked store sets up to 16 floats, and a group of
// 16 cells with none set costs a test; otherwise a loop over the set bits.
#pragma once

#include <bit>
#include <cstdint>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define MEEPLE_FLOAT_PLANES_DISPATCH 1
#endif

namespace meeple::float_planes {

// Sets out[k] = 1.0f for every set bit k < n of bits[] (bit k of bits[k / 64]); leaves every
// other float as it was (nothing past out[n - 1] is touched).
using Writer = void (*)(const uint64_t* bits, float* out, int n);

inline void set_ones_loop(const uint64_t* bits, float* out, int n) {
  for (int w = 0; 64 * w < n; ++w) {
    uint64_t word = bits[w];
    if (n - 64 * w < 64) word &= (uint64_t{1} << (n - 64 * w)) - 1;
    for (; word; word &= word - 1) out[64 * w + std::countr_zero(word)] = 1.0f;
  }
}

#if MEEPLE_FLOAT_PLANES_DISPATCH
__attribute__((target("avx512f"))) inline void set_ones_avx512(const uint64_t* bits, float* out, int n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int w = 0; 64 * w < n; ++w) {
    uint64_t word = bits[w];
    if (n - 64 * w < 64) word &= (uint64_t{1} << (n - 64 * w)) - 1;
    for (int g = 0; g < 4 && word; ++g, word >>= 16)  // groups of 16 floats; the rest are zero
      if (const auto group = static_cast<__mmask16>(word & 0xFFFF))
        _mm512_mask_storeu_ps(out + 64 * w + 16 * g, group, one);
  }
}
#endif

// Every writer this CPU runs, fastest first (tests check that they agree); returns how many.
inline int available_writers(Writer* out) {
  int count = 0;
#if MEEPLE_FLOAT_PLANES_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) out[count++] = &set_ones_avx512;
#endif
  out[count++] = &set_ones_loop;
  return count;
}

// The fastest writer this CPU runs, chosen at the first call (a local static: safe whatever the
// order in which the module's globals are initialised).
inline Writer best_writer() {
  static const Writer best = [] {
    Writer writers[2];
    available_writers(writers);
    return writers[0];
  }();
  return best;
}

}  // namespace meeple::float_planes
