// A small persistent pool for `parallel_for` over index ranges: batched stepping calls it once per
// step (tens of microseconds of work), so the workers stay alive between calls, and three costs
// that would eat the gain of a second thread are avoided:
//  - each thread owns the same share of the range at every call (thread t: the t-th of `threads`
//    equal parts), so the states it steps stay in its own core's cache; handing index blocks out
//    first-come-first-served moved states between cores at every step, and a cache line that
//    another core modified costs a slow transfer;
//  - a worker that wakes late (a sleeping thread takes tens of microseconds to wake, more on a busy
//    machine) must not leave the caller idle: each share is cut into blocks taken from the share's
//    own counter, and a thread done with its share takes the blocks left in the others;
//  - between calls a worker spins briefly (with a pause) before it sleeps, so back-to-back steps
//    find it awake; the caller also spins briefly before sleeping on the last block.
// Which thread runs which block never matters to callers: each index owns its own state and RNG.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#define MEEPLE_CPU_PAUSE() _mm_pause()
#else
#define MEEPLE_CPU_PAUSE() std::this_thread::yield()
#endif

namespace meeple {

class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threads_(std::max(1, threads)), shares_(static_cast<size_t>(threads_)) {
    for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls body(begin, end) on contiguous blocks covering [0, n), spread over the threads; returns
  // when all are done. Below `min_parallel` items it runs inline: a batch that small costs less
  // than the hand-off.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body,
                    int64_t min_parallel = 2) {
    if (threads_ == 1 || n < std::max<int64_t>(2, min_parallel)) {
      body(0, n);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      block_ = std::max<int64_t>(1, n / (8 * threads_));  // 8 blocks per share: fine enough to rebalance
      for (int t = 0; t < threads_; ++t) {
        shares_[static_cast<size_t>(t)].next.store(n * t / threads_, std::memory_order_relaxed);
        shares_[static_cast<size_t>(t)].end = n * (t + 1) / threads_;
      }
      busy_.store(threads_ - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_blocks(0);
    // Wait for the workers still inside a block: spin a little (they are usually about to finish),
    // then sleep.
    for (int spin = 0; spin < kSpins && busy_.load(std::memory_order_acquire) != 0; ++spin) MEEPLE_CPU_PAUSE();
    if (busy_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
    }
  }

 private:
  static constexpr int kSpins = 20000;  // roughly 50-200 µs of pause instructions

  // Thread `self` runs the blocks of its own share, then whatever is left of the others'.
  void run_blocks(int self) {
    for (int k = 0; k < threads_; ++k) {
      Share& share = shares_[static_cast<size_t>((self + k) % threads_)];
      for (;;) {
        const int64_t begin = share.next.fetch_add(block_, std::memory_order_relaxed);
        if (begin >= share.end) break;
        (*body_)(begin, std::min(share.end, begin + block_));
      }
    }
  }

  void work(int self) {
    uint64_t seen = 0;
    for (;;) {
      // A new call soon after the last one finds this thread spinning, not asleep.
      uint64_t now = generation_.load(std::memory_order_acquire);
      for (int spin = 0; spin < kSpins && now == seen; ++spin) {
        MEEPLE_CPU_PAUSE();
        now = generation_.load(std::memory_order_acquire);
      }
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        seen = generation_.load(std::memory_order_acquire);
        if (stop_) return;
      }
      run_blocks(self);
      if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's predicate check
        done_.notify_one();
      }
    }
  }

  // One thread's part of the range; on its own cache line, so taking a block of one share does
  // not slow the thread counting through another.
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  int threads_;
  std::vector<Share> shares_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* body_ = nullptr;
  int64_t block_ = 1;
  std::atomic<int> busy_{0};
  std::atomic<uint64_t> generation_{0};
  bool stop_ = false;
};

}  // namespace meeple
