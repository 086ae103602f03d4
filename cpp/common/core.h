// meeple common core: the small vocabulary every game engine shares.
//
// A game is a class `G` (its parameters and any shared, immutable data such as board geometry)
// with a nested plain copyable `G::State`. Cloning a state is a struct copy; nothing on the hot
// path allocates. Move generation writes into a fixed-capacity list. See `game_concept.h`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

// For the few hot functions whose callers must see their results in registers (the compiler's
// own choice left them out of line, and reading their output back from memory stalled).
#if defined(__GNUC__) || defined(__clang__)
#define MEEPLE_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MEEPLE_ALWAYS_INLINE __forceinline
#endif

namespace meeple {

using Action = int32_t;
inline constexpr Action kNoAction = -1;  // "none": e.g. no legal action to draw

// Same values as OpenSpiel, so search code written for it reads the same.
inline constexpr int kChancePlayer = -1;
inline constexpr int kTerminalPlayer = -4;

// A list with a compile-time capacity living inside its owner (no heap). Capacity overflow is a
// programming error in a game's move generator; the generic tests check the bounds.
template <class T, int Capacity>
class FixedList {
 public:
  static constexpr int kCapacity = Capacity;
  constexpr void push_back(T value) { items_[size_++] = value; }
  // Appends `value` only if `keep`, without a branch (needs one spare slot: always writes).
  constexpr void push_back_if(T value, bool keep) {
    items_[size_] = value;
    size_ += keep;
  }
  constexpr void clear() { size_ = 0; }
  constexpr int size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](int i) { return items_[i]; }
  constexpr const T& operator[](int i) const { return items_[i]; }
  constexpr T* begin() { return items_.data(); }
  constexpr T* end() { return items_.data() + size_; }
  constexpr const T* begin() const { return items_.data(); }
  constexpr const T* end() const { return items_.data() + size_; }
  constexpr const T* data() const { return items_.data(); }
  constexpr bool contains(T value) const {
    for (int i = 0; i < size_; ++i)
      if (items_[i] == value) return true;
    return false;
  }

 private:
  std::array<T, Capacity> items_;
  int size_ = 0;
};

template <int Capacity>
using ActionList = FixedList<Action, Capacity>;

struct ChanceOutcome {
  Action outcome;
  double probability;
};

// SplitMix64: 8 bytes of state, fast, passes BigCrush; small enough to live inside a game state
// (so a state's chance draws are part of the state and a clone replays them exactly).
struct Rng {
  uint64_t state = 0;

  constexpr Rng() = default;
  bool operator==(const Rng&) const = default;
  constexpr explicit Rng(uint64_t seed) : state(seed) {}

  constexpr uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform integer in [0, n), n >= 1, by multiply-shift on the top 32 bits (bias below 2^-24
  // for the small n games need; determinism, not cryptography, is what matters here).
  constexpr uint32_t uniform(uint32_t n) {
    return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32);
  }
  // Uniform double in [0, 1).
  constexpr double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// A 64-bit key of a state for transposition tables: equal states have equal keys (different
// states collide with probability about 2^-64). It mixes the state's bytes, which is exact only
// because every state type has no padding: each byte belongs to a member that operator==
// compares (checked here at compile time).
template <class State>
uint64_t state_key(const State& s) {
  static_assert(std::has_unique_object_representations_v<State>,
                "a state with padding bytes: add explicit zero members so that its bytes are its value");
  static_assert(std::is_trivially_copyable_v<State>);
  const auto* bytes = reinterpret_cast<const unsigned char*>(&s);
  uint64_t h = 0x243F6A8885A308D3ull ^ sizeof(State);
  size_t i = 0;
  for (; i + 8 <= sizeof(State); i += 8) {
    uint64_t word;
    __builtin_memcpy(&word, bytes + i, 8);
    h = (h ^ word) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < sizeof(State); ++i) h = (h ^ bytes[i]) * 0x100000001B3ull;
  Rng mixer(h);  // a final avalanche: every byte reaches every bit of the key
  return mixer.next();
}

// An independent, reproducible seed for item `index` of a batch seeded by `seed`.
constexpr uint64_t derive_seed(uint64_t seed, uint64_t index) {
  Rng mixer(seed ^ (index * 0xD1B54A32D192ED03ull));
  mixer.next();
  return mixer.next();
}

}  // namespace meeple
