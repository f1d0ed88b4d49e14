#include "aot/emit/emitter.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include "aot/delegate/lowered_backend_module.h"
#include "aot/emit/tree_spec_json.h"
#include "aot/ir/c10_enums.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
#include "aot/ir/shape_bounds.h"

namespace kiln::aot {

namespace fb = executorch_flatbuffer;

namespace {

std::string where_of(const Node& node) { return "node '" + node.name() + "' (" + node.target() + ")"; }

// Where a value comes from, for error messages, which are built only when
// one is thrown: a node, and maybe which of its arguments.
struct Where {
  const Node* node = nullptr;
  const std::string* argument = nullptr;
  const char* what = nullptr;  // instead of a node: "the graph's output"

  std::string text() const {
    if (what != nullptr) return what;
    return where_of(*node) + (argument != nullptr ? " argument '" + *argument + "'" : "");
  }
};

template <typename T>
fb::EValueT make_value(T&& payload) {
  fb::EValueT value;
  value.val.Set(std::forward<T>(payload));
  return value;
}

fb::IntT int_payload(int64_t v) {
  fb::IntT payload;
  payload.int_val = v;
  return payload;
}

// Literal scalars are deduplicated: a kernel never writes into an argument
// that is not an out tensor, so equal literals can share one value.
struct LiteralKey {
  int kind;  // 0 none, 1 int, 2 double (bits), 3 bool, 4 string
  int64_t bits;
  std::string text;
  bool operator<(const LiteralKey& other) const {
    return std::tie(kind, bits, text) < std::tie(other.kind, other.bits, other.text);
  }
};

// Constant tensor data by content hash -> its data_buffer_idx values; shared
// by the methods of one program, so that a weight two methods read is stored once.
using ConstantsByHash = std::unordered_map<size_t, std::vector<uint32_t>>;

class MethodEmitter {
 public:
  MethodEmitter(const ExportedProgram& program, const EmitterMemoryPlan& plan, EmitterOutput& output,
                ConstantsByHash& constants_by_hash, fb::ExecutionPlanT& method)
      : program_(program),
        plan_(plan),
        output_(output),
        debug_(output.debug_maps[method.name]),
        constants_by_hash_(constants_by_hash),
        method_(method) {}

  void emit() {
    collect_mutations();
    values_.reserve(program_.graph().size());  // no rehash of a large program's values
    method_.chains.push_back(std::make_unique<fb::ChainT>());
    chain_ = method_.chains.back().get();
    size_t placeholder_index = 0;
    const auto& specs = program_.graph_signature().input_specs;
    for (const Node* node : program_.graph()) {
      switch (node->op()) {
        case OpKind::Placeholder:
          if (placeholder_index >= specs.size()) throw AotError(where_of(*node) + ": placeholder without an input spec");
          emit_placeholder(*node, specs[placeholder_index++]);
          break;
        case OpKind::GetAttr:
          break;  // the delegate call that uses it reads the attribute
        case OpKind::CallFunction:
          emit_call(*node);
          break;
        case OpKind::Output:
          emit_outputs(*node);
          break;
      }
    }
    method_.non_const_buffer_sizes = plan_.non_const_buffer_sizes;
  }

 private:
  // --- values -------------------------------------------------------------

  int32_t add_value(fb::EValueT value) {
    method_.values.push_back(std::make_unique<fb::EValueT>(std::move(value)));
    if (method_.values.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      throw AotError("the program has more values than a .pte can index");
    }
    return static_cast<int32_t>(method_.values.size() - 1);
  }

  int32_t literal(LiteralKey key, fb::EValueT value) {
    auto [it, inserted] = literals_.emplace(std::move(key), 0);
    if (inserted) it->second = add_value(std::move(value));
    return it->second;
  }
  int32_t null_value() { return literal({0, 0, ""}, make_value(fb::NullT{})); }
  int32_t int_value(int64_t v) { return literal({1, v, ""}, make_value(int_payload(v))); }
  int32_t double_value(double v) {
    int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    fb::DoubleT payload;
    payload.double_val = v;
    return literal({2, bits, ""}, make_value(std::move(payload)));
  }
  int32_t bool_value(bool v) {
    fb::BoolT payload;
    payload.bool_val = v;
    return literal({3, v, ""}, make_value(std::move(payload)));
  }
  int32_t string_value(const std::string& v) {
    fb::StringT payload;
    payload.string_val = v;
    return literal({4, 0, v}, make_value(std::move(payload)));
  }

