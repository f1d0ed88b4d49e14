#include "aot/interpreter/kernel_call.h"

#include <deque>
#include <functional>
#include <limits>
#include <memory>

#include "aot/ir/c10_enums.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/schema_binding.h"
#include "kernels/portable/register.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::aot {

namespace {

using runtime::EValue;

// Owns everything the EValues of one kernel call point into.
class CallFrame {
 public:
  explicit CallFrame(std::string where) : where_(std::move(where)) {}

  EValue* add(EValue value) {
    values_.push_back(value);
    return &values_.back();
  }

  runtime::Tensor tensor(const HostTensor& host) {
    Holder& holder = holders_.emplace_back();
    holder.keep_alive = host.is_contiguous() ? host : host.clone();
    const auto rank = holder.keep_alive.rank();
    for (size_t d = 0; d < rank; ++d) {
      const int64_t size = holder.keep_alive.sizes()[d];
      if (size > std::numeric_limits<runtime::SizesType>::max()) {
        throw AotError(where_ + ": tensor " + host.describe() + " is too large for the runtime's 32-bit sizes");
      }
      holder.sizes.push_back(static_cast<runtime::SizesType>(size));
      holder.dim_order.push_back(static_cast<runtime::DimOrderType>(d));
    }
    if (holder.keep_alive.numel() > std::numeric_limits<runtime::StridesType>::max()) {
      throw AotError(where_ + ": tensor " + host.describe() + " has more elements than the runtime's 32-bit strides reach");
    }
    holder.strides.resize(rank);
    if (runtime::compute_strides({holder.sizes.data(), rank}, {holder.dim_order.data(), rank},
                                 {holder.strides.data(), rank}) != runtime::Error::Ok) {
      throw AotError(where_ + ": cannot lay out tensor " + host.describe());
    }
    holder.impl = std::make_unique<runtime::TensorImpl>(
        host.dtype(), static_cast<ssize_t>(rank), holder.sizes.data(), holder.keep_alive.data(),
        holder.dim_order.data(), holder.strides.data());
    return runtime::Tensor(holder.impl.get());
  }

  template <typename T>
  std::vector<T>& buffer() {
    auto owned = std::make_shared<std::vector<T>>();
    buffers_.push_back(owned);
    return *owned;
  }

  bool* bool_buffer(size_t size) {
    std::shared_ptr<bool[]> owned(new bool[size == 0 ? 1 : size]());
    buffers_.push_back(owned);
    return owned.get();
  }

  template <typename T>
  EValue boxed_list(std::vector<EValue*> items) {
    auto& wrapped = buffer<EValue*>();
    wrapped = std::move(items);
    auto& unwrapped = buffer<T>();
    unwrapped.resize(wrapped.size());
    auto& list = lists<T>().emplace_back(wrapped.data(), unwrapped.data(), wrapped.size());
    return EValue(&list);
  }

  const std::string& where() const { return where_; }

 private:
  struct Holder {
    HostTensor keep_alive;
    std::vector<runtime::SizesType> sizes;
    std::vector<runtime::DimOrderType> dim_order;
    std::vector<runtime::StridesType> strides;
    std::unique_ptr<runtime::TensorImpl> impl;
  };
  template <typename T>
  std::deque<runtime::BoxedEvalueList<T>>& lists() {
    if constexpr (std::is_same_v<T, int64_t>) return int_lists_;
    else if constexpr (std::is_same_v<T, runtime::Tensor>) return tensor_lists_;
    else return optional_tensor_lists_;
  }

