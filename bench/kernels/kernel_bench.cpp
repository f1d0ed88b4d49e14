// Microbenchmarks of the portable kernels on the shapes the benchmark models
// use (the list in cases() below). Each case is named "<op>/<shape>", the same
// names bench/kernels/torch_kernels.py gives torch's ops, so that
// run_kernel_bench.sh can put the two side by side. Iterations run until the
// process has used enough CPU time, and the times compared are CPU times: on
// a machine shared with other jobs, wall time mostly measures the others. A
// benchmark, not a test: nothing here checks speed.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_call.h"

namespace kiln::bench {
namespace {

using Sizes = std::vector<runtime::SizesType>;

// The tensors of one case and the call that reads and writes them.
struct Prepared {
  std::vector<std::unique_ptr<BenchTensor>> tensors;
  std::unique_ptr<BoxedCall> call;

  BenchTensor& input(Sizes sizes, float low, float high, uint32_t seed = 1) {
    tensors.push_back(std::make_unique<BenchTensor>(std::move(sizes), low, high, seed));
    return *tensors.back();
  }
  BenchTensor& output(Sizes sizes) { return input(std::move(sizes), 0, 0); }
  BenchTensor& complex_input(Sizes sizes, float low, float high) {
    tensors.push_back(std::make_unique<BenchTensor>(std::move(sizes), low, high, 1, runtime::ScalarType::ComplexFloat));
    return *tensors.back();
  }
  BenchTensor& complex_output(Sizes sizes) { return complex_input(std::move(sizes), 0, 0); }
  BoxedCall& op(const char* name) {
    call = std::make_unique<BoxedCall>(name);
    return *call;
  }
};

struct Case {
  std::string name;  // "<op>/<shape>"
  std::function<void(Prepared&)> build;
};

// A one-argument op (self, out) over `sizes`, inputs uniform in [low, high).
Case unary(const char* label, const char* op, Sizes sizes, const char* shape, float low, float high) {
  return {std::string(label) + "/" + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, low, high);
            BenchTensor& y = p.output(sizes);
            p.op(op).tensor(x).tensor(y);
          }};
}

Case softmax(const char* label, const char* op, Sizes sizes, const char* shape) {
  return {std::string(label) + "/" + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, -8, 8);
            BenchTensor& y = p.output(sizes);
            p.op(op).tensor(x).scalar(int64_t{-1}).boolean(false).tensor(y);
          }};
}

Case gelu(const char* label, const char* approximate, Sizes sizes, const char* shape) {
  return {std::string(label) + "/" + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, -6, 6);
            BenchTensor& y = p.output(sizes);
            p.op("aten::gelu.out").tensor(x).string(approximate).tensor(y);
          }};
}

Case elu(Sizes sizes, const char* shape) {
  return {std::string("elu/") + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, -6, 6);
            BenchTensor& y = p.output(sizes);
            p.op("aten::elu.out").tensor(x).scalar(1.0).scalar(1.0).scalar(1.0).tensor(y);
          }};
}

// Layer norm over the last dim, with weight and bias.
Case layer_norm(runtime::SizesType rows, runtime::SizesType width, const char* shape) {
  return {std::string("layer_norm/") + shape, [=](Prepared& p) {
            BenchTensor& x = p.input({rows, width}, -3, 3);
            BenchTensor& w = p.input({width}, 0.5f, 1.5f, 2);
            BenchTensor& b = p.input({width}, -0.5f, 0.5f, 3);
            BenchTensor& y = p.output({rows, width});
            BenchTensor& mean = p.output({rows, 1});
            BenchTensor& rstd = p.output({rows, 1});
            p.op("aten::native_layer_norm.out")
                .tensor(x).int_list({width}).tensor(w).tensor(b).scalar(1e-5).tensor(y).tensor(mean).tensor(rstd);
          }};
}

// a (sizes) op b (other) broadcast to sizes.
Case binary(const char* label, const char* op, Sizes sizes, Sizes other, const char* shape) {
  const bool alpha = std::string(op) == "aten::add.out";
  return {std::string(label) + "/" + shape, [=](Prepared& p) {
            BenchTensor& a = p.input(sizes, -1, 1);
            BenchTensor& b = p.input(other, -1, 1, 2);
            BenchTensor& y = p.output(sizes);
            BoxedCall& call = p.op(op).tensor(a).tensor(b);
            if (alpha) call.scalar(int64_t{1});
            call.tensor(y);
          }};
}

