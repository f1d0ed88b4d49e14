// Meta inference: binds a call to its op's schema and runs the op's rule from
// one table, which the rule families (elementwise, reduction, shape, nn,
// factory) fill; getitem reads one entry of a multi-output node's meta.
#include "aot/ir/op_table/infer_meta.h"

#include <algorithm>

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/infer_meta_rules.h"
#include "aot/ir/op_table/schema_binding.h"

namespace kiln::aot {
namespace meta {

std::string Call::arg_name(size_t i) const {
  return i < schema_.arguments.size() ? "argument '" + schema_.arguments[i].name + "'" : "argument " + std::to_string(i);
}

void Call::fail(const std::string& why) const {
  throw AotError("node '" + node_.name() + "' (" + schema_.qualified_name() + "): " + why);
}

const TensorMeta& Call::tensor(size_t i) const {
  if (!arg(i).is_node()) fail(arg_name(i) + " must be a tensor, got " + to_string(arg(i)));
  const auto* meta = std::get_if<TensorMeta>(&arg(i).node()->meta.val);
  if (meta == nullptr) fail(arg_name(i) + " '" + arg(i).node()->name() + "' has no tensor meta");
  return *meta;
}

const TensorMeta* Call::optional_tensor(size_t i) const { return is_none(i) ? nullptr : &tensor(i); }

std::vector<const TensorMeta*> Call::tensor_list(size_t i) const {
  if (!arg(i).is_list()) fail(arg_name(i) + " must be a list of tensors, got " + to_string(arg(i)));
  std::vector<const TensorMeta*> result;
  for (const Argument& item : arg(i).list()) {
    const auto* meta = item.is_node() ? std::get_if<TensorMeta>(&item.node()->meta.val) : nullptr;
    if (meta == nullptr) fail(arg_name(i) + " must hold tensors, got " + to_string(item));
    result.push_back(meta);
  }
  return result;
}

int64_t Call::integer(size_t i) const {
  if (!arg(i).is_int()) fail(arg_name(i) + " must be an int, got " + to_string(arg(i)));
  return arg(i).to_int();
}

bool Call::boolean(size_t i) const {
  if (!arg(i).is_bool()) fail(arg_name(i) + " must be a bool, got " + to_string(arg(i)));
  return arg(i).to_bool();
}

double Call::number(size_t i) const {
  if (arg(i).is_int()) return static_cast<double>(arg(i).to_int());
  if (arg(i).is_double()) return arg(i).to_double();
  if (arg(i).is_bool()) return arg(i).to_bool() ? 1.0 : 0.0;
  fail(arg_name(i) + " must be a number, got " + to_string(arg(i)));
}

std::optional<ScalarType> Call::dtype(size_t i) const {
  if (is_none(i)) return std::nullopt;
  if (const auto* type = std::get_if<ScalarType>(&arg(i).value)) return *type;
  fail(arg_name(i) + " must be a dtype, got " + to_string(arg(i)));
}

std::optional<std::string> Call::optional_string(size_t i) const {
  if (is_none(i)) return std::nullopt;
  if (!arg(i).is_string()) fail(arg_name(i) + " must be a string, got " + to_string(arg(i)));
  return arg(i).to_string();
}

SymExpr Call::sym(const Argument& value) const {
  if (value.is_int()) return SymExpr::constant(value.to_int());
  if (value.is_node()) {
    if (const auto* expr = std::get_if<SymExpr>(&value.node()->meta.val)) return *expr;
  }
  fail("expected an int or a SymInt, got " + to_string(value));
}

std::vector<SymExpr> Call::sym_list(size_t i) const {
  if (arg(i).is_int() || arg(i).is_node()) return {sym(arg(i))};
  if (!arg(i).is_list()) fail(arg_name(i) + " must be a list of ints, got " + to_string(arg(i)));
  std::vector<SymExpr> values;
  for (const Argument& item : arg(i).list()) values.push_back(sym(item));
  return values;
}

std::vector<int64_t> Call::int_list(size_t i) const {
  std::vector<int64_t> values;
  for (const SymExpr& expr : sym_list(i)) {
    if (!expr.is_constant()) fail(arg_name(i) + " must be static, got " + to_string(arg(i)));
    values.push_back(*expr.constant_value());
  }
  return values;
}

std::vector<int64_t> Call::int_list_of(size_t i, size_t n) const {
  std::vector<int64_t> values = int_list(i);
  if (values.size() == 1) values.assign(n, values[0]);
  if (values.size() != n) fail(arg_name(i) + " must have 1 or " + std::to_string(n) + " entries, got " + to_string(arg(i)));
  return values;
}

size_t Call::dim(int64_t d, size_t rank, const std::string& what) const {
  const auto r = static_cast<int64_t>(rank);
  const int64_t bound = std::max<int64_t>(r, 1);
  if (d < -bound || d >= bound) {
    fail(what + " " + std::to_string(d) + " is out of range for a tensor of rank " + std::to_string(rank));
  }
  return static_cast<size_t>(d < 0 ? d + bound : d);
}

std::vector<size_t> Call::dims(const std::vector<int64_t>& values, size_t rank) const {
  std::vector<size_t> result;
  for (int64_t d : values) {
    const size_t wrapped = dim(d, rank);
    if (std::find(result.begin(), result.end(), wrapped) != result.end()) {
      fail("dim " + std::to_string(d) + " appears more than once in the list of dims");
    }
    result.push_back(wrapped);
  }
  return result;
}

void ResultType::add_tensor(const TensorMeta& tensor) {
  empty_ = false;
  state_.add_tensor(tensor.dtype, tensor.rank() == 0);
}

void ResultType::add_number(const Argument& number) {
  empty_ = false;
  state_.add_number(number.is_double() ? ScalarType::Double : number.is_bool() ? ScalarType::Bool : ScalarType::Long);
}

void ResultType::add(const Argument& arg) {
  if (is_number(arg)) {
    add_number(arg);
  } else if (arg.is_node() && std::holds_alternative<TensorMeta>(arg.node()->meta.val)) {
    add_tensor(arg.node()->meta.tensor());
  } else {
    call_.fail("expected a tensor or a number, got " + to_string(arg));
  }
}

ScalarType ResultType::result() const {
  ScalarType type = ScalarType::Float;
  if (!state_.result(&type) && !empty_) call_.fail("its operands' dtypes have no common dtype");
  return type;
}

void check_float_input(const Call& call, size_t i) {
  if (!is_float_input(call.tensor(i).dtype)) {
    call.fail(call.arg_name(i) + " must be float32, float16 or bfloat16, got " + call.tensor(i).to_string());
  }
}

bool is_number(const Argument& arg) {
  if (arg.is_int() || arg.is_double() || arg.is_bool()) return true;
  return arg.is_node() && std::holds_alternative<SymExpr>(arg.node()->meta.val);
}

std::vector<SymExpr> broadcast_shapes(const Call& call, const std::vector<std::vector<SymExpr>>& shapes) {
  size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  std::vector<SymExpr> result(rank, SymExpr::constant(1));
  for (const auto& shape : shapes) {
    for (size_t i = 0; i < shape.size(); ++i) {
      SymExpr& into = result[rank - shape.size() + i];
      const SymExpr& size = shape[i];
      if (into == size || size.constant_value() == 1) continue;
      if (into.constant_value() == 1) {
        into = size;
      } else if (into.is_constant() && size.is_constant()) {
        call.fail("sizes " + into.to_string() + " and " + size.to_string() + " do not broadcast");
      } else if (size.is_constant()) {
        into = size;  // torch specializes the symbol to the constant
      }
    }
  }
  return result;
}

std::vector<SymExpr> shape_of(const Call& call, const Argument& arg) {
  if (is_number(arg)) return {};
  if (arg.is_node()) {
    if (const auto* meta = std::get_if<TensorMeta>(&arg.node()->meta.val)) return meta->sizes;
  }
  call.fail("expected a tensor or a number, got " + to_string(arg));
}

std::vector<SymExpr> reduce_sizes(const std::vector<SymExpr>& sizes, const std::vector<size_t>& reduced, bool keepdim) {
  std::vector<SymExpr> result;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const bool is_reduced = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    if (!is_reduced) {
      result.push_back(sizes[d]);
    } else if (keepdim) {
      result.push_back(SymExpr::constant(1));
    }
  }
  return result;
}

std::vector<size_t> reduction_dims(const Call& call, size_t arg, size_t rank, bool empty_means_all) {
  std::vector<size_t> all;
  for (size_t d = 0; d < rank; ++d) all.push_back(d);
  if (call.is_none(arg)) return all;
  const std::vector<int64_t> dims = call.int_list(arg);
  if (dims.empty()) return empty_means_all ? all : std::vector<size_t>{};
  return call.dims(dims, rank);
}

}  // namespace meta

