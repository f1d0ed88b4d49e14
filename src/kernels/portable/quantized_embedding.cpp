// quantized_decomposed's embedding_byte, embedding_2bit and embedding_4bit
// (.out and .dtype_out): the rows of a quantized table that `indices` pick,
// dequantized as ExecuTorch's Python definitions of the ops do
// (exir/passes/_quant_patterns_and_replacements.py, through torch.ao's
// dequantize_per_channel_group). A row has one scale (1-D scales) or one per
// group of columns (2-D scales), and optionally as many zero points of the
// scales' dtype; each value is (q - zero_point) * scale computed in the
// scales' dtype (Float, Half or BFloat16, each step rounded to it), then cast
// to the output's dtype: the scales' for .out, `dtype` for .dtype_out.
// 2-bit and 4-bit tables (Byte) pack 4 or 2 values in each byte: 2-bit from
// the low bits up, each value less 2; 4-bit the high nibble first, less 8.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/indexing.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/quantize.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;
using util::QuantRange;

struct Table {
  Tensor weight, scales, indices;
  std::optional<Tensor> zero_points;
  QuantRange range;
  int bits = 8;
  int64_t columns = 0;  // values in a row (weight's columns times the values a byte packs)
  int64_t groups = 1;   // scales per row
};

// Values are decoded in runs of at most this many, into a buffer on the stack.
constexpr int64_t kRun = 256;

// Values [begin, begin + n) of a row, as integers.
template <typename W>
void unpack_bytes(const W* row, int64_t begin, int64_t n, int16_t* q) {
  for (int64_t j = 0; j < n; ++j) q[j] = row[begin + j];
}

void unpack_2bit(const uint8_t* row, int64_t begin, int64_t n, int16_t* q) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t k = begin + j;
    q[j] = static_cast<int16_t>(((row[k / 4] >> (2 * (k % 4))) & 3) - 2);
  }
}

void unpack_4bit(const uint8_t* row, int64_t begin, int64_t n, int16_t* q) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t k = begin + j;
    q[j] = static_cast<int16_t>(((k % 2 == 0 ? row[k / 2] >> 4 : row[k / 2]) & 15) - 8);
  }
}

void unpack(const Table& t, int64_t row, int64_t begin, int64_t n, int16_t* q) {
  const int64_t stride = t.weight.sizes()[1];
  if (t.weight.scalar_type() == ScalarType::Char) {
    unpack_bytes(t.weight.const_data_ptr<int8_t>() + row * stride, begin, n, q);
    return;
  }
  const uint8_t* bytes = t.weight.const_data_ptr<uint8_t>() + row * stride;
  switch (t.bits) {
    case 2: unpack_2bit(bytes, begin, n, q); break;
    case 4: unpack_4bit(bytes, begin, n, q); break;
    default: unpack_bytes(bytes, begin, n, q); break;
  }
}

// torch's steps on S tensors: (q - zero_point) rounded to S, times the scale
// rounded to S; without zero points, q times the scale.
template <typename S, typename Out>
void dequantize_run(const int16_t* q, int64_t n, S scale, const S* zero_point, Out* out) {
  const auto s = static_cast<float>(scale);
  if (zero_point == nullptr) {
    for (int64_t j = 0; j < n; ++j) out[j] = util::convert<Out>(util::store_as<S>(static_cast<float>(q[j]) * s));
    return;
  }
  const auto z = static_cast<float>(*zero_point);
  for (int64_t j = 0; j < n; ++j) {
    const auto shifted = static_cast<float>(util::store_as<S>(static_cast<float>(q[j]) - z));
    out[j] = util::convert<Out>(util::store_as<S>(shifted * s));
  }
}

