#include "aot/passes/rewriter.h"

#include "aot/ir/error.h"
#include "aot/ir/op_schema.h"
#include "aot/ir/schema_binding.h"

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
  node->meta.stack_trace = node_.meta.stack_trace;
  node->meta.nn_module_stack = node_.meta.nn_module_stack;
  node->meta.torch_fn = node_.meta.torch_fn;
  return node;
}

Node* Rewriter::getitem(Node* value, int64_t index) {
  const auto* list = std::get_if<std::vector<TensorMeta>>(&value->meta.val);
  if (list == nullptr || index < 0 || static_cast<size_t>(index) >= list->size()) {
    fail("cannot take item " + std::to_string(index) + " of '" + value->name() + "'");
  }
  Node* node = graph_.call_function("getitem", {value, index});
  node->meta.val = (*list)[static_cast<size_t>(index)];
  node->meta.stack_trace = node_.meta.stack_trace;
  node->meta.nn_module_stack = node_.meta.nn_module_stack;
  return node;
}

Argument Rewriter::size_list(const std::vector<SymExpr>& sizes, Node* source) {
  const TensorMeta& source_meta = source->meta.tensor();
  ArgumentList items;
  bool inferred = false;
  for (const SymExpr& size : sizes) {
    if (auto value = size.constant_value()) {
      items.emplace_back(*value);
      continue;
    }
    bool found = false;
    for (size_t d = 0; d < source_meta.rank() && !found; ++d) {
      if (source_meta.sizes[d] == size) {
        items.emplace_back(call("aten::sym_size.int", {source, static_cast<int64_t>(d)}, size));
        found = true;
      }
    }
    if (found) continue;
    if (inferred) fail("cannot express the sizes " + TensorMeta(source_meta.dtype, sizes).to_string() +
                       " from '" + source->name() + "' " + source_meta.to_string());
    inferred = true;
    items.emplace_back(int64_t{-1});
  }
  return items;
}

void Rewriter::replace_with(Node* value) {
  node_.replace_all_uses_with(value);
  graph_.erase_node(&node_);
}

void Rewriter::fail(const std::string& reason) const {
  throw AotError("node '" + node_.name() + "' (" + node_.target() + "): " + reason);
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

std::string canonical_target(const std::string& target) {
  const OpSchema* schema = find_op_schema(target);
  return schema == nullptr ? target : schema->qualified_name();
}

}  // namespace kiln::aot::passes
