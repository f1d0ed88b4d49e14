// A zero padding of an image's spatial dimensions that only a convolution
// reads is the convolution's own padding, which oneDNN takes unequal on the
// two sides. Models ported from TensorFlow pad before each strided
// convolution ("same" padding: one row and column after, none before), as
// Hugging Face's MobileNetV2 does (tf_padding): as an operation of its own
// the pad wrote a plain copy of the image, read again reordered to
// channels-last, 0.42 of its 1.6 ms.
#include <algorithm>

#include "backends/onednn/aot/fast_forms/form_writer.h"

namespace kiln::backends::onednn {

namespace {

// `pad`'s amounts before and after each spatial dimension (2 on) of a
// float32 image, when it pads those alone, with zeros.
bool pads_spatial_dims_with_zeros(const fb::OperationT& op, const FormWriter& writer) {
  const fb::PadT* pad = op.op.AsPad();
  if (pad == nullptr || pad->value != 0.0f || op.inputs.size() != 1 || !writer.reads_and_writes_plain_floats(op)) {
    return false;
  }
  const size_t rank = writer.sizes(op.inputs[0]).size();
  if (rank < 3 || pad->before.size() != rank || pad->after.size() != rank) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (pad->before[d] < 0 || pad->after[d] < 0 || (d < 2 && (pad->before[d] != 0 || pad->after[d] != 0))) return false;
  }
  return true;
}

}  // namespace

void fold_zero_pads_into_convolutions(fb::GraphT& graph, const FormWriter& writer, const MergeDebugIds& merge) {
  // Who reads each value: operations (inputs, binary post-ops); outputs count as a reader that is not one.
  std::vector<int> readers(graph.values.size(), 0);
  std::vector<fb::OperationT*> reader(graph.values.size(), nullptr);
  for (const auto& op : graph.operations) {
    for (size_t i = 0; i < op->inputs.size(); ++i) {
      const int32_t v = op->inputs[i];
      if (v < 0) continue;
      ++readers[static_cast<size_t>(v)];
      reader[static_cast<size_t>(v)] = i == 0 ? op.get() : nullptr;  // a convolution's source is its input 0
    }
    for (const auto& post : op->post_ops) {
      if (const auto* binary = post->op.AsBinaryPostOp()) {
        ++readers[static_cast<size_t>(binary->input)];
        reader[static_cast<size_t>(binary->input)] = nullptr;
      }
    }
  }
  std::vector<fb::OperationT*> folded;
  for (const auto& op : graph.operations) {
    if (!pads_spatial_dims_with_zeros(*op, writer)) continue;
    const auto padded = static_cast<size_t>(op->outputs[0]);
    fb::OperationT* conv_op = reader[padded];
    if (readers[padded] != 1 || conv_op == nullptr || graph.values[padded]->kind != fb::ValueKind::Intermediate) continue;
    fb::ConvolutionT* conv = conv_op->op.AsConvolution();
    if (conv == nullptr || conv->transposed || !writer.reads_and_writes_plain_floats(*conv_op)) continue;
    const fb::PadT& pad = *op->op.AsPad();
    const size_t spatial = pad.before.size() - 2;
    if (conv->padding_l.size() != spatial || conv->padding_r.size() != spatial) continue;
    for (size_t d = 0; d < spatial; ++d) {
      conv->padding_l[d] += pad.before[d + 2];
      conv->padding_r[d] += pad.after[d + 2];
    }
    conv_op->inputs[0] = op->inputs[0];
    conv_op->debug_id = merge(op->debug_id, conv_op->debug_id);
    folded.push_back(op.get());
  }
  std::erase_if(graph.operations, [&](const auto& op) {
    return std::find(folded.begin(), folded.end(), op.get()) != folded.end();
  });
}

}  // namespace kiln::backends::onednn
