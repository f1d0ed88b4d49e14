// The operations that combine or move values: concat, binary (numpy
// broadcasting onto oneDNN's "second source broadcasts" rule), Reorder
// (reshape as a view of plain bytes where it can be, else a reorder;
// permute as a reorder through permuted strides) and Pad (the result filled
// with the pad value, then the source reordered into its interior).
#include <cmath>
#include <cstring>

#include "backends/onednn/runtime/graph_builder.h"
#include "backends/onednn/runtime/implementations.h"

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::Result;

namespace {

bool same_dims(const int64_t* a, const int64_t* b, uint32_t rank) {
  for (uint32_t i = 0; i < rank; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

bool commutative(fb::BinaryAlgorithm algorithm) {
  return algorithm == fb::BinaryAlgorithm::Add || algorithm == fb::BinaryAlgorithm::Mul ||
         algorithm == fb::BinaryAlgorithm::Max || algorithm == fb::BinaryAlgorithm::Min;
}

// oneDNN made the descriptor on an implementation other than its reference one.
bool runs_well(dnnl_status_t status, const PrimitiveDesc& pd) {
  const char* implementation = nullptr;
  return status == dnnl_success &&
         dnnl_primitive_desc_query(pd.get(), dnnl_query_impl_info_str, 0, &implementation) == dnnl_success &&
         !is_reference_implementation(implementation);
}

}  // namespace

Error build_concat(GraphBuilder& b, const fb::Concat* concat) {
  const fb::Operation* op = b.operation();
  const uint32_t n = op->inputs()->size();
  const int32_t out = b.output();
  const int rank = static_cast<int>(rank_of(b.value(out)));
  const int axis = concat->axis() < 0 ? concat->axis() + rank : concat->axis();
  if (rank < 1 || axis < 0 || axis >= rank) return b.refuse("axis %d of a %d-dimensional result", concat->axis(), rank);
  if (n > kMaxConcatInputs) return b.refuse("%u inputs (at most %u)", n, kMaxConcatInputs);
  uint32_t sources[kMaxStepArgs];
  const_dnnl_memory_desc_t descs[kMaxStepArgs];
  for (uint32_t i = 0; i < n; ++i) {
    if (rank_of(b.value(b.input(i))) != static_cast<uint32_t>(rank)) {
      return b.refuse("input %u has %u dimensions, the result %d", i, rank_of(b.value(b.input(i))), rank);
    }
    KILN_ASSIGN_OR_RETURN(sources[i], b.value_memory(b.input(i), b.plain_inputs()));
    descs[i] = b.desc(sources[i]);
  }
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(out, &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(static_cast<uint32_t>(rank), &attr, post_args, &num_post));  // no post-ops (capabilities.h)
  PrimitiveDesc pd;
  dnnl_status_t status = dnnl_concat_primitive_desc_create(pd.out(), b.engine(), dst.get(), static_cast<int>(n), axis,
                                                           descs, attr.get());
  if (!b.plain_inputs() && rank >= 3 && rank <= 5 && !runs_well(status, pd)) {
    // Images in different layouts (a pool's blocked result beside
    // convolutions' channels-last ones, DenseNet's first block) join only on
    // oneDNN's reference concat: join them channels-last, where the ones
    // already so are read in place, rather than plain, where the operations
    // after it (a batch norm: ncsp_bnorm) run far slower.
    for (uint32_t i = 0; i < n; ++i) {
      KILN_ASSIGN_OR_RETURN(sources[i], b.channels_last_memory(b.input(i)));
      descs[i] = b.desc(sources[i]);
    }
    KILN_TRY(b.channels_last_desc_of(out, &dst));
    pd.reset();
    status = dnnl_concat_primitive_desc_create(pd.out(), b.engine(), dst.get(), static_cast<int>(n), axis, descs,
                                               attr.get());
  }
  KILN_TRY(b.check_pd(status, "dnnl_concat_primitive_desc_create", &pd));
  const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_dst_md, 0);
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, chosen));
  StepArg args[kMaxStepArgs];
  for (uint32_t i = 0; i < n; ++i) args[i] = StepArg{DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), sources[i]};
  args[n] = StepArg{DNNL_ARG_DST, dst_m};
  return b.add_step(&pd, args, n + 1);
}

