#include "board.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace meeple::imperial_harvest {

namespace {

[[noreturn]] void fail(const std::string& board, const std::string& message) {
  throw std::invalid_argument("board '" + board + "': " + message);
}

std::string cell_text(int c) { return std::to_string(cell_x(c)) + "," + std::to_string(cell_y(c)); }

bool valid_cell(int c) { return c >= 0 && c < kCells; }

// The axis a step in orthogonal direction d runs along (kE east–west, kS north–south).
int axis_of(int d) { return (d == kE || d == kW) ? kE : kS; }

}  // namespace

void Board::add_hedge(int a, int b, const std::string& where) {
  if (!valid_cell(a) || !valid_cell(b)) fail(name_, where + ": a hedge cell is off the board");
  if (a > b) std::swap(a, b);
  if (b == a + 1 && cell_y(a) == cell_y(b))
    east_.set(a);
  else if (b == a + kSize)
    south_.set(a);
  else
    fail(name_, where + ": cells " + cell_text(a) + " and " + cell_text(b) + " are not orthogonally adjacent");
}

Board::Board(const BoardSpec& spec) : name_(spec.name), tiles_(spec.tiles) {
  slot_of_.fill(kNone);
  // Terrain (point 2) and bridges (point 4).
  for (int c = 0; c < kCells; ++c)
    if (in_moat_ring(cell_x(c), cell_y(c))) ring_.set(c);
  for (int b : spec.bridges) {
    if (!valid_cell(b) || !ring_.test(b) || is_moat_elbow(cell_x(b), cell_y(b)))
      fail(name_, "bridge " + (valid_cell(b) ? cell_text(b) : std::to_string(b)) +
                      " is not on a non-elbow moat cell");
    if (bridges_.test(b)) fail(name_, "bridge " + cell_text(b) + " listed twice");
    bridges_.set(b);
  }
  water_ = ring_ & ~bridges_;

  // Neighbours and edges.
  for (int c = 0; c < kCells; ++c) {
    for (int d = 0; d < 4; ++d) {
      const int x = cell_x(c) + kDx[d], y = cell_y(c) + kDy[d];
      neighbor_[c][d] = on_board(x, y) ? static_cast<uint8_t>(cell_at(x, y)) : kNone;
      if (neighbor_[c][d] == kNone) continue;
      const int n = neighbor_[c][d];
      edge_[c][d] = (d == kE || d == kW) ? Edge{0, static_cast<uint8_t>(std::min(c, n))}
                                         : Edge{1, static_cast<uint8_t>(std::min(c, n))};
      around_[c].set(n);
    }
  }

  // Hedges: from the tile faces if the board has tiles (point 3), else from the list.
  if (spec.tiles.empty()) {
    for (const auto& [a, b] : spec.hedges) add_hedge(a, b, "hedges");
  } else {
    for (const TileFace& f : spec.faces) {
      face_names_.push_back(f.name);
      face_square_.push_back(f.width == f.height ? 1 : 0);
      for (const TileHedge& hedge : f.hedges)
        if (hedge.x < 0 || hedge.x >= f.width || hedge.y < 0 || hedge.y >= f.height || hedge.side < 0 || hedge.side > 3)
          fail(name_, "face " + f.name + ": hedge outside the tile");
    }
    const int nf = static_cast<int>(spec.faces.size());
    for (int f = 0; f < nf; ++f) {  // the other face: the same name with a <-> b
      std::string other = spec.faces[f].name;
      if (!other.empty()) other.back() = other.back() == 'a' ? 'b' : other.back() == 'b' ? 'a' : other.back();
      int found = f;
      for (int g = 0; g < nf; ++g)
        if (spec.faces[g].name == other) found = g;
      other_face_.push_back(found);
    }
    fits_.assign(spec.tiles.size() * nf, {});
    slot_east_.assign(spec.tiles.size(), {});
    slot_south_.assign(spec.tiles.size(), {});
    for (size_t si = 0; si < spec.tiles.size(); ++si) {
      const TilePlacement& t = spec.tiles[si];
      if (t.width < 1 || t.height < 1 || !on_board(t.x, t.y) || !on_board(t.x + t.width - 1, t.y + t.height - 1))
        fail(name_, "tile slot " + t.slot + " lies off the board");
      for (int y = t.y; y < t.y + t.height; ++y)
        for (int x = t.x; x < t.x + t.width; ++x) {
          const int c = cell_at(x, y);
          if (slot_of_[c] != kNone) fail(name_, "tile slot " + t.slot + " overlaps another slot");
          slot_of_[c] = static_cast<uint8_t>(si);
          for (int d = 0; d < 4; ++d)
            if (neighbor_[c][d] != kNone) {
              const Edge e = edge_[c][d];
              (e.south ? slot_south_[si] : slot_east_[si]).set(e.bit);
            }
        }
      for (int f = 0; f < nf; ++f) {
        const TileFace& face = spec.faces[f];
        for (int tf = 0; tf < 8; ++tf) {
          const int k = tf % 4;
          const bool turned = k % 2 == 1;
          const int w = turned ? face.height : face.width, h = turned ? face.width : face.height;
          TileFit& fit = fits_[si * nf + f][tf];
          if (w != t.width || h != t.height) continue;
          fit.fits = true;
          for (const TileHedge& hedge : face.hedges) {
            int x = hedge.x, y = hedge.y, side = hedge.side, tw = face.width, th = face.height;
            for (int r = 0; r < k; ++r) {  // (x, y) of a w×h tile -> (h-1-y, x); N->E->S->W
              const int nx = th - 1 - y, ny = x;
              x = nx;
              y = ny;
              std::swap(tw, th);
              side = (side + 1) % 4;
            }
            if (tf >= 4) {  // top <-> bottom mirror of the turned tile
              y = th - 1 - y;
              if (side == kN || side == kS) side = 2 - side;
            }
            const int c = cell_at(t.x + x, t.y + y);
            const int n = neighbor_[c][side];
            if (n == kNone) continue;  // outer-edge hedges are dropped
            const Edge e = edge_[c][side];
            (e.south ? fit.south : fit.east).set(e.bit);
          }
        }
      }
      int face = -1;
      for (int f = 0; f < nf; ++f)
        if (spec.faces[f].name == t.face) face = f;
      if (face < 0) fail(name_, "tile slot " + t.slot + ": unknown face '" + t.face + "'");
      if (t.rotation < 0 || t.rotation > 7) fail(name_, "tile slot " + t.slot + ": transform must be 0..7");
      const TileFit& fit = fits_[si * nf + face][t.rotation];
      if (!fit.fits)
        fail(name_, "tile slot " + t.slot + ": face " + t.face + " turned " + std::to_string(t.rotation) +
                        " times does not fit the slot");
      initial_face_.push_back(face);
      east_ |= fit.east;
      south_ |= fit.south;
    }
    prepare_random_pools();
  }

  // Part 2: steps with every non-elbow moat cell bridged (axes by position), bridge spots.
  spot_index_.fill(kNone);
  moat_tile_.fill(kNone);
  int spot = 0;
  for (int c = 0; c < kCells; ++c) {
    const int x = cell_x(c), y = cell_y(c);
    if (ring_.test(c)) moat_tile_[c] = static_cast<uint8_t>((x <= 4 ? 0 : 1) + (y <= 4 ? 0 : 2));
    if (ring_.test(c) && !is_moat_elbow(x, y)) {
      spots_[spot] = static_cast<uint8_t>(c);
      spot_index_[c] = static_cast<uint8_t>(spot++);
    }
  }
  for (int c = 0; c < kCells; ++c) {
    uint8_t open = 0, rings = 0;
    // A bridge at x ∈ {2,7} runs east–west, one at y ∈ {2,7} north–south (point 9's bridge axes).
    auto axis = [](int cell) { return (cell_x(cell) == 2 || cell_x(cell) == 7) ? kE : kS; };
    for (int d = 0; d < 4; ++d) {
      const int n = neighbor_[c][d];
      if (n == kNone) continue;
      if (ring_.test(n)) rings = static_cast<uint8_t>(rings | (1u << d));
      if (ring_.test(c) && (is_moat_elbow(cell_x(c), cell_y(c)) || axis(c) != axis_of(d))) continue;
      if (ring_.test(n) && (is_moat_elbow(cell_x(n), cell_y(n)) || axis(n) != axis_of(d))) continue;
      open = static_cast<uint8_t>(open | (1u << d));
    }
    dry_steps_[c] = open;
    ring_dirs_[c] = rings;
  }

  // Grapple landings.
  for (int c = 0; c < kCells; ++c) {
    for (int o = 0; o < kLandingOffsets; ++o) {
      const int x = cell_x(c) + kLandingDx[o], y = cell_y(c) + kLandingDy[o];
      landing_[c][o] = on_board(x, y) ? static_cast<uint8_t>(cell_at(x, y)) : kNone;
    }
  }

  // Camps.
  auto camp = [&](int origin, const char* what) {
    Bits128 cells;
    const int x = valid_cell(origin) ? cell_x(origin) : -1, y = valid_cell(origin) ? cell_y(origin) : -1;
    if (!on_board(x, y) || !on_board(x + 1, y + 1)) fail(name_, std::string(what) + " camp is off the board");
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const int c = cell_at(x + dx, y + dy);
        if (ring_.test(c)) fail(name_, std::string(what) + " camp overlaps the moat");
        cells.set(c);
      }
    return cells;
  };
  for (int team = 0; team < 2; ++team) {
    char_camp_[team] = camp(spec.character_camp[team], "character");
    berry_camp_[team] = camp(spec.strawberry_camp[team], "strawberry");
    int i = 0;
    char_camp_[team].for_each([&](int c) { char_camp_cells_[team][i++] = static_cast<uint8_t>(c); });
  }
  Bits128 all_camps = char_camp_[0] | char_camp_[1] | berry_camp_[0] | berry_camp_[1];
  corner_origin_ = {0, kSize - 2, (kSize - 2) * kSize, (kSize - 2) * kSize + kSize - 2};
  for (int k = 0; k < kCorners; ++k) {
    const int x0 = cell_x(corner_origin_[k]), y0 = cell_y(corner_origin_[k]);
    int i = 0, best = -1, best_d = 1000;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const int c = cell_at(x0 + dx, y0 + dy);
        corner_bits_[k].set(c);
        const int dist = std::abs(2 * (x0 + dx) - 9) + std::abs(2 * (y0 + dy) - 9);
        if (dist < best_d) best_d = dist, best = c;
      }
    corner_bits_[k].for_each([&](int c) { corner_cells_[k][i++] = static_cast<uint8_t>(c); });
    insignia_[k] = best;
    elbow_[k] = cell_at(x0 < 5 ? 2 : 7, y0 < 5 ? 2 : 7);
  }
  const int origins[kCampKinds] = {spec.character_camp[0], spec.strawberry_camp[0], spec.character_camp[1],
                                   spec.strawberry_camp[1]};
  for (int kind = 0; kind < kCampKinds; ++kind) {
    camps_[kind] = kNone;
    for (int k = 0; k < kCorners; ++k)
      if (origins[kind] == corner_origin_[k]) camps_[kind] = static_cast<uint8_t>(k);
    if (camps_[kind] == kNone) fail(name_, std::string(kCampKindNames[kind]) + " camp is not in a corner");
  }
  if (all_camps.count() != 16) fail(name_, "camps overlap");
  start_spaces_ = spec.start_spaces;
  for (int team = 0; team < 2; ++team)
    for (int i = 0; i < 3; ++i) {
      const int c = start_spaces_[team][i];
      if (!valid_cell(c) || !char_camp_[team].test(c))
        fail(name_, "start space " + std::to_string(i) + " of team " + std::to_string(team) +
                        " is not on its character camp");
      for (int j = 0; j < i; ++j)
        if (start_spaces_[team][j] == c) fail(name_, "start space " + cell_text(c) + " listed twice");
    }

  // Strawberries and hydras.
  for (int c : spec.strawberries) {
    if (!valid_cell(c) || water_.test(c)) fail(name_, "a strawberry is off the board or on water");
    if (strawberries_.test(c)) fail(name_, "strawberry " + cell_text(c) + " listed twice");
    strawberries_.set(c);
  }
  strawberry_count_ = strawberries_.count();
  for (size_t i = 0; i < spec.strawberries.size() && i < 12; ++i) marked_.set(spec.strawberries[i]);
  if (strawberry_count_ > 100) fail(name_, "too many strawberries");
  hydras_ = spec.hydras;
  for (int h : hydras_)
    if (!valid_cell(h) || !water_.test(h)) fail(name_, "a hydra is not on a water cell");
  if (hydras_[0] == hydras_[1]) fail(name_, "the two hydras share a cell");
}

int Board::interior_corner(int e) {
  return cell_at(cell_x(e) == 2 ? 3 : 6, cell_y(e) == 2 ? 3 : 6);
}

bool Board::tile_hedges(int slot, int f, int t, Bits128& east, Bits128& south) const {
  const int nf = static_cast<int>(face_names_.size());
  if (slot < 0 || slot >= slot_count() || f < 0 || f >= nf || t < 0 || t > 7) return false;
  const TileFit& fit = fits_[slot * nf + f][t];
  if (!fit.fits) return false;
  east = fit.east;
  south = fit.south;
  return true;
}

std::vector<std::pair<int, int>> Board::hedge_list() const {
  std::vector<std::pair<int, int>> out;
  for (int c = 0; c < kCells; ++c) {
    if (east_.test(c)) out.emplace_back(c, c + 1);
    if (south_.test(c)) out.emplace_back(c, c + kSize);
  }
  return out;
}

}  // namespace meeple::imperial_harvest
