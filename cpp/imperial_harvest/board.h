// Imperial Harvest board geometry (docs/rules/imperial-harvest.md points 1–4): the 10×10 grid, the
// moat ring, bridges and their axes, camps, start spaces, initial hedges, strawberries and hydras.
//
// A `Board` is built once per Game from plain data (`BoardSpec`, filled by the Python binding from
// boards.json + tiles.json, or by hand in the C++ test driver) and shared by every state; states
// hold what changes (hedges, strawberries, hydras, tokens, and part 2's bridges, camps and tile
// faces). The fixed geometry the move generators ask for is a table look-up here: neighbours, the
// edge a hedge would sit on, the steps when every moat cell is bridged, the Monk's twelve landing
// cells. The rules that also depend on the state (a step's legality, point 9; a hydra's dive past
// bridges, point 27) are Game::steps and Game::hydra_step in imperial_harvest.cpp.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace meeple::imperial_harvest {

inline constexpr int kSize = 10;
inline constexpr int kCells = kSize * kSize;  // cell index y*10 + x (point 1)
inline constexpr uint8_t kNone = 255;         // "no cell" / "no token" in tables and states

// Directions: 0..3 orthogonal N E S W, 4..7 diagonal NE SE SW NW. y grows downwards (south).
enum Dir : int { kN, kE, kS, kW, kNE, kSE, kSW, kNW };
inline constexpr int kDx[8] = {0, 1, 0, -1, 1, 1, -1, -1};
inline constexpr int kDy[8] = {-1, 0, 1, 0, -1, 1, 1, -1};
inline constexpr const char* kDirNames[8] = {"n", "e", "s", "w", "ne", "se", "sw", "nw"};
// The two orthogonal components of a diagonal direction: {horizontal, vertical}.
inline constexpr int kDiagParts[8][2] = {{}, {}, {}, {}, {kE, kN}, {kE, kS}, {kW, kS}, {kW, kN}};

constexpr int cell_x(int c) { return c % kSize; }
constexpr int cell_y(int c) { return c / kSize; }
constexpr int cell_at(int x, int y) { return y * kSize + x; }
constexpr bool on_board(int x, int y) { return x >= 0 && x < kSize && y >= 0 && y < kSize; }

// The moat ring of point 2: x ∈ {2,7} and 2 ≤ y ≤ 7, or y ∈ {2,7} and 2 ≤ x ≤ 7.
constexpr bool in_moat_ring(int x, int y) {
  return ((x == 2 || x == 7) && y >= 2 && y <= 7) || ((y == 2 || y == 7) && x >= 2 && x <= 7);
}
constexpr bool is_moat_elbow(int x, int y) { return (x == 2 || x == 7) && (y == 2 || y == 7); }

// A set of up to 128 cells (or edges) as two 64-bit words: no __int128, so MSVC builds it.
struct Bits128 {
  uint64_t lo = 0, hi = 0;

  constexpr bool test(int i) const { return ((i < 64 ? lo : hi) >> (i & 63)) & 1u; }
  constexpr void set(int i) { (i < 64 ? lo : hi) |= uint64_t{1} << (i & 63); }
  constexpr void reset(int i) { (i < 64 ? lo : hi) &= ~(uint64_t{1} << (i & 63)); }
  constexpr bool any() const { return (lo | hi) != 0; }
  constexpr Bits128 operator|(Bits128 o) const { return {lo | o.lo, hi | o.hi}; }
  constexpr Bits128 operator&(Bits128 o) const { return {lo & o.lo, hi & o.hi}; }
  constexpr Bits128 operator~() const { return {~lo, ~hi}; }
  constexpr Bits128& operator|=(Bits128 o) { lo |= o.lo; hi |= o.hi; return *this; }
  constexpr Bits128& operator&=(Bits128 o) { lo &= o.lo; hi &= o.hi; return *this; }
  // Lowest set index, or 128 if empty.
  constexpr int lowest() const {
    if (lo) return static_cast<int>(std::countr_zero(lo));
    if (hi) return 64 + static_cast<int>(std::countr_zero(hi));
    return 128;
  }
  // Calls f(i) for every set index i in increasing order.
  template <class F>
  constexpr void for_each(F&& f) const {
    for (uint64_t w = lo; w; w &= w - 1) f(static_cast<int>(std::countr_zero(w)));
    for (uint64_t w = hi; w; w &= w - 1) f(64 + static_cast<int>(std::countr_zero(w)));
  }
  constexpr int count() const {
    int n = 0;
    for_each([&](int) { ++n; });
    return n;
  }
  bool operator==(const Bits128&) const = default;
};

// Hedges: one bit per edge. The east edge of cell c (between c and c+1) is bit c of `east`; the
// south edge (between c and c+10) is bit c of `south`.
struct Edge {
  uint8_t south = 0;  // 0: the east-edge set, 1: the south-edge set
  uint8_t bit = 0;    // the west / north cell of the edge
};

