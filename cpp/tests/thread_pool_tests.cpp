// The thread pool behind VectorGame (common/thread_pool.h), on its own so that CI also runs it
// under ThreadSanitizer: every index runs exactly once on any number of threads, for any batch
// size, when a thread is slow (the others take its items) and when the workers have gone to
// sleep between calls, and when pools have more threads than the machine has cores; a checked
// call runs the body nowhere if any index fails and reports the smallest failing one.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/thread_pool.h"
#include "check.h"

namespace {

using Counts = std::vector<std::atomic<int>>;

bool all_equal(const Counts& counts, int expected) {
  for (const auto& c : counts)
    if (c.load() != expected) return false;
  return true;
}

void check_every_index_once() {
  for (int threads = 1; threads <= 4; ++threads) {
    meeple::ThreadPool pool(threads);
    for (const int64_t n : {0, 1, 2, 3, 7, 64, 255, 256, 1000, 4097}) {
      for (int round = 0; round < 4; ++round) {
        Counts runs(static_cast<size_t>(n));
        pool.parallel_for(n, [&](int64_t begin, int64_t end) {
          // Round 2: the block at 0 is slow, so the other threads take most of the work; round 3
          // comes after the workers have fallen asleep.
          if (round == 2 && begin == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
          for (int64_t i = begin; i < end; ++i) runs[static_cast<size_t>(i)].fetch_add(1);
        });
        CHECK(all_equal(runs, 1));
        if (round == 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }
  std::printf("ok   thread pool: every index once on 1..4 threads, slow blocks, sleeping workers\n");
}

void check_checked_calls() {
  for (int threads = 1; threads <= 4; ++threads) {
    meeple::ThreadPool pool(threads);
    for (const int64_t n : {1, 2, 3, 300, 1024, 4097}) {
      Counts runs(static_cast<size_t>(n));
      const auto body = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) runs[static_cast<size_t>(i)].fetch_add(1);
      };
      int expected = 0;
      for (const int64_t bad : {int64_t{-1}, n / 3, n - 1, int64_t{0}, int64_t{-1}}) {
        Counts checked(static_cast<size_t>(n));
        const auto check = [&](int64_t begin, int64_t end) -> int64_t {
          for (int64_t i = begin; i < end; ++i) {
            checked[static_cast<size_t>(i)].fetch_add(1);
            if (bad >= 0 && i >= bad) return i;  // every index from `bad` on fails
          }
          return -1;
        };
        CHECK(pool.checked_parallel_for(n, check, body, 2) == bad);
        if (bad < 0) {
          ++expected;
          CHECK(all_equal(checked, 1));
        }
        CHECK(all_equal(runs, expected));  // a failed check ran the body nowhere
      }
    }
  }
  std::printf("ok   thread pool: checked calls run all or nothing and name the first failure\n");
}

// Many short calls back to back, as VectorGame steps: the hand-off between calls stays correct.
void check_back_to_back_calls() {
  meeple::ThreadPool pool(2);
  std::vector<int64_t> values(1024, 0);
  for (int call = 0; call < 3000; ++call)
    pool.parallel_for(static_cast<int64_t>(values.size()), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) values[static_cast<size_t>(i)] += i;
    });
  for (size_t i = 0; i < values.size(); ++i) CHECK(values[i] == 3000 * static_cast<int64_t>(i));
  std::printf("ok   thread pool: 3000 back-to-back calls\n");
}

// More busy threads than cores: four pools of 3 threads, each driven by its own caller, on a
// machine of 2 cores. Workers are often not running when a call opens; the calls they miss must
// still run every index once, and checked calls still run all or nothing.
void check_more_threads_than_cores() {
  constexpr int kCallers = 4;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&failures, c] {
      meeple::ThreadPool pool(3);
      std::vector<int64_t> values(700, 0);
      const auto body = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) values[static_cast<size_t>(i)] += i;
      };
      int applied = 0;
      for (int call = 0; call < 1500; ++call) {
        const int64_t bad = (call + c) % 5 == 0 ? (call * 7) % 700 : -1;
        const auto check = [bad](int64_t begin, int64_t end) -> int64_t {
          return bad >= begin && bad < end ? bad : -1;
        };
        if (pool.checked_parallel_for(700, check, body, 2) != bad) failures.fetch_add(1);
        if (bad < 0) ++applied;
      }
      for (size_t i = 0; i < values.size(); ++i)
        if (values[i] != applied * static_cast<int64_t>(i)) failures.fetch_add(1);
    });
  for (std::thread& t : callers) t.join();
  CHECK(failures.load() == 0);
  std::printf("ok   thread pool: 4 pools of 3 threads at once, calls correct with workers descheduled\n");
}

// run_on_threads (MCTS, random_playouts): every job runs once, and an exception a job throws on
// any thread reaches the caller once all have finished (a bare std::thread would terminate).
void check_run_on_threads() {
  for (int threads = 1; threads <= 4; ++threads) {
    Counts runs(static_cast<size_t>(threads));
    meeple::run_on_threads(threads, [&](int t) { runs[static_cast<size_t>(t)].fetch_add(1); });
    CHECK(all_equal(runs, 1));
    for (int thrower = 0; thrower < threads; ++thrower) {
      Counts finished(static_cast<size_t>(threads));
      bool caught = false;
      try {
        meeple::run_on_threads(threads, [&](int t) {
          if (t == thrower) throw std::runtime_error("job " + std::to_string(t));
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          finished[static_cast<size_t>(t)].fetch_add(1);
        });
      } catch (const std::runtime_error& e) {
        caught = std::string(e.what()) == "job " + std::to_string(thrower);
      }
      CHECK(caught);
      for (int t = 0; t < threads; ++t) CHECK(finished[static_cast<size_t>(t)].load() == (t == thrower ? 0 : 1));
    }
  }
  std::printf("ok   run_on_threads: each job once; a job's exception reaches the caller after all end\n");
}

}  // namespace

int main() {
  check_every_index_once();
  check_checked_calls();
  check_back_to_back_calls();
  check_more_threads_than_cores();
  check_run_on_threads();
  return summary("all thread pool checks passed");
}
