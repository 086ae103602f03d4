// Standalone C++ checks of every engine, built with ASan+UBSan in CI (MEEPLE_BUILD_CPP_TESTS):
// random games under the generic invariants plus each game's own consistency check, so memory
// errors and undefined behaviour in the hot paths show up without Python in the way.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "abacuachego/abacuachego.h"
#include "harmonies/harmonies.h"
#include "imperial_harvest_data.h"
#include "common/byte_mask.h"
#include "common/float_planes.h"
#include "common/game_concept.h"
#include "common/text.h"
#include "check.h"

namespace {

// Generic invariants along `games` random games: legal list sorted, unique, in range and equal to
// is_legal over the whole action space; sample_action only returns legal actions; copies are
// independent; the game ends within max_game_length; returns are finite and zero before the end.
template <meeple::GameEngine G, class Consistent>
void check_random_games(const G& game, int games, uint64_t seed, Consistent consistent,
                        const char* name) {
  using meeple::Action;
  for (int i = 0; i < games; ++i) {
    meeple::Rng rng(meeple::derive_seed(seed, static_cast<uint64_t>(i)));
    typename G::State s = game.initial_state(rng.next());
    int length = 0;
    while (!game.is_terminal(s)) {
      CHECK(consistent(s));
      CHECK(length < game.max_game_length());
      if (!game.is_chance_node(s)) {
        meeple::ActionList<G::kMaxActions> actions;
        game.legal_actions(s, actions);
        CHECK(actions.size() > 0);
        std::vector<Action> sorted(actions.begin(), actions.end());
        std::sort(sorted.begin(), sorted.end());
        CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
        for (Action a = -1; a <= game.num_distinct_actions(); ++a)
          CHECK(game.is_legal(s, a) == std::binary_search(sorted.begin(), sorted.end(), a));
        if constexpr (requires(uint64_t* w) { game.sample_and_mark_legal(s, w, rng); }) {
          // The bitset holds exactly the legal actions, and the draw is sample_action's.
          std::array<uint64_t, (G::kMaxActions + 63) / 64> words{};
          meeple::Rng mark_rng = rng, sample_rng = rng;
          const Action drawn = game.sample_and_mark_legal(s, words.data(), mark_rng);
          CHECK(drawn == meeple::sample_action(game, s, sample_rng));
          CHECK(mark_rng.next() == sample_rng.next());  // one draw each
          for (Action a = 0; a < G::kMaxActions; ++a)
            CHECK(((words[static_cast<size_t>(a >> 6)] >> (a & 63)) & 1) ==
                  std::binary_search(sorted.begin(), sorted.end(), a));
        }
      }
      double r[8] = {};
      game.returns(s, r);
      for (int p = 0; p < game.num_players(); ++p) CHECK(r[p] == 0.0);
      const typename G::State before = s;
      const Action a = meeple::sample_action(game, s, rng);
      typename G::State copy = s;
      game.apply_action(copy, a);
      CHECK(s == before);  // applying to a copy leaves the original untouched
      s = copy;
      ++length;
      std::vector<float> observation(static_cast<size_t>(game.observation_size()));
      game.observation(s, 0, observation.data());
    }
    CHECK(consistent(s));
    double r[8] = {};
    game.returns(s, r);
    double sum = 0;
    for (int p = 0; p < game.num_players(); ++p) sum += r[p];
    CHECK(sum == sum);  // not NaN
  }
  std::printf("ok   %s: %d random games\n", name, games);
}

void check_abacuachego() {
  using namespace meeple::abacuachego;
  std::vector<std::pair<std::string, Params>> variants;
  variants.push_back({"default", Params{}});
  Params p;
  p.parity = Parity::kPit;
  variants.push_back({"parity=pit", p});
  p = Params{};
  p.origin_match = OriginMatch::kPit;
  variants.push_back({"origin_match=pit", p});
  p = Params{};
  p.match = Match::kExact;
  variants.push_back({"match=exact", p});
  p = Params{};
  p.skip_origin_on_lap = true;
  variants.push_back({"skip_origin_on_lap", p});
  p = Params{};
  p.pits_per_row = 2;
  p.seeds_per_pit = 9;
  p.skip_origin_on_lap = true;
  variants.push_back({"2 pits, 9 seeds, skip origin (laps)", p});
  p = Params{};
  p.pits_per_row = 12;
  p.seeds_per_pit = 2000;
  p.win_threshold = 60000;
  p.max_plies = 300;
  variants.push_back({"12 pits, 2000 seeds", p});
  for (const auto& [label, params] : variants) {
    const Game game(params);
    auto consistent = [&](const State& s) { return game.check_consistency(s).empty(); };
    check_random_games(game, 3000, 7, consistent, ("abacuachego " + label).c_str());
  }
  // perft is deterministic and matches a plain recursion over the protocol.
  const Game game{Params{}};
  const State start = game.initial_state(0);
  CHECK(meeple::perft(game, start, 3) == meeple::perft(game, start, 3));
  std::printf("ok   abacuachego perft(4) = %llu\n",
              static_cast<unsigned long long>(meeple::perft(game, start, 4)));
}

#ifndef MEEPLE_SOURCE_DIR
#define MEEPLE_SOURCE_DIR "."
#endif

void check_harmonies() {
  using namespace meeple::harmonies;
  const std::string path = MEEPLE_SOURCE_DIR "/python/meeple/data/harmonies/cards.json";
  std::ifstream file(path);
  CHECK(file.good());
  std::stringstream text;
  text << file.rdbuf();
  const CardData cards = parse_cards_json(text.str());
  CHECK(cards.cards.size() == 42);
  struct Variant {
    const char* label;
    Params params;
  };
  const Variant variants[] = {
      {"2p A", {2, 0, false, false}},          {"2p B spirits", {2, 1, true, false}},
      {"4p A", {4, 0, false, false}},          {"solo A", {1, 0, false, false}},
      {"3p A spirits explicit", {3, 0, true, true}}, {"solo B spirits explicit", {1, 1, true, true}},
      {"4p B explicit", {4, 1, false, true}},
  };
  for (const Variant& v : variants) {
    const Game game(v.params, cards);
    auto consistent = [&](const State& s) {
      if (!game.check_consistency(s).empty()) {
        std::fprintf(stderr, "%s\n%s", game.check_consistency(s).c_str(), game.to_string(s).c_str());
        return false;
      }
      if (!game.is_chance_node(s) && !game.is_terminal(s)) {  // bit-parallel habitats = per-cell test
        const PlayerState& p = s.players[s.turn_player];
        for (int j = 0; j < p.held; ++j)
          for (int x = 0; x < game.geometry().ncells; ++x)
            if (((game.cube_targets(p, p.card[j]) >> x) & 1u) !=
                (!((p.cubes >> x) & 1u) && game.habitat_matches(p, p.card[j], x)))
              return false;
      }
      if (game.is_chance_node(s)) {  // outcome probabilities sum to 1
        meeple::FixedList<meeple::ChanceOutcome, Game::kMaxChanceOutcomes> outcomes;
        game.chance_outcomes(s, outcomes);
        double sum = 0;
        for (const auto& o : outcomes) sum += o.probability;
        if (outcomes.empty() || sum < 1 - 1e-12 || sum > 1 + 1e-12) return false;
      }
      return true;
    };
    check_random_games(game, 200, 11, consistent, ("harmonies " + std::string(v.label)).c_str());
  }
}

void check_imperial_harvest() {
  namespace ih = meeple::imperial_harvest;
  for (const bool symmetric : {false, true}) {
    const ih::Game game(ih::test_data::standard_spec(symmetric));
    auto consistent = [&](const ih::State& s) {
      const std::string problem = game.check_consistency(s);
      if (!problem.empty()) std::fprintf(stderr, "%s\n%s", problem.c_str(), game.to_string(s).c_str());
      return problem.empty();
    };
    check_random_games(game, 400, 5, consistent,
                       symmetric ? "imperial_harvest symmetric" : "imperial_harvest standard");
    // Action names round-trip and the board drawing works, on a few whole games.
    for (int i = 0; i < 10; ++i) {
      meeple::Rng rng(meeple::derive_seed(17, static_cast<uint64_t>(i)));
      ih::State s = game.initial_state(0);
      while (!game.is_terminal(s)) {
        ih::Game::Actions actions;
        game.legal_actions(s, actions);
        CHECK(std::is_sorted(actions.begin(), actions.end()));  // generated in increasing id
        for (meeple::Action a : actions) CHECK(game.string_to_action(s, game.action_to_string(s, a)) == a);
        CHECK(!game.to_string(s).empty());
        game.apply_action(s, meeple::sample_action(game, s, rng));
      }
    }
  }
  // Part 2: drafted teams with interactive setup, and custom teams with every new character.
  for (int variant = 0; variant < 3; ++variant) {
    ih::GameSpec spec = ih::test_data::standard_spec();
    const char* label = "imperial_harvest draft+interactive";
    if (variant == 0) {
      spec.team_mode = ih::Teams::kDraft;
      spec.setup = ih::Setup::kInteractive;
    } else if (variant == 1) {
      spec.team_mode = ih::Teams::kCustom;
      spec.team_ids = {{{"regent", "hound", "nymph"}, {"basilisk", "minotaur", "puppeteer"}}};
      label = "imperial_harvest regent,hound,nymph/basilisk,minotaur,puppeteer";
    } else {
      spec.team_mode = ih::Teams::kCustom;
      spec.setup = ih::Setup::kInteractive;
      spec.advanced = {1, 0};
      spec.team_ids = {{{"ranger", "skin_changer", "puppeteer"}, {"regent", "sorceress", "monk"}}};
      label = "imperial_harvest ranger,skin_changer,puppeteer/regent,sorceress,monk interactive";
    }
    const ih::Game game(spec);
    auto consistent = [&](const ih::State& s) {
      const std::string problem = game.check_consistency(s);
      if (!problem.empty()) std::fprintf(stderr, "%s\n%s", problem.c_str(), game.to_string(s).c_str());
      return problem.empty();
    };
    check_random_games(game, 300, 7 + variant, consistent, label);
    for (int i = 0; i < 5; ++i) {
      meeple::Rng rng(meeple::derive_seed(23, static_cast<uint64_t>(i + 10 * variant)));
      ih::State s = game.initial_state(0);
      while (!game.is_terminal(s)) {
        ih::Game::Actions actions;
        game.legal_actions(s, actions);
        CHECK(std::is_sorted(actions.begin(), actions.end()));
        for (meeple::Action a : actions) CHECK(game.string_to_action(s, game.action_to_string(s, a)) == a);
        CHECK(!game.to_string(s).empty());
        game.apply_action(s, meeple::sample_action(game, s, rng));
      }
    }
    std::printf("ok   %s perft(4) = %llu\n", label,
                static_cast<unsigned long long>(meeple::perft(game, game.initial_state(0), 4)));
  }
  const ih::Game game(ih::test_data::standard_spec());
  std::printf("ok   imperial_harvest sizeof(State) = %zu, perft(5) = %llu\n", sizeof(ih::State),
              static_cast<unsigned long long>(meeple::perft(game, game.initial_state(0), 5)));
}

// Every mask writer this CPU runs writes mask[0..n) = the bits and nothing outside, for every
// row length up to 512 and every alignment of the row within a cache line.
void check_byte_mask_writers() {
  meeple::byte_mask::Writer writers[4];
  const int count = meeple::byte_mask::available_writers(writers);
  meeple::Rng rng(7);
  for (int w = 0; w < count; ++w)
    for (int n = 1; n <= 512; ++n)
      for (int offset = 0; offset < 64; offset += 7) {
        std::array<uint64_t, 8> bits{};
        for (int k = 0; k < (n + 63) / 64; ++k) bits[static_cast<size_t>(k)] = rng.next();
        std::vector<uint8_t> buffer(static_cast<size_t>(offset + n + 64), 0xEE);
        writers[w](bits.data(), buffer.data() + offset, n);
        for (int i = 0; i < static_cast<int>(buffer.size()); ++i) {
          const int a = i - offset;
          const uint8_t expected = a < 0 || a >= n ? 0xEE : (bits[static_cast<size_t>(a >> 6)] >> (a & 63)) & 1;
          CHECK(buffer[static_cast<size_t>(i)] == expected);
        }
      }
  for (int n = 1; n <= 64; ++n) {  // one word, as VectorGame writes small action spaces
    const uint64_t bits = rng.next();
    std::vector<uint8_t> buffer(static_cast<size_t>(n + 16), 0xEE);
    meeple::byte_mask::expand_word(bits, buffer.data() + 8, n);
    for (int i = 0; i < static_cast<int>(buffer.size()); ++i) {
      const int a = i - 8;
      CHECK(buffer[static_cast<size_t>(i)] == (a < 0 || a >= n ? 0xEE : (bits >> a) & 1));
    }
  }
  for (int bytes = 1; bytes <= 64; ++bytes) {  // packed rows: bit a in bit a % 8 of byte a / 8
    std::array<uint64_t, 8> bits{};
    for (auto& word : bits) word = rng.next();
    std::vector<uint8_t> buffer(static_cast<size_t>(bytes + 16), 0xEE);
    meeple::byte_mask::write_packed(bits.data(), buffer.data() + 8, bytes);
    for (int i = 0; i < static_cast<int>(buffer.size()); ++i) {
      const int k = i - 8;
      uint8_t expected = 0xEE;
      if (k >= 0 && k < bytes) {
        expected = 0;
        for (int b = 0; b < 8; ++b) expected |= static_cast<uint8_t>(((bits[static_cast<size_t>((8 * k + b) >> 6)] >> ((8 * k + b) & 63)) & 1) << b);
      }
      CHECK(buffer[static_cast<size_t>(i)] == expected);
    }
  }
  std::printf("ok   byte-mask writers: %d of them agree on rows of 1..512 bytes; packed rows of 1..64 bytes\n", count);
}

void check_float_plane_writers() {
  meeple::float_planes::Writer writers[2];
  const int count = meeple::float_planes::available_writers(writers);
  meeple::Rng rng(5);
  for (int w = 0; w < count; ++w)
    for (int n = 1; n <= 200; ++n) {
      std::array<uint64_t, 4> bits{};
      for (int k = 0; k < (n + 63) / 64; ++k) bits[static_cast<size_t>(k)] = rng.next();
      std::vector<float> buffer(static_cast<size_t>(n + 24), -7.0f);  // -7: not written
      writers[w](bits.data(), buffer.data() + 3, n);
      for (int i = 0; i < static_cast<int>(buffer.size()); ++i) {
        const int a = i - 3;
        const bool set = a >= 0 && a < n && ((bits[static_cast<size_t>(a >> 6)] >> (a & 63)) & 1);
        CHECK(buffer[static_cast<size_t>(i)] == (set ? 1.0f : -7.0f));
      }
    }
  CHECK(meeple::float_planes::best_writer() == writers[0]);
  std::printf("ok   float-plane writers: %d of them agree on planes of 1..200 floats\n", count);
}

// Bit counts: the POPCNT path (chosen at run time), the portable one and the compile-time one.
void check_popcounts() {
  auto naive = [](uint64_t v) {
    int n = 0;
    for (; v; v >>= 1) n += static_cast<int>(v & 1);
    return n;
  };
  static_assert(meeple::bits::popcount32(0xF0F0F0F1u) == 17 && meeple::bits::popcount(~uint64_t{0}) == 64);
  meeple::Rng rng(11);
  for (int k = 0; k < 20000; ++k) {
    const uint64_t v = rng.next() & rng.next() >> (k % 64);
    const uint32_t low = static_cast<uint32_t>(v);
    CHECK(meeple::bits::popcount(v) == naive(v));
    CHECK(meeple::bits::popcount32(low) == naive(low));
    CHECK(meeple::bits::popcount32_portable(low) == naive(low));
  }
#if MEEPLE_POPCNT_DISPATCH
  std::printf("ok   popcounts agree (POPCNT instruction %s)\n", meeple::bits::kHavePopcnt ? "used" : "absent");
#else
  std::printf("ok   popcounts agree\n");
#endif
}

// VectorGame's step order: a stable counting sort of the slots by group, every slot once.
void check_order_by_group() {
  meeple::Rng rng(5);
  for (int n : {0, 1, 7, 300, 1024}) {
    std::vector<uint8_t> group(static_cast<size_t>(n));
    for (auto& g : group) g = static_cast<uint8_t>(rng.next() % (n % 2 ? 256 : 3));
    std::vector<int32_t> order(static_cast<size_t>(n), -1), expected(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) expected[static_cast<size_t>(i)] = i;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int32_t a, int32_t b) { return group[static_cast<size_t>(a)] < group[static_cast<size_t>(b)]; });
    meeple::order_by_group(group.data(), n, order.data());
    CHECK(order == expected);
  }
  std::printf("ok   order_by_group is a stable sort by group\n");
}

}  // namespace

// str()'s line breaking: at spaces within the width, the indent on continuation lines, leading
// spaces kept, a word wider than the line alone on its own.
void check_wrapped() {
  using meeple::wrapped;
  CHECK(wrapped("one two three", "  ", 7) == "one two\n  three\n");
  CHECK(wrapped("one two three", "  ", 13) == "one two three\n");
  CHECK(wrapped("  cards: a b", "        ", 10) == "  cards: a\n        b\n");
  CHECK(wrapped("a abcdefghij b", "", 5) == "a\nabcdefghij\nb\n");
  CHECK(wrapped("a  b", "", 80) == "a b\n");
  CHECK(wrapped("", "  ", 80) == "\n");
}

int main() {
  check_popcounts();
  check_wrapped();
  check_order_by_group();
  check_byte_mask_writers();
  check_float_plane_writers();
  check_abacuachego();
  check_harmonies();
  check_imperial_harvest();
  return summary("all engine checks passed");
}
