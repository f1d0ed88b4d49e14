// Helpers of the Method tests: a program loaded from .pte bytes, the caller's
// memory for one method, runtime tensors over HostTensors, running a method
// on HostTensors, ExecuTorch's fixture files (tests/fixtures/pte) loaded or
// rewritten through the object API, and a log capture.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/exported_program.h"
#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"
#include "runtime/core/log.h"
#include "runtime/core/test/log_capture.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime::method_testing {

namespace fb = executorch_flatbuffer;
using aot::HostTensor;

using kiln::runtime::testing::LogCapture;

/// A loaded program and the bytes it reads.
struct LoadedProgram {
  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;

  const fb::ExecutionPlan* plan() const { return program->flatbuffer_program()->execution_plan()->Get(0); }
  size_t planned_size(size_t buffer) const { return static_cast<size_t>(plan()->non_const_buffer_sizes()->Get(buffer + 1)); }
  size_t num_planned() const { return plan()->non_const_buffer_sizes()->size() - 1; }
};

std::unique_ptr<LoadedProgram> load_program(std::vector<uint8_t> bytes,
                                            Program::Verification verification = Program::Verification::InternalConsistency);

std::vector<uint8_t> read_bytes(const std::string& path);

/// The caller's memory for one method: a method pool, planned buffers sized
/// as the plan says (or as told), a temp pool.
struct Memory {
  Memory(const LoadedProgram& program, size_t method_bytes = 1 << 20, std::optional<std::vector<size_t>> planned = {})
      : method_pool(method_bytes), temp_pool(1 << 20) {
    std::vector<size_t> sizes = planned.value_or(std::vector<size_t>{});
    if (!planned) {
      for (size_t i = 0; i < program.num_planned(); ++i) sizes.push_back(program.planned_size(i));
    }
    for (size_t size : sizes) buffers.emplace_back(size + 1);  // +1: a 0-byte arena still has an address
    for (size_t i = 0; i < sizes.size(); ++i) spans.emplace_back(buffers[i].data(), sizes[i]);
    method_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(method_pool.size()), method_pool.data());
    temp_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(temp_pool.size()), temp_pool.data());
    planned_memory = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans.data(), spans.size()));
    manager = std::make_unique<MemoryManager>(method_allocator.get(), planned_memory.get(), temp_allocator.get());
  }
  std::vector<uint8_t> method_pool, temp_pool;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<MemoryAllocator> method_allocator, temp_allocator;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  std::unique_ptr<MemoryManager> manager;
};

Result<Method> load_method(const LoadedProgram& program, Memory& memory);

/// A runtime tensor over a contiguous copy of a HostTensor.
class InputTensor {
 public:
  explicit InputTensor(const HostTensor& tensor) : host_(tensor.clone()) {
    for (int64_t size : host_.sizes()) sizes_.push_back(static_cast<SizesType>(size));
    for (size_t d = 0; d < sizes_.size(); ++d) dim_order_.push_back(static_cast<DimOrderType>(d));
    strides_.resize(sizes_.size());
    EXPECT_EQ(compute_strides({sizes_.data(), sizes_.size()}, {dim_order_.data(), dim_order_.size()},
                              {strides_.data(), strides_.size()}),
              Error::Ok);
    impl_ = std::make_unique<TensorImpl>(host_.dtype(), static_cast<ssize_t>(sizes_.size()), sizes_.data(),
                                         host_.data(), dim_order_.data(), strides_.data());
  }
  EValue value() const { return EValue(Tensor(impl_.get())); }

 private:
  HostTensor host_;
  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  std::unique_ptr<TensorImpl> impl_;
};

HostTensor to_host(const Tensor& tensor);

std::vector<HostTensor> tensors_of(const std::vector<aot::Value>& values);

/// Sets `inputs`, executes and returns every output (ASSERTs inside: check
/// HasFatalFailure after).
std::vector<HostTensor> run(Method& method, const std::vector<HostTensor>& inputs);

void expect_matches(const HostTensor& actual, const HostTensor& expected, const std::string& what);

/// A golden fixture's program, decomposed to core ATen if it is a training-IR one.
aot::ExportedProgram load_fixture(const std::string& fixture, const std::string& file);

/// ExecuTorch's files: tests/fixtures/pte/.
inline const std::string kPteDir = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

std::vector<HostTensor> npz_tensors(const std::string& path);

/// A tensor of `dtype` and `sizes` filled with `value` (Float and Long).
HostTensor filled(ScalarType dtype, const std::vector<int64_t>& sizes, float value);

struct ExecutorchFile {
  explicit ExecutorchFile(const std::string& name, size_t method_bytes = 1 << 20)
      : program(load_program(read_bytes(kPteDir + name))) {
    if (program == nullptr) return;
    memory = std::make_unique<Memory>(*program, method_bytes);
    Result<Method> loaded = load_method(*program, *memory);
    EXPECT_TRUE(loaded.ok()) << name << ": " << to_string(loaded.error());
    if (loaded.ok()) method.emplace(std::move(loaded.get()));
  }
  std::unique_ptr<LoadedProgram> program;
  std::unique_ptr<Memory> memory;
  std::optional<Method> method;
};

/// `file` from tests/fixtures/pte, changed by `edit`, re-serialized.
std::vector<uint8_t> rewritten(const std::string& file, const std::function<void(executorch_flatbuffer::ExecutionPlanT&)>& edit);

/// `file` with operator `index` renamed ("ns::op.overload").
std::vector<uint8_t> with_renamed_operators(const std::string& file,
                                            const std::vector<std::pair<size_t, std::string>>& renames);

}  // namespace kiln::runtime::method_testing