namespace {

// An image times one value per channel on three grids (capabilities.h:
// scales_channels, which the builder's check has asked of a BinaryOp with
// quantized values): Kiln's kernel, the image and result channels-last,
// the gate's bytes as (N, C), the call's factors in the scratchpad.
Error build_channel_scale(GraphBuilder& b) {
  const int32_t src = b.input(0), gate = b.input(1), out = b.output();
  const fb::Value* x = b.value(src);
  const fb::Value* g = b.value(gate);
  const fb::Value* y = b.value(out);
  ChannelScaleInt8 shape;
  shape.batch = y->sizes()->Get(0);
  shape.channels = y->sizes()->Get(1);
  shape.pixels = 1;
  for (uint32_t d = 2; d < y->sizes()->size(); ++d) shape.pixels *= y->sizes()->Get(d);
  shape.src_signed = x->dtype() == fb::DataType::Int8;
  shape.gate_signed = g->dtype() == fb::DataType::Int8;
  shape.dst_signed = y->dtype() == fb::DataType::Int8;
  shape.src_scale = x->scale();
  shape.gate_scale = g->scale();
  shape.dst_scale = y->scale();
  shape.src_zero_point = static_cast<int32_t>(x->zero_point());
  shape.gate_zero_point = static_cast<int32_t>(g->zero_point());
  shape.dst_zero_point = static_cast<int32_t>(y->zero_point());
  MemoryDesc gate_layout, dst_layout;
  KILN_TRY(b.plain_desc_of(gate, &gate_layout));
  KILN_TRY(b.channels_last_desc_of(out, &dst_layout));
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.channels_last_memory(src));
  KILN_ASSIGN_OR_RETURN(uint32_t gate_m, b.value_memory(gate, false));
  if (!dnnl_memory_desc_equal(gate_layout.get(), b.desc(gate_m))) {
    KILN_ASSIGN_OR_RETURN(gate_m, b.reorder_into_buffer(gate_m, gate_layout.get()));
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, dst_layout.get()));
  const StepArg args[] = {{DNNL_ARG_SRC_0, src_m}, {DNNL_ARG_SRC_1, gate_m}, {DNNL_ARG_DST, dst_m}};
  Step* step = nullptr;
  KILN_TRY(b.add_kernel_step(args, 3, static_cast<size_t>(shape.batch * shape.channels) * sizeof(float), &step));
  step->channel_scale = Step::ChannelScale{static_cast<int32_t>(src_m), static_cast<int32_t>(gate_m),
                                           static_cast<int32_t>(dst_m), shape};
  return b.describe_quantized_result(out);
}

}  // namespace

