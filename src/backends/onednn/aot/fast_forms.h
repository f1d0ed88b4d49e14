// Fast forms: the last stage of lowering a partition, over the blob's graph.
// Some operations oneDNN runs on its reference kernels (`ref:`, plain loops)
// or far below what their arithmetic allows, though the same computation in
// another form runs on its JIT kernels. Each rule finds one such form and
// writes the operations that compute the same in a form oneDNN runs well:
//
//   fast_forms/reductions.cpp  a reduction or softmax over dimensions that are
//                              not the innermost: the source permuted so they are
//   fast_forms/matmul.cpp      a matmul's bias or binary post-op broadcast in a way
//                              its JIT kernels do not take: a post-op, or a binary
//                              operation after it
//   fast_forms/binary.cpp      a binary operation broadcasting its second operand
//                              in a way the JIT kernels do not take (one number
//                              per batch, a column, rows under a middle
//                              dimension): on views of merged dimensions, or
//                              with the broadcast dimensions moved first; a
//                              binary operation or a convolution whose binary
//                              post-op broadcasts otherwise than whole, per
//                              channel or as a number: from that post-op on, a
//                              binary operation after it
//   fast_forms/transposed_convolution.cpp
//                              a transposed convolution whose stride is its
//                              kernel (no overlap): a matmul and a depth-to-space
//   fast_forms/pointwise_convolution.cpp
//                              a 1x1 convolution over images of one pixel
//                              with a binary post-op (a squeeze-excitation's
//                              gate times its input): a matmul
//
//   fast_forms/padding.cpp     a zero padding of an image that a convolution alone
//                              reads: the convolution's own padding
//
// Every operation a rule writes keeps the debug id and name of the operation
// it replaces (a profile shows them as that node); the last writes its
// result value. A convolution that absorbs a padding maps to both. What no rule rewrites and still runs on a reference kernel
// the partitioner refuses with the reason, or the implementation test
// (test/onednn_implementations_test.cpp) accepts it with the reason. That test
// finds these forms: it plans every conformance case on oneDNN.
#pragma once

#include <cstdint>
#include <functional>

#include "backends/onednn/aot/weights.h"
#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

/// The debug id of an operation that stands for the operations of debug ids
/// `a` and `b` (-1: none), mapping to the debug handles of both.
using MergeDebugIds = std::function<int32_t(int32_t a, int32_t b)>;

/// Rewrites `graph`'s operations into their fast forms, in place; new
/// constants go to `weights`. An operation that absorbs another (a zero
/// padding folded into a convolution) takes the debug id `merge` gives.
void use_fast_forms(::kiln::onednn::GraphT& graph, WeightStore& weights, const MergeDebugIds& merge);

}  // namespace kiln::backends::onednn
