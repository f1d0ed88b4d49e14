// One primitive descriptor per operation kind of onednn_graph.fbs, planned
// through the GraphBuilder: inputs read in their producers' layouts,
// results in oneDNN's chosen layout (plain at the delegate's outputs),
// weights reordered once at init into the layout the primitive chose.
#include <cstring>
#include <limits>
#include <optional>

#include <omp.h>

#include "backends/onednn/runtime/kernel_activation.h"
#include "backends/onednn/runtime/operation_util.h"
#include "backends/onednn/runtime/packed_layout.h"

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::Result;

bool eltwise_algorithm(const fb::Eltwise* e, dnnl_alg_kind_t* alg, float* alpha, float* beta) {
  *alpha = e->alpha();
  *beta = e->beta();
  switch (e->algorithm()) {
    case fb::EltwiseAlgorithm::Relu: *alg = dnnl_eltwise_relu; *beta = 0; return true;
    case fb::EltwiseAlgorithm::Clip: *alg = dnnl_eltwise_clip_v2; return true;
    case fb::EltwiseAlgorithm::HardSwish: *alg = dnnl_eltwise_hardswish; return true;
    case fb::EltwiseAlgorithm::HardSigmoid:
      *alg = dnnl_eltwise_hardsigmoid; return true;
    case fb::EltwiseAlgorithm::Logistic: *alg = dnnl_eltwise_logistic; return true;
    case fb::EltwiseAlgorithm::Swish: *alg = dnnl_eltwise_swish; *alpha = 1; return true;
    case fb::EltwiseAlgorithm::GeluErf: *alg = dnnl_eltwise_gelu_erf; return true;
    case fb::EltwiseAlgorithm::GeluTanh: *alg = dnnl_eltwise_gelu_tanh; return true;
    case fb::EltwiseAlgorithm::Elu: *alg = dnnl_eltwise_elu; return true;
    case fb::EltwiseAlgorithm::Tanh: *alg = dnnl_eltwise_tanh; return true;
    case fb::EltwiseAlgorithm::Exp: *alg = dnnl_eltwise_exp; return true;
    case fb::EltwiseAlgorithm::Abs: *alg = dnnl_eltwise_abs; return true;
    case fb::EltwiseAlgorithm::Sqrt: *alg = dnnl_eltwise_sqrt; return true;
    case fb::EltwiseAlgorithm::Square: *alg = dnnl_eltwise_square; return true;
    case fb::EltwiseAlgorithm::Linear: *alg = dnnl_eltwise_linear; return true;
    case fb::EltwiseAlgorithm::Round: *alg = dnnl_eltwise_round; return true;
  }
  return false;
}

bool binary_algorithm(fb::BinaryAlgorithm algorithm, dnnl_alg_kind_t* alg) {
  switch (algorithm) {
    case fb::BinaryAlgorithm::Add: *alg = dnnl_binary_add; return true;
    case fb::BinaryAlgorithm::Sub: *alg = dnnl_binary_sub; return true;
    case fb::BinaryAlgorithm::Mul: *alg = dnnl_binary_mul; return true;
    case fb::BinaryAlgorithm::Div: *alg = dnnl_binary_div; return true;
    case fb::BinaryAlgorithm::Max: *alg = dnnl_binary_max; return true;
    case fb::BinaryAlgorithm::Min: *alg = dnnl_binary_min; return true;
  }
  return false;
}

namespace {

uint32_t rank_of_value(GraphBuilder& b, int32_t v) { return rank_of(b.value(v)); }

// A per-dimension parameter list of exactly `n` entries into `out`, each at
// least `min` after subtracting `minus`.
Error spatial(GraphBuilder& b, const flatbuffers::Vector<int64_t>* list, uint32_t n, const char* what, int64_t minus,
              int64_t min, dnnl_dim_t* out) {
  if (list == nullptr || list->size() != n) {
    return b.refuse("%s has %u entries; the operation has %u spatial dimensions", what,
                    list == nullptr ? 0u : list->size(), n);
  }
  for (uint32_t i = 0; i < n; ++i) {
    out[i] = list->Get(i) - minus;
    if (out[i] < min || list->Get(i) > (int64_t{1} << 30)) {
      return b.refuse("%s[%u] = %lld is out of range", what, i, static_cast<long long>(list->Get(i)));
    }
  }
  return Error::Ok;
}

// ---------------------------------------------------------------- convolution

// The logical oneDNN weights (groups split off, transposed weights seen as
// (O, I)) over PyTorch's row-major bytes: strides say where each dim is.
Error conv_weights_desc(GraphBuilder& b, const fb::Convolution* conv, int32_t w, int64_t groups, MemoryDesc* out) {
  const fb::Value* weights = b.value(w);
  const uint32_t rank = rank_of(weights);
  int64_t kernel = 1;
  for (uint32_t d = 2; d < rank; ++d) kernel *= weights->sizes()->Get(d);
  const int64_t d0 = weights->sizes()->Get(0), d1 = weights->sizes()->Get(1);
  if (d0 % groups != 0) return b.refuse("weights dim 0 (%lld) is not a multiple of groups", static_cast<long long>(d0));
  // PyTorch: conv (O, I/g, k...), transposed (I, O/g, k...).
  const int64_t out_per_group = conv->transposed() ? d1 : d0 / groups;
  const int64_t in_per_group = conv->transposed() ? d0 / groups : d1;
  dnnl_dims_t dims = {0}, strides = {0};
  int n = 0;
  if (groups > 1) {
    dims[n] = groups;
    strides[n++] = out_per_group * in_per_group * kernel;
  }
  dims[n] = out_per_group;
  strides[n++] = conv->transposed() ? kernel : in_per_group * kernel;
  dims[n] = in_per_group;
  strides[n++] = conv->transposed() ? out_per_group * kernel : kernel;
  int64_t stride = kernel;
  for (uint32_t d = 2; d < rank; ++d) {
    stride /= weights->sizes()->Get(d);
    dims[n] = weights->sizes()->Get(d);
    strides[n++] = stride;
  }
  return b.check(dnnl_memory_desc_create_with_strides(out->out(), n, dims, data_type_of(weights), strides),
                 "dnnl_memory_desc_create_with_strides(weights)");
}

// A weight operand: a constant is declared `any` (chosen by the primitive,
// reordered at init); a computed value is read through `logical`.
struct WeightOperand {
  MemoryDesc logical;  // over the value's plain bytes
  MemoryDesc for_pd;   // what the primitive descriptor is given
  bool constant = false;
};

// `compute`: the data type the primitive takes the weights in (float32
// for int8 weights dequantized as they are laid out at init).
Error prepare_weights(GraphBuilder& b, int32_t w, WeightOperand* op, dnnl_data_type_t compute) {
  op->constant = b.value(w)->kind() == fb::ValueKind::Constant;
  if (!op->constant) {
    return b.check(dnnl_memory_desc_clone(op->for_pd.out(), op->logical.get()), "dnnl_memory_desc_clone");
  }
  int ndims = 0;
  const dnnl_dims_t* dims = nullptr;
  KILN_TRY(b.check(dnnl_memory_desc_query(op->logical.get(), dnnl_query_ndims_s32, &ndims), "dnnl_memory_desc_query"));
  KILN_TRY(b.check(dnnl_memory_desc_query(op->logical.get(), dnnl_query_dims, &dims), "dnnl_memory_desc_query"));
  return b.check(dnnl_memory_desc_create_with_tag(op->for_pd.out(), ndims, *dims, compute, dnnl_format_tag_any),
                 "dnnl_memory_desc_create_with_tag(any)");
}

// The weights' memory once the primitive chose `chosen` (int8 weights of a
// float32 operation: dequantized by `scales` along `scales_mask` at init).
Result<uint32_t> bind_weights(GraphBuilder& b, int32_t w, WeightOperand* op, const_dnnl_memory_desc_t chosen,
                              int32_t scales = -1, int scales_mask = 0) {
  if (op->constant) return b.constant(w, op->logical.get(), chosen, scales, scales_mask);
  KILN_ASSIGN_OR_RETURN(const uint32_t plain, b.value_memory(w, true));
  return b.view(plain, op->logical.get());
}

// A quantized convolution's or matmul's scales and zero points
// (onednn_graph.fbs): the source's and the result's from their values, the
// weights' from the weight-scales input (one per output channel, `channels`).
//
// Where oneDNN's int8 kernels are not exact (exact_int8_dot_products), a
// quantized operation is emulated: it runs in float32 on its source
// dequantized before it and its weights dequantized at init, and its
// result is quantized after it -- the computation PyTorch's reference
// makes, with the same roundings.
struct Quantization {
  bool quantized = false;
  /// A float32 operation on int8 weights: they are dequantized at init.
  bool dequantized_weights = false;
  /// A quantized operation run in float32 (see above).
  bool emulated = false;
  int32_t src = -1, weight_scales = -1, out = -1;
  int weights_mask = 0;

