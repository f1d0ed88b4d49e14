// kiln: the command-line tool. Thin by design: it parses flags and calls the
// libraries; every error is printed with what was wrong and exits non-zero.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "host/host_error.h"
#include "command_line.h"

namespace {

constexpr const char* kVersion = "0.1.0";

constexpr const char* kIntroduction = "kiln: take a PyTorch model to a CPU or an edge device.\n";

constexpr const char* kDeviceBuild = R"(
This kiln is the runtime-only (device) build: it inspects and runs .pte
programs, lists the operators they call (kiln ops --used) and generates from
language models. The commands marked [full build], the op table (kiln ops
without --used) and every .pt2 need the compiler: build Kiln with
KILN_BUILD_AOT=ON (the default; `make`) for them.
)";

struct Command {
  const char* name;
  const char* summary;  ///< lines after the first indented to the summary's column
  bool needs_compiler;
};

constexpr Command kCommands[] = {
    {"inspect", "print a .pt2 program (graph, signature, weights, range constraints)\n"
                "or a .pte program (segments, values, instructions, memory plan)", false},
    {"run", "run a .pt2 program on inputs from an .npz file (reference\n"
            "interpreter), or a .pte program on Kiln's runtime (timed)", false},
    {"lower", "split a .pt2 program across backends and show what went where;\n"
              "with -o, write it as a .pte program (ExecuTorch's format)", true},
    {"ops", "list the ops Kiln knows: core ATen or not, out variant, the\n"
            "portable kernel's dtypes, the backends that run them; with\n"
            "--used, the operators .pte programs call", false},
    {"profile", "run a .pte traced and show its time per op of the user's\n"
                "program, through the debug record 'kiln lower' wrote", true},
    {"compare", "run a .pte with its intermediate outputs logged and the .pt2 on\n"
                "the reference interpreter; show where the numbers part, per op", true},
    {"generate", "run a language model's .pte: a prompt in, text streamed out\n"
                 "(tokenizer.json, chat templates, sampling), then its speed", false},
    {"demo", "build the seed model (ConvReLUTanModel) in C++, print the program,\n"
             "run it on the reference interpreter, lower it to a .pte (portable\n"
             "kernels, then OneDnnBackend), run both on Kiln's runtime, compare\n"
             "each with the interpreter and print their execute times", true},
    {"version", "print Kiln's version", false},
    {"help", "print this help", false},
};

/// The help, as true of this build: without the compiler, the commands that
/// need it are marked.
std::string usage() {
  std::string text = kIntroduction;
  if (!kiln::cli::kWithCompiler) text += kDeviceBuild;
  text += "\nUsage: kiln <command> [options]\n\nCommands:\n";
  for (const Command& command : kCommands) {
    std::string summary = command.summary;
    if (command.needs_compiler && !kiln::cli::kWithCompiler) summary = "[full build] " + summary;
    std::string line = "  " + std::string(command.name);
    line.resize(13, ' ');
    for (size_t start = 0; start < summary.size();) {
      const size_t end = std::min(summary.find('\n', start), summary.size());
      text += (start == 0 ? line : std::string(13, ' ')) + summary.substr(start, end - start) + "\n";
      start = end + 1;
    }
  }
  return text + "\nRun 'kiln <command> --help' for a command's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << usage();
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    const bool is_help = command == "help" || command == "--help" || command == "-h";
    const bool is_version = command == "version" || command == "--version";
    if ((is_help || is_version) && !args.empty()) {
      throw kiln::cli::UsageError("'" + command + "' takes no arguments, got '" + args[0] + "'");
    }
    if (is_help) {
      std::cout << usage();
      return 0;
    }
    if (is_version) {
      std::cout << "kiln " << kVersion << "\n";
      return 0;
    }
    kiln::cli::Args parsed(command, std::move(args));
    if (command == "demo") return kiln::cli::run_demo(std::move(parsed));
    if (command == "inspect") return kiln::cli::run_inspect(std::move(parsed));
    if (command == "run") return kiln::cli::run_run(std::move(parsed));
    if (command == "lower") return kiln::cli::run_lower(std::move(parsed));
    if (command == "ops") return kiln::cli::run_ops(std::move(parsed));
    if (command == "profile") return kiln::cli::run_profile(std::move(parsed));
    if (command == "compare") return kiln::cli::run_compare(std::move(parsed));
    if (command == "generate") return kiln::cli::run_generate(std::move(parsed));
    throw kiln::cli::UsageError("unknown command '" + command + "'");
  } catch (const kiln::cli::UsageError& error) {
    std::cerr << "kiln: " << error.what() << "\nRun 'kiln help' for usage.\n";
    return 2;
  } catch (const kiln::HostError& error) {
    // After what the command printed (generate streams its text).
    std::cout.flush();
    std::fflush(stdout);
    std::cerr << "kiln " << command << ": error: " << error.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "kiln " << command << ": error: out of memory (the model or its inputs are too large for this machine)\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "kiln " << command << ": internal error: " << error.what() << "\n";
    return 1;
  }
}
