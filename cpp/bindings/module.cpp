// meeple._core: every game engine, bound with the one protocol of bind_game.h.
#include <pybind11/pybind11.h>

#include "../common/core.h"

namespace py = pybind11;

namespace meeple::bindings {
void bind_abacuachego(py::module_& m);
void bind_harmonies(py::module_& m);
void bind_imperial_harvest(py::module_& m);
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "meeple's C++ game engines (use the meeple package, not this module directly)";
  m.attr("CHANCE") = meeple::kChancePlayer;
  m.attr("TERMINAL") = meeple::kTerminalPlayer;
#ifdef MEEPLE_SANITIZE
  m.attr("SANITIZED") = true;
#else
  m.attr("SANITIZED") = false;
#endif
  meeple::bindings::bind_abacuachego(m);
  meeple::bindings::bind_harmonies(m);
  meeple::bindings::bind_imperial_harvest(m);
}
