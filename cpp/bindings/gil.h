// Releasing the GIL around long computations, safely at interpreter exit.
//
// A daemon thread may still be inside a step, a search or a perft when the main thread exits.
// CPython (before 3.14) ends such a thread with pthread_exit once it asks for the GIL back after
// shutdown has begun, and pthread_exit unwinds the stack: through py::gil_scoped_release's
// destructor, which is noexcept, that aborts the whole process ("terminate called without an
// active exception", exit status 134) after a program that otherwise finished normally.
//
// So meeple registers an atexit handler (prepare_for_exit), which runs before shutdown begins:
// from then on a thread that finishes a computation waits for the process to end instead of
// asking for the GIL (as CPython 3.14 makes such threads do itself), and the handler lets the
// threads already asking for it have it first. Computations that check for Ctrl-C
// (interrupt.h) also stop early then.
#pragma once

#include <Python.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace meeple::bindings {

namespace gil_detail {
inline std::atomic<bool> exiting{false};      // prepare_for_exit has run
inline std::atomic<int> computing{0};         // threads in a ReleasedGil or PythonCallingComputation
                                              // scope, not waiting for exit
inline std::thread::id exit_thread;           // the thread that runs the shutdown (never waits)
}  // namespace gil_detail

// True once the interpreter is about to shut down (for threads other than the one shutting it down).
inline bool exit_pending() {
  return gil_detail::exiting.load(std::memory_order_acquire) &&
         std::this_thread::get_id() != gil_detail::exit_thread;
}

// Parks the calling thread, which must not hold the GIL, until the process ends.
[[noreturn]] inline void wait_for_exit() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// py::gil_scoped_release that does not take the GIL back once the interpreter is exiting.
class ReleasedGil {
 public:
  ReleasedGil() {
    gil_detail::computing.fetch_add(1, std::memory_order_acq_rel);
    saved_ = PyEval_SaveThread();
  }
  ~ReleasedGil() {
    if (exit_pending()) {
      gil_detail::computing.fetch_sub(1, std::memory_order_acq_rel);
      wait_for_exit();
    }
    PyEval_RestoreThread(saved_);
    gil_detail::computing.fetch_sub(1, std::memory_order_acq_rel);
  }
  ReleasedGil(const ReleasedGil&) = delete;
  ReleasedGil& operator=(const ReleasedGil&) = delete;

 private:
  PyThreadState* saved_ = nullptr;
};

// A computation that holds the GIL and calls Python code as it goes (an MCTS evaluator). Python
// code, and numpy (which releases the GIL around large casts), hand the GIL over now and then, so
// a daemon thread in such a computation can also be ended by CPython at shutdown: it is unwound
// from deep inside a call, and the destructors of the Python objects on the way would release
// them without the GIL while the main thread finalizes (a crash). Counted with the ReleasedGil
// scopes, it gets the time to notice the exit and stop (`stop_for_exit`: it must ask
// exit_pending() between its calls) before shutdown begins.
class PythonCallingComputation {
 public:
  PythonCallingComputation() { gil_detail::computing.fetch_add(1, std::memory_order_acq_rel); }
  ~PythonCallingComputation() { gil_detail::computing.fetch_sub(1, std::memory_order_acq_rel); }
  PythonCallingComputation(const PythonCallingComputation&) = delete;
  PythonCallingComputation& operator=(const PythonCallingComputation&) = delete;

  // At exit_pending(): releases the GIL and waits for the end of the process.
  [[noreturn]] void stop_for_exit() {
    gil_detail::computing.fetch_sub(1, std::memory_order_acq_rel);
    PyEval_SaveThread();
    wait_for_exit();
  }
};

// The atexit handler (called with the GIL held): marks the exit, then releases the GIL until every
// other thread inside a ReleasedGil scope has got the GIL back or is waiting for the exit, and
// every PythonCallingComputation has stopped (at most `timeout`: a step of millions of states does
// not stop early, nor does a computation inside a long Python call).
inline void prepare_for_exit(std::chrono::milliseconds timeout) {
  gil_detail::exit_thread = std::this_thread::get_id();
  gil_detail::exiting.store(true, std::memory_order_release);
  if (gil_detail::computing.load(std::memory_order_acquire) == 0) return;
  PyThreadState* saved = PyEval_SaveThread();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (gil_detail::computing.load(std::memory_order_acquire) > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  PyEval_RestoreThread(saved);
}

// In a child made by fork(): only the forking thread exists there, and it held the GIL.
inline void reset_after_fork() { gil_detail::computing.store(0, std::memory_order_relaxed); }

}  // namespace meeple::bindings