  dnnl_data_type_t weights_type() const { return quantized && !emulated ? dnnl_s8 : dnnl_f32; }
  int32_t scales_at_init() const { return dequantized_weights ? weight_scales : -1; }
  /// The data type the primitive takes or writes `value` in.
  dnnl_data_type_t compute_type(const fb::Value* value) const { return emulated ? dnnl_f32 : data_type_of(value); }

  // Checks the operands and sets the masks on `attr`, before the primitive
  // descriptor is made.
  Error prepare(GraphBuilder& b, int32_t src_value, int32_t weights, int32_t scales, int32_t out_value, int64_t channels,
                int mask, const Attr& attr) {
    src = src_value;
    weight_scales = scales;
    out = out_value;
    weights_mask = mask;
    quantized = is_quantized(b.value(src));
    const fb::Value* w = b.value(weights);
    if (!quantized && !is_quantized(w)) {
      if (is_quantized(b.value(out)) || scales >= 0) return b.refuse("a float32 operation with a quantized result or weight scales");
      return Error::Ok;
    }
    if (w->dtype() != fb::DataType::Int8 || w->kind() != fb::ValueKind::Constant) {
      return b.refuse("a quantized source needs int8 constant weights");
    }
    if (scales < 0 || is_quantized(b.value(scales)) || b.value(scales)->kind() != fb::ValueKind::Constant ||
        numel_of(b.value(scales)) != channels) {
      return b.refuse("int8 weights need a float32 constant of %lld scales", static_cast<long long>(channels));
    }
    if (!quantized) {
      if (is_quantized(b.value(out))) return b.refuse("a float32 source with a quantized result");
      dequantized_weights = true;
      return Error::Ok;
    }
    if (!exact_int8_dot_products(dnnl_get_effective_cpu_isa())) {
      emulated = dequantized_weights = true;
      return Error::Ok;
    }
    dnnl_primitive_attr_t a = attr.get();
    KILN_TRY(b.check(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_SRC, 0), "dnnl_primitive_attr_set_scales_mask(src)"));
    if (b.value(src)->zero_point() != 0 || b.value(src)->dynamic()) {
      KILN_TRY(b.check(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0),
                       "dnnl_primitive_attr_set_zero_points_mask(src)"));
    }
    KILN_TRY(b.check(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, mask),
                     "dnnl_primitive_attr_set_scales_mask(weights)"));
    if (is_quantized(b.value(out))) {
      KILN_TRY(b.check(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0), "dnnl_primitive_attr_set_scales_mask(dst)"));
      if (b.value(out)->zero_point() != 0) {
        KILN_TRY(b.check(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_DST, 0),
                         "dnnl_primitive_attr_set_zero_points_mask(dst)"));
      }
    }
    return Error::Ok;
  }

  // The operation's steps (finish's), then its quantized result logged
  // dequantized when tracing. An emulated operation's float32 result is
  // quantized by a step after it.
  Error finish(GraphBuilder& b, PrimitiveDesc* pd, ArgList& args, StepArg* post_args, uint32_t num_post) const {
    if (!emulated || !is_quantized(b.value(out))) {
      KILN_TRY(onednn::finish(b, pd, args, post_args, num_post));
      return quantized ? b.describe_quantized_result(out) : Error::Ok;
    }
    KILN_TRY(b.resolve_post_args(*pd, post_args, num_post));
    const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd->get(), dnnl_query_dst_md, 0);
    if (chosen == nullptr) return b.refuse("the primitive has no destination");
    KILN_ASSIGN_OR_RETURN(const uint32_t result, b.temporary_buffer(chosen));
    args.add(DNNL_ARG_DST, result);
    for (uint32_t i = 0; i < num_post; ++i) args.add(post_args[i].arg, post_args[i].memory);
    KILN_TRY(add_step(b, pd, args));
    MemoryDesc layout;
    KILN_TRY(b.channels_last_desc_of(out, &layout));
    KILN_ASSIGN_OR_RETURN(const uint32_t dst, b.define_output(out, layout.get()));
    KILN_TRY(b.add_quantization(result, dst, out, /*quantize=*/true));
    return b.describe_quantized_result(out);
  }

  // The source the primitive reads in `chosen`, from `memory`: an emulated
  // operation's dequantized into a buffer; else `memory` itself.
  Result<uint32_t> source(GraphBuilder& b, uint32_t memory, const_dnnl_memory_desc_t chosen) const {
    if (!emulated) return memory;
    KILN_ASSIGN_OR_RETURN(const uint32_t dequantized, b.temporary_buffer(chosen));
    KILN_TRY(b.add_quantization(memory, dequantized, src, /*quantize=*/false));
    return dequantized;
  }

  // The result's descriptor for the primitive (format any).
  Error dst_desc(GraphBuilder& b, MemoryDesc* dst) const {
    const fb::Value* o = b.value(out);
    return b.any_desc(dims_of(o), rank_of(o), dst, compute_type(o));
  }

  // The run-time arguments, once the primitive descriptor is made.
  Error add_args(GraphBuilder& b, ArgList& args) const {
    if (!quantized || emulated) return Error::Ok;
    const fb::Value* s = b.value(src);
    KILN_ASSIGN_OR_RETURN(const uint32_t src_scale, b.scale_memory_of(src));
    args.add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, src_scale);
    if (s->zero_point() != 0 || s->dynamic()) {
      KILN_ASSIGN_OR_RETURN(const uint32_t zero_point, b.zero_point_memory_of(src));
      args.add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point);
    }
    KILN_ASSIGN_OR_RETURN(const uint32_t scales, b.value_memory(weight_scales, true));
    args.add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, scales);
    const fb::Value* o = b.value(out);
    if (is_quantized(o)) {
      KILN_ASSIGN_OR_RETURN(const uint32_t dst_scale, b.scalar_memory(o->scale()));
      args.add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, dst_scale);
      if (o->zero_point() != 0) {
        KILN_ASSIGN_OR_RETURN(const uint32_t zero_point, b.scalar_memory(static_cast<int32_t>(o->zero_point())));
        args.add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zero_point);
      }
    }
    return Error::Ok;
  }
};

// A bias of `n` elements (plain, rank `rank` with leading 1s).
Result<uint32_t> bias_memory(GraphBuilder& b, int32_t bias, uint32_t rank) {
  return b.value_memory_with_rank(bias, rank, true);
}

