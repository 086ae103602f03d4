#include "board.h"

#include <algorithm>
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
  // Terrain (point 2) and bridges (point 4).
  for (int c = 0; c < kCells; ++c)
    if (in_moat_ring(cell_x(c), cell_y(c))) ring_.set(c);
  for (int b : spec.bridges) {
    if (!valid_cell(b) || !ring_.test(b) || is_moat_elbow(cell_x(b), cell_y(b)))
      fail(name_, "bridge " + (valid_cell(b) ? cell_text(b) : std::to_string(b)) +
                      " is not on a non-elbow moat cell");
    if (bridges_.test(b)) fail(name_, "bridge " + cell_text(b) + " listed twice");
    bridges_.set(b);
    axis_[b] = static_cast<uint8_t>((cell_x(b) == 2 || cell_x(b) == 7) ? kE : kS);
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
    for (const TilePlacement& t : spec.tiles) {
      const TileFace* face = nullptr;
      for (const TileFace& f : spec.faces)
        if (f.name == t.face) face = &f;
      if (!face) fail(name_, "tile slot " + t.slot + ": unknown face '" + t.face + "'");
      if (t.rotation < 0 || t.rotation > 3)
        fail(name_, "tile slot " + t.slot + ": rotation must be 0..3");
      const bool turned = t.rotation % 2 == 1;
      const int w = turned ? face->height : face->width, h = turned ? face->width : face->height;
      if (w != t.width || h != t.height)
        fail(name_, "tile slot " + t.slot + ": face " + t.face + " turned " + std::to_string(t.rotation) +
                        " times does not fit the slot");
      for (const TileHedge& hedge : face->hedges) {
        int x = hedge.x, y = hedge.y, side = hedge.side, tw = face->width, th = face->height;
        if (x < 0 || x >= tw || y < 0 || y >= th || side < 0 || side > 3)
          fail(name_, "face " + face->name + ": hedge outside the tile");
        for (int k = 0; k < t.rotation; ++k) {  // (x, y) of a w×h tile -> (h-1-y, x); N->E->S->W
          const int nx = th - 1 - y, ny = x;
          x = nx;
          y = ny;
          std::swap(tw, th);
          side = (side + 1) % 4;
        }
        const int bx = t.x + x, by = t.y + y;
        if (!on_board(bx, by)) fail(name_, "tile slot " + t.slot + " lies off the board");
        const int c = cell_at(bx, by);
        const int n = neighbor_[c][side];
        if (n != kNone) add_hedge(c, n, "tile slot " + t.slot);  // outer-edge hedges are dropped
      }
    }
  }

  // Steps without hedges (point 9).
  for (int c = 0; c < kCells; ++c) {
    uint8_t open = 0;
    for (int d = 0; d < 4; ++d) {
      const int n = neighbor_[c][d];
      if (n == kNone || water_.test(c) || water_.test(n)) continue;
      if (axis_[c] && axis_[c] != axis_of(d)) continue;
      if (axis_[n] && axis_[n] != axis_of(d)) continue;
      open = static_cast<uint8_t>(open | (1u << d));
    }
    open_steps_[c] = open;
  }

  // Hydra steps (point 27): to a moat cell; onto a bridge it dives and comes up past it.
  for (int c = 0; c < kCells; ++c) {
    for (int d = 0; d < 4; ++d) {
      int n = neighbor_[c][d];
      while (n != kNone && bridges_.test(n)) n = neighbor_[n][d];
      hydra_step_[c][d] = (ring_.test(c) && n != kNone && water_.test(n)) ? static_cast<uint8_t>(n) : kNone;
    }
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
  if (strawberry_count_ > 100) fail(name_, "too many strawberries");
  hydras_ = spec.hydras;
  for (int h : hydras_)
    if (!valid_cell(h) || !water_.test(h)) fail(name_, "a hydra is not on a water cell");
  if (hydras_[0] == hydras_[1]) fail(name_, "the two hydras share a cell");
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
