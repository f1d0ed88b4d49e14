#include "runtime/kernel/thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define KILN_CPU_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define KILN_CPU_PAUSE() __asm__ __volatile__("yield")
#else
#define KILN_CPU_PAUSE() ((void)0)
#endif

namespace kiln::runtime {
namespace {

// How long a worker keeps looking for the next call before it sleeps: about
// 10 us of pause spins, then about 200 yields (a core the machine needs
// goes to it at each one).
constexpr int kPauseSpins = 2000;
constexpr int kYieldSpins = 200;

class ThreadPool {
 public:
  ~ThreadPool() { resize(1); }

  void resize(int threads) {
    const size_t workers = threads > 1 ? static_cast<size_t>(threads - 1) : 0;
    if (workers == workers_.size()) return;
    stop_workers();
    stopping_.store(false, std::memory_order_relaxed);
    for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
    threads_.store(static_cast<int>(workers + 1), std::memory_order_relaxed);
  }

  int threads() const { return threads_.load(std::memory_order_relaxed); }

  void run(int64_t tasks, ParallelTask task, void* context) {
    thread_local bool inside = false;
    if (tasks <= 0) return;
    std::unique_lock<std::mutex> caller(caller_mutex_, std::try_to_lock);
    if (workers_.empty() || tasks == 1 || inside || !caller.owns_lock()) {
      for (int64_t t = 0; t < tasks; ++t) task(context, t);
      return;
    }
    inside = true;
    task_ = task;
    context_ = context;
    tasks_ = tasks;
    done_.store(0, std::memory_order_relaxed);
    const uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
    // The call's first task, published after its fields (release).
    cursor_.store(generation << 32, std::memory_order_release);
    {
      // Under the mutex, so that a worker about to sleep sees the new call.
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      generation_.store(generation, std::memory_order_release);
    }
    if (sleepers_.load(std::memory_order_acquire) > 0) wake_.notify_all();
    claim_tasks(generation);
    for (int spins = 0; done_.load(std::memory_order_acquire) < tasks; ++spins) {
      if (spins < kPauseSpins) KILN_CPU_PAUSE();
      else std::this_thread::yield();
    }
    inside = false;
  }

 private:
  // Runs tasks of call `generation` until none is left. The cursor holds the
  // call's generation above its next task: a worker late from an earlier
  // call claims nothing of this one, and reads the call's fields only after
  // claiming a task of it.
  void claim_tasks(uint64_t generation) {
    int64_t finished = 0;
    uint64_t cursor = cursor_.load(std::memory_order_acquire);
    for (;;) {
      if ((cursor >> 32) != (generation & 0xffffffffu)) break;
      const int64_t t = static_cast<int64_t>(cursor & 0xffffffffu);
      if (t >= tasks_) break;
      if (!cursor_.compare_exchange_weak(cursor, cursor + 1, std::memory_order_acq_rel, std::memory_order_acquire)) {
        continue;
      }
      task_(context_, t);
      ++finished;
      cursor = cursor_.load(std::memory_order_acquire);
    }
    if (finished > 0) done_.fetch_add(finished, std::memory_order_acq_rel);
  }

  void work() {
    uint64_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      uint64_t now = seen;
      for (int spins = 0; spins < kPauseSpins + kYieldSpins; ++spins) {
        now = generation_.load(std::memory_order_acquire);
        if (now != seen || stopping_.load(std::memory_order_relaxed)) break;
        if (spins < kPauseSpins) KILN_CPU_PAUSE();
        else std::this_thread::yield();
      }
      if (now == seen && !stopping_.load(std::memory_order_relaxed)) {
        std::unique_lock<std::mutex> lock(sleep_mutex_);
        sleepers_.fetch_add(1, std::memory_order_acq_rel);
        wake_.wait(lock, [&] {
          return generation_.load(std::memory_order_acquire) != seen || stopping_.load(std::memory_order_relaxed);
        });
        sleepers_.fetch_sub(1, std::memory_order_acq_rel);
        now = generation_.load(std::memory_order_acquire);
      }
      if (stopping_.load(std::memory_order_relaxed)) return;
      seen = now;
      claim_tasks(now);
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(sleep_mutex_);
      stopping_.store(true, std::memory_order_relaxed);
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    threads_.store(1, std::memory_order_relaxed);
  }

  std::vector<std::thread> workers_;
  std::atomic<int> threads_{1};
  std::mutex caller_mutex_;  // one parallel_for at a time uses the workers
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> generation_{0};
  // The current call; written before cursor_ publishes it, read after a
  // task of it is claimed.
  ParallelTask task_ = nullptr;
  void* context_ = nullptr;
  int64_t tasks_ = 0;
  std::atomic<uint64_t> cursor_{0};  ///< generation << 32 | next task
  std::atomic<int64_t> done_{0};
};

ThreadPool& pool() {
  static ThreadPool instance;
  return instance;
}

}  // namespace

void set_kernel_threads(int threads) { pool().resize(threads); }

int kernel_threads() { return pool().threads(); }

void parallel_for(int64_t tasks, ParallelTask run, void* context) { pool().run(tasks, run, context); }

}  // namespace kiln::runtime
