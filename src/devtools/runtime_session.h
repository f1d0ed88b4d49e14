// A .pte program on Kiln's runtime for the tools: `kiln run`, `kiln profile`,
// `kiln compare`, `kiln demo` and the Python package all load and run a
// program through these two classes, so they check inputs and explain
// failures the same way.
//
// LoadedProgram is the program (mapped from a file, or read in place from
// bytes; full verification). RuntimeSession is one of its methods loaded on
// malloc'd memory: the planned arenas MethodMeta lists, a method allocator
// that grows as Method::load asks, and a temp allocator. Several sessions may
// share one program; each session is used by one thread at a time, and
// sessions of different methods (or programs) may run at once.
//
// Every failure throws aot::AotError with the runtime's Error and the lines it
// logged on the calling thread (the runtime explains each error with one
// line; a load with missing kernels logs one per kernel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"
#include "runtime/core/data_loader.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/program.h"

namespace kiln::devtools {

/// Ones of `dtype` (any dtype a .pte input can have) at `sizes`.
aot::HostTensor ones(runtime::ScalarType dtype, const std::vector<int64_t>& sizes);

/// "f32[1, 3, 224, 224]": a method input's or output's dtype and sizes.
std::string describe_tensor_info(const runtime::TensorInfo& info);

class LoadedProgram {
 public:
  /// Maps `path`.
  static std::shared_ptr<LoadedProgram> from_file(const std::string& path);
  /// Reads `size` bytes at `data` in place: they must stay valid while the
  /// program lives, which `owner` (may be null) is kept alive for. `label`
  /// names the program in messages.
  static std::shared_ptr<LoadedProgram> from_bytes(const void* data, size_t size, std::shared_ptr<const void> owner,
                                                   const std::string& label);

  LoadedProgram(std::unique_ptr<runtime::DataLoader> loader, std::shared_ptr<const void> owner,
                const std::string& label);
  ~LoadedProgram();
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  const runtime::Program& program() const;
  /// The path, or the label the bytes were given.
  const std::string& label() const { return label_; }
  /// Program::load (verification included), in milliseconds.
  double load_ms() const { return load_ms_; }
  /// Every method, in the program's order.
  std::vector<std::string> method_names() const;
  /// `requested` if the program has it (else throws naming the methods it
  /// has); with `requested` empty, 'forward', else the first method.
  std::string resolve_method(const std::string& requested) const;
  /// The metadata of `method` (resolved as above).
  runtime::MethodMeta method_meta(const std::string& method) const;

 private:
  std::shared_ptr<const void> owner_;
  std::unique_ptr<runtime::DataLoader> loader_;
  std::unique_ptr<runtime::Program> program_;
  std::string label_;
  double load_ms_ = 0;
};

class RuntimeSession {
 public:
  /// A program mapped from `path`, `method` loaded (see resolve_method).
  static std::unique_ptr<RuntimeSession> from_file(const std::string& path, const std::string& method = "");
  /// `data` must outlive the session (the runtime reads it in place).
  static std::unique_ptr<RuntimeSession> from_bytes(const void* data, size_t size, const std::string& label);

  /// Loads `method` of `program` (resolved as LoadedProgram::resolve_method
  /// does) on memory of its own.
  explicit RuntimeSession(std::shared_ptr<const LoadedProgram> program, const std::string& method = "");
  ~RuntimeSession();
  RuntimeSession(const RuntimeSession&) = delete;
  RuntimeSession& operator=(const RuntimeSession&) = delete;

  const char* method_name() const;
  runtime::MethodMeta method_meta() const;
  size_t planned_bytes() const;
  /// Program load + method load, in milliseconds.
  double load_ms() const { return load_ms_; }
  /// Program::load alone (from_file: the file is mapped before), in milliseconds.
  double program_load_ms() const { return program_->load_ms(); }

  /// The inputs for every following execute: from an .npz (arr_<i> or the
  /// archive's order), or ones at the planned shapes when `inputs_path` is
  /// empty. Checked against MethodMeta (dtype, rank, sizes, count).
  void set_inputs_from(const std::string& inputs_path);
  /// The inputs from host tensors, one per input in order (checked as above).
  /// A tensor laid out as the input is used in place (the session keeps a
  /// reference to its storage); others are copied into the input's layout.
  void set_inputs(std::vector<aot::HostTensor> tensors);
  /// The inputs as runtime values, one per input in order, checked as above
  /// and passed to the method as they are: a tensor's data is borrowed, and
  /// must stay valid and laid out in the input's dim order until the last
  /// execute that uses it (an unplanned input is read in place, a planned one
  /// copied into its arena by Method::set_input).
  void set_input_values(std::vector<runtime::EValue> values);
  /// Sets the inputs, runs the method once; returns the execute time in ms.
  double execute();
  /// Reports the following executes to `tracer` (null: tracing off).
  void set_event_tracer(runtime::EventTracer* tracer);
  /// The outputs of the last execute, copied to the host.
  std::vector<aot::Value> outputs() const;
  /// The method itself (its outputs point into the session's arenas).
  runtime::Method& method();

 private:
  struct State;
  std::shared_ptr<const LoadedProgram> program_;
  std::unique_ptr<State> state_;
  double load_ms_ = 0;
  size_t calls_ = 0;
};

/// Whether `dtype` and `sizes` fit an input described by `info` (as
/// check_input checks, without making its message).
bool fits_input(const runtime::TensorInfo& info, runtime::ScalarType dtype, runtime::Span<const int64_t> sizes);

/// Throws AotError unless `dtype` and `sizes` fit input `index` described by
/// `info`: the same dtype and rank, and sizes equal to a static input's,
/// at most a dynamic input's planned bounds. `given` describes the value in
/// the message ("f32[2, 3]").
void check_input(size_t index, const runtime::TensorInfo& info, runtime::ScalarType dtype,
                 const std::vector<int64_t>& sizes, const std::string& given);

}  // namespace kiln::devtools
