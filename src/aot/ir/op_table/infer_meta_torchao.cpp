// Meta rules of the torchao namespace: the affine quantization primitives
// that torchao's quantize_ configs leave in an exported graph
// (torchao/quantization/quant_primitives.py). A block_size gives, per dim, how
// many elements share one scale and zero point: 1 keeps the dim (one
// parameter per index), the dim's size reduces it whole, anything else must
// divide the size into groups. The parameters are one per block, in
// row-major order of the blocks; checked here where they are static.
#include <string>
#include <vector>

#include "aot/ir/op_table/infer_meta_rules.h"
#include "aot/ir/quantization.h"

namespace kiln::aot::meta {
namespace {

// How one dim of the input splits into blocks.
struct BlockDim {
  SymExpr blocks;     // the number of blocks along the dim
  bool kept = false;  // block size 1: the dim stays in choose_qparams_affine's result
  bool whole = false; // block size = the dim's size: the dim is reduced away
};

std::vector<BlockDim> block_dims(const Call& c, size_t input_arg, size_t block_arg) {
  const TensorMeta& input = c.tensor(input_arg);
  const std::vector<SymExpr> block = c.sym_list(block_arg);
  if (block.size() != input.rank()) {
    c.fail(c.arg_name(block_arg) + " has " + std::to_string(block.size()) + " entries but the input has " +
           std::to_string(input.rank()) + " dims");
  }
  std::vector<BlockDim> dims;
  for (size_t d = 0; d < block.size(); ++d) {
    const SymExpr& size = input.sizes[d];
    const std::string where = "block_size[" + std::to_string(d) + "] = " + block[d].to_string();
    if (block[d].is_constant() && *block[d].constant_value() < 1) c.fail(where + " must be at least 1");
    if (block[d] == SymExpr::constant(1)) {
      dims.push_back({size, true, false});
    } else if (block[d] == size) {
      dims.push_back({SymExpr::constant(1), false, true});
    } else if (block[d].is_constant() && size.is_constant()) {
      const int64_t b = *block[d].constant_value(), n = *size.constant_value();
      if (n % b != 0) c.fail(where + " does not divide dim " + std::to_string(d) + " of size " + std::to_string(n));
      dims.push_back({SymExpr::constant(n / b), false, false});
    } else {
      c.fail(where + " on dim " + std::to_string(d) + " of size " + size.to_string() +
             ": a dynamic dim takes a block of 1 or of its whole size");
    }
  }
  return dims;
}

SymExpr block_count(const std::vector<BlockDim>& dims) {
  SymExpr count = SymExpr::constant(1);
  for (const BlockDim& d : dims) count = count * d.blocks;
  return count;
}

SymExpr numel(const TensorMeta& t) {
  SymExpr count = SymExpr::constant(1);
  for (const SymExpr& size : t.sizes) count = count * size;
  return count;
}

// A scale or zero point tensor holds one element per block (any shape: torchao
// views it); a zero point may also be empty (none) where `empty_ok`.
void check_params(const Call& c, size_t arg, const std::vector<BlockDim>& dims, bool empty_ok) {
  const TensorMeta* t = c.optional_tensor(arg);
  if (t == nullptr) return;
  const SymExpr have = numel(*t), want = block_count(dims);
  if (!have.is_constant() || !want.is_constant() || have == want) return;
  if (empty_ok && have == SymExpr::constant(0)) return;
  c.fail(c.arg_name(arg) + " has " + have.to_string() + " elements but the input has " + want.to_string() +
         " blocks");
}

// torchao's integer dtypes (_DTYPE_TO_QVALUE_BOUNDS, less the sub-byte ones Kiln has no dtype for).
ScalarType torchao_dtype(const Call& c, size_t i) {
  const std::optional<ScalarType> dtype = c.dtype(i);
  if (!dtype) c.fail(c.arg_name(i) + " must be a dtype, got None");
  if (!quant_range_of(*dtype) || *dtype == ScalarType::UInt16) {
    c.fail(c.arg_name(i) + " " + dtype_name(*dtype) + " is not one of torchao's quantized dtypes (uint8, int8, int16 or int32)");
  }
  return *dtype;
}

// quant_min/quant_max (Scalar?, None: the dtype's bounds) at `min_arg`, min_arg + 1.
void check_bounds(const Call& c, size_t min_arg, ScalarType dtype) {
  const auto [lowest, highest] = *quant_range_of(dtype);
  for (size_t i : {min_arg, min_arg + 1}) {
    if (!c.is_none(i) && !c.arg(i).is_int()) c.fail(c.arg_name(i) + " must be an int or None, got " + to_string(c.arg(i)));
  }
  const int64_t quant_min = c.is_none(min_arg) ? lowest : c.integer(min_arg);
  const int64_t quant_max = c.is_none(min_arg + 1) ? highest : c.integer(min_arg + 1);
  if (const std::string why = check_quant_range(quant_min, quant_max, dtype); !why.empty()) c.fail(why);
}

// quantize_affine(input, block_size, scale, zero_point?, output_dtype, quant_min=None, quant_max=None)
ValueMeta quantize_affine(const Call& c) {
  check_float_input(c, 0);
  const std::vector<BlockDim> dims = block_dims(c, 0, 1);
  const ScalarType dtype = torchao_dtype(c, 4);
  check_bounds(c, 5, dtype);
  check_params(c, 2, dims, false);
  check_params(c, 3, dims, true);
  return TensorMeta(dtype, c.tensor(0).sizes);
}

// dequantize_affine(input, block_size, scale, zero_point?, input_dtype, quant_min=None, quant_max=None,
// output_dtype=float32)
ValueMeta dequantize_affine(const Call& c) {
  const ScalarType dtype = torchao_dtype(c, 4);
  if (c.tensor(0).dtype != dtype) {
    c.fail("argument 'input' is " + dtype_name(c.tensor(0).dtype) + " but argument 'input_dtype' says " +
           dtype_name(dtype));
  }
  const std::vector<BlockDim> dims = block_dims(c, 0, 1);
  check_bounds(c, 5, dtype);
  check_params(c, 2, dims, false);
  check_params(c, 3, dims, false);
  const ScalarType out = c.dtype(7).value_or(ScalarType::Float);
  if (!is_float_input(out)) c.fail("argument 'output_dtype' must be float32, float16 or bfloat16, got " + dtype_name(out));
  return TensorMeta(out, c.tensor(0).sizes);
}

// choose_qparams_affine(input, mapping_type, block_size, target_dtype, quant_min=None, quant_max=None,
// eps=None, scale_dtype=None, zero_point_dtype=None, keepdim=False) -> (scale, zero_point): one per block,
// the kept dims (block size 1) and the split ones without keepdim, every dim's block count with it.
ValueMeta choose_qparams_affine(const Call& c) {
  if (c.is_none(0)) c.fail("argument 'input' must be a tensor, got None");
  const TensorMeta& input = c.tensor(0);
  if (!is_float_input(input.dtype) && input.dtype != ScalarType::Double) {
    c.fail("argument 'input' must be a floating tensor, got " + input.to_string());
  }
  const std::optional<std::string> mapping = c.optional_string(1);
  const bool asymmetric = mapping == "ASYMMETRIC";
  if (!asymmetric && mapping != "SYMMETRIC" && mapping != "SYMMETRIC_NO_CLIPPING_ERR") {
    c.fail("argument 'mapping_type' must be SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR or ASYMMETRIC, got " +
           to_string(c.arg(1)));
  }
  const std::vector<BlockDim> dims = block_dims(c, 0, 2);
  check_bounds(c, 4, torchao_dtype(c, 3));
  if (!c.is_none(6) && !(c.number(6) > 0)) c.fail("argument 'eps' must be positive, got " + to_string(c.arg(6)));
  const bool keepdim = c.boolean(9);
  std::vector<SymExpr> sizes;
  for (const BlockDim& d : dims) {
    if (keepdim || d.kept || !d.whole) sizes.push_back(d.blocks);
  }
  const ScalarType scale_dtype = c.dtype(7).value_or(input.dtype);
  const ScalarType zero_point_dtype = c.dtype(8).value_or(asymmetric ? ScalarType::Int : input.dtype);
  return std::vector<TensorMeta>{TensorMeta(scale_dtype, sizes), TensorMeta(zero_point_dtype, sizes)};
}

}  // namespace

void add_torchao_rules(RuleTable& t) {
  t["torchao::quantize_affine.default"] = quantize_affine;
  t["torchao::dequantize_affine.default"] = dequantize_affine;
  t["torchao::choose_qparams_affine.default"] = choose_qparams_affine;
}

}  // namespace kiln::aot::meta
