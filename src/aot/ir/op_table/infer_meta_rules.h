// Internal to the infer_meta*.cpp files: the view of one call that a meta
// rule reads, the dtype and broadcasting helpers the rule families share, and
// the functions that fill the rule table, one per family.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aot/ir/node.h"
#include "aot/ir/op_table/op_schema.h"
#include "runtime/core/result_type.h"

namespace kiln::aot::meta {

/// One call_function node with its arguments bound to its op's schema.
class Call {
 public:
  Call(const Node& node, const OpSchema& schema, std::vector<Argument> args)
      : node_(node), schema_(schema), args_(std::move(args)) {}

  const Node& node() const { return node_; }
  const Argument& arg(size_t i) const { return args_.at(i); }
  size_t num_args() const { return args_.size(); }
  /// "argument 'dim'": the schema's name for argument `i`, for messages.
  std::string arg_name(size_t i) const;
  [[noreturn]] void fail(const std::string& why) const;

  bool is_none(size_t i) const { return arg(i).is_none(); }
  const TensorMeta& tensor(size_t i) const;
  /// The tensor, or nullptr for None.
  const TensorMeta* optional_tensor(size_t i) const;
  std::vector<const TensorMeta*> tensor_list(size_t i) const;
  int64_t integer(size_t i) const;
  bool boolean(size_t i) const;
  /// An int, float or bool argument as a double.
  double number(size_t i) const;
  /// A ScalarType argument, or nullopt for None.
  std::optional<ScalarType> dtype(size_t i) const;
  std::optional<std::string> optional_string(size_t i) const;

  /// An int or a SymInt node as an expression.
  SymExpr sym(const Argument& arg) const;
  SymExpr sym_arg(size_t i) const { return sym(arg(i)); }
  /// An int list (a single int counts as a list of one).
  std::vector<SymExpr> sym_list(size_t i) const;
  /// sym_list, every entry a constant.
  std::vector<int64_t> int_list(size_t i) const;
  /// An int[] argument of `n` entries; a single entry applies to all (int[2] padding=1).
  std::vector<int64_t> int_list_of(size_t i, size_t n) const;

  /// `d` wrapped into [0, rank) (rank 0 allows -1 and 0); throws naming `what`.
  size_t dim(int64_t d, size_t rank, const std::string& what = "dim") const;
  /// The dims of a dim list, each wrapped, checked for duplicates.
  std::vector<size_t> dims(const std::vector<int64_t>& dims, size_t rank) const;

 private:
  const Node& node_;
  const OpSchema& schema_;
  std::vector<Argument> args_;
};

using Rule = std::function<ValueMeta(const Call&)>;
using RuleTable = std::map<std::string, Rule>;

/// PyTorch's result_type over a call's operands (runtime::ResultTypeState,
/// the rule the kernels follow too): tensors with dimensions decide the dtype;
/// a 0-dim tensor or a Python number only raises its category, a number then
/// taking the default dtype of its kind (int64, float32, complex64).
class ResultType {
 public:
  explicit ResultType(const Call& call) : call_(call) {}
  void add_tensor(const TensorMeta& tensor);
  /// A Python number: an int, float or bool argument or a SymInt node.
  void add_number(const Argument& number);
  /// A tensor or a number, whichever `arg` is.
  void add(const Argument& arg);
  /// The promoted dtype (float32 when nothing was added); fails the call
  /// when the operands have none.
  ScalarType result() const;

 private:
  const Call& call_;
  runtime::ResultTypeState state_;
  bool empty_ = true;
};

/// An integer or bool dtype.
inline bool is_integral(ScalarType type) { return runtime::is_integral_type(type, /*include_bool=*/true); }
/// The float dtypes the quantization ops take: float32, float16, bfloat16.
inline bool is_float_input(ScalarType type) {
  return type == ScalarType::Float || type == ScalarType::Half || type == ScalarType::BFloat16;
}
/// Fails the call unless tensor argument `i` has one of is_float_input's dtypes.
void check_float_input(const Call& call, size_t i);

/// True for a Python number argument (int, float, bool or SymInt node).
bool is_number(const Argument& arg);
/// The broadcast of `shapes` (NumPy's rules; a symbol meets 1 or itself).
std::vector<SymExpr> broadcast_shapes(const Call& call, const std::vector<std::vector<SymExpr>>& shapes);
/// The sizes of `arg`: a tensor's, or none for a number.
std::vector<SymExpr> shape_of(const Call& call, const Argument& arg);
/// `meta`'s sizes with the dims in `reduced` dropped, or set to 1 with keepdim.
std::vector<SymExpr> reduce_sizes(const std::vector<SymExpr>& sizes, const std::vector<size_t>& reduced, bool keepdim);
/// The dims a dim-list argument names: every dim for None, and also for an
/// empty list if `empty_means_all` (sum, mean, amax do; any.dims does not).
std::vector<size_t> reduction_dims(const Call& call, size_t arg, size_t rank, bool empty_means_all);

void add_elementwise_rules(RuleTable& table);
void add_reduction_rules(RuleTable& table);
void add_shape_rules(RuleTable& table);
void add_nn_rules(RuleTable& table);
void add_factory_rules(RuleTable& table);
void add_quantized_rules(RuleTable& table);
/// Kiln's own ops (kiln_ops.def).
void add_kiln_rules(RuleTable& table);
/// torchao's affine quantization primitives (quantize_affine, dequantize_affine, choose_qparams_affine).
void add_torchao_rules(RuleTable& table);
/// After add_elementwise_rules: it extends abs to complex tensors.
void add_complex_rules(RuleTable& table);

}  // namespace kiln::aot::meta
