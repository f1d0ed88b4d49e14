#include "aot/ir/infer_meta.h"

#include <functional>
#include <map>

#include "aot/ir/error.h"
#include "aot/ir/op_schema.h"
#include "aot/ir/schema_binding.h"

namespace kiln::aot {

namespace {

struct Call {
  Node& node;
  std::vector<Argument> args;  // bound to the schema, defaults filled

  [[noreturn]] void fail(const std::string& why) const {
    throw AotError("node '" + node.name() + "' (" + node.target() + "): " + why);
  }
  const TensorMeta& tensor(size_t i) const {
    if (!args.at(i).is_node()) fail("argument " + std::to_string(i) + " is not a tensor");
    return args[i].node()->meta.tensor();
  }
  bool is_none(size_t i) const { return args.at(i).is_none(); }
  int64_t integer(size_t i) const {
    if (!args.at(i).is_int()) fail("argument " + std::to_string(i) + " is not an int");
    return args[i].to_int();
  }
  SymExpr sym(const Argument& arg) const {
    if (arg.is_int()) return SymExpr::constant(arg.to_int());
    if (arg.is_node()) {
      if (const auto* expr = std::get_if<SymExpr>(&arg.node()->meta.val)) return *expr;
    }
    fail("expected an int or a SymInt, got " + to_string(arg));
  }
  std::vector<SymExpr> sym_list(size_t i) const {
    std::vector<SymExpr> values;
    if (args.at(i).is_int()) return {sym(args[i])};
    if (!args[i].is_list()) fail("argument " + std::to_string(i) + " is not a list");
    for (const Argument& item : args[i].list()) values.push_back(sym(item));
    return values;
  }
  std::vector<int64_t> int_list(size_t i) const {
    std::vector<int64_t> values;
    for (const SymExpr& expr : sym_list(i)) {
      if (!expr.is_constant()) fail("argument " + std::to_string(i) + " must be static");
      values.push_back(*expr.constant_value());
    }
    return values;
  }
  // A dim index, negative counting from the end, checked against `rank`.
  size_t dim(int64_t d, size_t rank) const {
    const auto r = static_cast<int64_t>(rank);
    if (d < -r || d >= (r == 0 ? 1 : r)) fail("dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
    return static_cast<size_t>(d < 0 ? d + r : d);
  }
};

// A list argument of length 1 applies to every spatial dim (PyTorch's int[2]).
std::vector<int64_t> expand_param(const Call& call, size_t i, size_t n) {
  std::vector<int64_t> values = call.int_list(i);
  if (values.size() == 1) values.assign(n, values[0]);
  if (values.size() != n) call.fail("argument " + std::to_string(i) + " must have " + std::to_string(n) + " entries");
  return values;
}

ValueMeta convolution_meta(const Call& call, bool transposed, int64_t groups, size_t stride_arg, size_t padding_arg,
                           size_t dilation_arg, std::optional<size_t> output_padding_arg) {
  const TensorMeta& input = call.tensor(0);
  const TensorMeta& weight = call.tensor(1);
  if (input.rank() < 3 || weight.rank() != input.rank()) {
    call.fail("expects input and weight of equal rank >= 3, got " + input.to_string() + " and " + weight.to_string());
  }
  const size_t spatial = input.rank() - 2;
  const auto stride = expand_param(call, stride_arg, spatial);
  const auto padding = expand_param(call, padding_arg, spatial);
  const auto dilation = expand_param(call, dilation_arg, spatial);
  std::vector<int64_t> output_padding(spatial, 0);
  if (output_padding_arg) output_padding = expand_param(call, *output_padding_arg, spatial);
  if (groups <= 0) call.fail("groups must be positive, got " + std::to_string(groups));
  for (size_t d = 0; d < spatial; ++d) {
    if (stride[d] <= 0) call.fail("stride must be positive, got " + to_string(call.args[stride_arg]));
    if (dilation[d] <= 0) call.fail("dilation must be positive, got " + to_string(call.args[dilation_arg]));
    if (padding[d] < 0) call.fail("padding must not be negative, got " + to_string(call.args[padding_arg]));
  }
  // Channels: input C = weight[1] * groups (weight[0] for a transposed conv).
  const SymExpr& in_channels = input.sizes[1];
  const SymExpr expected_channels = transposed ? weight.sizes[0] : weight.sizes[1] * SymExpr::constant(groups);
  if (in_channels.is_constant() && expected_channels.is_constant() && !(in_channels == expected_channels)) {
    call.fail("input " + input.to_string() + " has " + in_channels.to_string() + " channels, but weight " +
              weight.to_string() + " with groups=" + std::to_string(groups) + " expects " + expected_channels.to_string());
  }
  if (!transposed && weight.sizes[0].is_constant() && *weight.sizes[0].constant_value() % groups != 0) {
    call.fail("weight " + weight.to_string() + " has output channels not divisible by groups=" + std::to_string(groups));
  }
  TensorMeta out(input.dtype, std::vector<SymExpr>{input.sizes[0]});
  out.sizes.push_back(transposed ? weight.sizes[1] * SymExpr::constant(groups) : weight.sizes[0]);
  for (size_t d = 0; d < spatial; ++d) {
    const SymExpr& in = input.sizes[d + 2];
    const SymExpr& k = weight.sizes[d + 2];
    const SymExpr effective_k = SymExpr::constant(dilation[d]) * (k - SymExpr::constant(1)) + SymExpr::constant(1);
    if (transposed) {
      out.sizes.push_back((in - SymExpr::constant(1)) * SymExpr::constant(stride[d]) -
                          SymExpr::constant(2 * padding[d]) + effective_k + SymExpr::constant(output_padding[d]));
    } else {
      out.sizes.push_back(SymExpr::floordiv(in + SymExpr::constant(2 * padding[d]) - effective_k, SymExpr::constant(stride[d])) +
                          SymExpr::constant(1));
    }
    if (const auto size = out.sizes.back().constant_value(); size && *size <= 0) {
      call.fail("output size " + std::to_string(*size) + " along spatial dim " + std::to_string(d) +
                " is not positive (input " + input.to_string() + ", weight " + weight.to_string() + ")");
    }
  }
  return out;
}

SymExpr broadcast_dim(const Call& call, const SymExpr& a, const SymExpr& b) {
  if (a == b) return a;
  if (a.constant_value() == 1) return b;
  if (b.constant_value() == 1) return a;
  if (a.is_constant() && b.is_constant()) {
    call.fail("sizes " + a.to_string() + " and " + b.to_string() + " do not broadcast");
  }
  return a.is_constant() ? a : b;  // torch specializes the symbol to the constant
}

// PyTorch's result_type: tensors with dimensions decide the dtype; a 0-dim
// tensor or a Python number only raises its category (bool < int < float),
// a number then taking the default dtype of its kind (int64, float32).
struct ResultType {
  std::optional<ScalarType> dims, zero_dim, wrapped;

