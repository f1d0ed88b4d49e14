// kiln run MODEL.pte: a program run on Kiln's runtime (see run_pte.cpp), and
// the session that `kiln demo` uses to run its lowered program.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"
#include "runtime/core/data_loader.h"
#include "runtime/core/event_tracer.h"
#include "runtime/executor/method_meta.h"

namespace kiln::cli {

struct PteRunOptions {
  std::string path;
  std::string inputs_path;  ///< empty: inputs of ones
  std::string output_path;  ///< empty: no .npz written
  int iterations = 1;
  int warmup = 0;
  int threads = 1;    ///< the oneDNN backend's thread count
  bool json = false;  ///< also print the timings as one JSON line (kiln run --json)
  std::string chrome_trace_path;  ///< empty: no trace; else the timed calls' events as a Chrome trace
  std::string trace_path;         ///< empty: no trace; else the timed calls' events as a Kiln trace
  std::string method;             ///< empty: 'forward', else the program's first method
};

/// Ones of `dtype` (any dtype a .pte input can have) at `sizes`.
aot::HostTensor ones(runtime::ScalarType dtype, const std::vector<int64_t>& sizes);

/// Loads, runs and prints; throws AotError naming what was wrong.
int run_pte(const PteRunOptions& options);

/// A .pte loaded on the runtime (full verification; the portable and prim
/// kernels and DemoBackend are linked in), one method (`method`, or when that
/// is empty 'forward', else the first one) loaded into malloc'd memory. Every
/// failure throws AotError with the runtime's Error and the lines it logged;
/// a method the program lacks is named with the methods it has.
class RuntimeSession {
 public:
  static std::unique_ptr<RuntimeSession> from_file(const std::string& path, const std::string& method = "");
  /// `data` must outlive the session (the runtime reads it in place).
  static std::unique_ptr<RuntimeSession> from_bytes(const void* data, size_t size, const std::string& label);

  RuntimeSession(std::unique_ptr<runtime::DataLoader> loader, const std::string& label,
                 const std::string& method = "");
  ~RuntimeSession();
  RuntimeSession(const RuntimeSession&) = delete;
  RuntimeSession& operator=(const RuntimeSession&) = delete;

  const char* method_name() const;
  runtime::MethodMeta method_meta() const;
  size_t planned_bytes() const;
  /// Program load + method load, in milliseconds.
  double load_ms() const { return load_ms_; }
  /// Program::load alone (from_file: the file is mapped before), in milliseconds.
  double program_load_ms() const { return program_load_ms_; }

  /// The inputs for every following execute: from an .npz (arr_<i> or the
  /// archive's order), or ones at the planned shapes when `inputs_path` is
  /// empty. Checked against MethodMeta (dtype, rank, sizes, count).
  void set_inputs_from(const std::string& inputs_path);
  /// The inputs from host tensors, one per input in order (checked as above).
  void set_inputs(std::vector<aot::HostTensor> tensors);
  /// Sets the inputs, runs the method once; returns the execute time in ms.
  double execute();
  /// Reports the following executes to `tracer` (null: tracing off).
  void set_event_tracer(runtime::EventTracer* tracer);
  /// The outputs of the last execute, copied to the host.
  std::vector<aot::Value> outputs() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  double load_ms_ = 0;
  double program_load_ms_ = 0;
  size_t calls_ = 0;
};

}  // namespace kiln::cli
