// Random boards (docs/rules/imperial-harvest.md D37), drawn in C++ so that every new game of
// `board="random"` can have its own board (an RL episode, a VectorGame reset). The draw is the one
// of Python's `Board.random(seed)` step for step — same generator, same order of draws — and a test
// compares the two over many seeds.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/core.h"
#include "board.h"

namespace meeple::imperial_harvest {

namespace {

// Every cell reachable by legal steps (point 9, no tokens) from `start`, for the given hedges and
// bridges.
Bits128 reachable(const Board& board, const Bits128& start, const Bits128& east, const Bits128& south,
                  const Bits128& bridges) {
  const Bits128 water = board.ring_cells() & ~bridges;
  auto axis = [&](int c) { return (cell_x(c) == 2 || cell_x(c) == 7) ? kE : kS; };
  auto along = [](int d) { return (d == kE || d == kW) ? kE : kS; };
  Bits128 seen = start;
  std::array<uint8_t, kCells> todo;  // each cell enters once: no allocation
  int top = 0;
  start.for_each([&](int c) { todo[top++] = static_cast<uint8_t>(c); });
  while (top > 0) {
    const int c = todo[--top];
    for (int d = 0; d < 4; ++d) {
      const int n = board.neighbor(c, d);
      if (n == kNone || seen.test(n) || water.test(n)) continue;
      const Edge e = board.edge(c, d);
      if ((e.south ? south : east).test(e.bit)) continue;
      if ((bridges.test(c) && axis(c) != along(d)) || (bridges.test(n) && axis(n) != along(d))) continue;
      seen.set(n);
      todo[top++] = static_cast<uint8_t>(n);
    }
  }
  return seen;
}

// Appended piece by piece: GCC 16 takes the move of a chain of `+` into a member for an overread.
std::string misfit(const std::string& face, const std::string& slot, int rotation) {
  std::string text = "tile ";
  text.append(face).append(" does not fit slot ").append(slot).append(" turned ").append(std::to_string(rotation));
  return text;
}

}  // namespace

void Board::prepare_random_pools() {
  // Physical tiles per shape (rectangular 0, square 1) in name order, by the index of their face a;
  // every tile must fit every slot of its shape with every rotation the slot allows.
  std::vector<std::pair<std::string, int>> named;
  for (int f = 0; f < static_cast<int>(face_names_.size()); ++f)
    if (!face_names_[f].empty() && face_names_[f].back() == 'a') named.emplace_back(face_names_[f], f);
  std::sort(named.begin(), named.end());
  for (const auto& [name, f] : named) random_pool_[face_square_[f] ? 1 : 0].push_back(static_cast<uint8_t>(f));
  for (int group = 0; group < 2; ++group) {
    int slots = 0;
    for (int slot = 0; slot < slot_count(); ++slot) {
      const TilePlacement& t = tiles_[slot];
      if ((t.width == t.height) != (group == 1)) continue;
      ++slots;
      if (t.rotations.empty()) random_problem_ = "tile slot " + t.slot + " lists no rotations";
      for (int f : random_pool_[group])
        for (int r : t.rotations) {
          Bits128 e, s;
          if (r < 0 || r > 3 || !tile_hedges(slot, f, r, e, s) || !tile_hedges(slot, other_face_[f], r, e, s))
            random_problem_ = misfit(face_names_[f], t.slot, r);
        }
    }
    if (slots != static_cast<int>(random_pool_[group].size()))
      random_problem_ = "random boards need as many tiles of each shape as slots";
  }
  random_ok_ = random_problem_.empty();
}

RandomDraw Board::draw_random(uint64_t seed) const {
  if (tiles_.empty()) throw std::runtime_error("board '" + name_ + "' has no tiles to draw a random board from");
  if (!random_ok_) throw std::runtime_error("board '" + name_ + "': " + random_problem_);
  Bits128 garden;
  for (int c = 0; c < kCells; ++c)
    if (!ring_.test(c) && !corner_bits_[0].test(c) && !corner_bits_[1].test(c) && !corner_bits_[2].test(c) &&
        !corner_bits_[3].test(c))
      garden.set(c);

  Rng rng(seed);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    RandomDraw draw;
    for (int group = 0; group < 2; ++group) {  // rectangular slots, then square ones (spec order)
      std::array<uint8_t, kMaxSlots> order{};
      const int tiles = static_cast<int>(random_pool_[group].size());
      std::copy(random_pool_[group].begin(), random_pool_[group].end(), order.begin());
      for (int i = tiles - 1; i > 0; --i) std::swap(order[i], order[rng.uniform(static_cast<uint32_t>(i + 1))]);
      int next = 0;
      for (int slot = 0; slot < slot_count(); ++slot) {
        const TilePlacement& t = tiles_[slot];
        if ((t.width == t.height) != (group == 1)) continue;
        const int a_face = order[next++];
        const int face = rng.uniform(2) ? other_face_[a_face] : a_face;
        const int rotation = t.rotations[rng.uniform(static_cast<uint32_t>(t.rotations.size()))];
        draw.face[slot] = static_cast<uint8_t>(face);
        draw.transform[slot] = static_cast<uint8_t>(rotation);
        Bits128 e, s;
        tile_hedges(slot, face, rotation, e, s);  // fits: checked when the pools were built
        draw.east |= e;
        draw.south |= s;
      }
    }
    bool bridged = true;
    for (int quadrant = 0; quadrant < 4 && bridged; ++quadrant) {
      int spots[kBridgeSpots], count = 0;
      for (int b = 0; b < kBridgeSpots; ++b) {  // spots in cell-index order
        const int c = spots_[b];
        if (moat_tile_[c] != quadrant) continue;
        const int d1 = (cell_x(c) == 2 || cell_x(c) == 7) ? kW : kN, d2 = d1 == kW ? kE : kS;
        const Edge e1 = edge_[c][d1], e2 = edge_[c][d2];
        if ((e1.south ? draw.south : draw.east).test(e1.bit) || (e2.south ? draw.south : draw.east).test(e2.bit))
          continue;
        spots[count++] = c;
      }
      if (count == 0) bridged = false;
      else draw.bridges.set(spots[rng.uniform(static_cast<uint32_t>(count))]);
    }
    if (!bridged) continue;
    bool connected = true;
    for (int team = 0; team < 2 && connected; ++team) {
      const Bits128 reach = reachable(*this, char_camp_[team], draw.east, draw.south, draw.bridges);
      connected = (garden & ~reach) == Bits128{};
    }
    if (connected) return draw;
  }
  throw std::runtime_error("no valid random board for seed " + std::to_string(seed) + " in 1000 draws");
}

}  // namespace meeple::imperial_harvest
