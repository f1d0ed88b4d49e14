// oneDNN's JIT matmul kernels broadcast a bias, or a binary post-op's
// operand, as one row of the result ([N], [1, N]) or one number; another
// broadcast ([M, N] over a batch, [M, 1]) or a bias of the result's full
// sizes sends the whole matmul to its reference kernel (addmm's [3, 5] bias:
// ref:any; attention scores plus a [5, 7] mask over 2 heads: ref:any). The
// bias then becomes the first post-op (a full-sized one is taken as it is);
// from the first post-op the kernels do not take on, the post-ops run as a
// binary operation after the matmul, which broadcasts any operand.
#include "backends/onednn/aot/fast_forms/form_writer.h"
#include "backends/onednn/capabilities.h"

namespace kiln::backends::onednn {

namespace {

// Whether the JIT kernels take `v` broadcast over a result of `sizes`: one
// row (or number); as a post-op's operand, also the result's own sizes.
bool broadcasts_as_taken(const std::vector<int64_t>& v, const std::vector<int64_t>& sizes, bool as_post_op) {
  if (v.size() > sizes.size()) return false;
  const size_t lead = sizes.size() - v.size();
  bool full = true, row = true;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const int64_t size = d < lead ? 1 : v[d - lead];
    full = full && size == sizes[d];
    row = row && (d + 1 == sizes.size() ? size == sizes[d] || size == 1 : size == 1);
  }
  return row || (as_post_op && full);
}

std::unique_ptr<fb::PostOpT> binary_post_op(fb::BinaryAlgorithm algorithm, int32_t input) {
  fb::BinaryPostOpT binary;
  binary.algorithm = algorithm;
  binary.input = input;
  auto post = std::make_unique<fb::PostOpT>();
  post->op.Set(std::move(binary));
  return post;
}

}  // namespace

bool matmul_with_broadcasts_it_takes(FormWriter& writer, const fb::OperationT& op) {
  if (op.op.AsMatMul() == nullptr || op.inputs.size() < 2 || (op.inputs.size() > 3 && op.inputs[3] >= 0) ||
      !writer.reads_and_writes_plain_floats(op)) {
    return false;
  }
  const std::vector<int64_t>& sizes = writer.sizes(op.outputs[0]);
  auto matmul = std::make_unique<fb::OperationT>(op);
  // The bias, when not taken as one, is the first post-op.
  const int32_t bias = op.inputs.size() > 2 ? op.inputs[2] : -1;
  const bool bias_taken = bias < 0 || broadcasts_as_taken(writer.sizes(bias), sizes, false);
  if (!bias_taken) {
    if (matmul->post_ops.size() >= kMaxPostOps) return false;  // no room for one more: it stays as it is
    matmul->inputs[2] = -1;
    matmul->post_ops.insert(matmul->post_ops.begin(), binary_post_op(fb::BinaryAlgorithm::Add, bias));
  }
  size_t taken = 0;
  for (; taken < matmul->post_ops.size(); ++taken) {
    const auto* binary = matmul->post_ops[taken]->op.AsBinaryPostOp();
    if (binary != nullptr && !broadcasts_as_taken(writer.sizes(binary->input), sizes, true)) break;
  }
  if (bias_taken && taken == matmul->post_ops.size()) return false;
  if (taken == matmul->post_ops.size()) {
    writer.emit(std::move(matmul));
    return true;
  }

  // The rest after the matmul: a binary operation with the post-ops after its own.
  writer.emit_post_ops_after(std::move(matmul), taken);
  return true;
}

}  // namespace kiln::backends::onednn