// ---- the activations of Kiln's own kernels (kernel_activation.h)

// One eltwise post-op as an own kernel's activation; nullopt for an
// algorithm none of them has (or a post-op that is no eltwise).
std::optional<KernelActivation> kernel_activation_of(const fb::Eltwise* eltwise) {
  if (eltwise == nullptr) return std::nullopt;
  using Kind = KernelActivation::Kind;
  Kind kind = Kind::kNone;
  switch (eltwise->algorithm()) {
    case fb::EltwiseAlgorithm::Relu: kind = Kind::kRelu; break;
    case fb::EltwiseAlgorithm::Clip: kind = Kind::kClip; break;
    case fb::EltwiseAlgorithm::HardSwish: kind = Kind::kHardSwish; break;
    case fb::EltwiseAlgorithm::HardSigmoid: kind = Kind::kHardSigmoid; break;
    case fb::EltwiseAlgorithm::Logistic: kind = Kind::kLogistic; break;
    case fb::EltwiseAlgorithm::Swish: kind = Kind::kSwish; break;
    default: return std::nullopt;
  }
  return KernelActivation{kind, eltwise->alpha(), eltwise->beta()};
}

// ---- Kiln's own int8 depthwise kernel (depthwise_int8.h)

// A convolution's post-ops as the depthwise kernel's activation: a grid
// between (x * a, round, clip, * b: a quantize and dequantize PT2E leaves
// before a hardswish) or none, then none, a relu or a clip (its clamp), a
// hardswish or a swish; false for anything else (left to oneDNN).
bool activation_of(const fb::Operation* operation, DepthwiseInt8* c) {
  c->low = -std::numeric_limits<float>::infinity();
  c->high = std::numeric_limits<float>::infinity();
  const auto* post_ops = operation->post_ops();
  const uint32_t n = post_ops != nullptr ? post_ops->size() : 0;
  const auto eltwise_at = [&](uint32_t i, fb::EltwiseAlgorithm algorithm) -> const fb::Eltwise* {
    const fb::Eltwise* e = i < n ? post_ops->Get(i)->op_as_Eltwise() : nullptr;
    return e != nullptr && e->algorithm() == algorithm ? e : nullptr;
  };
  uint32_t at = 0;
  const fb::Eltwise* to_grid = eltwise_at(0, fb::EltwiseAlgorithm::Linear);
  const fb::Eltwise* clip = eltwise_at(2, fb::EltwiseAlgorithm::Clip);
  const fb::Eltwise* from_grid = eltwise_at(3, fb::EltwiseAlgorithm::Linear);
  if (to_grid != nullptr && to_grid->beta() == 0 && eltwise_at(1, fb::EltwiseAlgorithm::Round) != nullptr &&
      clip != nullptr && from_grid != nullptr && from_grid->beta() == 0) {
    c->grid_between = true;
    c->grid_multiplier = to_grid->alpha();
    c->grid_low = clip->alpha();
    c->grid_high = clip->beta();
    c->grid_scale = from_grid->alpha();
    at = 4;
  }
  if (at == n) return true;
  if (at + 1 != n) return false;
  const std::optional<KernelActivation> activation = kernel_activation_of(post_ops->Get(at)->op_as_Eltwise());
  if (!activation) return false;
  switch (activation->kind) {
    case KernelActivation::Kind::kRelu:
      c->low = 0;
      return activation->alpha == 0;
    case KernelActivation::Kind::kClip:
      c->low = activation->alpha;
      c->high = activation->beta;
      return true;
    case KernelActivation::Kind::kHardSwish:
      c->hard_swish = true;
      c->hard_swish_alpha = activation->alpha;
      c->hard_swish_beta = activation->beta;
      return true;
    case KernelActivation::Kind::kSwish:
      c->swish = true;
      c->swish_alpha = activation->alpha;
      return true;
    default:  // no sigmoid, no hardsigmoid
      return false;
  }
}

// The convolution as Kiln's int8 depthwise kernel takes it, when it is one:
// int8 on both sides (not emulated), 2-D, one channel per group, not
// dilated, static quantization, its post-ops an activation the kernel has
// (activation_of), on a CPU whose effective ISA (oneDNN's, which a cap on
// it lowers) has AVX-512 VNNI, and a shape depthwise_int8_refusal takes.
bool own_depthwise(GraphBuilder& b, const fb::Convolution* conv, const Quantization& q, const dnnl_dims_t strides,
                   const dnnl_dims_t dilates, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r,
                   DepthwiseInt8* shape) {
  if (!q.quantized || q.emulated || conv->transposed()) return false;
  const fb::Value* src = b.value(q.src);
  const fb::Value* out = b.value(q.out);
  const fb::Value* weights = b.value(b.input(1));
  if (rank_of(src) != 4 || !is_quantized(out) || src->dynamic() || out->dynamic() ||
      out->kind() != fb::ValueKind::Intermediate || dilates[0] != 0 || dilates[1] != 0) {
    return false;
  }
  const int64_t channels = src->sizes()->Get(1);
  if (conv->groups() != channels || out->sizes()->Get(1) != channels || weights->sizes()->Get(0) != channels ||
      weights->sizes()->Get(1) != 1) {
    return false;
  }
  DepthwiseInt8 c;
  if (!activation_of(b.operation(), &c)) return false;
  c.batch = src->sizes()->Get(0);
  c.channels = channels;
  c.in_h = src->sizes()->Get(2);
  c.in_w = src->sizes()->Get(3);
  c.out_h = out->sizes()->Get(2);
  c.out_w = out->sizes()->Get(3);
  c.kernel_h = weights->sizes()->Get(2);
  c.kernel_w = weights->sizes()->Get(3);
  c.stride_h = strides[0];
  c.stride_w = strides[1];
  c.pad_top = padding_l[0];
  c.pad_left = padding_l[1];
  c.pad_bottom = padding_r[0];
  c.pad_right = padding_r[1];
  c.src_signed = src->dtype() == fb::DataType::Int8;
  c.dst_signed = out->dtype() == fb::DataType::Int8;
  c.src_scale = src->scale();
  c.dst_scale = out->scale();
  c.src_zero_point = static_cast<int32_t>(src->zero_point());
  c.dst_zero_point = static_cast<int32_t>(out->zero_point());
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool vnni = (isa & dnnl_cpu_isa_avx512_core_vnni) == dnnl_cpu_isa_avx512_core_vnni;
  if (depthwise_int8_refusal(c, vnni) != nullptr) return false;
  *shape = c;
  return true;
}