Error build_binary(GraphBuilder& b, const fb::BinaryOp* binary) {
  int32_t a = b.input(0), c = b.input(1);
  const int32_t out = b.output();
  if (b.value(out)->dtype() != fb::DataType::Float32) return build_channel_scale(b);
  const uint32_t rank = rank_of(b.value(out)) == 0 ? 1 : rank_of(b.value(out));
  dnnl_alg_kind_t alg;
  if (!binary_algorithm(binary->algorithm(), &alg)) return b.refuse("unknown binary algorithm");
  if (rank_of(b.value(a)) > rank || rank_of(b.value(c)) > rank) {
    return b.refuse("an operand has more dimensions than the result");
  }
  int64_t dst_dims[kMaxRank], a_dims[kMaxRank], c_dims[kMaxRank];
  b.broadcast_dims(out, rank, dst_dims);
  b.broadcast_dims(a, rank, a_dims);
  b.broadcast_dims(c, rank, c_dims);
  // oneDNN broadcasts only its second source: put the full-shaped one first.
  if (!same_dims(a_dims, dst_dims, rank)) {
    if (!commutative(binary->algorithm()) || !same_dims(c_dims, dst_dims, rank)) {
      return b.refuse("the first operand (value %d) would broadcast; oneDNN's binary broadcasts only the second", a);
    }
    const int32_t t = a;
    a = c;
    c = t;
    std::memcpy(c_dims, a_dims, sizeof a_dims);
  }
  for (uint32_t d = 0; d < rank; ++d) {
    if (c_dims[d] != dst_dims[d] && c_dims[d] != 1) {
      return b.refuse("operand dim %u is %lld; it must be %lld or 1", d, static_cast<long long>(c_dims[d]),
                      static_cast<long long>(dst_dims[d]));
    }
  }
  KILN_ASSIGN_OR_RETURN(uint32_t a_m, b.value_memory_with_rank(a, rank, b.plain_inputs()));
  KILN_ASSIGN_OR_RETURN(uint32_t c_m, b.value_memory_with_rank(c, rank, b.plain_inputs()));
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(out, &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  dnnl_status_t status =
      dnnl_binary_primitive_desc_create(pd.out(), b.engine(), alg, b.desc(a_m), b.desc(c_m), dst.get(), attr.get());
  if (!b.plain_inputs() && rank >= 3 && rank <= 5 && !runs_well(status, pd)) {
    // Images in layouts oneDNN's binary kernels do not pair (a
    // squeeze-excitation's gate, channels-last, on a grouped convolution's
    // 8-channel blocks): both channels-last rather than plain, where the
    // image would be reordered twice more, to plain and back for the
    // convolution after it.
    if (rank_of(b.value(a)) == rank) {
      KILN_ASSIGN_OR_RETURN(a_m, b.channels_last_memory(a));
    }
    if (rank_of(b.value(c)) == rank) {
      KILN_ASSIGN_OR_RETURN(c_m, b.channels_last_memory(c));
    }
    pd.reset();
    status =
        dnnl_binary_primitive_desc_create(pd.out(), b.engine(), alg, b.desc(a_m), b.desc(c_m), dst.get(), attr.get());
  }
  KILN_TRY(b.check_pd(status, "dnnl_binary_primitive_desc_create", &pd));
  KILN_TRY(b.resolve_post_args(pd, post_args, num_post));
  const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_dst_md, 0);
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, chosen));
  StepArg args[kMaxStepArgs];
  uint32_t n = 0;
  args[n++] = StepArg{DNNL_ARG_SRC_0, a_m};
  args[n++] = StepArg{DNNL_ARG_SRC_1, c_m};
  args[n++] = StepArg{DNNL_ARG_DST, dst_m};
  for (uint32_t i = 0; i < num_post; ++i) args[n++] = post_args[i];
  return b.add_step(&pd, args, n);
}

namespace {

// dst = src's elements in row-major order under new sizes.
Error build_reshape(GraphBuilder& b, int32_t src, int32_t out) {
  if (numel_of(b.value(src)) != numel_of(b.value(out))) {
    return b.refuse("a reshape from %lld to %lld elements", static_cast<long long>(numel_of(b.value(src))),
                    static_cast<long long>(numel_of(b.value(out))));
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, false));
  MemoryDesc out_plain, src_plain;
  KILN_TRY(b.plain_desc_of(out, &out_plain));
  if (b.value(out)->kind() != fb::ValueKind::Output && b.is_plain(src_m, src)) {
    // Same bytes, other sizes: a view, no step.
    KILN_ASSIGN_OR_RETURN(const uint32_t view, b.view(src_m, out_plain.get()));
    return b.alias_value(out, view);
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_plain.get()));
  // The result's bytes are the plain source's: reorder into them seen with
  // the source's sizes.
  KILN_TRY(b.plain_desc_of(src, &src_plain));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_as_src, b.view(dst_m, src_plain.get()));
  return b.add_reorder(src_m, dst_as_src);
}

// dst dim i = src dim permutation[i].
Error build_permute(GraphBuilder& b, const flatbuffers::Vector<int64_t>* permutation, int32_t src, int32_t out) {
  const uint32_t rank = rank_of(b.value(src));
  if (permutation->size() != rank || rank_of(b.value(out)) != rank) {
    return b.refuse("a permutation of %u entries for %u-dimensional values", permutation->size(), rank);
  }
  int perm[kMaxRank];
  bool seen[kMaxRank] = {false};
  for (uint32_t i = 0; i < rank; ++i) {
    const int64_t p = permutation->Get(i);
    if (p < 0 || p >= rank || seen[p]) return b.refuse("permutation entry %u (%lld) is not a permutation", i,
                                                       static_cast<long long>(p));
    seen[p] = true;
    perm[i] = static_cast<int>(p);
    if (b.value(out)->sizes()->Get(i) != b.value(src)->sizes()->Get(static_cast<uint32_t>(p))) {
      return b.refuse("result dim %u is not source dim %lld", i, static_cast<long long>(p));
    }
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, false));
  MemoryDesc out_plain, out_as_src;
  KILN_TRY(b.plain_desc_of(out, &out_plain));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_plain.get()));
  // permute_axes moves dim i to position perm[i]: the result's plain layout
  // seen with the source's dims.
  KILN_TRY(b.check(dnnl_memory_desc_permute_axes(out_as_src.out(), out_plain.get(), perm),
                   "dnnl_memory_desc_permute_axes"));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_view, b.view(dst_m, out_as_src.get()));
  return b.add_reorder(src_m, dst_view);
}

}  // namespace