// One hedge of a tile face in the tile's own coordinates (tiles.json).
struct TileHedge {
  int x = 0, y = 0;
  int side = 0;  // Dir kN..kW
};
struct TileFace {
  std::string name;
  int width = 0, height = 0;  // native size
  std::vector<TileHedge> hedges;
};
// A garden tile laid on the board: `face` turned `rotation` clockwise quarter-turns, its top-left
// cell at (x, y).
// A transform 0..7 is k = t mod 4 clockwise quarter-turns, then, if t >= 4, a top↔bottom mirror
// of the turned tile within the slot (part 2, D27).
struct TilePlacement {
  std::string slot;
  std::string face;
  int x = 0, y = 0;
  int width = 0, height = 0;  // slot size (the transformed face must have it)
  int rotation = 0;           // transform 0..7 (boards.json gives 0..3)
  std::vector<int> rotations;  // the slot's legal rotations (tiles.json), for random boards
};

// Everything a board is made of, as plain data. Teams: 0 = Imperial Servants, 1 = Northern Raiders.
struct BoardSpec {
  std::string name;
  std::vector<std::pair<int, int>> hedges;  // cell pairs; used when `tiles` is empty
  std::vector<TileFace> faces;              // the faces `tiles` refers to
  std::vector<TilePlacement> tiles;         // empty: a board without tiles
  std::vector<int> bridges;
  std::array<int, 2> hydras{};
  std::vector<int> strawberries;
  std::array<int, 2> character_camp{};  // top-left cell of each team's 2×2 character camp
  std::array<int, 2> strawberry_camp{};
  std::array<std::array<int, 3>, 2> start_spaces{};
  // Camp corners: 0 top_left, 1 top_right, 2 bottom_left, 3 bottom_right (origins (0,0) (8,0) (0,8)
  // (8,8)); character_camp / strawberry_camp above must be corner origins.
};

inline constexpr int kCorners = 4;
inline constexpr const char* kCornerNames[kCorners] = {"top_left", "top_right", "bottom_left", "bottom_right"};
// Camp kinds in action-table order: kind = 2 × team + (strawberry camp ? 1 : 0).
inline constexpr int kCampKinds = 4;
inline constexpr const char* kCampKindNames[kCampKinds] = {"imperial_character", "imperial_strawberry",
                                                           "raiders_character", "raiders_strawberry"};
inline constexpr int kBridgeSpots = 16;  // the non-elbow moat cells
inline constexpr int kMaxSlots = 12;

// A random board's tiles, hedges and bridges (D37; `Board::draw_random`).
struct RandomDraw {
  std::array<uint8_t, kMaxSlots> face{}, transform{};
  Bits128 east, south, bridges;
};

class Board {
 public:
  // Throws std::invalid_argument naming what is wrong with `spec`.
  explicit Board(const BoardSpec& spec);

  const std::string& name() const { return name_; }

  // --- terrain (fixed for the whole game)
  bool water(int c) const { return water_.test(c); }
  bool bridge(int c) const { return bridges_.test(c); }
  bool ring(int c) const { return ring_.test(c); }
  const Bits128& water_cells() const { return water_; }
  const Bits128& bridge_cells() const { return bridges_; }
  const Bits128& ring_cells() const { return ring_; }

  // --- neighbours and edges
  int neighbor(int c, int d) const { return neighbor_[c][d]; }  // kNone off the board
  Edge edge(int c, int d) const { return edge_[c][d]; }           // d orthogonal, neighbour exists
  // The up to 4 cells orthogonally next to c, hedges ignored (what a hydra on c attacks).
  const Bits128& around(int c) const { return around_[c]; }
  // Grapple landing cell for offset o (docs order), or kNone off the board.
  int landing(int c, int o) const { return landing_[c][o]; }

  // --- camps
  const std::array<uint8_t, 4>& character_camp_cells(int team) const { return char_camp_cells_[team]; }
  const Bits128& character_camp(int team) const { return char_camp_[team]; }
  const Bits128& strawberry_camp(int team) const { return berry_camp_[team]; }
  const std::array<std::array<int, 3>, 2>& start_spaces() const { return start_spaces_; }

