// Ctrl-C for computations run with the GIL released (perft, MCTS, random playouts).
//
// Python runs signal handlers only between bytecodes, so without this a long perft ignored Ctrl-C
// until it finished. The computation asks a PythonInterrupt between units of work; on the calling
// thread (thread 0) it takes the GIL about every 50 ms and runs pending signal handlers
// (PyErr_CheckSignals). Once a handler raises, every thread sees the verdict through one flag and
// stops; with the GIL back, raise_if_interrupted() re-raises the handler's exception
// (KeyboardInterrupt for Ctrl-C), which CPython kept in the calling thread's state meanwhile.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "gil.h"

namespace meeple::bindings {

namespace py = pybind11;

class PythonInterrupt {
 public:
  // True once a signal handler raised: the computation should return early.
  bool operator()(int thread) {
    if (interrupted_.load(std::memory_order_relaxed)) return true;
    if (thread != 0 || (++calls_ & (kCallsPerClockRead - 1)) != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_check_) return false;
    next_check_ = now + kInterval;
    // At interpreter exit (a daemon thread still computing): stop, and let ReleasedGil wait
    // for the end of the process (gil.h) rather than ask for the GIL.
    if (exit_pending()) {
      interrupted_.store(true, std::memory_order_relaxed);
      return true;
    }
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    interrupted_.store(true, std::memory_order_relaxed);
    return true;
  }

  // Called with the GIL held after the computation: raises what the signal handler raised.
  void raise_if_interrupted() const {
    if (interrupted_.load(std::memory_order_relaxed)) throw py::error_already_set();
  }

 private:
  static constexpr uint32_t kCallsPerClockRead = 64;  // a clock read costs about 20 ns
  static constexpr std::chrono::milliseconds kInterval{50};

  std::atomic<bool> interrupted_{false};
  uint32_t calls_ = 0;  // thread 0 only
  std::chrono::steady_clock::time_point next_check_ = std::chrono::steady_clock::now() + kInterval;
};

}  // namespace meeple::bindings
