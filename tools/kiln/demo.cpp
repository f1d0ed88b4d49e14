// kiln demo: the seed model built in C++, printed and run on the reference
// interpreter, lowered to a .pte, and that .pte run on Kiln's runtime and
// compared with the interpreter; then lowered to OneDnnBackend too, run, and
// compared again, with the execute times of the two .pte side by side.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "aot/delegate/backend_api.h"
#include "aot/emit/pte_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/module_attribute.h"
#include "aot/pipeline/lower.h"
#include "cli.h"
#include "models/conv_relu_tan.h"

namespace kiln::cli {

namespace {

constexpr const char* kDemoUsage = R"(Usage: kiln demo [--batch N] [--size N] [--seed N] [--quiet] [-o PATH]

Builds ConvReLUTanModel (conv 3->16, relu, conv 16->32, relu, tan) with the C++
graph builder, prints the program, runs it through the reference interpreter on
the portable kernels, and prints the output's shape, a checksum and the time;
then lowers it to BackendWithDelegateMappingDemo and prints the blob and the
delegate debug-handle map; then lowers it to a .pte program (out variants,
memory plan, ExecuTorch's format), reads the bytes back and prints the
program's summary and its memory plan; finally loads that .pte on Kiln's
runtime (portable kernels), runs it on the same input, and prints the load
and execute times and the largest absolute difference from the interpreter.
Last, it lowers the model to OneDnnBackend (what oneDNN cannot run, tan, stays
on the portable kernels), runs that .pte on the runtime the same way, prints
its difference from the interpreter, and the median execute time of both
.pte programs over 5 runs after a warm-up, at 1 thread (a kiln built without
oneDNN says so and skips this step). A difference beyond
1e-4 + 1e-4 * |expected| fails the demo.

Options:
  --batch N   batch size of the input (default 4)
  --size N    height and width of the input (default 64)
  --seed N    seed of the weights and the input (default 0)
  --quiet     do not print the program
  -o PATH     also write the .pte program to PATH
)";

constexpr int kTimedRuns = 5;
constexpr const char* kOneDnnBackend = "OneDnnBackend";

struct RuntimeRun {
  aot::HostTensor output;
  double load_ms = 0;
  double median_execute_ms = 0;
};

/// Loads the lowered program from its bytes on Kiln's runtime and runs it on
/// `input`: once to warm up, then kTimedRuns times.
RuntimeRun run_on_runtime(const aot::ExecutorchProgram& lowered, const aot::HostTensor& input,
                          const aot::HostTensor& expected, const std::string& label) {
  auto session = RuntimeSession::from_bytes(lowered.buffer.data(), lowered.buffer.size(), label);
  session->set_inputs({input});
  session->execute();
  std::vector<double> times;
  for (int i = 0; i < kTimedRuns; ++i) times.push_back(session->execute());
  std::sort(times.begin(), times.end());
  const std::vector<aot::Value> outputs = session->outputs();
  const auto* output = outputs.size() == 1 ? std::get_if<aot::HostTensor>(&outputs[0]) : nullptr;
  if (output == nullptr || output->sizes() != expected.sizes()) {
    throw aot::AotError(label + " returned " + std::to_string(outputs.size()) +
                        " outputs, not one tensor of the interpreter's shape " + expected.describe());
  }
  return {*output, session->load_ms(), times[times.size() / 2]};
}

/// Prints how far `actual` is from the interpreter's `expected`; throws if an
/// element is beyond 1e-4 + 1e-4 * |expected|.
void compare_with_interpreter(const std::string& what, const aot::HostTensor& actual, const aot::HostTensor& expected) {
  const std::vector<double> got = actual.to_doubles();
  const std::vector<double> want = expected.to_doubles();
  double max_difference = 0;
  size_t beyond = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double difference = std::fabs(got[i] - want[i]);
    max_difference = std::max(max_difference, difference);
    beyond += !(difference <= 1e-4 + 1e-4 * std::fabs(want[i]));
  }
  std::printf("%s vs interpreter: max abs difference %.3g\n", what.c_str(), max_difference);
  if (beyond > 0) {
    throw aot::AotError(what + ": " + std::to_string(beyond) + " of " + std::to_string(got.size()) +
                        " output elements differ from the interpreter's by more than 1e-4 + 1e-4 * |expected|");
  }
}

/// "2 delegate calls; left on the portable kernels: aten::tan.default"
std::string delegation_summary(const aot::ExportedProgram& lowered) {
  size_t calls = 0;
  std::string portable;
  for (const aot::Node* node : lowered.graph()) {
    if (!node->is_call_function() || aot::is_call_of(*node, aot::ExecKind::GetItem)) continue;
    if (aot::exec_kind(*node) == aot::ExecKind::DelegateCall) {
      ++calls;
    } else {
      portable += (portable.empty() ? "" : ", ") + node->target();
    }
  }
  return std::to_string(calls) + " delegate call" + (calls == 1 ? "" : "s") +
         "; left on the portable kernels: " + (portable.empty() ? "nothing" : portable);
}

/// The model lowered to OneDnnBackend (+ portable kernels), run on the
/// runtime, compared with the interpreter, timed against `portable`; said
/// and skipped when this build has no OneDnnBackend.
void run_on_onednn(const aot::ExportedProgram& program, const aot::HostTensor& input, const aot::HostTensor& expected,
                   const RuntimeRun& portable) {
  if (aot::find_backend(kOneDnnBackend) == nullptr) {
    std::printf("oneDNN:   skipped: this kiln is built without OneDnnBackend (KILN_WITH_ONEDNN=OFF)\n");
    return;
  }
  aot::LowerOptions options;
  options.backends = {kOneDnnBackend};
  const aot::LoweredProgram delegated = aot::lower(program.copy_of_verified(), options);
  const aot::ExecutorchProgram& lowered = *delegated.executorch;
  std::printf("oneDNN:   lowered to OneDnnBackend: %s; .pte %zu bytes\n", delegation_summary(delegated.delegated).c_str(),
              lowered.buffer.size());
  const RuntimeRun onednn = run_on_runtime(lowered, input, expected, "the demo's OneDnnBackend .pte");
  std::printf("oneDNN:   %s, load %.3f ms, execute %.3f ms (Kiln's runtime, OneDnnBackend + portable kernels, "
              "median of %d runs)\n",
              onednn.output.describe().c_str(), onednn.load_ms, onednn.median_execute_ms, kTimedRuns);
  compare_with_interpreter("oneDNN", onednn.output, expected);
  std::printf("execute time: portable %.3f ms, oneDNN %.3f ms (median of %d runs, 1 thread): %.1fx\n",
              portable.median_execute_ms, onednn.median_execute_ms, kTimedRuns,
              portable.median_execute_ms / std::max(onednn.median_execute_ms, 1e-6));
}

}  // namespace