  fb::TensorT tensor_of(const TensorMeta& meta, const Node& node) {
    fb::TensorT tensor;
    tensor.scalar_type = static_cast<fb::ScalarType>(meta.dtype);
    const std::vector<int64_t> sizes = meta.is_static() ? meta.static_sizes()
                                                        : upper_bound_sizes(meta, program_.range_constraints(), where_of(node));
    for (int64_t size : sizes) {
      if (size > std::numeric_limits<int32_t>::max()) {
        throw AotError(where_of(node) + ": size " + std::to_string(size) + " of " + meta.to_string() +
                       " does not fit the format's 32-bit sizes");
      }
      tensor.sizes.push_back(static_cast<int32_t>(size));
    }
    tensor.dim_order = meta.resolved_dim_order();
    tensor.requires_grad = meta.requires_grad;
    tensor.shape_dynamism = meta.is_static() ? fb::TensorShapeDynamism::STATIC : fb::TensorShapeDynamism::DYNAMIC_BOUND;
    return tensor;
  }

  void place(fb::TensorT& tensor, const Node& node, int64_t output_index = -1) {
    const PlannedAllocation* allocation = plan_.find(&node, output_index);
    if (allocation == nullptr) return;
    tensor.allocation_info = std::make_unique<fb::AllocationDetailsT>();
    tensor.allocation_info->memory_id = allocation->memory_id;
    tensor.allocation_info->memory_offset_low = static_cast<uint32_t>(allocation->offset);
    tensor.allocation_info->memory_offset_high = static_cast<uint32_t>(allocation->offset >> 32);
  }

  // A tensor that must live in planned memory: a node (or element
  // `output_index` of one) the plan has to place.
  int32_t planned_tensor(const Node& node, const TensorMeta& meta, int64_t output_index = -1) {
    fb::TensorT tensor = tensor_of(meta, node);
    place(tensor, node, output_index);
    if (!tensor.allocation_info) throw AotError(where_of(node) + ": the memory plan gives this tensor no place");
    return add_value(make_value(std::move(tensor)));
  }

  // Constant data, deduplicated by content.
  uint32_t constant_index(const HostTensor& tensor) {
    HostTensor data = tensor.is_contiguous() ? tensor : tensor.clone();
    const std::string_view bytes(static_cast<const char*>(data.data()), data.nbytes());
    const size_t hash = std::hash<std::string_view>{}(bytes);
    for (uint32_t index : constants_by_hash_[hash]) {
      const auto& existing = output_.program.constant_data[index];
      if (existing.size() == bytes.size() && std::memcmp(existing.data(), bytes.data(), bytes.size()) == 0) return index;
    }
    output_.kept_tensors.push_back(data);
    output_.program.constant_data.emplace_back(static_cast<const uint8_t*>(data.data()), data.nbytes());
    const auto index = static_cast<uint32_t>(output_.program.constant_data.size() - 1);
    constants_by_hash_[hash].push_back(index);
    return index;
  }

  // --- placeholders -------------------------------------------------------

  void collect_mutations() {
    for (const OutputSpec& spec : program_.graph_signature().output_specs) {
      if (spec.kind == OutputKind::BufferMutation) mutated_buffers_.insert(spec.target);
    }
  }

