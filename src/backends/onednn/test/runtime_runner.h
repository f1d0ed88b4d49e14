// RuntimeRunner (tests only): one .pte held in memory, its "forward" loaded
// with fixed-size pools and planned buffers sized from MethodMeta, run on
// HostTensors. Shared by the tests that run lowered programs on the runtime
// (onednn_pte_test, onednn_conformance_test).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "tests/support/host_tensors.h"

namespace kiln::backends::onednn::testing {

// One .pte held in memory, its "forward" loaded with fixed-size pools and
// planned buffers sized from MethodMeta, as an app with full control would.
class RuntimeRunner {
 public:
  /// `method_pool_bytes`: the method allocator's pool (oneDNN's reordered
  /// weights and primitives live there).
  explicit RuntimeRunner(std::vector<uint8_t> pte, size_t method_pool_bytes = 64 << 20)
      : pte_(std::move(pte)), loader_(pte_.data(), pte_.size()), method_pool_(method_pool_bytes) {}

  runtime::Error load() {
    runtime::Result<runtime::Program> program =
        runtime::Program::load(&loader_, runtime::Program::Verification::InternalConsistency);
    if (!program.ok()) return program.error();
    program_.emplace(std::move(program.get()));
    runtime::Result<runtime::MethodMeta> meta = program_->method_meta("forward");
    if (!meta.ok()) return meta.error();
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      planned_.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& buffer : planned_) spans_.emplace_back(buffer.data(), buffer.size());
    planned_memory_.emplace(runtime::Span<runtime::Span<uint8_t>>(spans_.data(), spans_.size()));
    manager_.emplace(&method_allocator_, &*planned_memory_, &temp_allocator_);
    runtime::Result<runtime::Method> method = program_->load_method("forward", &*manager_);
    if (!method.ok()) return method.error();
    method_.emplace(std::move(method.get()));
    return runtime::Error::Ok;
  }

  const runtime::Program& program() const { return *program_; }
  size_t method_bytes_used() const { return method_allocator_.used_size(); }

  /// Runs one call; every output as a HostTensor.
  std::vector<aot::HostTensor> run(const std::vector<aot::Value>& inputs) {
    std::vector<std::unique_ptr<runtime::testing::OwnedTensor>> tensors;
    std::vector<runtime::EValue> values;
    for (const aot::Value& input : inputs) {
      tensors.push_back(std::make_unique<runtime::testing::OwnedTensor>(std::get<aot::HostTensor>(input)));
      values.push_back(tensors.back()->value());
    }
    EXPECT_EQ(method_->set_inputs({values.data(), values.size()}), runtime::Error::Ok);
    EXPECT_EQ(method_->execute(), runtime::Error::Ok);
    std::vector<aot::HostTensor> outputs;
    for (size_t i = 0; i < method_->outputs_size(); ++i) {
      outputs.push_back(runtime::testing::to_host(method_->get_output(i), "output " + std::to_string(i)));
    }
    return outputs;
  }

 private:
  std::vector<uint8_t> pte_;
  runtime::BufferDataLoader loader_;
  std::optional<runtime::Program> program_;
  std::vector<uint8_t> method_pool_;
  std::vector<uint8_t> temp_pool_ = std::vector<uint8_t>(1 << 20);
  runtime::MemoryAllocator method_allocator_{static_cast<uint32_t>(method_pool_.size()), method_pool_.data()};
  runtime::MemoryAllocator temp_allocator_{static_cast<uint32_t>(temp_pool_.size()), temp_pool_.data()};
  std::vector<std::vector<uint8_t>> planned_;
  std::vector<runtime::Span<uint8_t>> spans_;
  std::optional<runtime::HierarchicalAllocator> planned_memory_;
  std::optional<runtime::MemoryManager> manager_;
  std::optional<runtime::Method> method_;
};

}  // namespace kiln::backends::onednn::testing