int run_demo(Args args) {
  models::ConvReLUTanOptions options;
  bool quiet = false;
  std::string pte_path;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kDemoUsage;
      return 0;
    } else if (arg == "--batch") {
      options.batch = parse_integer(arg, args.value(arg), 1, 1024);
    } else if (arg == "--size") {
      options.height = options.width = parse_integer(arg, args.value(arg), 1, 4096);
    } else if (arg == "--seed") {
      options.seed = static_cast<uint64_t>(parse_integer(arg, args.value(arg), 0, INT64_MAX));
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "-o" || arg == "--output") {
      pte_path = args.value(arg);
    } else {
      args.unknown(arg);
    }
  }

  aot::ExportedProgram program = models::conv_relu_tan(options);
  if (!quiet) std::cout << program.to_string() << "\n";

  aot::HostTensor input = models::conv_relu_tan_input(options);
  const auto start = std::chrono::steady_clock::now();
  aot::PyTree result = aot::call_program(program, aot::PyTree::tuple({aot::PyTree::make_leaf(input)}));
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const auto& output = std::get<aot::HostTensor>(result.leaf);
  double sum = 0.0;
  double abs_sum = 0.0;
  for (double v : output.to_doubles()) {
    sum += v;
    abs_sum += std::fabs(v);
  }
  std::printf("input:    %s\n", input.describe().c_str());
  std::printf("output:   %s\n", output.describe().c_str());
  std::printf("checksum: sum=%.6f abs_sum=%.6f\n", sum, abs_sum);
  std::printf("time:     %.2f ms (reference interpreter, portable kernels, 1 run)\n", elapsed);
  print_delegation_demo(program);

  const aot::LoweredProgram portable_program = aot::lower(program.copy_of_verified());
  const aot::ExecutorchProgram& lowered = *portable_program.executorch;
  const aot::pte::PteFile file = aot::pte::read_pte(lowered.buffer);
  std::printf("lowered to .pte: %zu bytes, %zu segments, read back: %zu instructions\n", file.bytes.size(),
              file.program->segments.size(), file.program->execution_plan.at(0)->chains.at(0)->instructions.size());
  if (!pte_path.empty()) {
    aot::pte::write_file_atomically(pte_path, lowered.buffer);
    std::printf("wrote %s\n", pte_path.c_str());
  }
  print_executorch_program(lowered, /*print_memory=*/true);
  const RuntimeRun portable = run_on_runtime(lowered, input, output, "the demo's .pte");
  std::printf("runtime:  %s, load %.3f ms, execute %.3f ms (Kiln's runtime, portable kernels, median of %d runs)\n",
              portable.output.describe().c_str(), portable.load_ms, portable.median_execute_ms, kTimedRuns);
  compare_with_interpreter("runtime", portable.output, output);
  run_on_onednn(program, input, output, portable);
  return 0;
}

}  // namespace kiln::cli