  void emit_placeholder(const Node& node, const InputSpec& spec) {
    const std::string where = where_of(node);
    if (spec.kind == InputKind::Token) {
      values_[&node] = {null_value()};
      return;
    }
    if (spec.kind == InputKind::CustomObj) throw AotError(where + ": custom objects cannot be written to a .pte");
    if (spec.kind == InputKind::UserInput) {
      values_[&node] = {user_input(node, spec)};
      method_.inputs.push_back(values_[&node][0]);
      return;
    }
    const TensorMeta& meta = node.meta.tensor();
    const HostTensor* data = program_.find_lifted_tensor(spec);
    if (data == nullptr) throw AotError(where + ": " + to_string(spec.kind) + " '" + spec.target + "' has no data");
    fb::TensorT tensor = tensor_of(meta, node);
    if (spec.kind == InputKind::Buffer && mutated_buffers_.count(spec.target)) {
      // A buffer the program writes: planned memory with its initial value
      // in the mutable data segment, so that the first run sees it.
      place(tensor, node);
      if (!tensor.allocation_info) throw AotError(where + ": mutated buffer '" + spec.target + "' is not memory-planned");
      tensor.data_buffer_idx = mutable_index(*data);
      tensor.extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
      tensor.extra_tensor_info->mutable_data_segments_idx = 0;
      tensor.extra_tensor_info->fully_qualified_name = spec.target;
      tensor.extra_tensor_info->location = fb::TensorDataLocation::SEGMENT;
    } else {
      tensor.data_buffer_idx = constant_index(*data);
      tensor.requires_grad = spec.kind == InputKind::Parameter;
    }
    values_[&node] = {add_value(make_value(std::move(tensor)))};
  }

  int32_t user_input(const Node& node, const InputSpec& spec) {
    if (std::holds_alternative<SymExpr>(node.meta.val)) return add_value(make_value(int_payload(0)));
    if (!std::holds_alternative<TensorMeta>(node.meta.val)) {
      if (spec.arg.kind == ArgumentSpec::Kind::Constant) return emit_literal(spec.arg.constant_value, Where{&node});
      throw AotError(where_of(node) + ": a user input must be a tensor or an int");
    }
    fb::TensorT tensor = tensor_of(node.meta.tensor(), node);
    place(tensor, node);  // unplanned inputs get their data at run time
    return add_value(make_value(std::move(tensor)));
  }

  uint32_t mutable_index(const HostTensor& tensor) {
    HostTensor data = tensor.is_contiguous() ? tensor : tensor.clone();
    auto& list = output_.program.mutable_data;
    if (list.empty()) list.emplace_back();  // the reserved placeholder
    output_.kept_tensors.push_back(data);
    list.emplace_back(static_cast<const uint8_t*>(data.data()), data.nbytes());
    return static_cast<uint32_t>(list.size() - 1);
  }

  // --- calls --------------------------------------------------------------

  void emit_call(const Node& node) {
    switch (exec_kind(node)) {
      case ExecKind::Alloc: values_[&node] = {planned_tensor(node, node.meta.tensor())}; return;
      case ExecKind::View: emit_view(node); return;
      case ExecKind::GetItem:
        if (!emitted_getitems_.count(&node)) emit_getitem(node);
        return;
      case ExecKind::DelegateCall: emit_delegate_call(node); return;
      case ExecKind::CopyInPlace:
      case ExecKind::SymSize:
      case ExecKind::KernelCall: emit_kernel_call(node); return;
    }
  }

  // A view is its base's bytes under other sizes: a tensor value with the
  // base's allocation, and no instruction.
  void emit_view(const Node& node) {
    const std::string where = where_of(node);
    if (node.args().empty() || !node.args()[0].is_node()) throw AotError(where + ": memory.view needs a base");
    const int32_t base = single_value(*node.args()[0].node(), Where{&node});
    const auto* base_tensor = method_.values[static_cast<size_t>(base)]->val.AsTensor();
    if (base_tensor == nullptr || !base_tensor->allocation_info) {
      throw AotError(where + ": the base of a memory.view must be a planned tensor");
    }
    fb::TensorT tensor = tensor_of(node.meta.tensor(), node);
    tensor.allocation_info = std::make_unique<fb::AllocationDetailsT>(*base_tensor->allocation_info);
    values_[&node] = {add_value(make_value(std::move(tensor)))};
  }