// Plans the convolution own_depthwise took: channels-last source and
// result, the weights, scales and bias as constants init packs, and a
// scratchpad slice per thread.
Error build_own_depthwise(GraphBuilder& b, const DepthwiseInt8& shape, const Quantization& q, int32_t bias) {
  const int32_t w = b.input(1);
  MemoryDesc dst_layout, weights_plain;
  KILN_TRY(b.channels_last_desc_of(q.out, &dst_layout));
  KILN_TRY(b.plain_desc_of(w, &weights_plain));
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.channels_last_memory(q.src));
  KILN_ASSIGN_OR_RETURN(const uint32_t weights_m, b.constant(w, weights_plain.get(), weights_plain.get()));
  KILN_ASSIGN_OR_RETURN(const uint32_t scales_m, b.value_memory(q.weight_scales, true));
  int32_t bias_m = -1;
  if (bias >= 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, bias_memory(b, bias, 1));
    bias_m = static_cast<int32_t>(m);
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t packed_m, b.persistent_bytes(depthwise_int8_packed_bytes(shape)));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(q.out, dst_layout.get()));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  args.add(DNNL_ARG_WEIGHTS, weights_m);
  args.add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, scales_m);
  if (bias_m >= 0) args.add(DNNL_ARG_BIAS, static_cast<uint32_t>(bias_m));
  args.add(DNNL_ARG_DST, dst_m);
  // The threads the plan is for (one for a small operation: ScopedThreads).
  const int32_t parts = omp_get_max_threads();
  const size_t slice = (depthwise_int8_scratch_bytes(shape) + 63) / 64 * 64;
  Step* step = nullptr;
  KILN_TRY(b.add_kernel_step(args.items, args.size, slice * static_cast<size_t>(parts), &step));
  step->depthwise = Step::Depthwise{static_cast<int32_t>(packed_m), static_cast<int32_t>(src_m),
                                    static_cast<int32_t>(dst_m),    static_cast<int32_t>(weights_m),
                                    static_cast<int32_t>(scales_m), bias_m,
                                    parts,                          slice,
                                    shape};
  return b.describe_quantized_result(q.out);
}

// ---- Kiln's own matrix-vector product (panel_gemv_f32.h)

// The memory of argument `arg` of `step`, or -1.
int32_t argument_memory(const Step& step, int arg) {
  for (uint32_t i = 0; i < step.num_args; ++i) {
    if (step.args[i].arg == arg) return static_cast<int32_t>(step.args[i].memory);
  }
  return -1;
}

// Whether `desc` is `count` float32 values one after another (any
// dimensions of 1 around them).
bool contiguous_floats(const_dnnl_memory_desc_t desc, int64_t count) {
  Blocking layout;
  if (!float_blocking(desc, &layout) || layout.inner_nblks != 0) return false;
  int64_t numel = 1;
  for (int d = 0; d < layout.ndims; ++d) {
    numel *= layout.dims[d];
    if (layout.dims[d] > 1 && layout.strides[d] != 1) return false;
  }
  return numel == count;
}

// An operation's post-ops as the matrix-vector product's: none, an
// activation the kernel has (every kind of kernel_activation_of), or one
// binary add (`adds`: of a value of N floats, checked by the caller); false
// for anything else (left to oneDNN).
bool gemv_post_ops_of(const fb::Operation* operation, PanelGemvF32* g, bool* adds) {
  *adds = false;
  const auto* post_ops = operation->post_ops();
  if (post_ops == nullptr || post_ops->size() == 0) return true;
  if (post_ops->size() != 1) return false;
  if (const fb::BinaryPostOp* binary = post_ops->Get(0)->op_as_BinaryPostOp()) {
    *adds = binary->algorithm() == fb::BinaryAlgorithm::Add;
    return *adds;
  }
  const std::optional<KernelActivation> activation = kernel_activation_of(post_ops->Get(0)->op_as_Eltwise());
  if (!activation) return false;
  g->activation = *activation;
  return true;
}

// A float32 matmul of one row or convolution of one pixel on constant
// weights, which finish has just planned as a primitive of `kind`: on a CPU
// whose effective ISA (oneDNN's, which a cap on it lowers) has AVX-512 or
// AVX2, when the weights' layout (K in dimension k_dim, N in n_dim) is one
// Kiln's matrix-vector product reads (panel_gemv_f32.h: on AVX2, oneDNN
// packs a convolution's weights so, but leaves a matmul's plain), the
// source and result are plain and the post-ops an activation it has, the
// step runs that instead of the primitive, on the same ISA's instructions.
void own_panel_gemv(GraphBuilder& b, dnnl_primitive_kind_t kind, int k_dim, int n_dim) {
  const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
  const bool avx512 = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
  const bool avx2 = (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
  Step* step = b.last_step();
  dnnl_primitive_kind_t planned = dnnl_undefined_primitive;
  if (!avx2 || PanelGemvF32::best_path() == PanelGemvF32::Path::kPortable || step == nullptr || step->pd == nullptr ||
      dnnl_primitive_desc_query(step->pd, dnnl_query_primitive_kind, 0, &planned) != dnnl_success || planned != kind) {
    return;
  }
  const int32_t src = argument_memory(*step, DNNL_ARG_SRC), weights = argument_memory(*step, DNNL_ARG_WEIGHTS);
  const int32_t bias = argument_memory(*step, DNNL_ARG_BIAS), dst = argument_memory(*step, DNNL_ARG_DST);
  PanelGemvF32 shape;
  const char* why = nullptr;
  bool adds = false;
  if (src < 0 || weights < 0 || dst < 0 ||
      !panel_gemv_f32_of(b.desc(static_cast<uint32_t>(weights)), k_dim, n_dim, &shape, &why) ||
      !gemv_post_ops_of(b.operation(), &shape, &adds) ||
      !contiguous_floats(b.desc(static_cast<uint32_t>(src)), shape.k) ||
      !contiguous_floats(b.desc(static_cast<uint32_t>(dst)), shape.n) ||
      (bias >= 0 && !contiguous_floats(b.desc(static_cast<uint32_t>(bias)), shape.n))) {
    return;
  }
  const int32_t addend = adds ? argument_memory(*step, DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1) : -1;
  if (adds && (addend < 0 || !contiguous_floats(b.desc(static_cast<uint32_t>(addend)), shape.n))) return;
  const PanelGemvF32::Path path = avx512 ? PanelGemvF32::Path::kAvx512 : PanelGemvF32::Path::kAvx2;
  step->panel_gemv = Step::PanelGemv{src, weights, bias, dst, addend, shape, path};
}

Error build_convolution(GraphBuilder& b, const fb::Convolution* conv) {
  const int32_t src = b.input(0), w = b.input(1), bias = b.input(2), scales = b.input(3), out = b.output();
  const uint32_t rank = rank_of_value(b, src);
  if (rank < 3 || rank > 5 || rank_of_value(b, w) != rank || rank_of_value(b, out) != rank) {
    return b.refuse("source, weights and result must have 3 to 5 dimensions alike (%u, %u, %u)", rank,
                    rank_of_value(b, w), rank_of_value(b, out));
  }
  const uint32_t n = rank - 2;
  dnnl_dims_t strides, dilates, padding_l, padding_r, output_padding = {0};
  KILN_TRY(spatial(b, conv->strides(), n, "strides", 0, 1, strides));
  KILN_TRY(spatial(b, conv->dilations(), n, "dilations", 1, 0, dilates));
  KILN_TRY(spatial(b, conv->padding_l(), n, "padding_l", 0, 0, padding_l));
  KILN_TRY(spatial(b, conv->padding_r(), n, "padding_r", 0, 0, padding_r));
  if (conv->transposed() && conv->output_padding() != nullptr && conv->output_padding()->size() != 0) {
    KILN_TRY(spatial(b, conv->output_padding(), n, "output_padding", 0, 0, output_padding));
    for (uint32_t i = 0; i < n; ++i) padding_r[i] -= output_padding[i];
  }
  if (conv->groups() < 1 || conv->groups() > b.value(src)->sizes()->Get(1)) {
    return b.refuse("groups = %lld is out of range", static_cast<long long>(conv->groups()));
  }
  WeightOperand weights;
  KILN_TRY(conv_weights_desc(b, conv, w, conv->groups(), &weights.logical));

  MemoryDesc src_any, bias_desc, dst;
  uint32_t bias_m = 0;
  if (bias >= 0) {
    KILN_ASSIGN_OR_RETURN(bias_m, bias_memory(b, bias, 1));
    KILN_TRY(b.check(dnnl_memory_desc_clone(bias_desc.out(), b.desc(bias_m)), "dnnl_memory_desc_clone"));
  }
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  // Per output channel: grouped weights are (G, O/G, ...), the scales in O's order.
  Quantization quantization;
  const int64_t out_channels = b.value(out)->sizes()->Get(1);
  KILN_TRY(quantization.prepare(b, src, w, scales, out, out_channels, conv->groups() > 1 ? 0x3 : 0x1, attr));
  if ((quantization.quantized || quantization.dequantized_weights) && conv->transposed()) {
    return b.refuse("a quantized transposed convolution");
  }
  DepthwiseInt8 depthwise;
  if (own_depthwise(b, conv, quantization, strides, dilates, padding_l, padding_r, &depthwise)) {
    return build_own_depthwise(b, depthwise, quantization, bias);
  }
  const fb::Value* src_value = b.value(src);
  KILN_TRY(b.any_desc(dims_of(src_value), rank, &src_any, quantization.compute_type(src_value)));
  KILN_TRY(quantization.dst_desc(b, &dst));
  KILN_TRY(prepare_weights(b, w, &weights, quantization.weights_type()));
  PrimitiveDesc pd;
  if (conv->transposed()) {
    KILN_TRY(b.check_pd(dnnl_deconvolution_forward_primitive_desc_create(
                            pd.out(), b.engine(), dnnl_forward_inference, dnnl_deconvolution_direct, src_any.get(),
                            weights.for_pd.get(), bias_desc.get(), dst.get(), strides, dilates, padding_l,
                            padding_r, attr.get()),
                        "dnnl_deconvolution_forward_primitive_desc_create", &pd));
  } else {
    KILN_TRY(b.check_pd(dnnl_convolution_forward_primitive_desc_create(
                            pd.out(), b.engine(), dnnl_forward_inference, dnnl_convolution_direct, src_any.get(),
                            weights.for_pd.get(), bias_desc.get(), dst.get(), strides, dilates, padding_l,
                            padding_r, attr.get()),
                        "dnnl_convolution_forward_primitive_desc_create", &pd));
  }
  // The source in the layout the primitive chose: its producer's layout in
  // a chain of convolutions, else one reorder (at the delegate's edge).
  const_dnnl_memory_desc_t chosen_src = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_src_md, 0);
  KILN_ASSIGN_OR_RETURN(uint32_t src_m, b.value_memory(src, false));
  if (quantization.emulated) {
    KILN_ASSIGN_OR_RETURN(src_m, quantization.source(b, src_m, chosen_src));
  } else if (!dnnl_memory_desc_equal(chosen_src, b.desc(src_m))) {
    KILN_ASSIGN_OR_RETURN(src_m, b.reorder_into_buffer(src_m, chosen_src));
  }
  const_dnnl_memory_desc_t chosen_weights = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_weights_md, 0);
  KILN_ASSIGN_OR_RETURN(const uint32_t weights_m, bind_weights(b, w, &weights, chosen_weights, quantization.scales_at_init(),
                                                               quantization.weights_mask));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  args.add(DNNL_ARG_WEIGHTS, weights_m);
  if (bias >= 0) args.add(DNNL_ARG_BIAS, bias_m);
  KILN_TRY(quantization.add_args(b, args));
  KILN_TRY(quantization.finish(b, &pd, args, post_args, num_post));
  // A 1x1 convolution of one pixel (a squeeze-excitation's) is a
  // matrix-vector product: weights (O, I, 1, 1), K = I in dimension 1.
  const bool one_pixel = numel_of(src_value) == src_value->sizes()->Get(1) && numel_of(b.value(out)) == out_channels;
  if (one_pixel && !conv->transposed() && conv->groups() == 1 && !quantization.quantized &&
      !quantization.dequantized_weights && src_value->dtype() == fb::DataType::Float32 &&
      b.value(out)->dtype() == fb::DataType::Float32 && b.value(w)->kind() == fb::ValueKind::Constant &&
      numel_of(b.value(w)) == out_channels * src_value->sizes()->Get(1) && num_post == 0) {
    own_panel_gemv(b, dnnl_convolution, 1, 0);
  }
  return Error::Ok;
}