// Between a float32 and a quantized value of the same sizes: quantization
// or dequantization (GraphBuilder::add_quantization), the result written
// channels-last.
Error build_quantize(GraphBuilder& b, int32_t src, int32_t out) {
  const fb::Value* from = b.value(src);
  const fb::Value* to = b.value(out);
  if (rank_of(from) != rank_of(to) || numel_of(from) != numel_of(to)) {
    return b.refuse("a (de)quantization must keep its sizes");
  }
  for (uint32_t d = 0; d < rank_of(from); ++d) {
    if (from->sizes()->Get(d) != to->sizes()->Get(d)) return b.refuse("a (de)quantization must keep its sizes");
  }
  const bool quantize = is_quantized(to);
  if (quantize == is_quantized(from)) return b.refuse("a reorder between two quantized values");
  const fb::Value* q = quantize ? to : from;
  if (quantize && q->dynamic()) return b.refuse("a reorder into a dynamic value (a DynamicQuantize writes those)");
  if (!q->dynamic() && (!(q->scale() > 0) || !std::isfinite(q->scale()))) return b.refuse("scale %g is not positive", q->scale());
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, false));
  MemoryDesc out_desc;
  KILN_TRY(b.channels_last_desc_of(out, &out_desc));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_desc.get()));
  KILN_TRY(b.add_quantization(src_m, dst_m, quantize ? out : src, quantize));
  return b.describe_quantized_result(out);
}

namespace {

// Between two quantized values of other grids, the same sizes: q' =
// saturate(round_half_even((q - zero point) * scale / scale') + zero
// point'), one oneDNN reorder of the bytes, the result channels-last.
Error build_requantize(GraphBuilder& b, int32_t src, int32_t out) {
  const fb::Value* from = b.value(src);
  const fb::Value* to = b.value(out);
  if (rank_of(from) != rank_of(to)) return b.refuse("a requantization must keep its sizes");
  for (uint32_t d = 0; d < rank_of(from); ++d) {
    if (from->sizes()->Get(d) != to->sizes()->Get(d)) return b.refuse("a requantization must keep its sizes");
  }
  if (from->dynamic() || to->dynamic()) return b.refuse("a requantization of a dynamic value");
  const double factor = static_cast<double>(from->scale()) / static_cast<double>(to->scale());
  if (!(factor > 0) || !std::isfinite(factor)) return b.refuse("scales %g and %g", from->scale(), to->scale());
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, false));
  MemoryDesc out_desc;
  KILN_TRY(b.channels_last_desc_of(out, &out_desc));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_desc.get()));
  KILN_TRY(b.add_requantization(src_m, dst_m, src, out, static_cast<float>(factor)));
  return b.describe_quantized_result(out);
}

}  // namespace

Error build_reorder(GraphBuilder& b, const fb::Reorder* reorder) {
  const int32_t src = b.input(0), out = b.output();
  const fb::Value* from = b.value(src);
  const fb::Value* to = b.value(out);
  if (is_quantized(from) && is_quantized(to) &&
      (from->dtype() != to->dtype() || from->scale() != to->scale() || from->zero_point() != to->zero_point() ||
       from->dynamic() || to->dynamic())) {
    if (reorder->permutation() != nullptr && reorder->permutation()->size() != 0) {
      return b.refuse("a permutation that also requantizes");
    }
    return build_requantize(b, src, out);
  }
  if (b.value(src)->dtype() != b.value(out)->dtype()) {
    if (reorder->permutation() != nullptr && reorder->permutation()->size() != 0) {
      return b.refuse("a permutation that also (de)quantizes");
    }
    return build_quantize(b, src, out);
  }
  if (reorder->permutation() == nullptr || reorder->permutation()->size() == 0) return build_reshape(b, src, out);
  return build_permute(b, reorder->permutation(), src, out);
}

