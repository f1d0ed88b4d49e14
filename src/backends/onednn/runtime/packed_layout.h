// Weights packed ahead of time (onednn_graph.fbs PackedLayout): a float32
// constant whose named data is already in the blocked layout oneDNN chose
// for its use on the machine that lowered it. Init reads such bytes in place
// when it chooses the same layout, and reorders from them when it does not
// (another CPU); the lowering (aot/packing.h) and the tests' blob reference
// use the same descriptions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/capabilities.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

/// What a PackedLayout records of a float32 oneDNN memory descriptor.
struct Blocking {
  int ndims = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};  ///< outer strides, in elements
  int inner_nblks = 0;
  int64_t inner_blocks[kMaxRank] = {};
  int64_t inner_indices[kMaxRank] = {};
  int format_tag = 0;  ///< a dnnl_format_tag_t that gives this blocking
};

/// The blocking of `desc` (format tag left unset); false unless float32,
/// blocked and of at most kMaxRank dimensions and blocks.
bool float_blocking(const_dnnl_memory_desc_t desc, Blocking* blocking);

/// The blocking of `desc`, with the format tag that reproduces it exactly;
/// false when `desc` is not float32 and blocked, or no tag gives it (a
/// layout with extra data, such as int8 weights' compensation).
bool blocking_of(const_dnnl_memory_desc_t desc, Blocking* blocking);

/// The float32 descriptor with `blocking`: from its format tag when that tag
/// gives this blocking, else from whichever tag does (a oneDNN whose tags
/// are numbered otherwise). dnnl_invalid_arguments when no tag does.
dnnl_status_t blocking_desc(const Blocking& blocking, dnnl_memory_desc_t* desc);

/// blocking_desc of a packed constant's layout: the descriptor of its bytes.
dnnl_status_t packed_layout_desc(const fb::PackedLayout* layout, dnnl_memory_desc_t* desc);

/// The plain view the layout was packed for: its dims over `plain_strides`.
dnnl_status_t packed_view_desc(const fb::PackedLayout* layout, dnnl_memory_desc_t* desc);

/// Whether `view` (a plain float32 descriptor) is the view `layout` was packed for.
bool is_packed_view(const fb::PackedLayout* layout, const_dnnl_memory_desc_t view);

/// Runs one reorder of the bytes at `from_data`, laid out as `from`, into
/// `to_data`, laid out as `to` (same logical dims), on a fresh stream of `engine`.
dnnl_status_t reorder_bytes(dnnl_engine_t engine, const_dnnl_memory_desc_t from, const void* from_data,
                            const_dnnl_memory_desc_t to, void* to_data);

}  // namespace kiln::backends::onednn
