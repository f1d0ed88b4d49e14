// The GraphBuilder's quantization: scale and zero point memories, the
// reorders that (de)quantize, dynamic quantization's parameters.
#include "backends/onednn/runtime/graph_builder.h"

#include <cstring>
#include <utility>

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::Result;

namespace {

template <typename T>
uint32_t bits_of(T value) {
  static_assert(sizeof(T) == sizeof(uint32_t));
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// `md` again with data type `type`, when it is a strided layout without
// blocks or run-time sizes (nothing otherwise).
bool retyped(const_dnnl_memory_desc_t md, dnnl_data_type_t type, MemoryDesc* out) {
  dnnl_format_kind_t kind = dnnl_format_kind_undef;
  int ndims = 0, blocks = 0;
  const dnnl_dims_t* dims = nullptr;
  const dnnl_dims_t* strides = nullptr;
  if (dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind) != dnnl_success || kind != dnnl_blocked ||
      dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &blocks) != dnnl_success || blocks != 0 ||
      dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims) != dnnl_success ||
      dnnl_memory_desc_query(md, dnnl_query_dims, &dims) != dnnl_success ||
      dnnl_memory_desc_query(md, dnnl_query_strides, &strides) != dnnl_success) {
    return false;
  }
  for (int d = 0; d < ndims; ++d) {
    if ((*dims)[d] == DNNL_RUNTIME_DIM_VAL || (*strides)[d] == DNNL_RUNTIME_DIM_VAL) return false;
  }
  return dnnl_memory_desc_create_with_strides(out->out(), ndims, *dims, type, *strides) == dnnl_success;
}

}  // namespace

Result<uint32_t> GraphBuilder::scalar_memory(float value) {
  const int64_t one = 1;
  MemoryDesc desc;
  KILN_TRY(plain_desc(&one, 1, &desc, dnnl_f32));
  KILN_ASSIGN_OR_RETURN(const uint32_t m, new_buffer(desc.get(), /*persistent=*/true));
  InitValue* init = compiled_->init_values.push();
  if (init == nullptr) return no_room("a quantization parameter");
  *init = InitValue{m, bits_of(value)};
  return m;
}

Result<uint32_t> GraphBuilder::scalar_memory(int32_t value) {
  const int64_t one = 1;
  MemoryDesc desc;
  KILN_TRY(plain_desc(&one, 1, &desc, dnnl_s32));
  KILN_ASSIGN_OR_RETURN(const uint32_t m, new_buffer(desc.get(), /*persistent=*/true));
  InitValue* init = compiled_->init_values.push();
  if (init == nullptr) return no_room("a quantization parameter");
  *init = InitValue{m, bits_of(value)};
  return m;
}

// A static value's are made once, on first use, and kept with the value.
Result<uint32_t> GraphBuilder::scale_memory_of(int32_t v) {
  if (values_[v].scale_memory >= 0) return static_cast<uint32_t>(values_[v].scale_memory);
  if (value(v)->dynamic()) return refuse("dynamic value %d is read before its quantization", v);
  KILN_ASSIGN_OR_RETURN(const uint32_t m, scalar_memory(value(v)->scale()));
  values_[v].scale_memory = static_cast<int32_t>(m);
  return m;
}

Result<uint32_t> GraphBuilder::zero_point_memory_of(int32_t v) {
  if (values_[v].zero_point_memory >= 0) return static_cast<uint32_t>(values_[v].zero_point_memory);
  if (value(v)->dynamic()) return refuse("dynamic value %d is read before its quantization", v);
  KILN_ASSIGN_OR_RETURN(const uint32_t m, scalar_memory(static_cast<int32_t>(value(v)->zero_point())));
  values_[v].zero_point_memory = static_cast<int32_t>(m);
  return m;
}

bool exact_int8_dot_products(dnnl_cpu_isa_t isa) {
  const auto has = [isa](dnnl_cpu_isa_t feature) { return (isa & feature) == feature; };
  return has(dnnl_cpu_isa_avx2_vnni) || has(dnnl_cpu_isa_avx512_core_vnni);
}

