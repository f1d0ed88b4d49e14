// A .pte program's method, loaded on malloc'd memory and run on inputs that
// are checked against its MethodMeta: what `kiln run` does, in both builds of
// the tool (on the device too), and what the host tools' session
// (devtools/runtime_session.h: profile, compare, the demo, the Python
// package) is built on.
//
// LoadedProgram is the program (mapped from a file, or read in place from
// bytes; full verification). MethodSession is one of its methods with the
// planned arenas MethodMeta lists, a method allocator that grows as
// Method::load asks, and a temp allocator. Several sessions may share one
// program; each is used by one thread at a time.
//
// A convenience layer like Module (runtime/module/module.h): it uses the heap
// and the standard containers. Errors are values; each is explained by the
// lines logged on the way (runtime/module/logged_errors.h turns them into a
// message), which name the input, the file or the method.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/data_loader.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/program.h"
#include "runtime/npz/npz.h"

namespace kiln::runtime {

/// "f32[1, 3, 224, 224]" (describe_tensor) for a method input's or output's metadata.
std::string describe_tensor_info(const TensorInfo& info);

/// Whether `dtype` and `sizes` fit an input described by `info`: the same
/// dtype and rank, and sizes equal to a static input's, at most a dynamic
/// input's planned bounds.
bool fits_input(const TensorInfo& info, ScalarType dtype, Span<const int64_t> sizes);

/// As fits_input; when they do not fit, logs why, naming input `index`, its
/// expected "f32[2, 3]" and `given` (the value, described alike).
/// @retval InvalidArgument they do not fit.
[[nodiscard]] Error check_input(size_t index, const TensorInfo& info, ScalarType dtype, Span<const int64_t> sizes,
                                const std::string& given);

/// Ones of `dtype` (any dtype a .pte input can have) at `sizes`.
NpyArray ones_array(ScalarType dtype, std::vector<int64_t> sizes);

/// A method's output as an array: a tensor copied into row-major order, an
/// int, double or bool as a 0-dim array, a list of them as a 1-d array.
/// @retval NotSupported any other value (a string, None), logged.
[[nodiscard]] Result<NpyArray> to_array(const EValue& value);

class LoadedProgram {
 public:
  /// Maps `path` and loads the program from it.
  /// @retval AccessFailed the file cannot be opened.
  /// @retval InvalidProgram (or another loader error) it is no program Kiln can load.
  [[nodiscard]] static Result<std::shared_ptr<LoadedProgram>> from_file(const std::string& path);
  /// Reads `size` bytes at `data` in place: they must stay valid while the
  /// program lives, which `owner` (may be null) is kept alive for. `label`
  /// names the program in messages.
  [[nodiscard]] static Result<std::shared_ptr<LoadedProgram>> from_bytes(const void* data, size_t size,
                                                                         std::shared_ptr<const void> owner,
                                                                         const std::string& label);
  ~LoadedProgram();
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

  const Program& program() const { return *program_; }
  /// The path, or the label the bytes were given.
  const std::string& label() const { return label_; }
  /// Program::load (verification included), in milliseconds.
  double load_ms() const { return load_ms_; }
  /// Every method, in the program's order.
  [[nodiscard]] Result<std::vector<std::string>> method_names() const;
  /// `requested` if the program has it; with `requested` empty, 'forward',
  /// else the first method.
  /// @retval NotFound it has no such method (logged with the ones it has).
  [[nodiscard]] Result<std::string> resolve_method(const std::string& requested) const;
  /// The metadata of `method` (resolved as above).
  [[nodiscard]] Result<MethodMeta> method_meta(const std::string& method) const;

 private:
  LoadedProgram(std::unique_ptr<DataLoader> loader, std::shared_ptr<const void> owner, std::string label);
  [[nodiscard]] static Result<std::shared_ptr<LoadedProgram>> load(std::unique_ptr<DataLoader> loader,
                                                                    std::shared_ptr<const void> owner,
                                                                    const std::string& label);

  std::shared_ptr<const void> owner_;
  std::unique_ptr<DataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::string label_;
  double load_ms_ = 0;
};

class MethodSession {
 public:
  /// Loads `method` of `program` (resolved as LoadedProgram::resolve_method
  /// does) on memory of its own. Until inputs are set, execute passes none.
  [[nodiscard]] static Result<std::unique_ptr<MethodSession>> load(std::shared_ptr<const LoadedProgram> program,
                                                                   const std::string& method = "");
  ~MethodSession();
  MethodSession(const MethodSession&) = delete;
  MethodSession& operator=(const MethodSession&) = delete;

  const LoadedProgram& program() const { return *program_; }
  const std::string& method_name() const;
  MethodMeta method_meta() const;
  /// The bytes of the planned arenas.
  size_t planned_bytes() const;
  /// Method::load alone, in milliseconds.
  double method_load_ms() const { return method_load_ms_; }

  /// The inputs for every following execute, one array per input in order:
  /// a tensor input's array must fit it (check_input), a prim input's
  /// (int, double, bool) must have 0 dimensions. Each array is laid out in
  /// its input's dim order (an .npz array is row-major).
  /// @retval InvalidArgument a count, dtype, rank or size does not fit.
  [[nodiscard]] Error set_inputs(std::vector<NpyArray> arrays);
  /// The inputs from the .npz at `path`: its arrays arr_0 ... arr_<n-1> (as
  /// np.savez(f, a, b) names them), or all of them in the archive's order.
  /// @retval InvalidArgument / NotSupported / AccessFailed as read_npz and set_inputs.
  [[nodiscard]] Error set_inputs_from_npz(const std::string& path);
  /// Every tensor input ones at its planned shape.
  /// @retval InvalidArgument an input is a prim, which has no default.
  [[nodiscard]] Error set_ones();
  /// The inputs as runtime values, one per input in order, checked as above
  /// and passed to the method as they are: a tensor's data is borrowed and
  /// must stay valid, laid out in the input's dim order, until the last
  /// execute that uses it.
  [[nodiscard]] Error set_input_values(std::vector<EValue> values);

  /// Sets the inputs, runs the method once; the execute time in milliseconds.
  [[nodiscard]] Result<double> execute();
  /// Reports the following executes to `tracer` (null: tracing off).
  void set_event_tracer(EventTracer* tracer);
  /// The method itself: its outputs (get_output) are those of the last
  /// execute, and point into the session's arenas.
  Method& method();
  const Method& method() const;

 private:
  struct State;
  MethodSession(std::shared_ptr<const LoadedProgram> program, std::unique_ptr<State> state);

  std::shared_ptr<const LoadedProgram> program_;
  std::unique_ptr<State> state_;
  double method_load_ms_ = 0;
};

}  // namespace kiln::runtime
