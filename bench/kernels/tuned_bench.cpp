// The tuned linear kernels on SmolLM2-135M's matrix shapes (K x N): GEMV
// (M = 1, decode) as GB/s of packed weights streamed, with enough copies of
// each matrix (> 128 MiB in all) that no cache holds them, at 1 and 2
// threads; GEMM (M = 8, 32, 64, prefill) as GFLOP/s with the weights in
// cache. Every path the CPU runs. Not a test: bench/kernels/run_tuned_bench.sh
// prints it beside the machine's read bandwidth and FMA peak.
//
//   kiln_tuned_bench [--quick] [--paths avx512_vnni,portable] [--formats q4] [--no-gemm]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/tuned/linear.h"

namespace tuned = kiln::kernels::tuned;
using tuned::ActivationMode;
using tuned::Isa;
using tuned::WeightFormat;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) : size((bytes + 63) / 64 * 64), data(static_cast<uint8_t*>(std::aligned_alloc(64, size))) {
    std::memset(data, 0, size);
  }
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  size_t size;
  uint8_t* data;
};

// Threads that spin between jobs, so a GEMV of a few microseconds is not
// swamped by waking them (a fresh std::thread per call costs more than the
// call).
class SpinPool {
 public:
  explicit SpinPool(int threads) : threads_(threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~SpinPool() {
    stop_ = true;
    generation_.fetch_add(1);
    for (auto& t : workers_) t.join();
  }
  int threads() const { return threads_; }
  // Runs job(index) on every thread (the caller is index 0) and waits.
  void run(const std::function<void(int)>& job) {
    job_ = &job;
    done_.store(0);
    generation_.fetch_add(1, std::memory_order_release);
    job(0);
    while (done_.load(std::memory_order_acquire) != threads_ - 1) {
    }
  }

 private:
  void work(int index) {
    uint64_t seen = 0;
    while (true) {
      uint64_t g;
      while ((g = generation_.load(std::memory_order_acquire)) == seen) {
      }
      seen = g;
      if (stop_) return;
      (*job_)(index);
      done_.fetch_add(1, std::memory_order_release);
    }
  }
  int threads_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stop_{false};
  const std::function<void(int)>* job_ = nullptr;
};

struct Format {
  const char* name;
  WeightFormat format;
  int64_t group;  // 0: one per row
  ActivationMode mode;
};

const Format kFormats[] = {
    {"f32", WeightFormat::kF32, 0, ActivationMode::kFloat},
    {"q8 row, x f32", WeightFormat::kQ8, 0, ActivationMode::kFloat},
    {"q8 row, x int8/token", WeightFormat::kQ8, 0, ActivationMode::kInt8PerToken},
    {"q4 g32, x f32", WeightFormat::kQ4, 32, ActivationMode::kFloat},
    {"q4 g32, x int8/token", WeightFormat::kQ4, 32, ActivationMode::kInt8PerToken},
    {"q4 g32, x int8/32", WeightFormat::kQ4, 32, ActivationMode::kInt8Block32},
    {"q4 g128, x f32", WeightFormat::kQ4, 128, ActivationMode::kFloat},
};

struct Shape {
  int64_t k, n;
};
const Shape kShapes[] = {{576, 576}, {576, 192}, {576, 1536}, {1536, 576}, {576, 49152}};

// Copies of one packed matrix (random weights), enough to exceed `min_bytes`.
struct Matrices {
  tuned::LinearDesc desc;
  size_t bytes = 0;
  std::vector<std::unique_ptr<AlignedBuffer>> copies;
};

Matrices make_matrices(const Shape& shape, const Format& f, size_t min_bytes) {
  Matrices m;
  m.desc = {shape.n, shape.k, f.format, f.group == 0 ? shape.k : f.group, false};
  if (f.format == WeightFormat::kF32) m.desc.group_size = 0;
  m.bytes = tuned::packed_linear_bytes(m.desc);
  std::mt19937 rng(1);
  std::vector<float> wf;
  std::vector<int8_t> q;
  const int64_t groups = f.format == WeightFormat::kF32 ? 1 : (shape.k + m.desc.group_size - 1) / m.desc.group_size;
  std::vector<float> scales(shape.n * groups, 0.02f);
  if (f.format == WeightFormat::kF32) {
    wf.resize(shape.n * shape.k);
    for (auto& v : wf) v = static_cast<float>(rng() % 1000) * 1e-3f - 0.5f;
  } else {
    q.resize(shape.n * shape.k);
    const int range = f.format == WeightFormat::kQ8 ? 256 : 16;
    for (auto& v : q) v = static_cast<int8_t>(static_cast<int>(rng() % range) - range / 2);
  }
  const size_t count = std::max<size_t>(1, (min_bytes + m.bytes - 1) / m.bytes);
  for (size_t i = 0; i < count; ++i) {
    m.copies.push_back(std::make_unique<AlignedBuffer>(m.bytes));
    const void* w = f.format == WeightFormat::kF32 ? static_cast<const void*>(wf.data()) : q.data();
    if (tuned::pack_linear(m.desc, w, f.format == WeightFormat::kF32 ? nullptr : scales.data(), nullptr,
                           {m.copies.back()->data, m.bytes}) != kiln::runtime::Error::Ok) {
      std::fprintf(stderr, "pack_linear failed\n");
      std::exit(1);
    }
  }
  return m;
}

// Seconds per call over all copies, best of `passes`.
double time_calls(SpinPool& pool, const Matrices& mats, ActivationMode mode, Isa isa, int64_t m, int passes,
                  double min_seconds) {
  const int64_t k = mats.desc.k, n = mats.desc.n;
  std::vector<float> x(m * k), y(m * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.1f * static_cast<float>(i));
  AlignedBuffer scratch(tuned::linear_scratch_bytes(mats.desc, mode, m));
  const int64_t panels = tuned::linear_panels(mats.desc);
  tuned::LinearArgs a;
  a.desc = &mats.desc;
  a.mode = mode;
  a.x = x.data();
  a.m = m;
  a.x_stride = k;
  a.y = y.data();
  a.y_stride = n;
  a.scratch = scratch.data;
  const std::function<void(int)> job = [&](int index) {
    int64_t begin = 0, end = 0;
    tuned::split_panels(panels, pool.threads(), index, &begin, &end);
    tuned::compute_linear_on(isa, a, begin, end);
  };
  double best = 1e30;
  for (int pass = 0; pass < passes; ++pass) {
    int64_t calls = 0;
    const double start = now_s();
    double elapsed = 0;
    do {
      for (const auto& copy : mats.copies) {
        a.packed = copy->data;
        tuned::prepare_linear(a);
        pool.run(job);
        ++calls;
      }
      elapsed = now_s() - start;
    } while (elapsed < min_seconds);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

std::vector<Isa> paths_from(const char* list) {
  std::vector<Isa> paths;
  for (int i = tuned::kIsaCount - 1; i >= 0; --i) {
    const auto isa = static_cast<Isa>(i);
    if (!tuned::isa_supported(isa)) continue;
    if (list != nullptr && std::string(",") .append(list).append(",").find(std::string(",") + tuned::isa_name(isa) + ",") == std::string::npos) {
      continue;
    }
    paths.push_back(isa);
  }
  return paths;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, gemm = true;
  const char* path_list = nullptr;
  const char* format_filter = "";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--paths") == 0 && i + 1 < argc) {
      path_list = argv[++i];
    } else if (std::strcmp(argv[i], "--formats") == 0 && i + 1 < argc) {
      format_filter = argv[++i];
    } else if (std::strcmp(argv[i], "--no-gemm") == 0) {
      gemm = false;
    } else {
      std::fprintf(stderr, "usage: kiln_tuned_bench [--quick] [--paths avx512_vnni,avx2,...] [--formats TEXT] "
                           "[--no-gemm]\n");
      return 2;
    }
  }
  const std::vector<Isa> paths = paths_from(path_list);
  const size_t min_bytes = size_t{128} << 20;
  const int passes = quick ? 2 : 4;
  const double min_seconds = quick ? 0.05 : 0.15;

  std::printf("## GEMV (M = 1): GB/s of packed weights, > 128 MiB of copies per matrix\n\n");
  std::printf("| format | K x N | MB | path | 1 thread GB/s | 2 threads GB/s | 1 thread us |\n|---|---|---|---|---|---|---|\n");
  for (const Format& f : kFormats) {
    if (std::strstr(f.name, format_filter) == nullptr) continue;
    for (const Shape& s : kShapes) {
      const Matrices mats = make_matrices(s, f, min_bytes);
      for (Isa isa : paths) {
        if (isa == Isa::kPortable && s.n > 2000) continue;  // minutes, and not the point
        double gbs[2], us1 = 0;
        for (int t = 1; t <= 2; ++t) {
          SpinPool pool(t);
          const double sec = time_calls(pool, mats, f.mode, isa, 1, passes, min_seconds);
          gbs[t - 1] = static_cast<double>(mats.bytes) / sec * 1e-9;
          if (t == 1) us1 = sec * 1e6;
        }
        std::printf("| %s | %lldx%lld | %.2f | %s | %.1f | %.1f | %.1f |\n", f.name, static_cast<long long>(s.k),
                    static_cast<long long>(s.n), static_cast<double>(mats.bytes) * 1e-6, tuned::isa_name(isa), gbs[0],
                    gbs[1], us1);
        std::fflush(stdout);
      }
    }
  }

  if (!gemm) return 0;
  std::printf("\n## GEMM (M = 8, 32, 64): GFLOP/s, 1 thread, weights in cache\n\n");
  std::printf("| format | K x N | path | M=8 | M=32 | M=64 |\n|---|---|---|---|---|---|\n");
  const Shape gemm_shapes[] = {{576, 1536}, {1536, 576}};
  for (const Format& f : kFormats) {
    if (std::strstr(f.name, format_filter) == nullptr) continue;
    for (const Shape& s : gemm_shapes) {
      const Matrices mats = make_matrices(s, f, 0);
      for (Isa isa : paths) {
        if (isa == Isa::kPortable) continue;
        SpinPool pool(1);
        std::printf("| %s | %lldx%lld | %s |", f.name, static_cast<long long>(s.k), static_cast<long long>(s.n),
                    tuned::isa_name(isa));
        for (int64_t m : {8, 32, 64}) {
          const double sec = time_calls(pool, mats, f.mode, isa, m, passes, min_seconds);
          std::printf(" %.1f |", 2.0 * static_cast<double>(m * s.k * s.n) / sec * 1e-9);
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
