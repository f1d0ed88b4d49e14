// The kernels' thread pool: every task runs once, on the pool's threads when
// it has some; nested and concurrent calls still finish; resizing works.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/kernel/thread_pool.h"

namespace kiln::runtime {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  explicit Counts(size_t n) : runs(n) {}
};

void count(void* context, int64_t task) {
  auto* counts = static_cast<Counts*>(context);
  counts->runs[static_cast<size_t>(task)].fetch_add(1);
  // Long enough that the workers wake and take a share.
  std::atomic<int> spin{0};
  while (spin.fetch_add(1, std::memory_order_relaxed) < 20000) {
  }
  std::lock_guard<std::mutex> lock(counts->mutex);
  counts->threads.insert(std::this_thread::get_id());
}

class ThreadPoolTest : public ::testing::Test {
 protected:
  void TearDown() override { set_kernel_threads(1); }
};

TEST_F(ThreadPoolTest, EveryTaskRunsOnceWhateverTheThreads) {
  for (int threads : {1, 2, 3, 4}) {
    set_kernel_threads(threads);
    EXPECT_EQ(kernel_threads(), threads);
    for (int64_t tasks : {0, 1, 2, 7, 64, 1000}) {
      Counts counts(static_cast<size_t>(tasks));
      parallel_for(tasks, count, &counts);
      for (int64_t t = 0; t < tasks; ++t) {
        EXPECT_EQ(counts.runs[static_cast<size_t>(t)].load(), 1) << threads << " threads, task " << t << " of " << tasks;
      }
    }
  }
}

// On a busy machine a worker may get no share of one call; within a few
// seconds of calls it does.
TEST_F(ThreadPoolTest, WorkersTakeAShare) {
  set_kernel_threads(3);
  std::set<std::thread::id> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (seen.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    Counts counts(200);
    parallel_for(200, count, &counts);
    seen.insert(counts.threads.begin(), counts.threads.end());
  }
  EXPECT_GT(seen.size(), 1u);
  set_kernel_threads(1);
  Counts alone(50);
  parallel_for(50, count, &alone);
  EXPECT_EQ(alone.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

struct Nested {
  Counts inner{16};
  std::atomic<int> outer{0};
};

void nested(void* context, int64_t) {
  auto* n = static_cast<Nested*>(context);
  n->outer.fetch_add(1);
  Counts mine(4);
  parallel_for(4, count, &mine);  // from inside a task: runs inline
  for (auto& r : mine.runs) EXPECT_EQ(r.load(), 1);
}

TEST_F(ThreadPoolTest, ACallFromInsideATaskRunsInline) {
  set_kernel_threads(2);
  Nested n;
  parallel_for(8, nested, &n);
  EXPECT_EQ(n.outer.load(), 8);
}

TEST_F(ThreadPoolTest, ConcurrentCallersBothFinish) {
  set_kernel_threads(2);
  Counts a(500), b(500);
  std::thread other([&] {
    for (int i = 0; i < 20; ++i) parallel_for(25, count, &a);
  });
  for (int i = 0; i < 20; ++i) parallel_for(25, count, &b);
  other.join();
  for (int t = 0; t < 25; ++t) {
    EXPECT_EQ(a.runs[t].load(), 20);
    EXPECT_EQ(b.runs[t].load(), 20);
  }
}

}  // namespace
}  // namespace kiln::runtime
