// Lowering benchmark: times each stage of the AOT lowering on synthetic
// programs of about 10^3, 10^4 and 10^5 nodes, to keep every stage near
// linear in the program's size. Not a test (no timing is asserted): run it
// with `make bench-lowering`.
//
// Programs are built with the GraphBuilder as torch.export's
// run_decompositions() leaves a stack of nn.Linear + ReLU: permute_copy of
// the weight, addmm, relu; 8x8 weights keep memory small.
//   chain:    x -> [linear -> relu] x L. DemoBackend takes only the relus,
//             so every layer is a partition of its own.
//   branches: each layer also forks, relu -> sin and relu -> sqrt (which
//             DemoBackend lacks), joined by mul: the partitioner must see
//             that relu+sin and mul cannot share a call (a path leaves
//             through sqrt and comes back), two partitions per layer.
//
// Each stage is one timed lambda over a BenchState, from building the graph
// to the .pte bytes: to_backend, the lowering passes, memory planning (with
// its verifier), emission and serialization. To add a stage, append one
// entry to stages().
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/emit/emitter.h"
#include "aot/emit/pte_writer.h"
#include "aot/passes/lowering.h"
#include "aot/passes/memory_planning.h"
#include "aot/ir/graph_builder.h"

namespace {

using kiln::aot::ExportedProgram;
using kiln::aot::GraphBuilder;
using kiln::aot::HostTensor;
using kiln::aot::Node;

constexpr int64_t kWidth = 8;

enum class Shape { Chain, Branches };

struct BenchState {
  Shape shape = Shape::Chain;
  int layers = 0;
  std::optional<ExportedProgram> program;   // after "build"
  std::optional<ExportedProgram> lowered;   // after "to_backend"
  std::optional<ExportedProgram> executable;  // after "passes"
  std::vector<kiln::aot::TensorLifetime> lifetimes;
  kiln::aot::MemoryPlan plan;               // after "plan"
  std::optional<kiln::aot::EmitterOutput> emitted;
  std::vector<uint8_t> bytes;               // after "serialize"
  size_t partitions = 0;
};

HostTensor filled(const std::vector<int64_t>& sizes, float value) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  return HostTensor::from_vector<float>(sizes, std::vector<float>(static_cast<size_t>(count), value));
}

ExportedProgram build_program(Shape shape, int layers) {
  GraphBuilder b;
  Node* x = b.input("x", kiln::aot::f32({2, kWidth}));
  for (int i = 0; i < layers; ++i) {
    const std::string prefix = "layers." + std::to_string(i);
    Node* weight = b.parameter(prefix + ".weight", filled({kWidth, kWidth}, 0.01f));
    Node* bias = b.parameter(prefix + ".bias", filled({kWidth}, 0.0f));
    Node* t = b.call("aten::permute_copy", {weight, kiln::aot::ArgumentList{1, 0}});
    Node* h = b.call("aten::relu", {b.call("aten::addmm", {bias, x, t})});
    if (shape == Shape::Branches) {
      Node* s = b.call("aten::sin", {h});
      Node* r = b.call("aten::sqrt", {h});
      h = b.call("aten::mul.Tensor", {s, r});
    }
    x = h;
  }
  b.output({x});
  return std::move(b).build();
}

struct Stage {
  std::string name;
  std::function<void(BenchState&)> run;
};

std::vector<Stage> stages() {
  static const kiln::aot::CapabilityPartitioner partitioner("DemoBackend");
  return {
      {"build", [](BenchState& s) { s.program.emplace(build_program(s.shape, s.layers)); }},
      {"verify", [](BenchState& s) { s.program->verify(); }},
      {"partition",
       [](BenchState& s) { s.partitions = partitioner.partition(*s.program).partition_tags.size(); }},
      {"to_backend", [](BenchState& s) { s.lowered.emplace(kiln::aot::to_backend(*s.program, partitioner)); }},
      {"passes", [](BenchState& s) { s.executable.emplace(kiln::aot::lower_to_executable(*s.lowered)); }},
      {"plan",
       [](BenchState& s) {
         s.lifetimes = kiln::aot::compute_lifetimes(*s.executable);
         s.plan = kiln::aot::plan_memory(s.lifetimes);
         kiln::aot::verify_memory_plan(s.lifetimes, s.plan);
       }},
      {"emit",
       [](BenchState& s) {
         s.emitted.emplace(kiln::aot::emit_program(*s.executable, kiln::aot::emitter_allocations(s.lifetimes, s.plan)));
       }},
      {"serialize", [](BenchState& s) { s.bytes = kiln::aot::pte::serialize_pte(s.emitted->program); }},
  };
}

// CPU time of this process: the machine is shared, and wall time would
// count the other processes' turns too.
double cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return 1e3 * static_cast<double>(now.tv_sec) + 1e-6 * static_cast<double>(now.tv_nsec);
}

void run(Shape shape, int layers) {
  BenchState state;
  state.shape = shape;
  state.layers = layers;
  std::string line;
  double total_ms = 0;
  size_t nodes = 0;
  for (const Stage& stage : stages()) {
    const double start = cpu_ms();
    stage.run(state);
    const double ms = cpu_ms() - start;
    if (nodes == 0 && state.program) nodes = state.program->graph().size();
    total_ms += ms;
    char cell[128];
    std::snprintf(cell, sizeof cell, " | %s %8.1f ms %6.2f us/node", stage.name.c_str(), ms, 1000.0 * ms / nodes);
    line += cell;
  }
  std::printf("%-8s %7zu nodes %6zu partitions%s | total %8.1f ms (CPU)\n", shape == Shape::Chain ? "chain" : "branches",
              nodes, state.partitions, line.c_str(), total_ms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  // Layers per size: about 10^3, 10^4, 10^5 nodes (5 per chain layer, 8 per branching one).
  // `kiln_lowering_bench chain|branches LAYERS` runs one program (for profiling).
  if (argc == 3) {
    run(std::string(argv[1]) == "chain" ? Shape::Chain : Shape::Branches, std::stoi(argv[2]));
    return 0;
  }
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  for (int chain_layers : {200, 2000, 20000}) {
    if (quick && chain_layers > 2000) break;
    run(Shape::Chain, chain_layers);
  }
  for (int branch_layers : {125, 1250, 12500}) {
    if (quick && branch_layers > 1250) break;
    run(Shape::Branches, branch_layers);
  }
  return 0;
}