// Whether quantizing `from` into `to` is a plain float32 image of at most
// ChannelsLastQuantize::kMaxChannels channels into channels-last bytes by a
// static scale: Kiln's kernel does that in one pass (the image's shape in
// `image`).
bool GraphBuilder::image_to_channels_last(uint32_t from, uint32_t to, int32_t quantized_value,
                                          ChannelsLastQuantize* image) {
  const fb::Value* q = value(quantized_value);
  if (q->dynamic() || rank_of(q) != 4) return false;
  const int64_t* sizes = dims_of(q);
  MemoryDesc plain_floats, channels_last;
  if (plain_desc(sizes, 4, &plain_floats, dnnl_f32) != Error::Ok ||
      check(dnnl_memory_desc_create_with_tag(channels_last.out(), 4, sizes, data_type_of(q), dnnl_acdb),
            "dnnl_memory_desc_create_with_tag") != Error::Ok) {
    return false;
  }
  if (!dnnl_memory_desc_equal(plain_floats.get(), desc(from)) || !dnnl_memory_desc_equal(channels_last.get(), desc(to))) {
    return false;
  }
  image->batch = sizes[0];
  image->channels = sizes[1];
  image->pixels = sizes[2] * sizes[3];
  image->inverse_scale = static_cast<float>(1.0 / static_cast<double>(q->scale()));
  image->zero_point = static_cast<int32_t>(q->zero_point());
  image->to_signed = q->dtype() == fb::DataType::Int8;
  return channels_last_quantize_takes(*image);
}

// q = saturate(round_half_even(x * (1 / scale)) + zero_point): oneDNN's
// source scale is PyTorch's inverse scale, so that the product is the one
// PyTorch rounds; x = scale * (q - zero_point) the other way.
//
// When the two layouts differ (a program's NCHW image quantized into the
// channels-last int8 a convolution reads), oneDNN's reorder that converts
// and permutes at once runs at half the speed of the two apart (0.108 ms
// against 0.019 + 0.034 for a 3x224x224 image, 0.141 against 0.026 +
// 0.045 at 16x112x112): so the (de)quantization runs in the float32
// side's layout and a byte reorder permutes the int8 side.
Error GraphBuilder::add_quantization(uint32_t from, uint32_t to, int32_t quantized_value, bool quantize) {
  if (quantize) {
    ChannelsLastQuantize image;
    if (image_to_channels_last(from, to, quantized_value, &image)) {
      StepArg args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
      Step* step = nullptr;
      KILN_TRY(add_kernel_step(args, 2, 0, &step));
      step->quantize_image = Step::QuantizeImage{static_cast<int32_t>(from), static_cast<int32_t>(to), image};
      return Error::Ok;
    }
  }
  const_dnnl_memory_desc_t float_side = quantize ? desc(from) : desc(to);
  const_dnnl_memory_desc_t int8_side = quantize ? desc(to) : desc(from);
  dnnl_data_type_t int8_type = dnnl_data_type_undef;
  KILN_TRY(check(dnnl_memory_desc_query(int8_side, dnnl_query_data_type, &int8_type), "dnnl_memory_desc_query"));
  MemoryDesc between, int8_as_is;
  if (retyped(float_side, int8_type, &between) && retyped(int8_side, int8_type, &int8_as_is) &&
      dnnl_memory_desc_equal(between.get(), int8_as_is.get()) == 0) {
    KILN_ASSIGN_OR_RETURN(const uint32_t middle, temporary_buffer(between.get()));
    if (quantize) {
      KILN_TRY(add_conversion(from, middle, quantized_value, quantize));
      return add_reorder(middle, to);
    }
    KILN_TRY(add_reorder(from, middle));
    return add_conversion(middle, to, quantized_value, quantize);
  }
  return add_conversion(from, to, quantized_value, quantize);
}

Error GraphBuilder::add_conversion(uint32_t from, uint32_t to, int32_t quantized_value, bool quantize) {
  const fb::Value* q = value(quantized_value);
  uint32_t scale = 0;
  if (quantize) {
    if (q->dynamic()) return refuse("a reorder into a dynamic value (a DynamicQuantize writes those)");
    KILN_ASSIGN_OR_RETURN(scale, scalar_memory(static_cast<float>(1.0 / static_cast<double>(q->scale()))));
  } else {
    KILN_ASSIGN_OR_RETURN(scale, scale_memory_of(quantized_value));
  }
  const bool zero_point = q->zero_point() != 0 || q->dynamic();
  return add_scaled_reorder(from, to, scale, !quantize && zero_point ? quantized_value : -1,
                            quantize && zero_point ? quantized_value : -1);
}