namespace {

// Whether the crop `region` of `src` at `offset` is one run of its
// row-major elements (every dimension after the first one it keeps more
// than one of is whole) that `out`, an intermediate of the same values
// (dtype and grid), may read in place: no copy.
bool crops_in_place(const GraphBuilder& b, int32_t src, int32_t out, const dnnl_dims_t region,
                    const dnnl_dims_t offset) {
  const fb::Value* x = b.value(src);
  const fb::Value* y = b.value(out);
  if (y->kind() != fb::ValueKind::Intermediate || x->dtype() != y->dtype() || x->scale() != y->scale() ||
      x->zero_point() != y->zero_point() || x->dynamic() || y->dynamic() || x->runtime_dim() >= 0 ||
      y->runtime_dim() >= 0) {
    return false;
  }
  bool kept_more = false;
  for (uint32_t d = 0; d < rank_of(x); ++d) {
    if (kept_more && (region[d] != x->sizes()->Get(d) || offset[d] != 0)) return false;
    kept_more = kept_more || region[d] > 1;
  }
  return true;
}

}  // namespace

Error build_pad(GraphBuilder& b, const fb::Pad* pad) {
  const int32_t src = b.input(0), out = b.output();
  const uint32_t rank = rank_of(b.value(src));
  if (rank == 0 || rank_of(b.value(out)) != rank || pad->before() == nullptr || pad->after() == nullptr ||
      pad->before()->size() != rank || pad->after()->size() != rank) {
    return b.refuse("before and after need one entry per dimension of the source and result");
  }
  // The part of the source that survives (negative padding crops) and where
  // it lands in the result.
  dnnl_dims_t region, src_offset, dst_offset;
  bool empty = false;
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t before = pad->before()->Get(d), after = pad->after()->Get(d);
    const int64_t in = b.value(src)->sizes()->Get(d), result = b.value(out)->sizes()->Get(d);
    if (before < -in || after < -in || before > (int64_t{1} << 31) || after > (int64_t{1} << 31) ||
        in + before + after != result) {
      return b.refuse("dim %u: %lld + %lld + %lld is not the result's %lld", d, static_cast<long long>(before),
                      static_cast<long long>(in), static_cast<long long>(after), static_cast<long long>(result));
    }
    src_offset[d] = before < 0 ? -before : 0;
    dst_offset[d] = before > 0 ? before : 0;
    region[d] = in - src_offset[d] - (after < 0 ? -after : 0);
    empty = empty || region[d] <= 0;
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, true));
  MemoryDesc out_plain;
  KILN_TRY(b.plain_desc_of(out, &out_plain));
  if (!empty && !pads_any(*pad->before(), *pad->after()) && crops_in_place(b, src, out, region, src_offset)) {
    // One run of the source's elements: the result is a view of them.
    int64_t offset = 0, stride = 1;
    for (uint32_t d = rank; d-- > 0;) {
      offset += src_offset[d] * stride;
      stride *= b.value(src)->sizes()->Get(d);
    }
    const auto bytes = static_cast<size_t>(offset) * dnnl_data_type_size(data_type_of(b.value(src)));
    KILN_ASSIGN_OR_RETURN(const uint32_t crop, b.view(src_m, out_plain.get(), bytes));
    return b.alias_value(out, crop);
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_plain.get()));
  if (empty) return b.add_fill(dst_m, pad->value());
  MemoryDesc src_part, dst_part;
  KILN_TRY(b.check(dnnl_memory_desc_create_submemory(src_part.out(), b.desc(src_m), region, src_offset),
                   "dnnl_memory_desc_create_submemory(source)"));
  KILN_TRY(b.check(dnnl_memory_desc_create_submemory(dst_part.out(), out_plain.get(), region, dst_offset),
                   "dnnl_memory_desc_create_submemory(result)"));
  KILN_ASSIGN_OR_RETURN(const uint32_t from, b.view(src_m, src_part.get()));
  KILN_ASSIGN_OR_RETURN(const uint32_t to, b.view(dst_m, dst_part.get()));
  // A crop (padding nothing) writes every element of the result: no fill,
  // which also makes it a move of int8 values on their grid (capabilities.h).
  if (!pads_any(*pad->before(), *pad->after())) return b.add_reorder(from, to);
  return b.add_reorder(from, to, static_cast<int32_t>(dst_m), pad->value());
}

}  // namespace kiln::backends::onednn
