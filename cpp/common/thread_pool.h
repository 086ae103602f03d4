// A small persistent pool for `parallel_for` over index ranges: batched stepping calls it once per
// step (tens of microseconds of work), so the workers stay alive between calls, and the costs that
// would eat the gain of a second thread are avoided:
//  - each thread owns the same share of the range at every call (thread t: the t-th of `threads`
//    equal parts), so the states it steps stay in its own core's cache; handing index blocks out
//    first-come-first-served moved states between cores at every step, and a cache line that
//    another core modified costs a slow transfer;
//  - a thread takes blocks from the front of its share, smaller as the share drains; a thread whose
//    share is empty takes the back half of the fullest other share. So a worker that wakes late (a
//    sleeping thread takes tens of microseconds to wake) does not leave the caller idle, and at
//    the end a thread waits for the other at most a short block (fixed blocks of 1/16 of the
//    range left up to one block, ~3 µs of a 25 µs step, to one thread alone);
//  - an optional check pass (checked_parallel_for) runs split over the threads too, each part
//    claimed by whichever thread comes first, and the body starts only once every part passed:
//    validating a batch before changing anything costs a share of it, not all of it, on one thread;
//  - a worker takes part in a call only if it joins it while the call is open; once the caller
//    has run out of work it closes the call and waits only for the workers inside. A worker that
//    is not running (the machine has more busy threads than cores) never holds a call up: with
//    two processes stepping on two threads each on a 2-core machine, waiting for every worker cost
//    a scheduler time slice per step, 15 times the step itself;
//  - every wait spins briefly (with a pause), then spins yielding the core to any other runnable
//    thread, then sleeps; back-to-back steps find the workers awake, and a spinning thread does not
//    keep a core from a thread that has work.
// Which thread runs which items never matters to callers: each index owns its own state and RNG.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#define MEEPLE_CPU_PAUSE() _mm_pause()
#else
#define MEEPLE_CPU_PAUSE() std::this_thread::yield()
#endif

namespace meeple {

// More threads than this is a mistake, not a machine: the bindings refuse it with ValueError.
inline constexpr int kMaxThreads = 1024;

inline std::string thread_start_failure(size_t thread, int threads, const std::exception& e) {
  return "cannot start thread " + std::to_string(thread) + " of " + std::to_string(threads) +
         " (the system refused: " + e.what() + "); use fewer threads";
}

// Runs job(t) for t = 0 .. threads-1, job(0) on the calling thread, and returns when all are done.
// The first exception a job threw is rethrown then (a bare std::thread would terminate the
// process); a thread the system cannot start is a std::runtime_error, thrown once the started
// ones have finished.
template <class Job>
void run_on_threads(int threads, const Job& job) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(std::max(1, threads)));
  auto guarded = [&](int t) {
    try {
      job(t);
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(std::max(0, threads - 1)));  // no reallocation once threads run
  std::string start_failure;
  for (int t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(guarded, t);
    } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for its state
      start_failure = thread_start_failure(static_cast<size_t>(t) + 1, threads, e);
      break;
    }
  }
  if (start_failure.empty()) guarded(0);
  for (std::thread& worker : pool) worker.join();
  if (!start_failure.empty()) throw std::runtime_error(start_failure);
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

class ThreadPool {
 public:
  using Body = std::function<void(int64_t, int64_t)>;
  // Returns the first index of [begin, end) that fails, or -1.
  using Check = std::function<int64_t(int64_t, int64_t)>;