namespace {

const meta::RuleTable& rules() {
  static const meta::RuleTable table = [] {
    meta::RuleTable t;
    meta::add_elementwise_rules(t);
    meta::add_reduction_rules(t);
    meta::add_shape_rules(t);
    meta::add_nn_rules(t);
    meta::add_factory_rules(t);
    meta::add_quantized_rules(t);
    meta::add_kiln_rules(t);
    meta::add_torchao_rules(t);
    meta::add_complex_rules(t);
    return t;
  }();
  return table;
}

void infer_getitem(Node& node) {
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
}

// The rule of `schema`, or of its functional op when it is an in-place op
// (with `functional` set to that op); null if neither has one.
// An alias (arccos) takes the rule of the op it names (acos).
const meta::Rule* own_rule(const OpSchema& schema) {
  if (auto rule = rules().find(schema.qualified_name()); rule != rules().end()) return &rule->second;
  const OpSchema* target = alias_target(schema);
  return target == nullptr ? nullptr : own_rule(*target);
}

const meta::Rule* find_rule(const OpSchema& schema, const OpSchema** functional) {
  *functional = nullptr;
  if (const meta::Rule* rule = own_rule(schema)) return rule;
  const OpSchema* of = functional_of_inplace(schema);
  if (of == nullptr) return nullptr;
  const meta::Rule* rule = own_rule(*of);
  if (rule == nullptr) return nullptr;
  *functional = of;
  return rule;
}

// An in-place op leaves its functional op's result in self: the functional
// rule checks the call, and its result must fit self's sizes and cast to
// self's dtype (PyTorch's "result type Float can't be cast to Long").
ValueMeta infer_in_place(const Node& node, const OpSchema& functional, const meta::Rule& rule) {
  // The in-place op's own schema names the call in errors; its arguments are
  // the functional op's.
  const meta::Call call(node, get_op_schema(node.target()), bind_node_arguments(node));
  const TensorMeta& self = call.tensor(0);
  const ValueMeta result = rule(call);
  const auto* value = std::get_if<TensorMeta>(&result);
  if (value == nullptr) call.fail("its functional op " + functional.qualified_name() + " gives no single tensor");
  if (!(value->sizes == self.sizes)) {
    call.fail("the result " + value->to_string() + " does not broadcast to self " + self.to_string());
  }
  if (!runtime::can_cast(value->dtype, self.dtype)) {
    call.fail(std::string("the result type ") + runtime::to_string(value->dtype) + " cannot be written into self " +
              self.to_string());
  }
  return self;
}

}  // namespace

bool has_meta_rule(const std::string& target) {
  if (target == kGetItem) return true;
  const OpSchema* schema = find_op_schema(target);
  const OpSchema* functional = nullptr;
  return schema != nullptr && find_rule(*schema, &functional) != nullptr;
}

void infer_meta(Node& node) {
  if (is_call_of(node, ExecKind::GetItem)) {
    infer_getitem(node);
    return;
  }
  const OpSchema& schema = get_op_schema(node.target());
  const OpSchema* functional = nullptr;
  const meta::Rule* rule = find_rule(schema, &functional);
  if (rule == nullptr) {
    throw AotError("node '" + node.name() + "': no meta rule for op '" + schema.qualified_name() + "'");
  }
  if (functional != nullptr) {
    node.meta.val = infer_in_place(node, *functional, *rule);
    return;
  }
  const meta::Call call(node, schema, bind_node_arguments(node));
  node.meta.val = (*rule)(call);
}

}  // namespace kiln::aot