template <typename S, typename Out>
void write_rows(const Table& t, const Tensor& out) {
  const S* scales = t.scales.const_data_ptr<S>();
  const S* zero_points = t.zero_points ? t.zero_points->const_data_ptr<S>() : nullptr;
  const int64_t group_size = t.columns / t.groups;
  Out* o = out.mutable_data_ptr<Out>();
  int16_t q[kRun];
  util::visit_index(t.indices.scalar_type(), [&](auto tag) {
    const auto* indices = t.indices.const_data_ptr<typename decltype(tag)::type>();
    for (int64_t i = 0; i < t.indices.numel(); ++i, o += t.columns) {
      const int64_t row = indices[i];
      for (int64_t g = 0; g < t.groups; ++g) {
        const int64_t param = row * t.groups + g;
        for (int64_t begin = g * group_size; begin < (g + 1) * group_size; begin += kRun) {
          const int64_t n = std::min(kRun, (g + 1) * group_size - begin);
          unpack(t, row, begin, n, q);
          dequantize_run(q, n, scales[param], zero_points != nullptr ? &zero_points[param] : nullptr, o + begin);
        }
      }
    }
  });
}

// ---- checks ----

bool check_weight(KernelArgs& a, const Table& t) {
  const ScalarType w = t.weight.scalar_type();
  if (w != ScalarType::Byte && (t.bits != 8 || w != ScalarType::Char)) {
    a.fail(Error::InvalidArgument, "'weight' has dtype %s; it must be %s", runtime::to_string(w),
           t.bits == 8 ? "Byte or Char" : "Byte (packed values)");
    return false;
  }
  if (t.weight.dim() != 2) {
    a.fail(Error::InvalidArgument, "'weight' has %zd dims; it must be 2-D", t.weight.dim());
    return false;
  }
  return a.check_contiguous(t.weight, "weight");
}

// 2-bit and 4-bit values span [-2, 1] and [-8, 7]: the reference takes no
// other range.
bool check_range(KernelArgs& a, const Table& t) {
  if (t.bits == 8) return util::check_quant_range(a, t.range, "weight_quant_min", "weight_quant_max");
  const int64_t min = t.bits == 2 ? -2 : -8, max = t.bits == 2 ? 1 : 7;
  if (t.range.min == min && t.range.max == max) return true;
  a.fail(Error::InvalidArgument, "[weight_quant_min, weight_quant_max] is [%lld, %lld]; %d-bit values need [%lld, %lld]",
         static_cast<long long>(t.range.min), static_cast<long long>(t.range.max), t.bits,
         static_cast<long long>(min), static_cast<long long>(max));
  return false;
}

bool check_scales(KernelArgs& a, const Table& t) {
  const Tensor& s = t.scales;
  if (s.scalar_type() != ScalarType::Float && !util::is_half(s.scalar_type())) {
    a.fail(Error::InvalidArgument, "'weight_scales' has dtype %s; it must be Float, Half or BFloat16",
           runtime::to_string(s.scalar_type()));
    return false;
  }
  if ((s.dim() != 1 && s.dim() != 2) || s.sizes()[0] != t.weight.sizes()[0]) {
    a.fail(Error::InvalidArgument, "'weight_scales' must be 1-D or 2-D with one row per row of 'weight' (%d)",
           t.weight.sizes()[0]);
    return false;
  }
  if (t.groups == 0 || t.columns % t.groups != 0) {
    a.fail(Error::InvalidArgument, "'weight_scales' has %lld groups per row, which do not divide the %lld values of a row",
           static_cast<long long>(t.groups), static_cast<long long>(t.columns));
    return false;
  }
  if (!a.check_contiguous(s, "weight_scales")) return false;
  if (!t.zero_points) return true;
  const Tensor& z = *t.zero_points;
  if (!a.check_dtype(z, "weight_zero_points", s.scalar_type())) return false;
  bool same_shape = z.dim() == s.dim();
  for (size_t d = 0; same_shape && d < static_cast<size_t>(s.dim()); ++d) same_shape = z.sizes()[d] == s.sizes()[d];
  if (!same_shape) {
    a.fail(Error::InvalidArgument, "'weight_zero_points' must have the shape of 'weight_scales'");
    return false;
  }
  return a.check_contiguous(z, "weight_zero_points");
}

