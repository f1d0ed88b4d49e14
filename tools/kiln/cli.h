// Shared pieces of the kiln tool's commands: flag parsing and usage errors.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "aot/emit/to_executorch.h"
#include "aot/ir/exported_program.h"
#include "aot/ir/value.h"

namespace kiln::cli {

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

/// The whole file; throws AotError naming it as `what` ("trace") if it cannot be read.
std::string read_file(const std::string& path, const std::string& what);

/// `text` as an integer in [min, max]; throws UsageError naming `flag`.
int64_t parse_integer(const std::string& flag, const std::string& text, int64_t min, int64_t max);

int run_demo(Args args);
int run_inspect(Args args);
int run_run(Args args);
int run_lower(Args args);

/// Lowers `program` (the seed model) to BackendWithDelegateMappingDemo and
/// prints the blob and the debug-handle map.
void print_delegation_demo(const aot::ExportedProgram& program);
/// One line on a written program (size, values, instructions, planned bytes)
/// and, with `print_memory`, the memory plan's summary.
void print_executorch_program(const aot::ExecutorchProgram& result, bool print_memory);
int run_ops(Args args);
int run_profile(Args args);
int run_compare(Args args);
int run_generate(Args args);

/// Prints "label: f32[2, 3]  min=.. max=.. mean=.." and the first values (or
/// the value itself when it is not a tensor).
void print_output(const std::string& label, const aot::Value& value);

}  // namespace kiln::cli