// ---------------------------------------------------------------- matmul

// A plain descriptor of `dims` with DNNL_RUNTIME_DIM_VAL at `runtime_dim`
// (its strides run-time too): what a primitive is made with for a value
// whose size there the call sets.
Error runtime_desc(GraphBuilder& b, const int64_t* dims, uint32_t rank, int32_t runtime_dim, MemoryDesc* out) {
  static constexpr dnnl_format_tag_t kPlain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  if (rank < 1 || rank > 6) return b.refuse("a run-time size on a value of %u dimensions (at most 6)", rank);
  dnnl_dims_t d;
  for (uint32_t i = 0; i < rank; ++i) d[i] = dims[i];
  d[runtime_dim] = DNNL_RUNTIME_DIM_VAL;
  return b.check(dnnl_memory_desc_create_with_tag(out->out(), static_cast<int>(rank), d, dnnl_f32, kPlain[rank - 1]),
                 "dnnl_memory_desc_create_with_tag(run-time)");
}

// A matmul whose rows the call sets (onednn_graph.fbs Value.runtime_dim): one
// primitive made with a run-time dimension in its source and result, both
// plain; the weights laid out once in the layout it chose (plain K x N:
// oneDNN 3.2 makes it on its gemm, its brgemm takes no run-time M).
Error build_runtime_matmul(GraphBuilder& b, const fb::MatMul* matmul) {
  const int32_t a = b.input(0), w = b.input(1), bias = b.input(2), out = b.output();
  const uint32_t rank = rank_of_value(b, out);
  const int32_t out_dim = b.value(out)->runtime_dim();
  const int32_t a_dim = b.value(a)->runtime_dim() < 0
                            ? -1
                            : b.value(a)->runtime_dim() + static_cast<int32_t>(rank - rank_of_value(b, a));
  if (out_dim < 0 || a_dim != out_dim || out_dim >= static_cast<int32_t>(rank) - 1) {
    return b.refuse("a run-time size must be in the rows of the first operand and the result alike");
  }
  // Quantized values and binary post-ops are refused with the rest of the
  // run-time size rules (capabilities.h) before any operation is built.
  if (b.value(w)->runtime_dim() >= 0 || (bias >= 0 && b.value(bias)->runtime_dim() >= 0) || b.input(3) >= 0) {
    return b.refuse("a run-time size with a second operand or bias of run-time size, or weight scales");
  }
  const auto* post_ops = b.operation()->post_ops();
  KILN_ASSIGN_OR_RETURN(const uint32_t a_m, b.value_memory_with_rank(a, rank, true));
  int64_t dims[kMaxRank];
  b.broadcast_dims(a, rank, dims);
  MemoryDesc src, dst, weights_logical, weights_any, bias_desc;
  KILN_TRY(runtime_desc(b, dims, rank, a_dim, &src));
  KILN_TRY(runtime_desc(b, dims_of(b.value(out)), rank, out_dim, &dst));
  b.broadcast_dims(w, rank, dims);
  uint32_t w_source = 0;
  const bool w_constant = b.value(w)->kind() == fb::ValueKind::Constant;
  if (w_constant) {
    KILN_TRY(b.plain_desc(dims, rank, &weights_logical));
  } else {
    KILN_ASSIGN_OR_RETURN(w_source, b.value_memory_with_rank(w, rank, true));
    KILN_TRY(b.check(dnnl_memory_desc_clone(weights_logical.out(), b.desc(w_source)), "dnnl_memory_desc_clone"));
  }
  if (matmul->transpose_b()) {
    int permutation[kMaxRank];
    for (uint32_t i = 0; i < rank; ++i) permutation[i] = static_cast<int>(i);
    permutation[rank - 2] = static_cast<int>(rank - 1);
    permutation[rank - 1] = static_cast<int>(rank - 2);
    MemoryDesc permuted;
    KILN_TRY(b.check(dnnl_memory_desc_permute_axes(permuted.out(), weights_logical.get(), permutation),
                     "dnnl_memory_desc_permute_axes"));
    weights_logical = static_cast<MemoryDesc&&>(permuted);
  }
  if (w_constant) {
    int ndims = 0;
    const dnnl_dims_t* logical_dims = nullptr;
    KILN_TRY(b.check(dnnl_memory_desc_query(weights_logical.get(), dnnl_query_ndims_s32, &ndims), "dnnl_memory_desc_query"));
    KILN_TRY(b.check(dnnl_memory_desc_query(weights_logical.get(), dnnl_query_dims, &logical_dims), "dnnl_memory_desc_query"));
    KILN_TRY(b.check(dnnl_memory_desc_create_with_tag(weights_any.out(), ndims, *logical_dims, dnnl_f32, dnnl_format_tag_any),
                     "dnnl_memory_desc_create_with_tag(any)"));
  } else {
    KILN_TRY(b.check(dnnl_memory_desc_clone(weights_any.out(), weights_logical.get()), "dnnl_memory_desc_clone"));
  }
  uint32_t bias_m = 0;
  if (bias >= 0) {
    if (rank_of_value(b, bias) > rank) return b.refuse("the bias has more dimensions than the result");
    KILN_ASSIGN_OR_RETURN(bias_m, bias_memory(b, bias, rank));
    KILN_TRY(b.check(dnnl_memory_desc_clone(bias_desc.out(), b.desc(bias_m)), "dnnl_memory_desc_clone"));
  }
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_matmul_primitive_desc_create(pd.out(), b.engine(), src.get(), weights_any.get(),
                                                        bias_desc.get(), dst.get(), attr.get()),
                      "dnnl_matmul_primitive_desc_create", &pd));
  uint32_t weights_m = 0;
  if (w_constant) {
    const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_weights_md, 0);
    KILN_ASSIGN_OR_RETURN(weights_m, b.constant(w, weights_logical.get(), chosen));
  } else {
    KILN_ASSIGN_OR_RETURN(weights_m, b.view(w_source, weights_logical.get()));
  }
  MemoryDesc plain_out;
  KILN_TRY(b.plain_desc_of(out, &plain_out));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, plain_out.get()));
  b.set_runtime_dim(a_m, a_dim);
  b.set_runtime_dim(dst_m, out_dim);
  ArgList args;
  args.add(DNNL_ARG_SRC, a_m);
  args.add(DNNL_ARG_WEIGHTS, weights_m);
  if (bias >= 0) args.add(DNNL_ARG_BIAS, bias_m);
  args.add(DNNL_ARG_DST, dst_m);
  KILN_TRY(add_step(b, &pd, args));
  // One row at run time is one row of dot products with (N, K) weights the
  // call passes (Step::RowDots): every dimension but the rows and N is 1.
  bool one_row = !w_constant && matmul->transpose_b() && rank_of_value(b, w) == 2 && num_post == 0 &&
                 (post_ops == nullptr || post_ops->size() == 0) &&
                 (bias < 0 || numel_of(b.value(bias)) == b.value(out)->sizes()->Get(rank - 1));
  for (uint32_t d = 0; one_row && d + 1 < rank; ++d) one_row = static_cast<int32_t>(d) == out_dim || b.value(out)->sizes()->Get(d) == 1;
  if (one_row) {
    Step* step = b.last_step();
    step->row_dots = Step::RowDots{static_cast<int32_t>(a_m), static_cast<int32_t>(w_source),
                                   bias >= 0 ? static_cast<int32_t>(bias_m) : -1, static_cast<int32_t>(dst_m),
                                   b.value(out)->sizes()->Get(rank - 1), b.value(w)->sizes()->Get(1)};
  }
  return Error::Ok;
}