bool check_indices(KernelArgs& a, const Table& t) {
  if (static_cast<size_t>(t.indices.dim()) >= util::kMaxDims) {
    a.fail(Error::NotSupported, "'indices' has %zd dims; the output would have more than %zu", t.indices.dim(),
           util::kMaxDims);
    return false;
  }
  return util::check_index_dtype(a, t.indices, "indices") && a.check_contiguous(t.indices, "indices") &&
         util::check_indices(a, t.indices, "indices", -1, {t.weight.sizes()[0], 0, false});
}

bool resize(KernelArgs& a, const Table& t, const Tensor& out) {
  SizesType sizes[util::kMaxDims];
  const auto rank = static_cast<size_t>(t.indices.dim());
  for (size_t d = 0; d < rank; ++d) sizes[d] = t.indices.sizes()[d];
  sizes[rank] = static_cast<SizesType>(t.columns);
  return a.check_contiguous(out, "out") && a.resize_out(out, "out", {sizes, rank + 1});
}

// The op's arguments in schema order; `dtype` at 6 for .dtype_out.
bool read_table(KernelArgs& a, Table* t) {
  if (!a.tensor(0, "weight", &t->weight) || !a.tensor(1, "weight_scales", &t->scales) ||
      !a.optional_tensor(2, "weight_zero_points", &t->zero_points) ||
      !a.integer(3, "weight_quant_min", &t->range.min) || !a.integer(4, "weight_quant_max", &t->range.max) ||
      !a.tensor(5, "indices", &t->indices) || !check_weight(a, *t)) {
    return false;
  }
  t->range.dtype = t->weight.scalar_type();
  t->columns = static_cast<int64_t>(t->weight.sizes()[1]) * (8 / t->bits);
  t->groups = t->scales.dim() == 2 ? t->scales.sizes()[1] : 1;
  return check_range(a, *t) && check_scales(a, *t) && check_indices(a, *t);
}

void embedding(KernelRuntimeContext& ctx, Span<EValue*> args, const char* op, int bits, bool has_dtype) {
  KernelArgs a(ctx, op, args);
  Table t;
  t.bits = bits;
  Tensor out;
  if (!a.check_count(has_dtype ? 8 : 7) || !read_table(a, &t) || !a.tensor(has_dtype ? 7 : 6, "out", &out)) return;
  ScalarType out_dtype = t.scales.scalar_type();
  if (has_dtype) {
    std::optional<ScalarType> dtype;
    if (!util::optional_scalar_type_arg(a, args, 6, "dtype", &dtype)) return;
    out_dtype = dtype.value_or(out.scalar_type());  // None: out's dtype, as ExecuTorch's kernel takes it
    if (!util::check_float_dtype(a, "dtype", out_dtype)) return;
  }
  if (!a.check_dtype(out, "out", out_dtype) || !resize(a, t, out)) return;
  util::visit_floating_or_half(t.scales.scalar_type(), [&](auto s_tag) {
    util::visit_floating_or_half(out_dtype, [&](auto out_tag) {
      using S = typename decltype(s_tag)::type;
      if constexpr (!std::is_same_v<S, double>) write_rows<S, typename decltype(out_tag)::type>(t, out);
    });
  });
}

}  // namespace

void quantized_embedding_byte_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_byte.out", 8, false);
}

void quantized_embedding_byte_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_byte.dtype_out", 8, true);
}

void quantized_embedding_2bit_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_2bit.out", 2, false);
}

void quantized_embedding_2bit_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_2bit.dtype_out", 2, true);
}

void quantized_embedding_4bit_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_4bit.out", 4, false);
}

void quantized_embedding_4bit_dtype_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  embedding(ctx, args, "quantized_decomposed::embedding_4bit.dtype_out", 4, true);
}

}  // namespace kiln::kernels::portable
