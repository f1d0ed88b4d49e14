// What every command of the kiln tool shares, in both of its builds: flag
// parsing, usage errors, and the commands' entry points. Free of the
// compiler's types: the runtime-only (device) build compiles it. The pieces
// that need the compiler are in cli.h.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "etdump_output.h"
#include "host/host_error.h"

// 1 when the tool is built with the compiler (KILN_BUILD_AOT=ON), 0 in the
// runtime-only build; set by tools/kiln/CMakeLists.txt.
#ifndef KILN_TOOL_WITH_COMPILER
#error "KILN_TOOL_WITH_COMPILER is set by tools/kiln/CMakeLists.txt"
#endif

namespace kiln::cli {

/// Whether this kiln has the compiler. Without it (the device build) the
/// commands that need it say so and exit non-zero.
constexpr bool kWithCompiler = KILN_TOOL_WITH_COMPILER != 0;

/// A mistake in the command line; printed with a pointer to the help.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Walks a command's arguments: flags with values, switches and positionals.
class Args {
 public:
  Args(std::string command, std::vector<std::string> args) : command_(std::move(command)), args_(std::move(args)) {}

  bool done() const { return next_ >= args_.size(); }
  /// The next argument, consumed.
  const std::string& take() { return args_[next_++]; }
  /// The value of the flag just taken; throws UsageError if there is none.
  const std::string& value(const std::string& flag);
  [[noreturn]] void unknown(const std::string& arg) const;
  const std::string& command() const { return command_; }

 private:
  std::string command_;
  std::vector<std::string> args_;
  size_t next_ = 0;
};

/// The whole file; throws HostError naming it as `what` ("trace") if it cannot be read.
std::string read_file(const std::string& path, const std::string& what);

/// `text` as an integer in [min, max]; throws UsageError naming `flag`.
int64_t parse_integer(const std::string& flag, const std::string& text, int64_t min, int64_t max);

/// Throws HostError: `what` ("kiln lower", "kiln run on a .pt2") needs the
/// compiler, which this kiln was built without.
[[noreturn]] void needs_full_build(const std::string& what);

int run_demo(Args args);
int run_inspect(Args args);
int run_run(Args args);
int run_lower(Args args);
int run_ops(Args args);
int run_profile(Args args);
int run_compare(Args args);
int run_generate(Args args);

/// `kiln run`'s flags as given (run.cpp parses them; -1 or empty: not given).
struct RunFlags {
  std::string path, inputs_path, output_path, model, method, chrome_trace, trace;
  int64_t iterations = -1, warmup = -1, threads = -1;
  int64_t seed = -1;  ///< --seed: the sampling ops' generator
  bool json = false;
  EtdumpRequest etdump;  ///< --etdump / --debug-buffer
};
/// kiln run on a .pt2 (run_pt2.cpp: the reference interpreter, so the compiler).
int run_pt2_file(const RunFlags& flags);
/// kiln run on a .pte (run_pte.cpp).
int run_pte_file(const RunFlags& flags);
/// kiln ops without --used: the op table (ops.cpp: the compiler's op table).
int run_ops_table(bool all, bool markdown);
/// kiln inspect on a .pt2 (inspect_pt2.cpp: the compiler's importer).
int inspect_pt2_file(const std::string& path, const std::string& model);

}  // namespace kiln::cli
