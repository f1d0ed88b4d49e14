// kiln: the command-line tool. Thin by design: it parses flags and calls the
// libraries; every error is printed with what was wrong and exits non-zero.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "models/conv_relu_tan.h"

namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kUsage = R"(kiln: take a PyTorch model to a CPU or an edge device.

Usage: kiln <command> [options]

Commands:
  demo       build the seed model (ConvReLUTanModel) in C++, print the program,
             run it on the reference interpreter, and print the output's shape,
             a checksum and the time
  version    print Kiln's version
  help       print this help

Run 'kiln <command> --help' for a command's options.
)";

constexpr const char* kDemoUsage = R"(Usage: kiln demo [--batch N] [--size N] [--seed N] [--quiet]

Builds ConvReLUTanModel (conv 3->16, relu, conv 16->32, relu, tan) with the C++
graph builder, prints the program, runs it through the reference interpreter on
the portable kernels, and prints the output's shape, a checksum and the time.

Options:
  --batch N   batch size of the input (default 4)
  --size N    height and width of the input (default 64)
  --seed N    seed of the weights and the input (default 0)
  --quiet     do not print the program
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t parse_integer(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < min || value > max) {
    throw UsageError(flag + " expects an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got '" + text + "'");
  }
  return value;
}

int run_demo(const std::vector<std::string>& args) {
  kiln::models::ConvReLUTanOptions options;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      return args[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kDemoUsage;
      return 0;
    } else if (arg == "--batch") {
      options.batch = parse_integer(arg, value(), 1, 1024);
    } else if (arg == "--size") {
      options.height = options.width = parse_integer(arg, value(), 1, 4096);
    } else if (arg == "--seed") {
      options.seed = static_cast<uint64_t>(parse_integer(arg, value(), 0, INT64_MAX));
    } else if (arg == "--quiet") {
      quiet = true;
    } else {
      throw UsageError("unknown option '" + arg + "' for 'kiln demo'");
    }
  }

  kiln::aot::ExportedProgram program = kiln::models::conv_relu_tan(options);
  if (!quiet) std::cout << program.to_string() << "\n";

  kiln::aot::HostTensor input = kiln::models::conv_relu_tan_input(options);
  const auto start = std::chrono::steady_clock::now();
  kiln::aot::PyTree result = kiln::aot::call_program(program, kiln::aot::PyTree::tuple({kiln::aot::PyTree::make_leaf(input)}));
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  const auto& output = std::get<kiln::aot::HostTensor>(result.leaf);
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
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "help" || command == "--help" || command == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "version" || command == "--version") {
      std::cout << "kiln " << kVersion << "\n";
      return 0;
    }
    if (command == "demo") return run_demo(args);
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& error) {
    std::cerr << "kiln: " << error.what() << "\nRun 'kiln help' for usage.\n";
    return 2;
  } catch (const kiln::aot::AotError& error) {
    std::cerr << "kiln " << command << ": error: " << error.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "kiln " << command << ": internal error: " << error.what() << "\n";
    return 1;
  }
}
