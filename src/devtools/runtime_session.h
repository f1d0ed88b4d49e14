// A .pte program on Kiln's runtime for the host tools: `kiln profile`,
// `kiln compare`, `kiln demo` and the Python package load and run a program
// through these two classes, which are the runtime's LoadedProgram and
// MethodSession (runtime/module/method_session.h, what `kiln run` uses in
// both builds) with host tensors in and out and failures as exceptions, so
// every tool checks inputs and explains failures the same way.
//
// LoadedProgram is the program (mapped from a file, or read in place from
// bytes; full verification). RuntimeSession is one of its methods loaded on
// malloc'd memory. Several sessions may share one program; each session is
// used by one thread at a time, and sessions of different methods (or
// programs) may run at once.
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
#include "runtime/module/method_session.h"

namespace kiln::devtools {

/// Ones of `dtype` (any dtype a .pte input can have) at `sizes`.
aot::HostTensor ones(runtime::ScalarType dtype, const std::vector<int64_t>& sizes);

class LoadedProgram {
 public:
  /// Maps `path`.
  static std::shared_ptr<LoadedProgram> from_file(const std::string& path);
  /// Reads `size` bytes at `data` in place: they must stay valid while the
  /// program lives, which `owner` (may be null) is kept alive for. `label`
  /// names the program in messages.
  static std::shared_ptr<LoadedProgram> from_bytes(const void* data, size_t size, std::shared_ptr<const void> owner,
                                                   const std::string& label);

  explicit LoadedProgram(std::shared_ptr<const runtime::LoadedProgram> loaded);
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  const runtime::Program& program() const { return loaded_->program(); }
  /// The runtime's program, which the sessions load their methods from.
  const std::shared_ptr<const runtime::LoadedProgram>& loaded() const { return loaded_; }
  /// The path, or the label the bytes were given.
  const std::string& label() const { return loaded_->label(); }
  /// Program::load (verification included), in milliseconds.
  double load_ms() const { return loaded_->load_ms(); }
  /// Every method, in the program's order.
  std::vector<std::string> method_names() const;
  /// `requested` if the program has it (else throws naming the methods it
  /// has); with `requested` empty, 'forward', else the first method.
  std::string resolve_method(const std::string& requested) const;
  /// The metadata of `method` (resolved as above).
  runtime::MethodMeta method_meta(const std::string& method) const;

 private:
  std::shared_ptr<const runtime::LoadedProgram> loaded_;
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

  const char* method_name() const { return session_->method_name().c_str(); }
  runtime::MethodMeta method_meta() const { return session_->method_meta(); }
  size_t planned_bytes() const { return session_->planned_bytes(); }
  /// Program load + method load, in milliseconds.
  double load_ms() const { return program_->load_ms() + session_->method_load_ms(); }
  /// Program::load alone (from_file: the file is mapped before), in milliseconds.
  double program_load_ms() const { return program_->load_ms(); }

  /// The inputs for every following execute: from an .npz (arr_<i> or the
  /// archive's order), or ones at the planned shapes when `inputs_path` is
  /// empty. Checked against MethodMeta (dtype, rank, sizes, count).
  void set_inputs_from(const std::string& inputs_path);
  /// The inputs from host tensors, one per input in order (checked as above),
  /// copied into the inputs' layouts.
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
  void set_event_tracer(runtime::EventTracer* tracer) { session_->set_event_tracer(tracer); }
  /// The outputs of the last execute, copied to the host.
  std::vector<aot::Value> outputs() const;
  /// The method itself (its outputs point into the session's arenas).
  runtime::Method& method() { return session_->method(); }

 private:
  std::shared_ptr<const LoadedProgram> program_;
  std::unique_ptr<runtime::MethodSession> session_;
  size_t calls_ = 0;
};

using runtime::describe_tensor_info;
using runtime::fits_input;

/// Throws AotError unless `dtype` and `sizes` fit input `index` described by
/// `info`: the same dtype and rank, and sizes equal to a static input's,
/// at most a dynamic input's planned bounds. `given` describes the value in
/// the message ("f32[2, 3]").
void check_input(size_t index, const runtime::TensorInfo& info, runtime::ScalarType dtype,
                 const std::vector<int64_t>& sizes, const std::string& given);

}  // namespace kiln::devtools
