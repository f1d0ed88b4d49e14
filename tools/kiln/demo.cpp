// kiln demo: the seed model built in C++, printed and run on the reference
// interpreter, lowered to a .pte, and that .pte run on Kiln's runtime and
// compared with the interpreter.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "aot/emit/pte_reader.h"
#include "aot/interpreter/interpreter.h"
#include "cli.h"
#include "models/conv_relu_tan.h"
#include "run_pte.h"

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

Options:
  --batch N   batch size of the input (default 4)
  --size N    height and width of the input (default 64)
  --seed N    seed of the weights and the input (default 0)
  --quiet     do not print the program
  -o PATH     also write the .pte program to PATH
)";

/// Loads the lowered program from its bytes on Kiln's runtime, runs it on
/// `input` and compares its output with the interpreter's `expected`.
void run_on_runtime(const aot::ExecutorchProgram& lowered, const aot::HostTensor& input,
                    const aot::HostTensor& expected) {
  auto session = RuntimeSession::from_bytes(lowered.buffer.data(), lowered.buffer.size(), "the demo's .pte");
  session->set_inputs({input});
  const double execute_ms = session->execute();
  const std::vector<aot::Value> outputs = session->outputs();
  const auto* output = outputs.size() == 1 ? std::get_if<aot::HostTensor>(&outputs[0]) : nullptr;
  if (output == nullptr || output->sizes() != expected.sizes()) {
    throw aot::AotError("the runtime returned " + std::to_string(outputs.size()) +
                        " outputs, not one tensor of the interpreter's shape " + expected.describe());
  }
  const std::vector<double> got = output->to_doubles();
  const std::vector<double> want = expected.to_doubles();
  double max_difference = 0;
  for (size_t i = 0; i < got.size(); ++i) max_difference = std::max(max_difference, std::fabs(got[i] - want[i]));
  std::printf("runtime:  %s, load %.3f ms, execute %.3f ms (Kiln's runtime, portable kernels, 1 run)\n",
              output->describe().c_str(), session->load_ms(), execute_ms);
  std::printf("runtime vs interpreter: max abs difference %.3g\n", max_difference);
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

  const aot::ExecutorchProgram lowered = aot::to_executorch(program);
  const aot::pte::PteFile file = aot::pte::read_pte(lowered.buffer);
  std::printf("lowered to .pte: %zu bytes, %zu segments, read back: %zu instructions\n", file.bytes.size(),
              file.program->segments.size(), file.program->execution_plan.at(0)->chains.at(0)->instructions.size());
  if (!pte_path.empty()) {
    aot::pte::write_file_atomically(pte_path, lowered.buffer);
    std::printf("wrote %s\n", pte_path.c_str());
  }
  print_executorch_program(lowered, /*print_memory=*/true);
  run_on_runtime(lowered, input, output);
  return 0;
}

}  // namespace kiln::cli
