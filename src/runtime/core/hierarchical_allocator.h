// HierarchicalAllocator: the planned memory of a method, as the caller's spans.
//
// The memory plan (in the .pte) places every planned tensor at (memory_id,
// offset). memory_id 0 is a reserved, empty arena (non_const_buffer_sizes[0]
// is always 0, as ExecuTorch writes it), so .pte id k is the caller's span
// k - 1: MethodMeta lists the buffer sizes without the reserved one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace kiln::runtime {

class HierarchicalAllocator final {
 public:
  /// `buffers[i]` is planned buffer i as MethodMeta numbers them
  /// (memory_planned_buffer_size(i)); the caller owns the bytes.
  explicit HierarchicalAllocator(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}

  /// The address of `size` bytes at `offset_bytes` in planned buffer
  /// `memory_id` (the .pte's memory_id, which is one more than the span's
  /// index: id 0 is reserved). InvalidArgument when the id names no buffer or
  /// the range does not fit inside it (the check cannot overflow).
  [[nodiscard]] Result<void*> get_offset_address(uint32_t memory_id, size_t offset_bytes, size_t size) const {
    if (memory_id == 0 || memory_id > buffers_.size()) return Error::InvalidArgument;
    const Span<uint8_t>& buffer = buffers_[memory_id - 1];
    if (offset_bytes > buffer.size() || size > buffer.size() - offset_bytes) return Error::InvalidArgument;
    return static_cast<void*>(buffer.data() + offset_bytes);
  }

  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t index) const { return buffers_[index]; }

 private:
  Span<Span<uint8_t>> buffers_;
};

}  // namespace kiln::runtime
