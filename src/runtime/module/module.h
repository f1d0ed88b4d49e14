// Module: the convenience API for apps that do not need control over memory.
// It loads a .pte from a path (mapped by default), mallocs the planned arenas
// and the method's metadata, and runs methods by name:
//
//   kiln::runtime::Module module("model.pte");
//   auto outputs = module.forward({kiln::runtime::EValue(input_tensor)});
//
// Outputs point into the module's arenas and stay valid until the next call.
// Module is a convenience layer over the runtime, like ExecuTorch's extension
// Module: it uses the heap and the standard containers (std::string,
// std::vector, std::unique_ptr), which the core, loaders and executor never
// do. Its execute allocates the returned vector; an app that must not
// allocate per call uses Method directly (tools/size/minimal_app.cpp).
// Kernels and backends must be registered (link the registration targets,
// e.g. kiln_kernels_registered).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/program.h"

namespace kiln::runtime {

class Module final {
 public:
  enum class LoadMode { File, Mmap };

  explicit Module(std::string path, LoadMode mode = LoadMode::Mmap);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Opens and verifies the program (done by the calls below if needed).
  [[nodiscard]] Error load(Program::Verification verification = Program::Verification::InternalConsistency);
  bool is_loaded() const;
  /// The program; null until loaded.
  const Program* program() const;

  [[nodiscard]] Result<std::vector<std::string>> method_names();
  [[nodiscard]] Result<MethodMeta> method_meta(const std::string& method_name);
  /// Loads `method_name` with malloc'd arenas (no-op if already loaded).
  [[nodiscard]] Error load_method(const std::string& method_name);
  /// The loaded method, or null (for set_input/execute with full control).
  Method* method(const std::string& method_name);

  /// Sets the inputs, executes and returns the outputs (shallow copies).
  [[nodiscard]] Result<std::vector<EValue>> execute(const std::string& method_name, const std::vector<EValue>& inputs);
  [[nodiscard]] Result<std::vector<EValue>> forward(const std::vector<EValue>& inputs) {
    return execute("forward", inputs);
  }

  /// The outputs of a method that takes no inputs, such as a constant method
  /// (ExecuTorch's constant_methods: get_max_seq_len, get_eos_ids, ...): it is
  /// loaded if needed and run. A list constant gives one EValue per item, as
  /// ExecuTorch writes it. A string points into the program's data, valid
  /// while the module is loaded.
  /// @retval NotFound the program has no method `method_name`.
  /// @retval InvalidArgument the method takes inputs (logged).
  [[nodiscard]] Result<std::vector<EValue>> constant_values(const std::string& method_name);
  /// The value of a constant method that returns one value (get_bos_id,
  /// use_kv_cache, ...); as constant_values, and also:
  /// @retval InvalidArgument the method returns several values or none (logged).
  [[nodiscard]] Result<EValue> constant_value(const std::string& method_name);

 private:
  struct LoadedMethod;
  std::string path_;
  LoadMode mode_;
  std::unique_ptr<DataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<std::unique_ptr<LoadedMethod>> methods_;
};

}  // namespace kiln::runtime