Error build_matmul(GraphBuilder& b, const fb::MatMul* matmul) {
  const int32_t a = b.input(0), w = b.input(1), bias = b.input(2), scales = b.input(3), out = b.output();
  const uint32_t rank = rank_of_value(b, out);
  if (rank < 2 || rank_of_value(b, a) < 2 || rank_of_value(b, w) < 2 || rank_of_value(b, a) > rank ||
      rank_of_value(b, w) > rank) {
    return b.refuse("operands must have 2 or more dimensions, at most the result's");
  }
  if (b.value(a)->runtime_dim() >= 0 || b.value(out)->runtime_dim() >= 0) return build_runtime_matmul(b, matmul);
  KILN_ASSIGN_OR_RETURN(const uint32_t a_m, b.value_memory_with_rank(a, rank, b.plain_inputs()));

  // b's logical (..., K, N) over its bytes, (..., N, K) when transpose_b.
  WeightOperand weights;
  int64_t dims[kMaxRank];
  b.broadcast_dims(w, rank, dims);
  uint32_t w_source = 0;
  const bool w_constant = b.value(w)->kind() == fb::ValueKind::Constant;
  if (w_constant) {
    KILN_TRY(b.plain_desc(dims, rank, &weights.logical, data_type_of(b.value(w))));
  } else {
    KILN_ASSIGN_OR_RETURN(w_source, b.value_memory_with_rank(w, rank, b.plain_inputs()));
    KILN_TRY(b.check(dnnl_memory_desc_clone(weights.logical.out(), b.desc(w_source)), "dnnl_memory_desc_clone"));
  }
  if (matmul->transpose_b()) {
    int permutation[kMaxRank];
    for (uint32_t i = 0; i < rank; ++i) permutation[i] = static_cast<int>(i);
    permutation[rank - 2] = static_cast<int>(rank - 1);
    permutation[rank - 1] = static_cast<int>(rank - 2);
    MemoryDesc permuted;
    KILN_TRY(b.check(dnnl_memory_desc_permute_axes(permuted.out(), weights.logical.get(), permutation),
                     "dnnl_memory_desc_permute_axes"));
    weights.logical = static_cast<MemoryDesc&&>(permuted);
  }
  MemoryDesc bias_desc, dst;
  uint32_t bias_m = 0;
  if (bias >= 0) {
    if (rank_of_value(b, bias) > rank) return b.refuse("the bias has more dimensions than the result");
    KILN_ASSIGN_OR_RETURN(bias_m, bias_memory(b, bias, rank));
    KILN_TRY(b.check(dnnl_memory_desc_clone(bias_desc.out(), b.desc(bias_m)), "dnnl_memory_desc_clone"));
  }
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  // One scale per column N of b (oneDNN's last weights dimension).
  Quantization quantization;
  const int64_t columns = b.value(out)->sizes()->Get(rank - 1);
  KILN_TRY(quantization.prepare(b, a, w, scales, out, columns, 1 << (rank - 1), attr));
  if (quantization.dequantized_weights && !w_constant) return b.refuse("int8 weights that are not a constant");
  KILN_TRY(quantization.dst_desc(b, &dst));
  KILN_TRY(prepare_weights(b, w, &weights, quantization.weights_type()));
  // An emulated operation reads its source dequantized, plain.
  MemoryDesc a_desc;
  if (quantization.emulated) {
    b.broadcast_dims(a, rank, dims);
    KILN_TRY(b.plain_desc(dims, rank, &a_desc, dnnl_f32));
  } else {
    KILN_TRY(b.check(dnnl_memory_desc_clone(a_desc.out(), b.desc(a_m)), "dnnl_memory_desc_clone"));
  }
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_matmul_primitive_desc_create(pd.out(), b.engine(), a_desc.get(), weights.for_pd.get(),
                                                        bias_desc.get(), dst.get(), attr.get()),
                      "dnnl_matmul_primitive_desc_create", &pd));
  KILN_ASSIGN_OR_RETURN(const uint32_t source_m, quantization.source(b, a_m, a_desc.get()));
  uint32_t weights_m = 0;
  if (w_constant) {
    const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_weights_md, 0);
    KILN_ASSIGN_OR_RETURN(weights_m, b.constant(w, weights.logical.get(), chosen, quantization.scales_at_init(),
                                                quantization.weights_mask));
  } else {
    KILN_ASSIGN_OR_RETURN(weights_m, b.view(w_source, weights.logical.get()));
  }
  ArgList args;
  args.add(DNNL_ARG_SRC, source_m);
  args.add(DNNL_ARG_WEIGHTS, weights_m);
  if (bias >= 0) args.add(DNNL_ARG_BIAS, bias_m);
  KILN_TRY(quantization.add_args(b, args));
  KILN_TRY(quantization.finish(b, &pd, args, post_args, num_post));
  const bool float32 = !quantization.quantized && !quantization.dequantized_weights &&
                       b.value(a)->dtype() == fb::DataType::Float32 && b.value(out)->dtype() == fb::DataType::Float32;
  // At most one binary post-op's operand (gemv_post_ops_of: an addend).
  if (float32 && w_constant && num_post <= 1 && numel_of(b.value(out)) == columns &&
      (bias < 0 || numel_of(b.value(bias)) == columns)) {
    own_panel_gemv(b, dnnl_matmul, static_cast<int>(rank) - 2, static_cast<int>(rank) - 1);
  }
  return Error::Ok;
}