  static int category(ScalarType t) {
    return t == ScalarType::Bool ? 0 : runtime::is_floating_type(t) ? 2 : 1;
  }
  static void merge(std::optional<ScalarType>& slot, ScalarType t, const Call& call) {
    ScalarType promoted = t;
    if (slot && !runtime::promote_types(*slot, t, &promoted)) {
      call.fail(std::string("cannot promote ") + runtime::to_string(*slot) + " with " + runtime::to_string(t));
    }
    slot = promoted;
  }
  static std::optional<ScalarType> combine(std::optional<ScalarType> higher, std::optional<ScalarType> lower) {
    if (!higher) return lower;
    if (!lower || category(*lower) <= category(*higher)) return higher;
    ScalarType promoted = *lower;
    runtime::promote_types(*higher, *lower, &promoted);
    return promoted;
  }
  void add_tensor(const TensorMeta& t, const Call& call) { merge(t.rank() == 0 ? zero_dim : dims, t.dtype, call); }
  void add_number(const Argument& a, const Call& call) {
    merge(wrapped, a.is_double() ? ScalarType::Float : a.is_bool() ? ScalarType::Bool : ScalarType::Long, call);
  }
  ScalarType result() const { return combine(combine(dims, zero_dim), wrapped).value_or(ScalarType::Float); }
};

ValueMeta binary_meta(const Call& call, bool true_divide) {
  const TensorMeta& a = call.tensor(0);
  ResultType type;
  type.add_tensor(a, call);
  TensorMeta b(a.dtype, std::vector<SymExpr>{});
  if (call.args.at(1).is_node()) {
    b = call.tensor(1);
    type.add_tensor(b, call);
  } else if (call.args[1].is_int() || call.args[1].is_double() || call.args[1].is_bool()) {
    type.add_number(call.args[1], call);
  } else {
    call.fail("argument 'other' must be a tensor or a number, got " + to_string(call.args[1]));
  }
  TensorMeta out;
  out.dtype = type.result();
  if (true_divide && !runtime::is_floating_type(out.dtype)) out.dtype = ScalarType::Float;
  if (call.node.target() == "aten::sub.Tensor" && out.dtype == ScalarType::Bool) {
    call.fail("subtraction of bool tensors is not supported (use logical_xor)");
  }
  const size_t rank = std::max(a.rank(), b.rank());
  for (size_t i = 0; i < rank; ++i) {
    const SymExpr one = SymExpr::constant(1);
    const SymExpr& da = i + a.rank() >= rank ? a.sizes[i + a.rank() - rank] : one;
    const SymExpr& db = i + b.rank() >= rank ? b.sizes[i + b.rank() - rank] : one;
    out.sizes.push_back(broadcast_dim(call, da, db));
  }
  return out;
}

ValueMeta unary_meta(const Call& call, bool floating_result) {
  TensorMeta out = call.tensor(0);
  if (floating_result && !runtime::is_floating_type(out.dtype)) out.dtype = runtime::ScalarType::Float;
  out.requires_grad = false;
  return out;
}

ValueMeta matmul_meta(const Call& call, const TensorMeta& a, const TensorMeta& b) {
  if (a.rank() != 2 || b.rank() != 2) call.fail("expects 2-D matrices, got " + a.to_string() + " and " + b.to_string());
  if (a.sizes[1] != b.sizes[0] && a.sizes[1].is_constant() && b.sizes[0].is_constant()) {
    call.fail("cannot multiply " + a.to_string() + " by " + b.to_string());
  }
  return TensorMeta(a.dtype, {a.sizes[0], b.sizes[1]});
}

ValueMeta reshape_meta(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  std::vector<SymExpr> sizes = call.sym_list(1);
  SymExpr numel = SymExpr::constant(1);
  for (const SymExpr& size : input.sizes) numel = numel * size;
  std::optional<size_t> inferred;
  SymExpr known = SymExpr::constant(1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].constant_value() == -1) {
      if (inferred) call.fail("only one size may be -1");
      inferred = i;
    } else {
      if (const auto v = sizes[i].constant_value(); v && *v < 0) call.fail("invalid size " + std::to_string(*v));
      known = known * sizes[i];
    }
  }
  if (inferred) sizes[*inferred] = SymExpr::floordiv(numel, known);
  if (numel.is_constant() && known.is_constant()) {
    const int64_t total = *numel.constant_value();
    const int64_t part = *known.constant_value();
    if ((inferred && (part == 0 || total % part != 0)) || (!inferred && total != part)) {
      call.fail("cannot view " + input.to_string() + " (" + std::to_string(total) + " elements) as " +
                to_string(call.args[1]));
    }
  }
  return TensorMeta(input.dtype, sizes);
}

ValueMeta permute_meta(const Call& call) {
  const TensorMeta& input = call.tensor(0);
  const auto dims = call.int_list(1);
  if (dims.size() != input.rank()) call.fail("permutation has " + std::to_string(dims.size()) + " dims for " + input.to_string());
  TensorMeta out(input.dtype, std::vector<SymExpr>{});
  std::vector<bool> used(input.rank(), false);
  for (int64_t d : dims) {
    const size_t dim = call.dim(d, input.rank());
    if (used[dim]) call.fail("dim " + std::to_string(d) + " appears twice in the permutation");
    used[dim] = true;
    out.sizes.push_back(input.sizes[dim]);
  }
  return out;
}

using Rule = std::function<ValueMeta(const Call&)>;

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = {
      {"aten::convolution.default",
       [](const Call& c) {
         const bool transposed = c.args.at(6).is_bool() && c.args[6].to_bool();
         return convolution_meta(c, transposed, c.integer(8), 3, 4, 5, 7);
       }},
      {"aten::conv2d.default", [](const Call& c) { return convolution_meta(c, false, c.integer(6), 3, 4, 5, std::nullopt); }},
      {"aten::relu.default", [](const Call& c) { return unary_meta(c, false); }},
      {"aten::relu_.default", [](const Call& c) { return unary_meta(c, false); }},
      {"aten::clone.default", [](const Call& c) { return unary_meta(c, false); }},
      {"aten::dropout.default", [](const Call& c) { return unary_meta(c, false); }},
      {"aten::sin.default", [](const Call& c) { return unary_meta(c, true); }},
      {"aten::cos.default", [](const Call& c) { return unary_meta(c, true); }},
      {"aten::tan.default", [](const Call& c) { return unary_meta(c, true); }},
      {"aten::add.Tensor", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::sub.Tensor", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::mul.Tensor", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::div.Tensor", [](const Call& c) { return binary_meta(c, true); }},
      {"aten::add.Scalar", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::sub.Scalar", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::mul.Scalar", [](const Call& c) { return binary_meta(c, false); }},
      {"aten::div.Scalar", [](const Call& c) { return binary_meta(c, true); }},
      {"aten::mm.default", [](const Call& c) { return matmul_meta(c, c.tensor(0), c.tensor(1)); }},
      {"aten::addmm.default",
       [](const Call& c) {
         TensorMeta out = std::get<TensorMeta>(matmul_meta(c, c.tensor(1), c.tensor(2)));
         const TensorMeta& self = c.tensor(0);
         if (self.rank() > 2) c.fail("self " + self.to_string() + " does not broadcast to " + out.to_string());
         for (size_t i = 0; i < self.rank(); ++i) {
           const SymExpr& target = out.sizes[i + 2 - self.rank()];
           if (!(broadcast_dim(c, self.sizes[i], target) == target)) {
             c.fail("self " + self.to_string() + " does not broadcast to " + out.to_string());
           }
         }
         return ValueMeta(out);
       }},
      {"aten::linear.default",
       [](const Call& c) {
         const TensorMeta& input = c.tensor(0);
         const TensorMeta& weight = c.tensor(1);
         if (weight.rank() != 2 || input.rank() == 0 || input.sizes.back() != weight.sizes[1]) {
           c.fail("cannot apply weight " + weight.to_string() + " to " + input.to_string());
         }
         TensorMeta out = input;
         out.sizes.back() = weight.sizes[0];
         return ValueMeta(out);
       }},
      {"aten::view_copy.default", reshape_meta},
      {"aten::view.default", reshape_meta},
      {"aten::reshape.default", reshape_meta},
      {"aten::permute_copy.default", permute_meta},
      {"aten::permute.default", permute_meta},
      {"aten::t.default",
       [](const Call& c) {
         const TensorMeta& input = c.tensor(0);
         if (input.rank() > 2) c.fail("expects a tensor of rank <= 2, got " + input.to_string());
         TensorMeta out = input;
         if (input.rank() == 2) std::swap(out.sizes[0], out.sizes[1]);
         return ValueMeta(out);
       }},
      {"aten::sym_size.int",
       [](const Call& c) {
         const TensorMeta& input = c.tensor(0);
         return ValueMeta(input.sizes[c.dim(c.integer(1), input.rank())]);
       }},
  };
  return table;
}

}  // namespace

