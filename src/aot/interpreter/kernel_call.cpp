#include "aot/interpreter/kernel_call.h"

#include <deque>
#include <functional>
#include <limits>
#include <memory>

#include "aot/ir/error.h"
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

// Kernels see enums as c10 numbers them, which differ from the .pt2 schema's.
int64_t c10_memory_format(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return 0;
    case MemoryFormat::Preserve: return 1;
    case MemoryFormat::ChannelsLast: return 2;
    case MemoryFormat::ChannelsLast3d: return 3;
    case MemoryFormat::Unknown: break;
  }
  return -1;
}

int64_t c10_layout(Layout layout) {
  switch (layout) {
    case Layout::Strided: return 0;
    case Layout::SparseCoo: return 1;
    case Layout::Mkldnn: return 2;
    case Layout::SparseCsr: return 3;
    case Layout::SparseCsc: return 4;
    case Layout::SparseBsr: return 5;
    case Layout::SparseBsc: return 6;
    case Layout::Unknown: break;
  }
  return -1;
}

// Boxes the non-node, non-list alternatives of an Argument.
struct ScalarBoxer {
  EValue operator()(int64_t v) const { return EValue(v); }
  EValue operator()(double v) const { return EValue(v); }
  EValue operator()(bool v) const { return EValue(v); }
  EValue operator()(ScalarType v) const { return EValue(static_cast<int64_t>(v)); }
  EValue operator()(MemoryFormat v) const { return EValue(c10_memory_format(v)); }
  EValue operator()(Layout v) const { return EValue(c10_layout(v)); }
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
  /// `result_dtype`: the dtype of the node's result, which a Python number
  /// passed where the schema wants a Tensor takes (see wrapped_scalar).
  Boxer(CallFrame& frame, const std::function<const NodeValue&(const Node*)>& lookup,
        std::optional<ScalarType> result_dtype)
      : frame_(frame), lookup_(lookup), result_dtype_(result_dtype) {}

