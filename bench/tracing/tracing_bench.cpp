// What the event tracer costs: Method::execute on a chain of N cheap kernel
// calls (relu on 16 floats), with no tracer (the default), with a tracer that
// drops every event (the runtime's own cost: two clock reads and the
// operator's name per call), and with a TraceRecorder (what `kiln profile`
// and `kiln run --trace` use). Reported per instruction. Not a test.
//
//   build/bin/kiln_tracing_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "aot/emit/pte_writer.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/graph_builder.h"
#include "devtools/trace_recorder.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/module/module.h"

namespace {

using namespace kiln;

constexpr int kCalls = 256;

class DroppingTracer final : public runtime::EventTracer {
 public:
  void log_instruction(const runtime::InstructionEvent& event) override { benchmark::DoNotOptimize(event.end_ns); }
  void log_delegate_event(const runtime::DelegateEvent& event) override { benchmark::DoNotOptimize(event.end_ns); }
};

// A .pte of kCalls relus in a chain, written to a temporary file.
std::string relu_chain_pte() {
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::TensorMeta(aot::ScalarType::Float, std::vector<int64_t>{16}));
  for (int i = 0; i < kCalls; ++i) x = b.call("aten::relu", {x});
  b.output({x});
  const aot::ExecutorchProgram program = aot::to_executorch(std::move(b).build());
  const std::string path = "/tmp/kiln_tracing_bench_" + std::to_string(getpid()) + ".pte";
  aot::pte::write_file_atomically(path, program.buffer);
  return path;
}

struct Fixture {
  Fixture() : path(relu_chain_pte()), module(path) {
    if (module.load_method("forward") != runtime::Error::Ok) throw std::runtime_error("cannot load the method");
    std::remove(path.c_str());
  }
  std::string path;
  runtime::Module module;
  std::vector<float> data = std::vector<float>(16, 1.0f);
  runtime::SizesType size = 16;
  runtime::DimOrderType dim_order = 0;
  runtime::StridesType stride = 1;
  runtime::TensorImpl impl{runtime::ScalarType::Float, 1, &size, data.data(), &dim_order, &stride};
};

Fixture& fixture() {
  static Fixture instance;
  return instance;
}

void run(benchmark::State& state, runtime::EventTracer* tracer) {
  Fixture& f = fixture();
  runtime::Method* method = f.module.method("forward");
  method->set_event_tracer(tracer);
  const runtime::EValue input{runtime::Tensor(&f.impl)};
  for (auto _ : state) {
    if (method->set_input(input, 0) != runtime::Error::Ok || method->execute() != runtime::Error::Ok) {
      state.SkipWithError("execute failed");
      break;
    }
  }
  method->set_event_tracer(nullptr);
  state.counters["ns_per_instruction"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kCalls, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TracingOff(benchmark::State& state) { run(state, nullptr); }
void BM_TracingOnDroppingEvents(benchmark::State& state) {
  DroppingTracer tracer;
  run(state, &tracer);
}
void BM_TracingOnRecording(benchmark::State& state) {
  devtools::TraceRecorder recorder;
  run(state, &recorder);
}

BENCHMARK(BM_TracingOff);
BENCHMARK(BM_TracingOnDroppingEvents);
BENCHMARK(BM_TracingOnRecording)->Iterations(2000);  // the recorder keeps every event

}  // namespace

BENCHMARK_MAIN();
