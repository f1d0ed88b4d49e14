// Batch norm (inference: global statistics, optional scale and shift) and
// layer norm (over the last normalized_dims dims, collapsed into one when
// there are several) as oneDNN primitives.
#include "backends/onednn/runtime/operation_util.h"

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::Result;

namespace {

// A per-channel vector input (`what`) of exactly `n` elements, as 1-D plain.
Result<uint32_t> channel_vector(GraphBuilder& b, int32_t v, int64_t n, const char* what) {
  if (numel_of(b.value(v)) != n) {
    return b.refuse("%s (value %d) has %lld elements; expected %lld", what, v,
                    static_cast<long long>(numel_of(b.value(v))), static_cast<long long>(n));
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t m, b.value_memory(v, true));
  MemoryDesc flat;
  KILN_TRY(b.plain_desc(&n, 1, &flat));
  return b.view(m, flat.get());
}

}  // namespace

Error build_batch_norm(GraphBuilder& b, const fb::BatchNorm* bn) {
  const int32_t src = b.input(0), weight = b.input(3), bias = b.input(4);
  const uint32_t rank = rank_of(b.value(src));
  if (rank < 2) return b.refuse("the source has %u dimensions (at least 2)", rank);
  const int64_t channels = b.value(src)->sizes()->Get(1);
  KILN_ASSIGN_OR_RETURN(uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  if (!b.plain_inputs() && rank >= 3 && rank <= 5 && b.is_plain(src_m, src)) {
    // oneDNN's batch norm over a plain image is ncsp_bnorm, a loop about ten
    // times slower than its JIT kernel over channels-last: read it so.
    KILN_ASSIGN_OR_RETURN(src_m, b.channels_last_memory(src));
  }
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  KILN_ASSIGN_OR_RETURN(const uint32_t mean, channel_vector(b, b.input(1), channels, "the mean"));
  KILN_ASSIGN_OR_RETURN(const uint32_t variance, channel_vector(b, b.input(2), channels, "the variance"));
  args.add(DNNL_ARG_MEAN, mean);
  args.add(DNNL_ARG_VARIANCE, variance);
  unsigned flags = dnnl_use_global_stats;
  if (weight >= 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, channel_vector(b, weight, channels, "the weight"));
    args.add(DNNL_ARG_SCALE, m);
    flags |= dnnl_use_scale;
  }
  if (bias >= 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, channel_vector(b, bias, channels, "the bias"));
    args.add(DNNL_ARG_SHIFT, m);
    flags |= dnnl_use_shift;
  }
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(b.output(), &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_batch_normalization_forward_primitive_desc_create(pd.out(), b.engine(),
                                                                             dnnl_forward_inference, b.desc(src_m),
                                                                             dst.get(), bn->epsilon(), flags, attr.get()),
                      "dnnl_batch_normalization_forward_primitive_desc_create", &pd));
  return finish(b, &pd, args, post_args, num_post);
}

// Layer norm over the last `normalized_dims` dims: seen as (outer..., C)
// with C their product (plain then, unless one dim is normalized).
Error build_layer_norm(GraphBuilder& b, const fb::LayerNorm* ln) {
  const int32_t src = b.input(0), weight = b.input(1), bias = b.input(2), out = b.output();
  const uint32_t rank = rank_of(b.value(src)), k = ln->normalized_dims();
  if (k < 1 || k > rank) return b.refuse("normalized_dims = %u with a %u-dimensional source", k, rank);
  const fb::Value* src_value = b.value(src);
  int64_t dims[kMaxRank];
  const uint32_t view_rank = rank - k + 1;
  int64_t channels = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    if (d < rank - k) dims[d] = src_value->sizes()->Get(d);
    else channels *= src_value->sizes()->Get(d);
  }
  dims[view_rank - 1] = channels;
  uint32_t src_m = 0;
  MemoryDesc dst;
  if (k == 1) {
    KILN_ASSIGN_OR_RETURN(src_m, b.value_memory(src, b.plain_inputs()));
    KILN_TRY(b.dst_desc_of(out, &dst));
  } else {
    MemoryDesc view;
    KILN_TRY(b.plain_desc(dims, view_rank, &view));
    KILN_ASSIGN_OR_RETURN(const uint32_t plain, b.value_memory(src, true));
    KILN_ASSIGN_OR_RETURN(src_m, b.view(plain, view.get()));
    KILN_TRY(b.plain_desc(dims, view_rank, &dst));
  }
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  unsigned flags = 0;
  if (weight >= 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, channel_vector(b, weight, channels, "the weight"));
    args.add(DNNL_ARG_SCALE, m);
    flags |= dnnl_use_scale;
  }
  if (bias >= 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, channel_vector(b, bias, channels, "the bias"));
    args.add(DNNL_ARG_SHIFT, m);
    flags |= dnnl_use_shift;
  }
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(view_rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_layer_normalization_forward_primitive_desc_create(
                          pd.out(), b.engine(), dnnl_forward_inference, b.desc(src_m), dst.get(), nullptr,
                          ln->epsilon(), flags, attr.get()),
                      "dnnl_layer_normalization_forward_primitive_desc_create", &pd));
  if (k == 1) return finish(b, &pd, args, post_args, num_post);
  KILN_TRY(b.resolve_post_args(pd, post_args, num_post));
  // The result is plain: written through a view with the collapsed dims.
  MemoryDesc plain_out;
  KILN_TRY(b.plain_desc_of(out, &plain_out));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, plain_out.get()));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_view, b.view(dst_m, dst.get()));
  args.add(DNNL_ARG_DST, dst_view);
  for (uint32_t i = 0; i < num_post; ++i) args.add(post_args[i].arg, post_args[i].memory);
  return add_step(b, &pd, args);
}

}  // namespace kiln::backends::onednn