  std::string where_;
  std::deque<EValue> values_;
  std::deque<Holder> holders_;
  std::vector<std::shared_ptr<void>> buffers_;
  std::deque<runtime::BoxedEvalueList<int64_t>> int_lists_;
  std::deque<runtime::BoxedEvalueList<runtime::Tensor>> tensor_lists_;
  std::deque<runtime::BoxedEvalueList<std::optional<runtime::Tensor>>> optional_tensor_lists_;
};

// Boxes the non-node, non-list alternatives of an Argument.
struct ScalarBoxer {
  EValue operator()(int64_t v) const { return EValue(v); }
  EValue operator()(double v) const { return EValue(v); }
  EValue operator()(bool v) const { return EValue(v); }
  EValue operator()(ScalarType v) const { return EValue(c10_scalar_type(v)); }
  EValue operator()(MemoryFormat v) const { return EValue(c10_memory_format(v).value_or(-1)); }
  EValue operator()(Layout v) const { return EValue(c10_layout(v).value_or(-1)); }
  EValue operator()(const std::string& v) const { return EValue(v.data(), v.size()); }
  template <typename T>
  EValue operator()(const T&) const {
    return EValue();  // None, Device: kernels take no value for them
  }
};

SchemaType item_type(SchemaType::Kind kind) {
  SchemaType type;
  type.kind = kind;
  return type;
}

class Boxer {
 public:
  Boxer(CallFrame& frame, const std::function<const NodeValue&(const Node*)>& lookup)
      : frame_(frame), lookup_(lookup) {}

  EValue box(const Argument& arg, const SchemaType& type, const std::string& name) {
    if (arg.is_none()) return EValue();
    if (type.kind == SchemaType::Kind::Tensor && !type.is_list && (arg.is_int() || arg.is_double() || arg.is_bool())) {
      throw AotError(frame_.where() + ": argument '" + name + "' is the number " + to_string(arg) +
                     " where a tensor goes (scalar_to_tensor lifts it; lower the program first)");
    }
    if (arg.is_list()) return box_list(arg.list(), type, name);
    if (arg.is_node()) return box_value(node_value(arg.node(), name), name);
    return std::visit(ScalarBoxer{}, arg.value);
  }

  EValue box_value(const Value& value, const std::string& name) {
    if (const auto* tensor = std::get_if<HostTensor>(&value)) return EValue(frame_.tensor(*tensor));
    if (const auto* i = std::get_if<int64_t>(&value)) return EValue(*i);
    if (const auto* d = std::get_if<double>(&value)) return EValue(*d);
    if (const auto* b = std::get_if<bool>(&value)) return EValue(*b);
    if (std::holds_alternative<None>(value)) return EValue();
    throw AotError(frame_.where() + ": argument '" + name + "' has a value the kernel cannot take: " + describe(value));
  }

 private:
  const Value& node_value(const Node* node, const std::string& name) {
    const NodeValue& value = lookup_(node);
    if (value.is_list || value.values.size() != 1) {
      throw AotError(frame_.where() + ": argument '" + name + "' uses '" + node->name() +
                     "', which has several outputs (take one with getitem)");
    }
    return value.values[0];
  }

  EValue box_list(const ArgumentList& items, const SchemaType& type, const std::string& name) {
    using Kind = SchemaType::Kind;
    if (type.kind == Kind::Tensor) {
      std::vector<EValue*> boxed;
      for (const Argument& item : items) boxed.push_back(frame_.add(box(item, item_type(Kind::Tensor), name)));
      return type.list_of_optional ? frame_.boxed_list<std::optional<runtime::Tensor>>(std::move(boxed))
                                   : frame_.boxed_list<runtime::Tensor>(std::move(boxed));
    }
    if (type.kind == Kind::Float) {
      auto& doubles = frame_.buffer<double>();
      for (const Argument& item : items) {
        if (!item.is_int() && !item.is_double()) throw AotError(frame_.where() + ": argument '" + name + "' must be a list of numbers");
        doubles.push_back(item.is_int() ? static_cast<double>(item.to_int()) : item.to_double());
      }
      return EValue(runtime::Span<const double>(doubles.data(), doubles.size()));
    }
    if (type.kind == Kind::Bool) {
      bool* bools = frame_.bool_buffer(items.size());
      for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].is_bool()) throw AotError(frame_.where() + ": argument '" + name + "' must be a list of bools");
        bools[i] = items[i].to_bool();
      }
      return EValue(runtime::Span<const bool>(bools, items.size()));
    }
    std::vector<EValue*> boxed;
    for (const Argument& item : items) {
      EValue value = box(item, item_type(Kind::Int), name);
      if (!value.isInt()) throw AotError(frame_.where() + ": argument '" + name + "' must be a list of ints");
      boxed.push_back(frame_.add(value));
    }
    return frame_.boxed_list<int64_t>(std::move(boxed));
  }

  CallFrame& frame_;
  const std::function<const NodeValue&(const Node*)>& lookup_;
};