// ---------------------------------------------------------------- dynamic quantization

// The source's scale and zero point computed at run time (a step of
// Kiln's own, choose_qparams in onednn_runtime.cpp), then one quantizing
// reorder that reads them: x * (1 / scale) rounded, plus the zero point.
Error build_dynamic_quantize(GraphBuilder& b, const fb::DynamicQuantize* params) {
  const int32_t src = b.input(0), out = b.output();
  const fb::Value* to = b.value(out);
  if (is_quantized(b.value(src)) || to->dtype() != fb::DataType::UInt8 || !to->dynamic() ||
      numel_of(b.value(src)) != numel_of(to)) {
    return b.refuse("a dynamic quantization from float32 into a dynamic uint8 value of as many elements");
  }
  if (params->quant_min() != -128 || params->quant_max() != 127 || !(params->eps() >= 0)) {
    return b.refuse("a dynamic quantization to [%d, %d]; OneDnnBackend takes int8's whole range", params->quant_min(),
                    params->quant_max());
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, true));
  KILN_ASSIGN_OR_RETURN(const uint32_t scale, b.scalar_memory(1.0f));
  KILN_ASSIGN_OR_RETURN(const uint32_t inverse, b.scalar_memory(1.0f));
  KILN_ASSIGN_OR_RETURN(const uint32_t zero_point, b.scalar_memory(int32_t{0}));
  KILN_TRY(b.add_choose_qparams(src_m, params, scale, inverse, zero_point));
  MemoryDesc out_plain;
  KILN_TRY(b.plain_desc_of(out, &out_plain));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, out_plain.get()));
  Attr attr;
  KILN_TRY(b.check(dnnl_primitive_attr_create(attr.out()), "dnnl_primitive_attr_create"));
  KILN_TRY(b.check(dnnl_primitive_attr_set_scales_mask(attr.get(), DNNL_ARG_SRC, 0), "dnnl_primitive_attr_set_scales_mask"));
  KILN_TRY(b.check(dnnl_primitive_attr_set_zero_points_mask(attr.get(), DNNL_ARG_DST, 0),
                   "dnnl_primitive_attr_set_zero_points_mask"));
  PrimitiveDesc pd;
  KILN_TRY(b.check(dnnl_reorder_primitive_desc_create(pd.out(), b.desc(src_m), b.engine(), b.desc(dst_m), b.engine(),
                                                      attr.get()),
                   "dnnl_reorder_primitive_desc_create(dynamic quantization)"));
  const StepArg args[] = {{DNNL_ARG_FROM, src_m},
                          {DNNL_ARG_TO, dst_m},
                          {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, inverse},
                          {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zero_point}};
  KILN_TRY(b.add_step(&pd, args, 4));
  b.set_dynamic_qparams(out, scale, zero_point);
  return b.describe_quantized_result(out);
}

// ---------------------------------------------------------------- one-source ops

Error build_softmax(GraphBuilder& b, const fb::Softmax* softmax) {
  const int32_t src = b.input(0);
  const int rank = static_cast<int>(rank_of_value(b, src));
  const int axis = softmax->axis() < 0 ? softmax->axis() + rank : softmax->axis();
  if (axis < 0 || axis >= (rank == 0 ? 1 : rank)) return b.refuse("axis %d of a %d-dimensional source", softmax->axis(), rank);
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(b.output(), &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank == 0 ? 1 : static_cast<uint32_t>(rank), &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_softmax_forward_primitive_desc_create(
                          pd.out(), b.engine(), dnnl_forward_inference,
                          softmax->log() ? dnnl_softmax_log : dnnl_softmax_accurate, b.desc(src_m), dst.get(), axis,
                          attr.get()),
                      "dnnl_softmax_forward_primitive_desc_create", &pd));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  return finish(b, &pd, args, post_args, num_post);
}

dnnl_alg_kind_t pooling_algorithm(fb::PoolingAlgorithm algorithm) {
  switch (algorithm) {
    case fb::PoolingAlgorithm::Max: return dnnl_pooling_max;
    case fb::PoolingAlgorithm::AvgIncludePadding: return dnnl_pooling_avg_include_padding;
    case fb::PoolingAlgorithm::AvgExcludePadding: return dnnl_pooling_avg_exclude_padding;
  }
  return dnnl_alg_kind_undef;
}

Error build_pooling(GraphBuilder& b, const fb::Pooling* pooling) {
  const int32_t src = b.input(0);
  const uint32_t rank = rank_of_value(b, src);
  if (rank < 3 || rank > 5 || rank_of_value(b, b.output()) != rank) {
    return b.refuse("source and result must have 3 to 5 dimensions alike");
  }
  const uint32_t n = rank - 2;
  dnnl_dims_t kernel, strides, dilation, padding_l, padding_r;
  KILN_TRY(spatial(b, pooling->kernel(), n, "kernel", 0, 1, kernel));
  KILN_TRY(spatial(b, pooling->strides(), n, "strides", 0, 1, strides));
  KILN_TRY(spatial(b, pooling->padding_l(), n, "padding_l", 0, 0, padding_l));
  KILN_TRY(spatial(b, pooling->padding_r(), n, "padding_r", 0, 0, padding_r));
  if (pooling->dilations() != nullptr && pooling->dilations()->size() != 0) {
    KILN_TRY(spatial(b, pooling->dilations(), n, "dilations", 1, 0, dilation));
  } else {
    for (uint32_t i = 0; i < n; ++i) dilation[i] = 0;
  }
  const dnnl_alg_kind_t alg = pooling_algorithm(pooling->algorithm());
  if (alg == dnnl_alg_kind_undef) return b.refuse("unknown pooling algorithm");
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(b.output(), &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_pooling_forward_primitive_desc_create(pd.out(), b.engine(), dnnl_forward_inference, alg,
                                                                 b.desc(src_m), dst.get(), strides, kernel, dilation,
                                                                 padding_l, padding_r, attr.get()),
                      "dnnl_pooling_forward_primitive_desc_create", &pd));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  KILN_TRY(finish(b, &pd, args, post_args, num_post));
  return b.describe_quantized_result(b.output());
}

