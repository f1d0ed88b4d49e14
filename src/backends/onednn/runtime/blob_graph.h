// Reading a oneDNN delegate blob: the 16-byte header (onednn_blob.h), the
// flatbuffer (verified with flatbuffers::Verifier) and every index and size
// the runtime relies on, so the graph builder may index without checks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/onednn/capabilities.h"
#include "backends/onednn/onednn_graph_generated.h"
#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/memory_allocator.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

/// A verified graph, pointing into the blob.
struct BlobGraph {
  const fb::Graph* graph = nullptr;
  uint32_t num_inputs = 0;   ///< Input values are numbered 0 .. num_inputs-1
  uint32_t num_outputs = 0;  ///< Output values likewise
};

/// Parses and checks the `size`-byte blob at `data`. On failure returns
/// DelegateInvalidCompatibility after one log line naming `method_name` and
/// what is wrong (DelegateMemoryAllocationFailed when `scratch`, which lends
/// one byte per value, is full).
[[nodiscard]] runtime::Error read_blob_graph(const void* data, size_t size, const char* method_name,
                                             runtime::MemoryAllocator* scratch, BlobGraph* out);

/// The rank of value `v` (a verified graph's value).
inline uint32_t rank_of(const fb::Value* v) { return v->sizes() == nullptr ? 0 : v->sizes()->size(); }
/// Its sizes, outermost first; null for rank 0 (no sizes vector).
inline const int64_t* dims_of(const fb::Value* v) { return v->sizes() == nullptr ? nullptr : v->sizes()->data(); }

/// The element count of a verified value.
int64_t numel_of(const fb::Value* v);

}  // namespace kiln::backends::onednn
