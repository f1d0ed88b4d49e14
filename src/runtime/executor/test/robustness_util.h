// Helpers shared by the runtime's robustness checks — the allocation-failure
// sweep, the no-allocation test and the pte_fuzz target: the planned arenas a
// method asks for, from the heap, and inputs of ones for every tensor input.
// Header-only and exception-free, so the fuzz target (C++17) can use it too.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/log.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"

namespace kiln::runtime::testing {

/// A MemoryAllocator over its own exactly-sized heap block, so that
/// AddressSanitizer sees a read or write past its end.
class HeapAllocator : public MemoryAllocator {
 public:
  explicit HeapAllocator(uint32_t size) : HeapAllocator(size, std::make_unique<uint8_t[]>(size)) {}

 private:
  HeapAllocator(uint32_t size, std::unique_ptr<uint8_t[]> block)
      : MemoryAllocator(size, block.get()), block_(std::move(block)) {}
  std::unique_ptr<uint8_t[]> block_;
};

/// The planned buffers of one method, each an exactly-sized zeroed heap block.
class PlannedArenas {
 public:
  /// Allocates every buffer `meta` lists. False (nothing allocated) when a
  /// size is unreadable or negative or the total passes `max_total_bytes`.
  bool allocate(const MethodMeta& meta, size_t max_total_bytes) {
    const size_t count = meta.num_memory_planned_buffers();
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) {
      const Result<int64_t> size = meta.memory_planned_buffer_size(i);
      if (!size.ok() || size.get() < 0 || static_cast<uint64_t>(size.get()) > max_total_bytes - total) return false;
      total += static_cast<size_t>(size.get());
    }
    for (size_t i = 0; i < count; ++i) {
      const size_t size = static_cast<size_t>(meta.memory_planned_buffer_size(i).get());
      blocks_.emplace_back(new uint8_t[size]());
      spans_.emplace_back(blocks_.back().get(), size);
    }
    allocator_ = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans_.data(), spans_.size()));
    return true;
  }

  HierarchicalAllocator* allocator() const { return allocator_.get(); }
  size_t num_buffers() const { return spans_.size(); }
  Span<uint8_t> buffer(size_t index) const { return spans_[index]; }

 private:
  std::vector<std::unique_ptr<uint8_t[]>> blocks_;
  std::vector<Span<uint8_t>> spans_;
  std::unique_ptr<HierarchicalAllocator> allocator_;
};

/// Writes `count` ones of `type` at `data` (zeros for types without arithmetic).
inline void fill_ones(ScalarType type, void* data, size_t count) {
  const auto fill = [&](auto one) {
    auto* typed = static_cast<decltype(one)*>(data);
    for (size_t i = 0; i < count; ++i) std::memcpy(typed + i, &one, sizeof one);
  };
  switch (type) {
    case ScalarType::Byte: fill(uint8_t{1}); break;
    case ScalarType::Char: fill(int8_t{1}); break;
    case ScalarType::Bool: fill(uint8_t{1}); break;
    case ScalarType::Short: fill(int16_t{1}); break;
    case ScalarType::UInt16: fill(uint16_t{1}); break;
    case ScalarType::Int: fill(int32_t{1}); break;
    case ScalarType::UInt32: fill(uint32_t{1}); break;
    case ScalarType::Long: fill(int64_t{1}); break;
    case ScalarType::UInt64: fill(uint64_t{1}); break;
    case ScalarType::Half: fill(uint16_t{0x3c00}); break;
    case ScalarType::BFloat16: fill(uint16_t{0x3f80}); break;
    case ScalarType::Float: fill(1.0f); break;
    case ScalarType::Double: fill(1.0); break;
    default: std::memset(data, 0, count * element_size(type)); break;
  }
}