Error GraphBuilder::add_requantization(uint32_t from, uint32_t to, int32_t from_value, int32_t to_value, float factor) {
  KILN_ASSIGN_OR_RETURN(const uint32_t scale, scalar_memory(factor));
  return add_scaled_reorder(from, to, scale, value(from_value)->zero_point() != 0 ? from_value : -1,
                            value(to_value)->zero_point() != 0 ? to_value : -1);
}

// dst = src_scale * (src - src zero point) + dst zero point, each zero point
// a value's (-1: none), as oneDNN's reorder computes it.
Error GraphBuilder::add_scaled_reorder(uint32_t from, uint32_t to, uint32_t scale, int32_t src_zero_point,
                                       int32_t dst_zero_point) {
  Attr attr;
  KILN_TRY(check(dnnl_primitive_attr_create(attr.out()), "dnnl_primitive_attr_create"));
  KILN_TRY(check(dnnl_primitive_attr_set_scales_mask(attr.get(), DNNL_ARG_SRC, 0), "dnnl_primitive_attr_set_scales_mask"));
  StepArg args[5] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, scale}};
  uint32_t num_args = 3;
  for (const auto& [value_index, arg] : {std::pair{src_zero_point, DNNL_ARG_SRC}, std::pair{dst_zero_point, DNNL_ARG_DST}}) {
    if (value_index < 0) continue;
    KILN_TRY(check(dnnl_primitive_attr_set_zero_points_mask(attr.get(), arg, 0),
                   "dnnl_primitive_attr_set_zero_points_mask"));
    KILN_ASSIGN_OR_RETURN(const uint32_t m, zero_point_memory_of(value_index));
    args[num_args++] = StepArg{DNNL_ARG_ATTR_ZERO_POINTS | arg, m};
  }
  PrimitiveDesc pd;
  KILN_TRY(check(dnnl_reorder_primitive_desc_create(pd.out(), desc(from), engine(), desc(to), engine(), attr.get()),
                 "dnnl_reorder_primitive_desc_create(scaled)"));
  return add_step(&pd, args, num_args);
}

Error GraphBuilder::describe_quantized_result(int32_t v) {
  if (!is_quantized(value(v)) || compiled_->steps.size == 0) return Error::Ok;
  KILN_ASSIGN_OR_RETURN(const uint32_t scale, scale_memory_of(v));
  KILN_ASSIGN_OR_RETURN(const uint32_t zero_point, zero_point_memory_of(v));
  Step& step = compiled_->steps[compiled_->steps.size - 1];
  step.dst_scale_memory = static_cast<int32_t>(scale);
  step.dst_zero_point_memory = static_cast<int32_t>(zero_point);
  return Error::Ok;
}

void GraphBuilder::set_dynamic_qparams(int32_t v, uint32_t scale, uint32_t zero_point) {
  values_[v].scale_memory = static_cast<int32_t>(scale);
  values_[v].zero_point_memory = static_cast<int32_t>(zero_point);
}

Error GraphBuilder::add_choose_qparams(uint32_t source, const fb::DynamicQuantize* params, uint32_t scale,
                                       uint32_t inverse_scale, uint32_t zero_point) {
  PrimitiveDesc none;
  const StepArg args[] = {{DNNL_ARG_SRC, source}, {DNNL_ARG_DST, scale}, {DNNL_ARG_DST_1, inverse_scale},
                          {DNNL_ARG_DST_2, zero_point}};
  KILN_TRY(add_step(&none, args, 4));
  Step& step = compiled_->steps[compiled_->steps.size - 1];
  step.choose_qparams =
      Step::ChooseQParams{static_cast<int32_t>(source), params->quant_min(), params->quant_max(), params->eps()};
  return Error::Ok;
}

}  // namespace kiln::backends::onednn