  void emit_getitem(const Node& node) {
    if (node.args().size() != 2 || !node.args()[0].is_node() || !node.args()[1].is_int()) {
      throw AotError(where_of(node) + ": getitem expects (node, index)");
    }
    const Node* source = node.args()[0].node();
    const int64_t index = node.args()[1].to_int();
    if (exec_kind(*source) == ExecKind::DelegateCall) {
      // A delegate's outputs are tensors of their own, placed by the plan
      // under the getitem that takes each one.
      values_[&node] = {planned_tensor(node, node.meta.tensor())};
      return;
    }
    const auto& items = values_of(*source, Where{&node});
    if (index < 0 || static_cast<size_t>(index) >= items.size()) {
      throw AotError(where_of(node) + ": getitem index " + std::to_string(index) + " is out of range");
    }
    values_[&node] = {items[static_cast<size_t>(index)]};
  }

  const std::vector<int32_t>& values_of(const Node& node, const Where& where) {
    auto it = values_.find(&node);
    if (it == values_.end()) throw AotError(where.text() + ": uses '" + node.name() + "', which has no value yet");
    return it->second;
  }

  int32_t single_value(const Node& node, const Where& where) {
    const auto& items = values_of(node, where);
    if (items.size() != 1) {
      throw AotError(where.text() + ": '" + node.name() + "' has several outputs (take one with getitem)");
    }
    return items[0];
  }

  int32_t emit_literal(const Argument& arg, const Where& where) {
    if (arg.is_none()) return null_value();
    if (arg.is_int()) return int_value(arg.to_int());
    if (arg.is_double()) return double_value(arg.to_double());
    if (arg.is_bool()) return bool_value(arg.to_bool());
    if (arg.is_string()) return string_value(arg.to_string());
    if (const auto* dtype = std::get_if<ScalarType>(&arg.value)) return int_value(static_cast<int64_t>(*dtype));
    if (const auto* layout = std::get_if<Layout>(&arg.value)) {
      if (auto number = c10_layout(*layout)) return int_value(*number);
    }
    if (const auto* format = std::get_if<MemoryFormat>(&arg.value)) {
      if (auto number = c10_memory_format(*format)) return int_value(*number);
    }
    if (std::holds_alternative<Device>(arg.value)) return null_value();
    throw AotError(where.text() + ": cannot write the argument " + to_string(arg) + " to a .pte");
  }

  int32_t emit_argument(const Argument& arg, const SchemaType& type, const Where& where) {
    using Kind = SchemaType::Kind;
    if (arg.is_node()) return single_value(*arg.node(), where);
    if (arg.is_none() && type.kind == Kind::Tensor && !type.optional && !type.is_list) return empty_tensor();
    if (!arg.is_list()) return emit_literal(arg, where);
    const ArgumentList& items = arg.list();
    if (type.kind == Kind::Tensor) {
      std::vector<int32_t> ids;
      for (const Argument& item : items) {
        if (item.is_none() && type.list_of_optional) ids.push_back(-1);
        else if (item.is_node()) ids.push_back(single_value(*item.node(), where));
        else throw AotError(where.text() + ": a tensor list holds " + to_string(item));
      }
      if (type.list_of_optional) {
        fb::OptionalTensorListT list;
        list.items = std::move(ids);
        return add_value(make_value(std::move(list)));
      }
      fb::TensorListT list;
      list.items = std::move(ids);
      return add_value(make_value(std::move(list)));
    }
    if (type.kind == Kind::Float || type.kind == Kind::SymFloat) {
      fb::DoubleListT list;
      for (const Argument& item : items) {
        if (!item.is_int() && !item.is_double()) throw AotError(where.text() + ": a float list holds " + to_string(item));
        list.items.push_back(item.is_int() ? static_cast<double>(item.to_int()) : item.to_double());
      }
      return add_value(make_value(std::move(list)));
    }
    if (type.kind == Kind::Bool) {
      fb::BoolListT list;
      for (const Argument& item : items) {
        if (!item.is_bool()) throw AotError(where.text() + ": a bool list holds " + to_string(item));
        list.items.push_back(item.to_bool());
      }
      return add_value(make_value(std::move(list)));
    }
    // Int lists are boxed: each item is the index of an Int value, so that a
    // size computed at run time (sym_size) can take part.
    fb::IntListT list;
    for (const Argument& item : items) {
      if (item.is_node()) list.items.push_back(single_value(*item.node(), where));
      else if (item.is_int()) list.items.push_back(int_value(item.to_int()));
      else throw AotError(where.text() + ": an int list holds " + to_string(item));
    }
    return add_value(make_value(std::move(list)));
  }