/// Tensors of ones, one per tensor input of a method, at the sizes
/// MethodMeta gives (the upper bounds of a dynamic input).
class OnesInputs {
 public:
  /// Builds the tensors for `meta`'s inputs. False when a tensor input's
  /// meta is unreadable, its rank or dim order is malformed or it needs more
  /// than `max_tensor_bytes`.
  bool build(const MethodMeta& meta, size_t max_tensor_bytes) {
    const size_t count = meta.num_inputs();
    inputs_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const Result<Tag> tag = meta.input_tag(i);
      if (!tag.ok()) return false;
      if (tag.get() != Tag::Tensor) continue;
      const Result<TensorInfo> info = meta.input_tensor_meta(i);
      if (!info.ok()) return false;
      if (!build_tensor(info.get(), max_tensor_bytes, inputs_[i])) return false;
    }
    return true;
  }

  /// Sets every input of `method`: tensor inputs to the ones built above,
  /// other inputs to the value the method already holds. Returns the first
  /// error of set_input (or Ok).
  Error set(Method& method) {
    if (method.inputs_size() != inputs_.size()) return Error::InvalidArgument;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const EValue value = inputs_[i].impl ? EValue(Tensor(inputs_[i].impl.get())) : method.get_input(i);
      const Error error = method.set_input(value, i);
      if (error != Error::Ok) return error;
    }
    return Error::Ok;
  }

 private:
  struct OwnedTensor {
    std::vector<SizesType> sizes;
    std::vector<DimOrderType> dim_order;
    std::vector<StridesType> strides;
    std::unique_ptr<uint8_t[]> data;
    std::unique_ptr<TensorImpl> impl;
  };

  static bool build_tensor(const TensorInfo& info, size_t max_bytes, OwnedTensor& out) {
    const size_t rank = info.sizes().size();
    if (info.dim_order().size() != rank || element_size(info.scalar_type()) == 0) return false;
    size_t numel = 1;
    for (SizesType size : info.sizes()) {
      if (size < 0 || (size > 0 && numel > max_bytes / static_cast<size_t>(size))) return false;
      numel *= static_cast<size_t>(size);
    }
    const size_t nbytes = numel * element_size(info.scalar_type());
    if (numel > max_bytes || nbytes / element_size(info.scalar_type()) != numel || nbytes > max_bytes) return false;
    out.sizes.assign(info.sizes().begin(), info.sizes().end());
    out.dim_order.assign(info.dim_order().begin(), info.dim_order().end());
    out.strides.assign(rank, 0);
    if (compute_strides({out.sizes.data(), rank}, {out.dim_order.data(), rank}, {out.strides.data(), rank}) !=
        Error::Ok) {
      return false;
    }
    // At least one byte, so a tensor of no elements still has an address.
    out.data.reset(new uint8_t[nbytes == 0 ? 1 : nbytes]);
    fill_ones(info.scalar_type(), out.data.get(), numel);
    out.impl = std::make_unique<TensorImpl>(info.scalar_type(), static_cast<ssize_t>(rank), out.sizes.data(),
                                            out.data.get(), out.dim_order.data(), out.strides.data(),
                                            info.shape_dynamism());
    return true;
  }

  std::vector<OwnedTensor> inputs_;
};

/// The memory the robustness tests give a method (exactly-sized heap blocks).
inline constexpr uint32_t kMethodAllocatorBytes = 16u << 20;
inline constexpr uint32_t kTempAllocatorBytes = 1u << 20;
inline constexpr size_t kMaxPlannedBytes = 256u << 20;

/// The runtime's error lines while installed: counted, the last one kept in a
/// fixed buffer (the sink runs inside the code under test, which must not see
/// the heap used).
struct ErrorLines {
  inline static size_t count = 0;
  inline static char last[512] = {};

  static void sink(LogLevel level, const char* message) {
    if (level != LogLevel::Error) return;
    ++count;
    std::snprintf(last, sizeof last, "%s", message);
  }
  static void clear() {
    count = 0;
    last[0] = '\0';
  }
};

}  // namespace kiln::runtime::testing
