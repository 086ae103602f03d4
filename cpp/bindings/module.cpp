// meeple._core: every game engine, bound with the one protocol of bind_game.h.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

#include "../common/core.h"
#include "../common/thread_pool.h"
#include "gil.h"

namespace py = pybind11;

namespace meeple::bindings {
void bind_abacuachego(py::module_& m);
void bind_harmonies(py::module_& m);
void bind_imperial_harvest(py::module_& m);

// Median time, over `batches` batches of `trips`, for a cache line to go to a second thread and
// back (each thread spins until the other has written it). What the benchmark machine charges for
// sharing data between threads: on a virtual machine it depends on where the host has put the
// virtual cores (tens of ns on one physical core, hundreds apart), and 2-thread stepping with it.
double cross_core_round_trip_ns(int trips, int batches) {
  alignas(64) std::atomic<int64_t> line{0};
  // Spins on the line, yielding once it has waited long: on one core (or with every core busy)
  // the other thread runs only when this one gives its core up.
  const auto await = [&line](int64_t value) {
    for (int spin = 0; line.load(std::memory_order_acquire) != value; ++spin) {
      if (spin < 1000)
        MEEPLE_CPU_PAUSE();
      else
        std::this_thread::yield();
    }
  };
  std::vector<double> times;
  std::thread echo([&] {
    for (int64_t k = 0; k < int64_t{trips} * batches; ++k) {
      await(2 * k + 1);
      line.store(2 * k + 2, std::memory_order_release);
    }
  });
  for (int b = 0; b < batches; ++b) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t k = int64_t{b} * trips; k < int64_t{b + 1} * trips; ++k) {
      line.store(2 * k + 1, std::memory_order_release);
      await(2 * k + 2);
    }
    times.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / trips);
  }
  echo.join();
  std::nth_element(times.begin(), times.begin() + batches / 2, times.end());
  return times[static_cast<size_t>(batches / 2)];
}
}  // namespace meeple::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "meeple's C++ game engines (use the meeple package, not this module directly)";
  m.attr("CHANCE") = meeple::kChancePlayer;
  m.attr("TERMINAL") = meeple::kTerminalPlayer;
  m.attr("MAX_THREADS") = meeple::kMaxThreads;
#ifdef MEEPLE_SANITIZE
  m.attr("SANITIZED") = true;
#else
  m.attr("SANITIZED") = false;
#endif
  m.def(
      "_cross_core_round_trip_ns",
      [](int trips, int batches) {
        if (trips < 1 || batches < 1) throw py::value_error("trips and batches must be >= 1");
        meeple::bindings::ReleasedGil release;
        return meeple::bindings::cross_core_round_trip_ns(trips, batches);
      },
      py::arg("trips") = 20000, py::arg("batches") = 5,
      "Median ns for a cache line to go to a second thread and back (benchmark machine details).");
  // Registered with atexit by meeple/__init__.py: see gil.h.
  m.def("_prepare_for_exit", [] { meeple::bindings::prepare_for_exit(std::chrono::seconds(1)); });
#if defined(__unix__) || defined(__APPLE__)
  pthread_atfork(nullptr, nullptr, [] { meeple::bindings::reset_after_fork(); });
#endif
  meeple::bindings::bind_abacuachego(m);
  meeple::bindings::bind_harmonies(m);
  meeple::bindings::bind_imperial_harvest(m);
}