  // What ExecuTorch passes for None where a kernel takes a Tensor.
  int32_t empty_tensor() {
    if (empty_tensor_ < 0) {
      fb::TensorT tensor;
      tensor.scalar_type = fb::ScalarType::BYTE;
      tensor.sizes = {0};
      tensor.dim_order = {0};
      empty_tensor_ = add_value(make_value(std::move(tensor)));
    }
    return empty_tensor_;
  }

  int32_t operator_index(const OpSchema& schema) {
    const std::string overload = schema.overload == "default" ? "" : schema.overload;
    const std::string key = schema.name + "." + overload;
    auto [it, inserted] = operators_.emplace(key, static_cast<int32_t>(method_.operators.size()));
    if (inserted) {
      auto op = std::make_unique<fb::OperatorT>();
      op->name = schema.name;
      op->overload = overload;
      method_.operators.push_back(std::move(op));
    }
    return it->second;
  }

  // The KernelCall of an op: every schema argument (defaults filled in), then
  // one return slot: the out tensor, a TensorList of several outs, the
  // written argument of an in-place op, or a fresh Int for a symbolic int.
  void emit_kernel_call(const Node& node) {
    const std::string where = where_of(node);
    const OpSchema* schema = find_op_schema(node.target());
    if (schema == nullptr) throw AotError(where + ": no op schema; the emitter writes only ops of the op table");
    const std::vector<Argument> bound = bind_arguments(*schema, node.args(), node.kwargs(), where, /*include_out=*/true);
    fb::KernelCallT call;
    call.op_index = operator_index(*schema);
    std::vector<int32_t> outs;
    std::vector<int32_t> written;
    for (size_t i = 0; i < schema->arguments.size(); ++i) {
      const SchemaArgument& param = schema->arguments[i];
      const int32_t id = emit_argument(bound[i], param.type, Where{&node, &param.name});
      call.args.push_back(id);
      if (param.is_out) {
        if (bound[i].is_list()) {
          for (const Argument& item : bound[i].list()) outs.push_back(single_value(*item.node(), Where{&node}));
        } else {
          outs.push_back(id);
        }
      } else if (param.is_write()) {
        written.push_back(id);
      }
    }
    int32_t returned;
    if (schema->is_out_variant()) {
      if (outs.size() == 1 && !schema->arguments.back().type.is_list) {
        returned = outs[0];
      } else {
        fb::TensorListT list;
        list.items = outs;
        returned = add_value(make_value(std::move(list)));
      }
      values_[&node] = outs;
    } else if (!written.empty()) {
      returned = written[0];
      values_[&node] = {written[0]};
    } else if (std::holds_alternative<SymExpr>(node.meta.val)) {
      returned = add_value(make_value(int_payload(0)));  // the kernel writes the value at run time
      values_[&node] = {returned};
    } else {
      throw AotError(where + ": a functional op in the executable form (lower the program to out variants first)");
    }
    call.args.push_back(returned);
    add_instruction(std::move(call), node);
  }

  template <typename Call>
  size_t add_instruction(Call call, const Node& node) {
    auto instruction = std::make_unique<fb::InstructionT>();
    instruction->instr_args.Set(std::move(call));
    chain_->instructions.push_back(std::move(instruction));
    const size_t index = chain_->instructions.size() - 1;
    if (node.meta.debug_handle) debug_.debug_handle_map[index] = {*node.meta.debug_handle};
    return index;
  }

