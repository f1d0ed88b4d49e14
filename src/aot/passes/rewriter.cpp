#include "aot/passes/rewriter.h"

#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/passes/provenance.h"

namespace kiln::aot::passes {

Rewriter::Rewriter(Node& node)
    : node_(node), graph_(node.graph()), bound_(bind_node_arguments(node)), saved_insert_point_(graph_.insert_point()) {
  graph_.set_insert_point(&node_);
}

Rewriter::~Rewriter() { graph_.set_insert_point(saved_insert_point_); }

Node* Rewriter::tensor_arg(size_t index) const {
  if (!arg(index).is_node()) fail("argument " + std::to_string(index) + " is " + to_string(arg(index)) + ", not a tensor");
  return arg(index).node();
}

int64_t Rewriter::int_arg(size_t index) const {
  if (!arg(index).is_int()) fail("argument " + std::to_string(index) + " is " + to_string(arg(index)) + ", not an int");
  return arg(index).to_int();
}

double Rewriter::float_arg(size_t index) const {
  if (arg(index).is_int()) return static_cast<double>(arg(index).to_int());
  if (!arg(index).is_double()) fail("argument " + std::to_string(index) + " is " + to_string(arg(index)) + ", not a float");
  return arg(index).to_double();
}

bool Rewriter::bool_arg(size_t index) const {
  if (!arg(index).is_bool()) fail("argument " + std::to_string(index) + " is " + to_string(arg(index)) + ", not a bool");
  return arg(index).to_bool();
}

std::vector<int64_t> Rewriter::ints_arg(size_t index) const {
  if (!arg(index).is_list()) fail("argument " + std::to_string(index) + " is " + to_string(arg(index)) + ", not a list");
  std::vector<int64_t> values;
  for (const Argument& item : arg(index).list()) {
    if (!item.is_int()) fail("argument " + std::to_string(index) + " " + to_string(arg(index)) + " has a symbolic entry");
    values.push_back(item.to_int());
  }
  return values;
}

const TensorMeta& Rewriter::out() const {
  const auto* meta = std::get_if<TensorMeta>(&node_.meta.val);
  if (meta == nullptr) fail("has no tensor meta");
  return *meta;
}

Node* Rewriter::call(const std::string& target, ArgumentList args, ValueMeta meta, KwargList kwargs) {
  const OpSchema& schema = get_op_schema(target);
  Node* node = graph_.call_function(schema.qualified_name(), std::move(args), std::move(kwargs));
  node->meta.val = std::move(meta);
  copy_provenance(node_, *node);
  created_.insert(node);
  return node;
}

namespace {

// Drops trailing positional arguments and keyword arguments that equal the
// schema's defaults.
void drop_defaults(const OpSchema& schema, ArgumentList& args, KwargList& kwargs) {
  while (!args.empty()) {
    const SchemaArgument& param = schema.arguments.at(args.size() - 1);
    if (!param.default_value || !(*param.default_value == args.back())) break;
    args.pop_back();
  }
  std::erase_if(kwargs, [&schema](const auto& kwarg) {
    const SchemaArgument* param = schema.find_argument(kwarg.first);
    return param != nullptr && param->default_value && *param->default_value == kwarg.second;
  });
}

}  // namespace

Node* Rewriter::op(const std::string& target, ArgumentList args, KwargList kwargs) {
  const OpSchema& schema = get_op_schema(target);
  drop_defaults(schema, args, kwargs);
  Node* node = call(target, std::move(args), {}, std::move(kwargs));
  try {
    infer_meta(*node);
  } catch (const AotError& error) {
    created_.erase(node);
    graph_.erase_node(node);
    fail(std::string("its decomposition does not fit: ") + error.what());
  }
  return node;
}

Node* Rewriter::getitem(Node* value, int64_t index) {
  const auto* list = std::get_if<std::vector<TensorMeta>>(&value->meta.val);
  if (list == nullptr || index < 0 || static_cast<size_t>(index) >= list->size()) {
    fail("cannot take item " + std::to_string(index) + " of '" + value->name() + "'");
  }
  Node* node = graph_.call_function(kGetItem, {value, index});
  node->meta.val = (*list)[static_cast<size_t>(index)];
  copy_provenance(node_, *node);
  created_.insert(node);
  return node;
}

Argument Rewriter::size_list(const std::vector<SymExpr>& sizes, Node* source) { return size_list(sizes, {source}, true); }

Argument Rewriter::size_list(const std::vector<SymExpr>& sizes, const std::vector<Node*>& sources, bool allow_inferred) {
  ArgumentList items;
  bool inferred = false;
  for (const SymExpr& size : sizes) {
    Node* found = nullptr;
    int64_t found_dim = 0;
    for (Node* source : sources) {
      const TensorMeta& meta = source->meta.tensor();
      for (size_t d = 0; d < meta.rank() && found == nullptr; ++d) {
        if (meta.sizes[d] == size) {
          found = source;
          found_dim = static_cast<int64_t>(d);
        }
      }
    }
    if (auto value = size.constant_value()) {
      items.emplace_back(*value);
    } else if (found != nullptr) {
      items.emplace_back(call(kSymSize, {found, found_dim}, size));
    } else if (allow_inferred && !inferred) {
      inferred = true;
      items.emplace_back(int64_t{-1});
    } else {
      std::string names;
      for (Node* source : sources) names += (names.empty() ? "'" : ", '") + source->name() + "' " + source->meta.tensor().to_string();
      std::string text;
      for (const SymExpr& s : sizes) text += (text.empty() ? "" : ", ") + s.to_string();
      fail("cannot express the sizes [" + text + "] from " + names);
    }
  }
  return items;
}

Argument Rewriter::sym_int(const SymExpr& value, const std::vector<Node*>& sources) {
  if (auto constant = value.constant_value()) return *constant;
  return size_list({value}, sources, false).list().at(0);
}

namespace {

// Two metas agree if dtype and rank match and static sizes are equal.
bool metas_agree(const TensorMeta& a, const TensorMeta& b) {
  if (a.dtype != b.dtype || a.rank() != b.rank()) return false;
  for (size_t d = 0; d < a.rank(); ++d) {
    if (a.sizes[d].is_constant() && b.sizes[d].is_constant() && !(a.sizes[d] == b.sizes[d])) return false;
  }
  return true;
}

bool metas_agree(const ValueMeta& a, const ValueMeta& b) {
  if (const auto* one = std::get_if<TensorMeta>(&a)) {
    const auto* other = std::get_if<TensorMeta>(&b);
    return other != nullptr && metas_agree(*one, *other);
  }
  const auto* list = std::get_if<std::vector<TensorMeta>>(&a);
  const auto* other = std::get_if<std::vector<TensorMeta>>(&b);
  if (list == nullptr || other == nullptr || list->size() != other->size()) return false;
  for (size_t i = 0; i < list->size(); ++i) {
    if (!metas_agree((*list)[i], (*other)[i])) return false;
  }
  return true;
}

}  // namespace

void Rewriter::replace_with(Node* value) {
  const bool has_meta = !std::holds_alternative<std::monostate>(node_.meta.val);
  if (created_.count(value) && has_meta) {
    if (!metas_agree(value->meta.val, node_.meta.val)) {
      fail("its decomposition gives " + to_string(value->meta.val) + " where the node has " + to_string(node_.meta.val));
    }
    value->meta.val = node_.meta.val;
  }
  node_.replace_all_uses_with(value);
  graph_.erase_node(&node_);
}

void Rewriter::replace_with_literal(const Argument& value) {
  replace_uses_with_literal(&node_, value);
  graph_.erase_node(&node_);
}

void Rewriter::replace_with_items(const std::vector<Node*>& values) {
  const std::vector<Node*> users = node_.users();
  for (Node* user : users) {
    const bool is_item = is_call_of(*user, ExecKind::GetItem) && user->args().size() == 2 && user->args()[1].is_int();
    if (!is_item) fail("is used whole by '" + user->name() + "', not item by item");
    const int64_t index = user->args()[1].to_int();
    if (index < 0 || static_cast<size_t>(index) >= values.size()) {
      fail("has " + std::to_string(values.size()) + " items; '" + user->name() + "' takes item " + std::to_string(index));
    }
    user->replace_all_uses_with(values[static_cast<size_t>(index)]);
    graph_.erase_node(user);
  }
  graph_.erase_node(&node_);
}

void Rewriter::fail(const std::string& reason) const {
  throw AotError("node '" + node_.name() + "' (" + node_.target() + "): " + reason);
}

namespace {

// `argument` with every reference to `node` replaced by `value`.
Argument substitute(const Argument& argument, const Node* node, const Argument& value) {
  if (argument.is_node()) return argument.node() == node ? value : argument;
  if (!argument.is_list()) return argument;
  ArgumentList items;
  for (const Argument& item : argument.list()) items.push_back(substitute(item, node, value));
  return items;
}

}  // namespace

void replace_uses_with_literal(Node* node, const Argument& value) {
  const std::vector<Node*> users = node->users();
  for (Node* user : users) {
    ArgumentList args;
    for (const Argument& arg : user->args()) args.push_back(substitute(arg, node, value));
    KwargList kwargs;
    for (const auto& [name, arg] : user->kwargs()) kwargs.emplace_back(name, substitute(arg, node, value));
    user->set_args(std::move(args));
    user->set_kwargs(std::move(kwargs));
  }
}

int64_t normalize_dim(int64_t dim, size_t rank, const std::string& where) {
  const auto r = static_cast<int64_t>(rank);
  const int64_t wrapped = dim < 0 ? dim + r : dim;
  if (wrapped < 0 || wrapped >= std::max<int64_t>(r, 1)) {
    throw AotError(where + ": dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  }
  return wrapped;
}

SymExpr product(const std::vector<SymExpr>& sizes) {
  SymExpr result(1);
  for (const SymExpr& size : sizes) result = result * size;
  return result;
}

ArgumentList expand_int_list(const Argument& value, size_t n) {
  if (!value.is_list()) return ArgumentList(n, value);
  if (value.list().size() == 1) return ArgumentList(n, value.list()[0]);
  return value.list();
}

std::string canonical_target(const std::string& target) {
  const OpSchema* schema = find_op_schema(target);
  return schema == nullptr ? target : schema->qualified_name();
}

ArgumentList ints(const std::vector<int64_t>& values) {
  ArgumentList list;
  for (int64_t v : values) list.emplace_back(v);
  return list;
}

std::vector<int64_t> sizes_of(Rewriter& r, Node* node) {
  const TensorMeta& meta = node->meta.tensor();
  if (!meta.is_static()) r.fail("needs static sizes, got " + meta.to_string());
  return meta.static_sizes();
}

size_t rank_of(Node* node) { return node->meta.tensor().rank(); }

}  // namespace kiln::aot::passes
