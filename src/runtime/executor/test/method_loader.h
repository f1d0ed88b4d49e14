// A program and one method loaded the way an app (or pte_fuzz) loads them:
// Program::load over a buffer, planned arenas sized as MethodMeta says, a
// method and a temp allocator from the heap; every step's error kept, the
// runtime's log captured. For the tests of Method::load's checks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/test/log_capture.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/robustness_util.h"
#include "runtime/loader/buffer_data_loader.h"

namespace kiln::runtime::testing {

class MethodLoader {
 public:
  /// Loads `bytes` (kept) with `verification`, then its first method.
  explicit MethodLoader(std::vector<uint8_t> bytes,
                        Program::Verification verification = Program::Verification::InternalConsistency)
      : bytes_(std::move(bytes)), loader_(bytes_.data(), bytes_.size()) {
    Result<Program> program = Program::load(&loader_, verification);
    if (!program.ok()) {
      program_error_ = program.error();
      return;
    }
    program_.emplace(std::move(program.get()));
    const char* name = program_->get_method_name(0).get();
    const Result<MethodMeta> meta = program_->method_meta(name);
    if (!meta.ok() || !arenas_.allocate(meta.get(), 64u << 20)) {
      method_error_ = Error::InvalidProgram;
      return;
    }
    memory_.emplace(&method_allocator_, arenas_.allocator(), &temp_allocator_);
    Result<Method> method = program_->load_method(name, &*memory_);
    if (!method.ok()) {
      method_error_ = method.error();
      return;
    }
    method_.emplace(std::move(method.get()));
  }

  Error program_error() const { return program_error_; }
  /// Ok if the method loaded (or the program did not).
  Error method_error() const { return method_error_; }
  Method* method() { return method_ ? &*method_ : nullptr; }
  /// Sets inputs of ones and executes; the first error.
  Error execute_with_ones() {
    if (!method_) return Error::InvalidState;
    OnesInputs inputs;
    if (!inputs.build(method_->method_meta(), 16u << 20)) return Error::InvalidArgument;
    const Error error = inputs.set(*method_);
    return error != Error::Ok ? error : method_->execute();
  }
  std::string log() const { return log_.text(); }

 private:
  LogCapture log_;
  std::vector<uint8_t> bytes_;
  BufferDataLoader loader_;
  std::optional<Program> program_;
  PlannedArenas arenas_;
  HeapAllocator method_allocator_{4u << 20};
  HeapAllocator temp_allocator_{1u << 20};
  std::optional<MemoryManager> memory_;
  std::optional<Method> method_;
  Error program_error_ = Error::Ok;
  Error method_error_ = Error::Ok;
};

}  // namespace kiln::runtime::testing
