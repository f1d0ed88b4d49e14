// Serialization of an emitted program to .pte bytes: the flatbuffer, the
// extended header, and the data segments (constants, mutable initial data,
// delegate blobs, named data), with ExecuTorch's ordering and alignment rules.
//
// Segments are laid out in this order: the constant segment (always, even
// empty), the mutable data segment (if any), one segment per distinct
// non-empty delegate blob (when extracted), one per distinct named-data blob.
// Each starts at a multiple of lcm(segment alignment, its own alignment),
// counted from segment_base_offset; constants inside the constant segment
// start at multiples of the constant tensor alignment.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aot/emit/pte_format.h"
#include "schema/program_generated.h"

namespace kiln::aot::pte {

/// Bytes the serializer reads but does not own (the emitter keeps them alive).
using Bytes = std::span<const uint8_t>;

struct NamedBlob {
  std::string key;
  Bytes data;
  uint64_t alignment = 16;
};

/// An emitted program before serialization. `program` holds the execution
/// plans and delegates; the serializer fills in its segments, constant
/// segment and mutable data segments and moves delegate data out.
struct PteProgram {
  executorch_flatbuffer::ProgramT program;
  /// Constant tensor data by data_buffer_idx; entry 0 is the reserved empty placeholder.
  std::vector<Bytes> constant_data{Bytes{}};
  /// Initial values of planned mutable tensors by data_buffer_idx; empty, or entry 0 reserved.
  std::vector<Bytes> mutable_data;
  /// Delegate blobs; BackendDelegate.processed (INLINE) indexes this list.
  std::vector<Bytes> delegate_data;
  std::vector<NamedBlob> named_data;
};

struct SerializeOptions {
  /// Delegate blobs go to segments rather than inline in the flatbuffer.
  bool extract_delegate_segments = true;
  uint64_t segment_alignment = kDefaultSegmentAlignment;
  uint64_t constant_tensor_alignment = kDefaultConstantTensorAlignment;
  /// Alignment of delegate blobs kept inline.
  uint64_t delegate_alignment = kDefaultDelegateAlignment;
};

/// The .pte bytes of `program`. Throws AotError on a bad option (an alignment
/// that is not a power of two) or an index out of range.
std::vector<uint8_t> serialize_pte(const PteProgram& program, const SerializeOptions& options = {});

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed into place, so that a failed write leaves no partial file; throws
/// AotError naming the path and the reason.
void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace kiln::aot::pte