dnnl_alg_kind_t reduction_algorithm(fb::ReductionAlgorithm algorithm) {
  switch (algorithm) {
    case fb::ReductionAlgorithm::Mean: return dnnl_reduction_mean;
    case fb::ReductionAlgorithm::Sum: return dnnl_reduction_sum;
    case fb::ReductionAlgorithm::Max: return dnnl_reduction_max;
    case fb::ReductionAlgorithm::Min: return dnnl_reduction_min;
  }
  return dnnl_alg_kind_undef;
}

// Reduction, resampling and eltwise: one source in its layout, the result
// in the layout oneDNN picks.
Error build_reduction(GraphBuilder& b, const fb::Reduction* reduction) {
  const int32_t src = b.input(0), out = b.output();
  const uint32_t rank = rank_of_value(b, src);
  if (rank_of_value(b, out) != rank) {
    return b.refuse("the result has %u dimensions, the source %u (keep reduced dimensions as size 1)",
                    rank_of_value(b, out), rank);
  }
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t s = b.value(src)->sizes()->Get(d), o = b.value(out)->sizes()->Get(d);
    if (o != s && o != 1) return b.refuse("result dim %u is %lld, neither the source's nor 1", d, static_cast<long long>(o));
  }
  const dnnl_alg_kind_t alg = reduction_algorithm(reduction->algorithm());
  if (alg == dnnl_alg_kind_undef) return b.refuse("unknown reduction algorithm");
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(out, &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_reduction_primitive_desc_create(pd.out(), b.engine(), alg, b.desc(src_m), dst.get(), 0.f,
                                                           0.f, attr.get()),
                      "dnnl_reduction_primitive_desc_create", &pd));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  return finish(b, &pd, args, post_args, num_post);
}

Error build_resampling(GraphBuilder& b, const fb::Resampling* resampling) {
  const int32_t src = b.input(0), out = b.output();
  const uint32_t rank = rank_of_value(b, src);
  if (rank < 3 || rank > 5 || rank_of_value(b, out) != rank) {
    return b.refuse("source and result must have 3 to 5 dimensions alike");
  }
  if (resampling->algorithm() > fb::ResamplingAlgorithm::MAX) return b.refuse("unknown resampling algorithm");
  const dnnl_alg_kind_t alg =
      resampling->algorithm() == fb::ResamplingAlgorithm::Nearest ? dnnl_resampling_nearest : dnnl_resampling_linear;
  KILN_ASSIGN_OR_RETURN(uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  if (!b.plain_inputs() && b.is_plain(src_m, src)) {
    // oneDNN's resampling of a plain image interpolates along its rows, a
    // channel at a time; over channels-last it vectorizes across channels
    // (a U-Net's bilinear 2x upsampling of 32 channels of 32x32: 0.20 ms
    // against XNNPACK's 0.04).
    KILN_ASSIGN_OR_RETURN(src_m, b.channels_last_memory(src));
  }
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(out, &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  KILN_TRY(b.make_attr(rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_resampling_forward_primitive_desc_create(pd.out(), b.engine(), dnnl_forward_inference, alg,
                                                                    nullptr, b.desc(src_m), dst.get(), attr.get()),
                      "dnnl_resampling_forward_primitive_desc_create", &pd));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  return finish(b, &pd, args, post_args, num_post);
}

Error build_eltwise(GraphBuilder& b, const fb::EltwiseOp* op) {
  const int32_t src = b.input(0);
  dnnl_alg_kind_t alg;
  float alpha, beta;
  if (op->eltwise() == nullptr || !eltwise_algorithm(op->eltwise(), &alg, &alpha, &beta)) {
    return b.refuse("unknown eltwise algorithm");
  }
  KILN_ASSIGN_OR_RETURN(const uint32_t src_m, b.value_memory(src, b.plain_inputs()));
  MemoryDesc dst;
  KILN_TRY(b.dst_desc_of(b.output(), &dst));
  Attr attr;
  StepArg post_args[kMaxStepArgs];
  uint32_t num_post = 0;
  const uint32_t rank = rank_of_value(b, src);
  KILN_TRY(b.make_attr(rank == 0 ? 1 : rank, &attr, post_args, &num_post));
  PrimitiveDesc pd;
  KILN_TRY(b.check_pd(dnnl_eltwise_forward_primitive_desc_create(pd.out(), b.engine(), dnnl_forward_inference, alg,
                                                                 b.desc(src_m), dst.get(), alpha, beta, attr.get()),
                      "dnnl_eltwise_forward_primitive_desc_create", &pd));
  ArgList args;
  args.add(DNNL_ARG_SRC, src_m);
  return finish(b, &pd, args, post_args, num_post);
}

}  // namespace

// Defined in normalization_builders.cpp and layout_builders.cpp.
Error build_batch_norm(GraphBuilder& b, const fb::BatchNorm* bn);
Error build_layer_norm(GraphBuilder& b, const fb::LayerNorm* ln);
Error build_concat(GraphBuilder& b, const fb::Concat* concat);
Error build_binary(GraphBuilder& b, const fb::BinaryOp* binary);
Error build_reorder(GraphBuilder& b, const fb::Reorder* reorder);
Error build_pad(GraphBuilder& b, const fb::Pad* pad);
Error build_pointwise(GraphBuilder& b, const fb::Pointwise* pointwise);  // pointwise_builder.cpp

Error build_operation(GraphBuilder& b) {
  const fb::Operation* op = b.operation();
  // What its kind may do (capabilities.h), as the lowering checked it.
  if (const Verdict verdict = verdict_of(facts_of(b.graph(), *op)); !verdict) {
    return b.refuse("breaks its kind's rules: %s", verdict.reason);
  }
  switch (op->op_type()) {
    case fb::OperationKind::Convolution: return build_convolution(b, op->op_as_Convolution());
    case fb::OperationKind::MatMul: return build_matmul(b, op->op_as_MatMul());
    case fb::OperationKind::BatchNorm: return build_batch_norm(b, op->op_as_BatchNorm());
    case fb::OperationKind::LayerNorm: return build_layer_norm(b, op->op_as_LayerNorm());
    case fb::OperationKind::Softmax: return build_softmax(b, op->op_as_Softmax());
    case fb::OperationKind::Pooling: return build_pooling(b, op->op_as_Pooling());
    case fb::OperationKind::Reduction: return build_reduction(b, op->op_as_Reduction());
    case fb::OperationKind::Resampling: return build_resampling(b, op->op_as_Resampling());
    case fb::OperationKind::Concat: return build_concat(b, op->op_as_Concat());
    case fb::OperationKind::EltwiseOp: return build_eltwise(b, op->op_as_EltwiseOp());
    case fb::OperationKind::BinaryOp: return build_binary(b, op->op_as_BinaryOp());
    case fb::OperationKind::Reorder: return build_reorder(b, op->op_as_Reorder());
    case fb::OperationKind::Pad: return build_pad(b, op->op_as_Pad());
    case fb::OperationKind::DynamicQuantize: return build_dynamic_quantize(b, op->op_as_DynamicQuantize());
    case fb::OperationKind::Pointwise: return build_pointwise(b, op->op_as_Pointwise());
    case fb::OperationKind::NONE: break;
  }
  return b.refuse("unknown operation kind");
}

}  // namespace kiln::backends::onednn
