// A small persistent pool for `parallel_for` over index ranges: batched stepping calls it once per
// step, so the workers must stay alive between calls (starting threads costs more than a step).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace meeple {

class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threads_(std::max(1, threads)) {
    for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return threads_; }

  // Calls body(begin, end) on `threads` contiguous chunks of [0, n); returns when all are done.
  // Below `min_parallel` items it runs inline: waking a worker costs more than a small batch.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& body,
                    int64_t min_parallel = 2) {
    if (threads_ == 1 || n < std::max<int64_t>(2, min_parallel)) {
      body(0, n);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      n_ = n;
      pending_ = threads_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    run_chunk(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    body_ = nullptr;
  }

 private:
  void run_chunk(int t) {
    const int64_t chunk = (n_ + threads_ - 1) / threads_;
    const int64_t begin = std::min<int64_t>(n_, t * chunk), end = std::min<int64_t>(n_, begin + chunk);
    if (begin < end) (*body_)(begin, end);
  }

  void work(int t) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
      }
      run_chunk(t);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_one();
    }
  }

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)>* body_ = nullptr;
  int64_t n_ = 0;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace meeple
