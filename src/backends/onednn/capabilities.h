// What OneDnnBackend's runtime builds, as numbers the AOT side reads too: the
// partitioner refuses (or the lowering splits) what lies beyond them, the
// runtime's builder refuses a blob that breaks them. One place, so that a
// node the partitioner accepts is a node the runtime builds.
// C++17, header-only, no allocation: both halves include it.
#pragma once

#include <cstdint>

namespace kiln::backends::onednn {

/// The most dimensions a value may have (oneDNN's DNNL_MAX_NDIMS).
inline constexpr uint32_t kMaxRank = 12;

/// The most arguments (sources, destination, post-op operands) one built
/// primitive takes: the runtime keeps them in fixed arrays, so that building
/// and executing allocate nothing per operation.
inline constexpr uint32_t kMaxOperationArgs = 24;

/// The most tensors one Concat joins (its destination and scratchpad take
/// the other two arguments). The lowering joins more as a chain of Concats.
inline constexpr uint32_t kMaxConcatInputs = kMaxOperationArgs - 2;

/// The most post-ops one operation carries (each binary post-op reads one
/// more argument). Fusion stops a chain there and starts a new operation.
inline constexpr uint32_t kMaxPostOps = kMaxOperationArgs / 2;

/// A value's largest dimension and element count the runtime accepts.
inline constexpr int64_t kMaxDimension = int64_t{1} << 31;
inline constexpr int64_t kMaxNumel = int64_t{1} << 40;

}  // namespace kiln::backends::onednn