  explicit ThreadPool(int threads) : threads_(std::max(1, threads)), shares_(static_cast<size_t>(threads_)) {
    workers_.reserve(static_cast<size_t>(threads_ - 1));  // no reallocation once workers run
    try {
      for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
    } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for its state
      // The started workers wait on members that unwinding would destroy under them: stop them.
      const size_t started = workers_.size();
      stop_workers();
      throw std::runtime_error(thread_start_failure(started + 1, threads_, e));
    }
  }
  ~ThreadPool() { stop_workers(); }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Whether parallel_for(n, ..., min_parallel) runs on the calling thread alone.
  bool inline_run(int64_t n, int64_t min_parallel) const {
    return threads_ == 1 || n < std::max<int64_t>(2, min_parallel);
  }

  // Calls body(begin, end) on contiguous blocks covering [0, n), spread over the threads; returns
  // when all are done. Below `min_parallel` items it runs inline: a batch that small costs less
  // than the hand-off.
  void parallel_for(int64_t n, const Body& body, int64_t min_parallel = 2) {
    run(n, nullptr, body, min_parallel);
  }

  // check(begin, end) over blocks covering [0, n) first; if no index fails, body as parallel_for.
  // Returns the smallest failing index (the body then ran nowhere), or -1.
  int64_t checked_parallel_for(int64_t n, const Check& check, const Body& body, int64_t min_parallel = 2) {
    return run(n, &check, body, min_parallel);
  }

 private:
  // One thread's part of the range; on its own cache line, so taking a block of one share does
  // not slow the thread counting through another.
  struct alignas(64) Share {
    std::atomic<uint64_t> range{0};  // pack(begin, end): the items not yet taken
    std::atomic<bool> check_claimed{false};
  };

  using Clock = std::chrono::steady_clock;
  // How long a waiting thread spins before it yields between pauses, and before it sleeps. Long
  // enough to span the Python code between two steps, short enough not to burn a core that
  // another process needs for long.
  static constexpr auto kSpinOnly = std::chrono::microseconds(5);
  static constexpr auto kSpinAtMost = std::chrono::microseconds(200);
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  // Share ranges are packed [begin, end) in one 64-bit word (one atomic update takes or splits).
  static constexpr int64_t kMaxPacked = std::numeric_limits<int32_t>::max();
  // call_ = (call number << 32) | kClosed once the caller has run out of work | workers inside.
  static constexpr uint64_t kClosed = uint64_t{1} << 31;
  static constexpr uint64_t kInside = kClosed - 1;

  static uint64_t pack(int64_t begin, int64_t end) {
    return static_cast<uint64_t>(begin) | (static_cast<uint64_t>(end) << 32);
  }
  static int64_t begin_of(uint64_t range) { return static_cast<int64_t>(range & 0xffffffffu); }
  static int64_t end_of(uint64_t range) { return static_cast<int64_t>(range >> 32); }

  int64_t run(int64_t n, const Check* check, const Body& body, int64_t min_parallel) {
    if (inline_run(n, min_parallel)) {
      const int64_t bad = check ? (*check)(0, n) : -1;
      if (bad < 0) body(0, n);
      return bad;
    }
    if (n <= kMaxPacked) return run_slice(n, check, &body);
    // Ranges are packed in 32 bits: a larger n runs as consecutive slices (no caller needs this),
    // all checked before any body runs.
    for (int64_t offset = 0; offset < n && check; offset += kMaxPacked) {
      const Check sliced = [check, offset](int64_t b, int64_t e) { return (*check)(b + offset, e + offset); };
      const int64_t bad = run_slice(std::min(kMaxPacked, n - offset), &sliced, nullptr);
      if (bad >= 0) return bad;  // check reports indices of [0, n)
    }
    for (int64_t offset = 0; offset < n; offset += kMaxPacked) {
      const Body sliced = [&body, offset](int64_t b, int64_t e) { body(b + offset, e + offset); };
      run_slice(std::min(kMaxPacked, n - offset), nullptr, &sliced);
    }
    return -1;
  }

  // Where thread t's share of the current call begins (t = threads_: the end).
  int64_t part_begin(int t) const { return n_ * t / threads_; }

  int64_t run_slice(int64_t n, const Check* check, const Body* body) {
    // No worker is inside a call between calls (the last one ended with none inside), so the
    // call's fields are written plainly; the store that opens the call publishes them.
    check_ = check;
    body_ = body;
    n_ = n;
    for (int t = 0; t < threads_; ++t) {
      Share& share = shares_[static_cast<size_t>(t)];
      share.range.store(pack(part_begin(t), part_begin(t + 1)), std::memory_order_relaxed);
      share.check_claimed.store(false, std::memory_order_relaxed);
    }
    checked_.store(0, std::memory_order_relaxed);
    first_bad_.store(kNone, std::memory_order_relaxed);
    const uint64_t number = (call_.load(std::memory_order_relaxed) >> 32) + 1;
    call_.store(number << 32, std::memory_order_seq_cst);  // open, nobody inside
    notify(wake_);
    run_call(0);
    // Every check part and every item is taken: close the call, so that a worker arriving now
    // stays out, and wait for the ones inside (they are finishing their last block).
    if ((call_.fetch_or(kClosed, std::memory_order_seq_cst) & kInside) != 0)
      wait_until(done_, [this] { return (call_.load(std::memory_order_seq_cst) & kInside) == 0; });
    const int64_t bad = first_bad_.load(std::memory_order_relaxed);
    return bad == kNone ? -1 : bad;
  }

  // Thread `self`'s part of a call: the check parts it claims, the barrier, then the body.
  void run_call(int self) {
    if (check_) {
      for (int k = 0; k < threads_; ++k) {
        const int t = (self + k) % threads_;
        Share& share = shares_[static_cast<size_t>(t)];
        if (share.check_claimed.exchange(true, std::memory_order_relaxed)) continue;
        const int64_t bad = (*check_)(part_begin(t), part_begin(t + 1));
        if (bad >= 0) {
          int64_t seen = first_bad_.load(std::memory_order_relaxed);
          while (bad < seen && !first_bad_.compare_exchange_weak(seen, bad, std::memory_order_relaxed)) {
          }
        }
        if (checked_.fetch_add(1, std::memory_order_seq_cst) + 1 == threads_) notify(done_);
      }
      // Every part is claimed by a thread inside the call, so this wait ends.
      wait_until(done_, [this] { return checked_.load(std::memory_order_seq_cst) == threads_; });
      if (first_bad_.load(std::memory_order_relaxed) != kNone) return;
    }
    if (body_) run_blocks(self);
  }

  // Thread `self` runs blocks from the front of its own share; when that is empty, it moves the
  // back half of the fullest other share into its own and goes on. Every index is in exactly one
  // share or one running block, so each runs once.
  void run_blocks(int self) {
    Share& own = shares_[static_cast<size_t>(self)];
    const int64_t min_block = std::max<int64_t>(1, n_ / (64 * threads_));
    const int64_t max_block = std::max<int64_t>(min_block, n_ / (8 * threads_));
    for (;;) {
      uint64_t range = own.range.load(std::memory_order_relaxed);
      for (;;) {
        const int64_t begin = begin_of(range), end = end_of(range);
        if (begin >= end) break;
        // Blocks shrink as the share drains, so the last ones are short.
        const int64_t take = std::clamp<int64_t>((end - begin) / 4, min_block, max_block);
        const int64_t stop = std::min(end, begin + take);
        if (!own.range.compare_exchange_weak(range, pack(stop, end), std::memory_order_relaxed)) continue;
        (*body_)(begin, stop);
        range = own.range.load(std::memory_order_relaxed);
      }
      if (!steal_into(self, own)) return;
    }
  }

  // Moves the back half of the fullest other share into `own` (empty); false if all are empty.
  bool steal_into(int self, Share& own) {
    for (;;) {
      int victim = -1;
      int64_t most = 0;
      uint64_t victim_range = 0;
      for (int t = 0; t < threads_; ++t) {
        if (t == self) continue;
        const uint64_t r = shares_[static_cast<size_t>(t)].range.load(std::memory_order_relaxed);
        if (end_of(r) - begin_of(r) > most) {
          most = end_of(r) - begin_of(r);
          victim = t;
          victim_range = r;
        }
      }
      if (victim < 0) return false;
      const int64_t begin = begin_of(victim_range), end = end_of(victim_range);
      const int64_t middle = begin + (end - begin) / 2;  // one item left: take it
      if (shares_[static_cast<size_t>(victim)].range.compare_exchange_strong(
              victim_range, pack(begin, middle), std::memory_order_relaxed)) {
        // Nobody takes from an empty share, so a plain store hands the stolen part over.
        own.range.store(pack(middle, end), std::memory_order_relaxed);
        return true;
      }
    }
  }

  void work(int self) {
    uint64_t last = 0;  // the number of the last call this thread looked at
    for (;;) {
      uint64_t call = 0;
      wait_until(wake_, [&] {
        call = call_.load(std::memory_order_seq_cst);
        return (call >> 32) != last || stop_.load(std::memory_order_seq_cst);
      });
      if (stop_.load(std::memory_order_relaxed)) return;
      last = call >> 32;
      // Join while the call is open; a closed call (or a newer one, found at the next wait) is
      // left alone.
      bool joined = false;
      while (!joined && !(call & kClosed) && (call >> 32) == last)
        joined = call_.compare_exchange_weak(call, call + 1, std::memory_order_seq_cst);
      if (!joined) continue;
      run_call(self);
      const uint64_t after = call_.fetch_sub(1, std::memory_order_seq_cst) - 1;
      if ((after & kClosed) && (after & kInside) == 0) notify(done_);
    }
  }

  // Waits until ready(): spins, then spins yielding the core, then sleeps on `cv` (woken by
  // notify(cv) after whatever makes ready() true). ready() reads its atomics seq_cst: a sleeper
  // announces itself before its last look, a notifier changes the state before it looks for
  // sleepers, so one of them sees the other.
  template <class Ready>
  void wait_until(std::condition_variable& cv, Ready ready) {
    const Clock::time_point start = Clock::now();
    for (int spin = 1; !ready(); ++spin) {
      MEEPLE_CPU_PAUSE();
      if (spin % 64 != 0) continue;
      const Clock::duration waited = Clock::now() - start;
      if (waited > kSpinAtMost) {
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        {
          std::unique_lock<std::mutex> lock(mutex_);
          cv.wait(lock, ready);
        }
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
        return;
      }
      if (waited > kSpinOnly) std::this_thread::yield();
    }
  }

  void stop_workers() {
    stop_.store(true, std::memory_order_seq_cst);
    notify(wake_);
    for (std::thread& w : workers_) w.join();
    workers_.clear();
  }

  void notify(std::condition_variable& cv) {
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    { std::lock_guard<std::mutex> lock(mutex_); }  // a sleeper is either before its last look or waiting
    cv.notify_all();
  }

  int threads_;
  std::vector<Share> shares_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const Check* check_ = nullptr;
  const Body* body_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int> checked_{0};
  std::atomic<int64_t> first_bad_{kNone};
  std::atomic<uint64_t> call_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace meeple
