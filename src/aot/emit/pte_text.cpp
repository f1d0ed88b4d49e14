#include "aot/emit/pte_text.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/core/scalar_type.h"

namespace kiln::aot::pte {

namespace fb = executorch_flatbuffer;

namespace {

template <typename T>
std::string join(const std::vector<T>& items, const char* prefix = "") {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << prefix << +items[i];
  out << "]";
  return out.str();
}

std::string describe_tensor(const fb::TensorT& tensor) {
  std::ostringstream out;
  const auto dtype = static_cast<runtime::ScalarType>(tensor.scalar_type);
  out << "tensor " << runtime::to_string(dtype) << join(tensor.sizes);
  bool contiguous = true;
  for (size_t d = 0; d < tensor.dim_order.size(); ++d) contiguous = contiguous && tensor.dim_order[d] == d;
  if (!contiguous) out << " dim_order" << join(tensor.dim_order);
  if (tensor.shape_dynamism != fb::TensorShapeDynamism::STATIC) {
    out << (tensor.shape_dynamism == fb::TensorShapeDynamism::DYNAMIC_BOUND ? " dynamic(bound)" : " dynamic(unbound)");
  }
  if (tensor.allocation_info) {
    const auto& info = *tensor.allocation_info;
    const uint64_t offset = (static_cast<uint64_t>(info.memory_offset_high) << 32) | info.memory_offset_low;
    out << " planned(arena " << info.memory_id << " @ " << offset << ")";
    if (tensor.data_buffer_idx != 0) out << " initial=mutable[" << tensor.data_buffer_idx << "]";
  } else if (tensor.data_buffer_idx != 0) {
    out << " constant[" << tensor.data_buffer_idx << "]";
  } else {
    out << " data supplied at run time";
  }
  if (tensor.extra_tensor_info && !tensor.extra_tensor_info->fully_qualified_name.empty()) {
    out << " '" << tensor.extra_tensor_info->fully_qualified_name << "'";
    if (tensor.extra_tensor_info->location == fb::TensorDataLocation::EXTERNAL) out << " (external)";
  }
  return out.str();
}

std::string describe_instruction(const fb::ExecutionPlanT& plan, const fb::InstructionT& instruction) {
  std::ostringstream out;
  const auto& args = instruction.instr_args;
  switch (args.type) {
    case fb::InstructionArguments::KernelCall: {
      const auto* call = args.AsKernelCall();
      std::string op = "operator #" + std::to_string(call->op_index) + " (out of range)";
      if (call->op_index >= 0 && static_cast<size_t>(call->op_index) < plan.operators.size()) {
        const auto& entry = *plan.operators[static_cast<size_t>(call->op_index)];
        op = entry.name + (entry.overload.empty() ? "" : "." + entry.overload);
      }
      out << op << " " << join(call->args, "v");
      break;
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* call = args.AsDelegateCall();
      out << "delegate #" << call->delegate_index << " " << join(call->args, "v");
      break;
    }
    case fb::InstructionArguments::MoveCall:
      out << "move v" << args.AsMoveCall()->move_from << " -> v" << args.AsMoveCall()->move_to;
      break;
    case fb::InstructionArguments::JumpFalseCall:
      out << "jump_false v" << args.AsJumpFalseCall()->cond_value_index << " -> instruction "
          << args.AsJumpFalseCall()->destination_instruction;
      break;
    case fb::InstructionArguments::FreeCall:
      out << "free v" << args.AsFreeCall()->value_index;
      break;
    case fb::InstructionArguments::NONE:
      out << "(empty instruction)";
      break;
  }
  return out.str();
}

size_t instruction_count(const fb::ExecutionPlanT& plan) {
  size_t count = 0;
  for (const auto& chain : plan.chains) count += chain ? chain->instructions.size() : 0;
  return count;
}

const fb::EValueT* value_at(const fb::ExecutionPlanT& plan, int64_t index) {
  if (index < 0 || static_cast<size_t>(index) >= plan.values.size()) return nullptr;
  return plan.values[static_cast<size_t>(index)].get();
}

std::string json_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A non-tensor value as JSON would write it; nullopt for a tensor (or a list of them).
std::optional<std::string> constant_text(const fb::ExecutionPlanT& plan, const fb::EValueT* value) {
  if (value == nullptr) return std::nullopt;
  const auto& val = value->val;
  const auto list = [](const auto& items, auto&& text) {
    std::string joined = "[";
    for (size_t i = 0; i < items.size(); ++i) joined += (i ? ", " : "") + text(items[i]);
    return joined + "]";
  };
  switch (val.type) {
    case fb::KernelTypes::Null: return "null";
    case fb::KernelTypes::Int: return std::to_string(val.AsInt()->int_val);
    case fb::KernelTypes::Bool: return val.AsBool()->bool_val ? "true" : "false";
    case fb::KernelTypes::Double: return json_text(val.AsDouble()->double_val);
    case fb::KernelTypes::String: return json_text(val.AsString()->string_val);
    case fb::KernelTypes::DoubleList:
      return list(val.AsDoubleList()->items, [](double item) { return json_text(item); });
    case fb::KernelTypes::BoolList:
      return list(val.AsBoolList()->items, [](auto item) { return std::string(item ? "true" : "false"); });
    case fb::KernelTypes::IntList:  // boxed: each item is the index of an Int value
      return list(val.AsIntList()->items, [&](int64_t index) {
        const fb::EValueT* item = value_at(plan, index);
        return item != nullptr && item->val.type == fb::KernelTypes::Int ? std::to_string(item->val.AsInt()->int_val)
                                                                        : "v" + std::to_string(index) + "?";
      });
    default: return std::nullopt;
  }
}

void describe_methods(std::ostream& out, const fb::ProgramT& program) {
  out << "methods (" << program.execution_plan.size() << "):\n";
  for (const auto& plan : program.execution_plan) {
    if (plan == nullptr) continue;
    out << "  " << plan->name << ": ";
    if (const auto value = constant_method_value(*plan)) {
      out << "constant " << *value << "\n";
    } else {
      out << plan->inputs.size() << " inputs, " << plan->outputs.size() << " outputs, " << instruction_count(*plan)
          << " instructions";
      if (!plan->delegates.empty()) out << ", " << plan->delegates.size() << " delegates";
      out << "\n";
    }
  }
}

void describe_plan(std::ostream& out, const PteFile& file, const fb::ExecutionPlanT& plan, size_t max_values) {
  out << "\nmethod '" << plan.name << "': " << plan.values.size() << " values, " << plan.inputs.size()
      << " inputs, " << plan.outputs.size() << " outputs\n";
  if (const auto value = constant_method_value(plan)) out << "  constant method: " << *value << "\n";
  out << "  inputs:  " << join(plan.inputs, "v") << "\n";
  out << "  outputs: " << join(plan.outputs, "v") << "\n";
  out << "  values:\n";
  for (size_t i = 0; i < plan.values.size(); ++i) {
    if (max_values != 0 && i == max_values) {
      out << "    ... " << plan.values.size() - i << " more\n";
      break;
    }
    out << "    v" << i << ": " << (plan.values[i] ? describe_value(*plan.values[i]) : "(missing)") << "\n";
  }
  out << "  operators:\n";
  for (size_t i = 0; i < plan.operators.size(); ++i) {
    const auto& op = *plan.operators[i];
    out << "    #" << i << " " << op.name << (op.overload.empty() ? "" : "." + op.overload) << "\n";
  }
  for (size_t c = 0; c < plan.chains.size(); ++c) {
    out << "  chain " << c << ": " << plan.chains[c]->instructions.size() << " instructions\n";
    const auto& instructions = plan.chains[c]->instructions;
    for (size_t i = 0; i < instructions.size(); ++i) {
      out << "    " << i << ": " << describe_instruction(plan, *instructions[i]) << "\n";
    }
  }
  if (!plan.delegates.empty()) out << "  delegates:\n";
  for (size_t d = 0; d < plan.delegates.size(); ++d) {
    const auto& delegate = *plan.delegates[d];
    out << "    #" << d << " '" << delegate.id << "'";
    if (delegate.processed) {
      const bool in_segment = delegate.processed->location == fb::DataLocation::SEGMENT;
      size_t size = 0;
      if (in_segment && delegate.processed->index < file.program->segments.size()) {
        size = file.program->segments[delegate.processed->index]->size;
      } else if (!in_segment && delegate.processed->index < file.program->backend_delegate_data.size()) {
        size = file.program->backend_delegate_data[delegate.processed->index]->data.size();
      }
      out << ", blob " << size << " bytes " << (in_segment ? "in segment " : "inline #") << delegate.processed->index;
    }
    out << ", " << delegate.compile_specs.size() << " compile specs";
    for (const auto& spec : delegate.compile_specs) out << " {" << spec->key << ": " << spec->value.size() << " bytes}";
    out << "\n";
  }
  out << "  memory plan: " << (plan.non_const_buffer_sizes.size() > 1 ? plan.non_const_buffer_sizes.size() - 1 : 0)
      << " arenas";
  uint64_t total = 0;
  for (size_t i = 1; i < plan.non_const_buffer_sizes.size(); ++i) {
    out << (i == 1 ? ": " : ", ") << "arena " << i << " = " << plan.non_const_buffer_sizes[i] << " bytes";
    total += static_cast<uint64_t>(plan.non_const_buffer_sizes[i]);
  }
  size_t planned = 0;
  for (const auto& value : plan.values) {
    if (value && value->val.type == fb::KernelTypes::Tensor && value->val.AsTensor()->allocation_info) ++planned;
  }
  out << " (" << total << " bytes, " << planned << " planned tensors)\n";
}

}  // namespace

std::optional<std::string> constant_method_value(const fb::ExecutionPlanT& plan) {
  if (!plan.inputs.empty() || instruction_count(plan) != 0 || !plan.delegates.empty()) return std::nullopt;
  std::vector<std::string> items;
  for (int32_t output : plan.outputs) {
    std::optional<std::string> text = constant_text(plan, value_at(plan, output));
    if (!text) return std::nullopt;
    items.push_back(std::move(*text));
  }
  bool is_list = false;
  if (plan.container_meta_type) {
    // The output spec's root: "[1, {"type": "builtins.list", ...}]".
    const auto spec = nlohmann::json::parse(plan.container_meta_type->encoded_out_str, nullptr, false);
    is_list = spec.is_array() && spec.size() == 2 && spec[1].is_object() &&
              spec[1].value("type", nlohmann::json()) == "builtins.list";
  }
  if (items.size() == 1 && !is_list) return items.front();
  std::string joined;
  for (size_t i = 0; i < items.size(); ++i) joined += (i ? ", " : "") + items[i];
  return is_list ? "[" + joined + "]" : "(" + joined + ")";
}

std::string describe_value(const fb::EValueT& value) {
  const auto& val = value.val;
  switch (val.type) {
    case fb::KernelTypes::NONE: return "(no value)";
    case fb::KernelTypes::Null: return "None";
    case fb::KernelTypes::Int: return "int " + std::to_string(val.AsInt()->int_val);
    case fb::KernelTypes::Bool: return std::string("bool ") + (val.AsBool()->bool_val ? "true" : "false");
    case fb::KernelTypes::Double: {
      std::ostringstream out;
      out << "double " << val.AsDouble()->double_val;
      return out.str();
    }
    case fb::KernelTypes::Tensor: return describe_tensor(*val.AsTensor());
    case fb::KernelTypes::String: return "string '" + val.AsString()->string_val + "'";
    case fb::KernelTypes::IntList: return "int_list" + join(val.AsIntList()->items, "v");
    case fb::KernelTypes::DoubleList: return "double_list" + join(val.AsDoubleList()->items);
    case fb::KernelTypes::BoolList: {
      std::vector<int> items(val.AsBoolList()->items.begin(), val.AsBoolList()->items.end());
      return "bool_list" + join(items);
    }
    case fb::KernelTypes::TensorList: return "tensor_list" + join(val.AsTensorList()->items, "v");
    case fb::KernelTypes::OptionalTensorList: return "optional_tensor_list" + join(val.AsOptionalTensorList()->items, "v");
  }
  return "(unknown value type)";
}

std::string describe_pte(const PteFile& file, size_t max_values) {
  std::ostringstream out;
  const auto& program = *file.program;
  out << ".pte program: " << file.bytes.size() << " bytes, identifier " << kFileIdentifier << ", schema version "
      << program.version << "\n";
  if (file.header) {
    out << "extended header: program_size " << file.header->program_size << ", segment_base_offset "
        << file.header->segment_base_offset << ", segment_data_size " << file.header->segment_data_size << "\n";
  } else {
    out << "extended header: none (no segments)\n";
  }
  out << "segments: " << program.segments.size() << "\n";
  for (size_t i = 0; i < program.segments.size(); ++i) {
    std::string role;
    if (program.constant_segment && program.constant_segment->segment_index == i) role = " (constants)";
    for (const auto& mutables : program.mutable_data_segments) {
      if (mutables->segment_index == i) role = " (mutable data)";
    }
    for (const auto& named : program.named_data) {
      if (named->segment_index == i) role = " (named data '" + named->key + "')";
    }
    out << "  #" << i << " offset " << program.segments[i]->offset << ", " << program.segments[i]->size << " bytes"
        << role << "\n";
  }
  if (program.constant_segment) {
    out << "constants: " << (program.constant_segment->offsets.size() - std::min<size_t>(1, program.constant_segment->offsets.size()))
        << " tensors in segment " << program.constant_segment->segment_index << "\n";
  }
  if (!program.backend_delegate_data.empty()) {
    out << "inline delegate data: " << program.backend_delegate_data.size() << " blobs\n";
  }
  describe_methods(out, program);
  for (const auto& plan : program.execution_plan) describe_plan(out, file, *plan, max_values);
  return out.str();
}

}  // namespace kiln::aot::pte