  // --- delegates ----------------------------------------------------------

  void emit_delegate_call(const Node& node) {
    const std::string where = where_of(node);
    if (node.args().empty() || !node.args()[0].is_node() || !node.args()[0].node()->is_get_attr()) {
      throw AotError(where + ": expects a get_attr of a lowered module first");
    }
    const std::string& name = node.args()[0].node()->target();
    auto attribute = program_.find_attribute(name);
    auto lowered = std::dynamic_pointer_cast<const LoweredBackendModule>(attribute);
    if (!lowered) throw AotError(where + ": attribute '" + name + "' is not a lowered backend module");
    output_.kept_modules.push_back(attribute);

    auto delegate = std::make_unique<fb::BackendDelegateT>();
    delegate->id = lowered->backend_id();
    delegate->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
    delegate->processed->location = fb::DataLocation::INLINE;
    delegate->processed->index = static_cast<uint32_t>(output_.program.delegate_data.size());
    output_.program.delegate_data.emplace_back(lowered->processed_bytes());
    for (const CompileSpec& spec : lowered->compile_specs()) {
      auto entry = std::make_unique<fb::CompileSpecT>();
      entry->key = spec.key;
      entry->value = spec.value;
      delegate->compile_specs.push_back(std::move(entry));
    }
    add_named_data(*lowered);
    fb::DelegateCallT call;
    call.delegate_index = static_cast<int32_t>(method_.delegates.size());
    method_.delegates.push_back(std::move(delegate));

    for (size_t i = 1; i < node.args().size(); ++i) {
      const Argument& arg = node.args()[i];
      call.args.push_back(arg.is_node() ? single_value(*arg.node(), Where{&node}) : emit_literal(arg, Where{&node}));
    }
    // The outputs: each taken by a getitem, which the plan placed.
    const auto* metas = std::get_if<std::vector<TensorMeta>>(&node.meta.val);
    const size_t num_outputs = metas ? metas->size() : 0;
    std::vector<int32_t> outputs(num_outputs, -1);
    for (const Node* user : node.users()) {
      if (!is_call_of(*user, ExecKind::GetItem)) {
        throw AotError(where + ": its result is used by '" + user->name() + "', not a getitem");
      }
      emit_getitem(*user);
      const int64_t index = user->args()[1].to_int();
      if (index < 0 || static_cast<size_t>(index) >= num_outputs) throw AotError(where + ": getitem index out of range");
      outputs[static_cast<size_t>(index)] = values_[user][0];
      emitted_getitems_.insert(user);
    }
    for (size_t i = 0; i < num_outputs; ++i) {
      // An output no getitem takes still needs memory to be written to.
      if (outputs[i] < 0) outputs[i] = planned_tensor(node, (*metas)[i], static_cast<int64_t>(i));
      call.args.push_back(outputs[i]);
    }
    const size_t instruction = add_instruction(std::move(call), node);
    std::vector<int64_t> handles;
    for (const Node* inner : lowered->original_module().graph()) {
      // Only its ops: a placeholder keeps the meta of the outer node it stands for.
      if (inner->is_call_function() && inner->meta.debug_handle) handles.push_back(*inner->meta.debug_handle);
    }
    std::sort(handles.begin(), handles.end());
    handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
    debug_.debug_handle_map[instruction] = handles;
    DelegateDebugInfo info{lowered->backend_id(), {}};
    for (const auto& [id, mapped] : lowered->meta.debug_handle_map) info.delegate_map[to_string(id)] = mapped;
    debug_.delegate_map[instruction] = std::move(info);
  }

  void add_named_data(const LoweredBackendModule& lowered) {
    const NamedDataStoreOutput& store = lowered.named_data_store_output();
    for (const auto& [key, entry] : store.pte_data) {
      const auto& bytes = store.buffers.at(entry.buffer_index);
      output_.program.named_data.push_back({key, pte::Bytes(bytes), entry.alignment});
    }
  }