// The tensors of the allocs an out argument names (one, or a list), or of a
// mutated buffer's placeholder (a buffer updated in place: memory_ops.h).
std::vector<HostTensor> out_tensors(const Argument& out, const std::string& name, CallFrame& frame,
                                    const std::function<const NodeValue&(const Node*)>& lookup) {
  std::vector<HostTensor> tensors;
  bool all_allocs = out.is_node() || out.is_list();
  for_each_node(out, [&](const Node* alloc) {
    all_allocs = all_allocs && (exec_kind(*alloc) == ExecKind::Alloc || alloc->is_placeholder());
    const NodeValue& value = lookup(alloc);
    const auto* tensor = value.values.size() == 1 ? std::get_if<HostTensor>(&value.values[0]) : nullptr;
    if (tensor == nullptr) all_allocs = false;
    else tensors.push_back(*tensor);
  });
  if (!all_allocs) throw AotError(frame.where() + ": out argument '" + name + "' must name memory.alloc nodes (or a buffer updated in place)");
  return tensors;
}

}  // namespace

bool interpreter_has_kernel(const std::string& name) {
  if (name == kSymSize) return true;
  (void)kernels::portable::register_portable_kernels();
  return runtime::registry_has_op_function(name.c_str());
}

NodeValue call_out_variant_kernel(const Node& node, const std::function<const NodeValue&(const Node*)>& lookup) {
  const std::string where = "node '" + node.name() + "' (" + node.target() + ")";
  const OpSchema& schema = get_op_schema(node.target());
  if (!schema.is_out_variant()) {
    throw AotError(where + ": not an out-variant call (the interpreter runs programs lowered by lower_to_executable)");
  }
  (void)kernels::portable::register_portable_kernels();
  auto kernel = runtime::get_op_function_from_registry(node.target().c_str());
  if (!kernel.ok()) throw AotError(where + ": no kernel is registered for '" + node.target() + "'");

  const std::vector<Argument> bound = bind_arguments(schema, node.args(), node.kwargs(), where, /*include_out=*/true);
  CallFrame frame(where);
  Boxer boxer(frame, lookup);
  std::vector<EValue*> stack;
  std::vector<EValue*> out_values;
  NodeValue result;
  result.is_list = std::holds_alternative<std::vector<TensorMeta>>(node.meta.val);
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const SchemaArgument& param = schema.arguments[i];
    if (!param.is_out) {
      stack.push_back(frame.add(boxer.box(bound[i], param.type, param.name)));
      continue;
    }
    const std::vector<HostTensor> outs = out_tensors(bound[i], param.name, frame, lookup);
    if (param.type.is_list) {
      std::vector<EValue*> items;
      for (const HostTensor& out : outs) items.push_back(frame.add(EValue(frame.tensor(out))));
      out_values.push_back(frame.add(frame.boxed_list<runtime::Tensor>(std::move(items))));
    } else {
      out_values.push_back(frame.add(EValue(frame.tensor(outs.at(0)))));
    }
    for (const HostTensor& out : outs) result.values.emplace_back(out);
    stack.push_back(out_values.back());
  }
  // The return slot, which the kernel may write; pre-filled with the out
  // tensor for single-output ops.
  stack.push_back(frame.add(out_values.size() == 1 ? *out_values[0] : EValue()));

  runtime::KernelRuntimeContext context;
  (*kernel)(context, {stack.data(), stack.size()});
  if (context.failure_state() != runtime::Error::Ok) {
    std::string message = context.failure_message();
    throw AotError(where + ": kernel failed (" + runtime::to_string(context.failure_state()) + ")" +
                   (message.empty() ? "" : ": " + message));
  }
  return result;
}

}  // namespace kiln::aot
