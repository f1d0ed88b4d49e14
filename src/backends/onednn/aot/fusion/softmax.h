// A softmax whose rows of -inf only give zeros, as torch's _safe_softmax
// decomposes it (scaled_dot_product_attention in every attention model
// exported by torch 2.5 and later):
//
//   y    = _softmax(s, dim)
//   rows = logical_not(any(logical_not(eq(s, -inf)), dim, keepdim=True))
//   out  = where(rows, full_like(y, 0), y)
//
// Its comparisons are boolean ops OneDnnBackend does not run alone, and left
// on the portable kernels they cut every attention block into delegates.
// Taken together they are one operation (NodeOp::safe_softmax): the lowering
// computes it on oneDNN as softmax(max(s, -FLT_MAX)) times a per-row 0/1 that
// is 0 where the row's maximum was -inf (a max reduction with post-ops).
// The softmax family of fusion rules (rule.h), a Pattern rule; the
// partitioner takes the pattern's nodes together through
// safe_softmax_containing.
#pragma once

#include <optional>
#include <vector>

#include "aot/ir/node.h"

namespace kiln::backends::onednn {

struct SafeSoftmax {
  const aot::Node* scores = nullptr;   ///< s
  const aot::Node* softmax = nullptr;  ///< y
  std::vector<const aot::Node*> nodes;  ///< every node of the pattern, the where last
};

/// The pattern whose where is `anchor`, if it is one.
std::optional<SafeSoftmax> match_safe_softmax(const aot::Node& anchor);

/// The pattern `node` is a node of (found through its users), if any.
std::optional<SafeSoftmax> safe_softmax_containing(const aot::Node& node);

}  // namespace kiln::backends::onednn