  // --- outputs ------------------------------------------------------------

  void emit_outputs(const Node& node) {
    const auto& specs = program_.graph_signature().output_specs;
    const ArgumentList& results = node.args().at(0).list();
    for (size_t i = 0; i < results.size(); ++i) {
      const OutputKind kind = i < specs.size() ? specs[i].kind : OutputKind::UserOutput;
      // A buffer's new value was written back into the buffer by the program.
      if (kind == OutputKind::BufferMutation || kind == OutputKind::Token) continue;
      const Argument& result = results[i];
      const Where where{nullptr, nullptr, "the graph's output"};
      method_.outputs.push_back(result.is_node() ? single_value(*result.node(), where) : emit_literal(result, where));
    }
  }

  const ExportedProgram& program_;
  const EmitterMemoryPlan& plan_;
  EmitterOutput& output_;
  MethodDebugMaps& debug_;
  ConstantsByHash& constants_by_hash_;
  fb::ExecutionPlanT& method_;
  fb::ChainT* chain_ = nullptr;
  std::unordered_map<const Node*, std::vector<int32_t>> values_;
  std::map<LiteralKey, int32_t> literals_;
  std::map<std::string, int32_t> operators_;
  std::set<std::string> mutated_buffers_;
  std::set<const Node*> emitted_getitems_;
  int32_t empty_tensor_ = -1;
};

void emit_method(const MethodToEmit& method, EmitterOutput& output, ConstantsByHash& constants_by_hash) {
  const ExportedProgram& program = *method.program;
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan->name = method.name;
  plan->container_meta_type = std::make_unique<fb::ContainerMetadataT>();
  plan->container_meta_type->encoded_inp_str = encode_in_spec(program);
  plan->container_meta_type->encoded_out_str = encode_out_spec(program);
  MethodEmitter(program, *method.plan, output, constants_by_hash, *plan).emit();
  output.program.program.execution_plan.push_back(std::move(plan));
}

}  // namespace

const MethodDebugMaps& EmitterOutput::debug_maps_of(const std::string& method) const {
  const auto found = debug_maps.find(method);
  if (found != debug_maps.end()) return found->second;
  std::string known;
  for (const auto& [name, maps] : debug_maps) known += (known.empty() ? "" : ", ") + name;
  throw AotError("the emitted program has no program method '" + method + "' (it has: " + known + ")");
}

EmitterOutput emit_program(const ExportedProgram& program, const EmitterMemoryPlan& plan, const std::string& method_name) {
  return emit_program({MethodToEmit{method_name, &program, &plan}});
}

EmitterOutput emit_program(const std::vector<MethodToEmit>& methods, const ConstantMethods& constant_methods) {
  std::set<std::string> names;
  const auto claim = [&](const std::string& name, const char* kind) {
    if (name.empty()) throw AotError(std::string("a ") + kind + " has an empty name");
    if (!names.insert(name).second) {
      throw AotError(std::string("two methods are named '") + name + "' (the second a " + kind + ")");
    }
  };
  std::vector<const MethodToEmit*> sorted;
  for (const MethodToEmit& method : methods) {
    claim(method.name, "program method");
    if (method.program == nullptr || method.plan == nullptr) {
      throw AotError("program method '" + method.name + "' has no program or no memory plan");
    }
    sorted.push_back(&method);
  }
  for (const auto& [name, value] : constant_methods) claim(name, "constant method");
  // ExecuTorch's order: program methods by name, then the constant methods.
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->name < b->name; });

  EmitterOutput output;
  ConstantsByHash constants_by_hash;
  for (const MethodToEmit* method : sorted) {
    try {
      emit_method(*method, output, constants_by_hash);
    } catch (const AotError& error) {
      if (methods.size() == 1) throw;
      throw AotError("method '" + method->name + "': " + error.what());
    }
  }
  for (const auto& [name, value] : constant_methods) {
    output.program.program.execution_plan.push_back(emit_constant_method(name, value));
  }
  return output;
}

}  // namespace kiln::aot