  // --- part 2: bridges, camps and tiles that live in the state
  // Steps when every non-elbow moat cell is a bridge (elbows are always water); the state masks
  // out the directions of `ring_dirs` whose neighbour is water in it.
  uint8_t dry_steps(int c) const { return dry_steps_[c]; }
  uint8_t ring_dirs(int c) const { return ring_dirs_[c]; }
  int bridge_spot(int b) const { return spots_[b]; }          // cell of bridge spot b (index order)
  int spot_index(int c) const { return spot_index_[c]; }      // kNone if not a bridge spot
  int moat_tile(int c) const { return moat_tile_[c]; }        // quadrant 0..3 of a ring cell
  int corner_origin(int corner) const { return corner_origin_[corner]; }
  const Bits128& corner_cells(int corner) const { return corner_bits_[corner]; }  // 4: empty
  const std::array<uint8_t, 4>& corner_cell_list(int corner) const { return corner_cells_[corner]; }
  int insignia(int corner) const { return insignia_[corner]; }
  int elbow(int corner) const { return elbow_[corner]; }        // moat elbow nearest the corner
  static int interior_corner(int elbow_cell);                   // (2,2)->(3,3) ...
  const std::array<uint8_t, kCampKinds>& initial_camps() const { return camps_; }  // kind -> corner
  const Bits128& marked_strawberries() const { return marked_; }  // the first 12 of the list
  // Tiles: slot s (spec order) holds a face (index into face_names) and a transform.
  int slot_count() const { return static_cast<int>(tiles_.size()); }
  int slot_of(int c) const { return slot_of_[c]; }  // kNone: not a garden-tile cell
  const std::vector<std::string>& face_names() const { return face_names_; }
  int other_face(int f) const { return other_face_[f]; }
  int initial_face(int slot) const { return initial_face_[slot]; }
  // Hedges (east, south sets) of face f with transform t in slot `slot`; false if it does not fit.
  bool tile_hedges(int slot, int f, int t, Bits128& east, Bits128& south) const;
  const Bits128& slot_edges_east(int slot) const { return slot_east_[slot]; }   // edges touching the slot
  const Bits128& slot_edges_south(int slot) const { return slot_south_[slot]; }

  // --- setup
  const Bits128& initial_east_hedges() const { return east_; }
  const Bits128& initial_south_hedges() const { return south_; }
  const Bits128& initial_strawberries() const { return strawberries_; }
  int initial_strawberry_count() const { return strawberry_count_; }
  const std::array<int, 2>& initial_hydras() const { return hydras_; }
  const std::vector<TilePlacement>& tiles() const { return tiles_; }
  bool has_tiles() const { return !tiles_.empty(); }

  // D37: the random board of `seed`, exactly as Python's `Board.random(seed)` draws it (SplitMix64;
  // the physical tiles of each shape shuffled over its slots, random faces and legal rotations, one
  // random legal bridge per moat tile, redrawn until every garden cell is reachable from both
  // character camps). Throws std::runtime_error if 1000 draws fail (never seen with the real tiles).
  RandomDraw draw_random(uint64_t seed) const;

  // The hedges of this board as cell pairs (lower index first), sorted.
  std::vector<std::pair<int, int>> hedge_list() const;

  // Grapple offsets (dx, dy), 1 ≤ |dx|+|dy| ≤ 2, sorted by dy then dx (point 28 / action table).
  static constexpr int kLandingOffsets = 12;
  static constexpr int kLandingDx[12] = {0, -1, 0, 1, -2, -1, 1, 2, -1, 0, 1, 0};
  static constexpr int kLandingDy[12] = {-2, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 2};

 private:
  void add_hedge(int a, int b, const std::string& where);

  std::string name_;
  Bits128 water_, bridges_, ring_;
  std::array<std::array<uint8_t, 4>, kCells> neighbor_{};
  std::array<std::array<Edge, 4>, kCells> edge_{};
  std::array<Bits128, kCells> around_{};
  std::array<std::array<uint8_t, kLandingOffsets>, kCells> landing_{};
  std::array<std::array<uint8_t, 4>, 2> char_camp_cells_{};
  std::array<Bits128, 2> char_camp_{}, berry_camp_{};
  std::array<std::array<int, 3>, 2> start_spaces_{};
  Bits128 east_, south_, strawberries_;
  int strawberry_count_ = 0;
  std::array<int, 2> hydras_{};
  std::vector<TilePlacement> tiles_;
  // part 2
  std::array<uint8_t, kCells> dry_steps_{}, ring_dirs_{}, spot_index_{}, moat_tile_{}, slot_of_{};
  std::array<uint8_t, kBridgeSpots> spots_{};
  std::array<int, kCorners> corner_origin_{}, insignia_{}, elbow_{};
  std::array<Bits128, kCorners + 1> corner_bits_{};
  std::array<std::array<uint8_t, 4>, kCorners> corner_cells_{};
  std::array<uint8_t, kCampKinds> camps_{};
  Bits128 marked_;
  std::vector<std::string> face_names_;
  std::vector<int> other_face_, initial_face_;
  std::vector<uint8_t> face_square_;  // per face: 2×2
  std::vector<uint8_t> random_pool_[2];  // D37: face-a index of each tile, rectangular / square
  bool random_ok_ = false;
  std::string random_problem_;
  void prepare_random_pools();
  // [slot][face][transform]: fits, east, south
  struct TileFit {
    bool fits = false;
    Bits128 east, south;
  };
  std::vector<std::array<TileFit, 8>> fits_;  // slot * faces + face
  std::vector<Bits128> slot_east_, slot_south_;
};

}  // namespace meeple::imperial_harvest