// mean over H and W of an NCHW tensor, keepdim (global average pooling).
Case mean_hw(Sizes sizes, const char* shape) {
  return {std::string("mean_hw/") + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, -1, 1);
            BenchTensor& y = p.output({sizes[0], sizes[1], 1, 1});
            p.op("aten::mean.out").tensor(x).int_list({2, 3}).boolean(true).none().tensor(y);
          }};
}

// _fft_r2c over the trailing `dims` of `sizes` (onesided, unnormalized).
Case rfft(const char* label, Sizes sizes, std::vector<int64_t> dims, const char* shape) {
  return {std::string(label) + "/" + shape, [=](Prepared& p) {
            BenchTensor& x = p.input(sizes, -1, 1);
            Sizes out = sizes;
            out.back() = out.back() / 2 + 1;
            BenchTensor& y = p.complex_output(out);
            p.op("aten::_fft_r2c.out").tensor(x).int_list(dims).scalar(int64_t{0}).boolean(true).tensor(y);
          }};
}

// _fft_c2r of [rows, n / 2 + 1] bins into [rows, n] (normalized by 1 / n).
Case irfft(runtime::SizesType rows, runtime::SizesType n, const char* shape) {
  return {std::string("irfft/") + shape, [=](Prepared& p) {
            BenchTensor& x = p.complex_input({rows, n / 2 + 1}, -1, 1);
            BenchTensor& y = p.output({rows, n});
            p.op("aten::_fft_c2r.out").tensor(x).int_list({1}).scalar(int64_t{2}).scalar(int64_t{n}).tensor(y);
          }};
}

std::vector<Case> cases() {
  const Sizes million = {1024, 1024};
  const char* m = "1024x1024";
  return {
      softmax("softmax", "aten::_softmax.out", {1, 4, 128, 128}, "1x4x128x128"),
      softmax("log_softmax", "aten::_log_softmax.out", {1, 4, 128, 128}, "1x4x128x128"),
      gelu("gelu", "none", million, m),
      gelu("gelu_tanh", "tanh", million, m),
      unary("silu", "aten::silu.out", million, m, -6, 6),
      unary("sigmoid", "aten::sigmoid.out", million, m, -6, 6),
      unary("tanh", "aten::tanh.out", million, m, -6, 6),
      unary("exp", "aten::exp.out", million, m, -10, 10),
      unary("erf", "aten::erf.out", million, m, -4, 4),
      elu(million, m),
      layer_norm(128, 256, "128x256"),
      binary("add_bcast", "aten::add.out", {1, 64, 56, 56}, {1, 64, 1, 1}, "1x64x56x56+1x64x1x1"),
      binary("add", "aten::add.out", {1, 64, 56, 56}, {1, 64, 56, 56}, "1x64x56x56+1x64x56x56"),
      binary("mul_bcast", "aten::mul.out", {8, 128, 256}, {256}, "8x128x256*256"),
      mean_hw({1, 512, 7, 7}, "1x512x7x7"),
      mean_hw({1, 256, 56, 56}, "1x256x56x56"),
      // Spectrogram-sized transforms: 64 frames of 1024, and 2-D planes.
      rfft("rfft", {64, 1024}, {1}, "64x1024"),
      irfft(64, 1024, "64x1024"),
      rfft("rfft2", {16, 64, 64}, {1, 2}, "16x64x64"),
      rfft("rfft_odd", {64, 1000}, {1}, "64x1000"),
  };
}

void run_case(benchmark::State& state, const Case& c) {
  Prepared p;
  c.build(p);
  std::string error;
  if (!p.call->prepare(&error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    if (!p.call->run()) {
      state.SkipWithError("the kernel failed");
      return;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * p.tensors.front()->numel());
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  for (const kiln::bench::Case& c : kiln::bench::cases()) {
    benchmark::RegisterBenchmark(c.name.c_str(), [c](benchmark::State& state) { kiln::bench::run_case(state, c); })
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