bool has_meta_rule(const std::string& target) {
  if (target == "getitem") return true;
  const OpSchema* schema = find_op_schema(target);
  return schema != nullptr && rules().count(schema->qualified_name());
}

void infer_meta(Node& node) {
  if (node.target() == "getitem") {
    if (node.args().size() != 2 || !node.args()[0].is_node() || !node.args()[1].is_int()) {
      throw AotError("node '" + node.name() + "': getitem expects (node, index)");
    }
    const auto* list = std::get_if<std::vector<TensorMeta>>(&node.args()[0].node()->meta.val);
    const int64_t index = node.args()[1].to_int();
    if (list == nullptr || index < 0 || static_cast<size_t>(index) >= list->size()) {
      throw AotError("node '" + node.name() + "': index " + std::to_string(index) + " is out of range of '" +
                     node.args()[0].node()->name() + "'");
    }
    node.meta.val = (*list)[static_cast<size_t>(index)];
    return;
  }
  const OpSchema& schema = get_op_schema(node.target());
  auto rule = rules().find(schema.qualified_name());
  if (rule == rules().end()) {
    throw AotError("node '" + node.name() + "': no meta rule for op '" + schema.qualified_name() + "'");
  }
  Call call{node, bind_node_arguments(node)};
  node.meta.val = rule->second(call);
}

}  // namespace kiln::aot