  EValue box(const Argument& arg, const SchemaType& type, const std::string& name) {
    if (arg.is_none()) return EValue();
    if (type.kind == SchemaType::Kind::Tensor && !type.is_list && (arg.is_int() || arg.is_double() || arg.is_bool())) {
      return EValue(frame_.tensor(wrapped_scalar(arg)));
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

  // A number passed for a Tensor argument (x * 2) becomes a 0-dim tensor.
  // PyTorch lets such "wrapped numbers" take part in type promotion without
  // widening the tensor's dtype; giving the number the result's dtype has the
  // same effect for arithmetic.
  HostTensor wrapped_scalar(const Argument& arg) const {
    ScalarType dtype = arg.is_double() ? ScalarType::Float : arg.is_bool() ? ScalarType::Bool : ScalarType::Long;
    if (result_dtype_ && *result_dtype_ != ScalarType::Bool) dtype = *result_dtype_;
    HostTensor tensor = HostTensor::zeros(dtype, {});
    const double value = arg.is_double() ? arg.to_double() : arg.is_int() ? static_cast<double>(arg.to_int()) : arg.to_bool();
    switch (dtype) {
      case ScalarType::Float: *tensor.data<float>() = static_cast<float>(value); break;
      case ScalarType::Double: *tensor.data<double>() = value; break;
      case ScalarType::Long: *tensor.data<int64_t>() = arg.is_int() ? arg.to_int() : static_cast<int64_t>(value); break;
      case ScalarType::Int: *tensor.data<int32_t>() = static_cast<int32_t>(value); break;
      case ScalarType::Bool: *tensor.data<bool>() = value != 0; break;
      default: throw AotError(frame_.where() + ": cannot pass the number " + to_string(arg) + " as a " + runtime::to_string(dtype) + " tensor");
    }
    return tensor;
  }

  CallFrame& frame_;
  const std::function<const NodeValue&(const Node*)>& lookup_;
  std::optional<ScalarType> result_dtype_;
};

std::vector<HostTensor> allocate_outputs(const Node& node, const SymbolBindings& bindings) {
  std::vector<TensorMeta> metas;
  if (const auto* one = std::get_if<TensorMeta>(&node.meta.val)) metas.push_back(*one);
  else if (const auto* many = std::get_if<std::vector<TensorMeta>>(&node.meta.val)) metas = *many;
  else throw AotError("node '" + node.name() + "' has no tensor meta to size its output");
  std::vector<HostTensor> outputs;
  for (const TensorMeta& meta : metas) {
    try {
      outputs.push_back(HostTensor::zeros(meta.dtype, meta.concrete_sizes(bindings)));
    } catch (const AotError& error) {
      throw AotError("node '" + node.name() + "': cannot size output " + meta.to_string() + ": " + error.what());
    }
  }
  return outputs;
}

// A view op ("aten::permute.default") runs as its functional copy
// ("aten::permute_copy.default"), named by PyTorch's convention, as
// ExecuTorch's edge dialect does; other ops run as themselves.
const OpSchema& runnable_schema(const OpSchema& schema) {
  // "a" for one view, "a -> *" for a list of views (split_with_sizes).
  if (!schema.out_variant.empty() || schema.arguments.empty() ||
      (schema.arguments[0].alias != "a" && schema.arguments[0].alias != "a -> *")) {
    return schema;
  }
  const std::string name = schema.name + "_copy." + (schema.overload.empty() ? "default" : schema.overload);
  const OpSchema* copy = find_op_schema(name);
  return copy != nullptr && !copy->out_variant.empty() ? *copy : schema;
}

}  // namespace

NodeValue call_out_variant_kernel(const Node& node, const std::vector<Argument>& bound_args,
                                  const std::function<const NodeValue&(const Node*)>& lookup,
                                  const SymbolBindings& bindings) {
  const OpSchema& original = get_op_schema(node.target());
  const OpSchema& schema = runnable_schema(original);
  const std::string where = "node '" + node.name() + "' (" + schema.qualified_name() + ")";
  if (schema.out_variant.empty()) {
    throw AotError(where + ": the op has no out-variant kernel" +
                   (schema.is_core ? std::string() : " (it is not a core ATen op: decompose the program first)"));
  }
  const OpSchema& out_schema = get_op_schema(schema.out_variant);
  (void)kernels::portable::register_portable_kernels();
  auto kernel = runtime::get_op_function_from_registry(schema.out_variant.c_str());
  if (!kernel.ok()) throw AotError(where + ": no kernel is registered for '" + schema.out_variant + "'");

  std::vector<HostTensor> outputs = allocate_outputs(node, bindings);
  CallFrame frame(where);
  std::optional<ScalarType> result_dtype;
  if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val)) result_dtype = meta->dtype;
  Boxer boxer(frame, lookup, result_dtype);
  std::vector<EValue*> stack;
  std::vector<EValue*> out_values;
  size_t next_out = 0;
  for (const SchemaArgument& param : out_schema.arguments) {
    if (param.is_out) {
      if (param.type.is_list) {
        std::vector<EValue*> items;
        while (next_out < outputs.size()) items.push_back(frame.add(EValue(frame.tensor(outputs[next_out++]))));
        out_values.push_back(frame.add(frame.boxed_list<runtime::Tensor>(std::move(items))));
      } else {
        if (next_out >= outputs.size()) throw AotError(where + ": meta has fewer outputs than the out-variant");
        out_values.push_back(frame.add(EValue(frame.tensor(outputs[next_out++]))));
      }
      stack.push_back(out_values.back());
      continue;
    }
    // bound_args follow the node's own op, which may be the view behind `schema`.
    const SchemaArgument* functional = original.find_argument(param.name);
    if (functional == nullptr) throw AotError(where + ": out-variant argument '" + param.name + "' has no counterpart");
    const size_t index = static_cast<size_t>(functional - original.arguments.data());
    stack.push_back(frame.add(boxer.box(bound_args.at(index), param.type, param.name)));
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
  NodeValue result;
  result.is_list = std::holds_alternative<std::vector<TensorMeta>>(node.meta.val);
  for (HostTensor& output : outputs) result.values.emplace_back(std::move(output));
  return result;
}

}  // namespace kiln::aot
