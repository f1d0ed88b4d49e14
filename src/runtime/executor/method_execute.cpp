// Method's running half: execute walks each chain (kernel calls, delegate
// calls, moves, jumps, frees), resetting the temp allocator after every
// instruction and bounding the steps a chain may take; set_input checks a
// caller's tensor against the declared dtype, rank, sizes (or bounds) and dim
// order before resizing and copying or sharing it; outputs are read in place.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "runtime/core/log.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_internal.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;
using method_detail::operator_name;

namespace {

/// A JumpFalse loop that never ends is a bad program, not a hang.
constexpr size_t kMaxInstructionsPerExecute = 10000000;

/// "[2, 3]" into `buffer`.
void format_sizes(const SizesType* sizes, size_t dim, char* buffer, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, size, "["));
  for (size_t d = 0; d < dim && used < size; ++d) {
    used += static_cast<size_t>(std::snprintf(buffer + used, size - used, d > 0 ? ", %d" : "%d", sizes[d]));
  }
  if (used < size) std::snprintf(buffer + used, size - used, "]");
}

}  // namespace

// ---- running ---------------------------------------------------------------

Error Method::execute() {
  if (!initialized_) {
    KILN_LOG(Error, "Method::execute: the method is not loaded");
    return Error::InvalidState;
  }
  for (size_t i = 0; i < inputs_size(); ++i) {
    if (!input_set_[i]) {
      KILN_LOG(Error, "Method::execute: input %zu was never set", i);
      return Error::InvalidState;
    }
  }
  if (event_tracer_ != nullptr) event_tracer_->create_event_block(plan_->name() == nullptr ? "" : plan_->name()->c_str());
  for (size_t c = 0; c < num_chains_; ++c) KILN_TRY(execute_chain(c));
  return Error::Ok;
}

Error Method::execute_chain(size_t chain_index) {
  const Chain& chain = chains_[chain_index];
  MemoryAllocator* temp = memory_manager_->temp_allocator();
  size_t pc = 0;
  for (size_t steps = 0; pc < chain.num_instructions; ++steps) {
    if (steps == kMaxInstructionsPerExecute) {
      KILN_LOG(Error, "Method::execute: chain %zu ran %zu instructions without ending", chain_index, steps);
      return Error::InvalidProgram;
    }
    size_t next = pc + 1;
    const uint64_t start_ns = event_tracer_ != nullptr ? trace_clock_ns() : 0;
    const Error error = execute_instruction(chain.instructions[pc], chain_index, pc, &next);
    if (event_tracer_ != nullptr) log_instruction(chain.instructions[pc], chain_index, pc, start_ns);
    if (temp != nullptr) temp->reset();
    if (error != Error::Ok) return error;
    pc = next;
  }
  return Error::Ok;
}

// Kernel and delegate calls, each with the operator's name or the backend's id.
void Method::log_instruction(const Instruction& instruction, size_t chain, size_t index, uint64_t start_ns) const {
  InstructionEvent event;
  event.chain = chain;
  event.instruction = index;
  event.start_ns = start_ns;
  event.end_ns = trace_clock_ns();
  char name[256];
  if (instruction.kind == fb::InstructionArguments::KernelCall) {
    if (!operator_name(at(plan_->operators(), instruction.op_index), name, sizeof name)) name[0] = '\0';
    event.name = name;
    // The boxed convention appends the return value to the arguments.
    if (instruction.args.size() > 0) event.output = instruction.args[instruction.args.size() - 1];
  } else if (instruction.kind == fb::InstructionArguments::DelegateCall) {
    event.name = delegates_[instruction.first].id;
    event.delegate = static_cast<int64_t>(instruction.first);
  } else {
    return;  // moves, jumps and frees are bookkeeping
  }
  event_tracer_->log_instruction(event);
}

Error Method::execute_instruction(const Instruction& instruction, size_t chain, size_t index, size_t* next) {
  switch (instruction.kind) {
    case fb::InstructionArguments::KernelCall: {
      KernelRuntimeContext context(memory_manager_->temp_allocator());
      instruction.kernel(context, instruction.args);
      if (context.failure_state() == Error::Ok) return Error::Ok;
      char name[256];
      if (!operator_name(at(plan_->operators(), instruction.op_index), name, sizeof name)) name[0] = '\0';
      KILN_LOG(Error, "Method::execute: instruction %zu (%s) failed: %s (%s)", index, name,
               context.failure_message()[0] != '\0' ? context.failure_message() : "no message",
               to_string(context.failure_state()));
      return context.failure_state();
    }
    case fb::InstructionArguments::DelegateCall: {
      const DelegateEntry& delegate = delegates_[instruction.first];
      DelegateEvent call;
      call.chain = chain;
      call.instruction = index;
      call.delegate = instruction.first;
      BackendExecutionContext context(memory_manager_->temp_allocator(),
                                      plan_->name() == nullptr ? "" : plan_->name()->c_str(), event_tracer_, call);
      const Error error = delegate.backend->execute(context, delegate.handle, instruction.args);
      if (error != Error::Ok) {
        KILN_LOG(Error, "Method::execute: instruction %zu (delegate %zu, backend '%s') failed: %s", index,
                 instruction.first, delegate.id, to_string(error));
      }
      return error;
    }
    case fb::InstructionArguments::MoveCall:
      values_[instruction.second] = values_[instruction.first];
      return Error::Ok;
    case fb::InstructionArguments::JumpFalseCall: {
      bool condition = false;
      KILN_TRY(jump_condition(values_[instruction.first], index, &condition));
      if (!condition) *next = instruction.second;
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall:
      if (values_[instruction.first].isTensor()) {
        values_[instruction.first].toTensor().unsafeGetTensorImpl()->set_data(nullptr);
      }
      return Error::Ok;
    default:
      return Error::Internal;  // prepare_instruction let no other kind through
  }
}

Error Method::jump_condition(const EValue& value, size_t index, bool* condition) const {
  if (value.isBool()) {
    *condition = value.toBool();
    return Error::Ok;
  }
  if (value.isTensor() && value.toTensor().scalar_type() == ScalarType::Bool) {
    // True only if every element is (ExecuTorch jumps on any false element).
    const Tensor tensor = value.toTensor();
    const bool* data = tensor.const_data_ptr<bool>();
    *condition = true;
    for (ssize_t i = 0; i < tensor.numel() && *condition; ++i) *condition = data != nullptr && data[i];
    return Error::Ok;
  }
  KILN_LOG(Error, "Method::execute: instruction %zu jumps on a %s, not a Bool or a Bool tensor", index,
           to_string(value.tag()));
  return Error::InvalidProgram;
}

// ---- inputs and outputs ------------------------------------------------------

size_t Method::inputs_size() const { return size_of(plan_->inputs()); }

size_t Method::outputs_size() const { return size_of(plan_->outputs()); }

const EValue& Method::get_input(size_t index) const {
  KILN_CHECK(index < inputs_size());
  return values_[at(plan_->inputs(), index)];
}

const EValue& Method::get_output(size_t index) const {
  KILN_CHECK(index < outputs_size());
  return values_[at(plan_->outputs(), index)];
}

Error Method::get_outputs(EValue* outputs, size_t size) const {
  if (!initialized_) {
    KILN_LOG(Error, "Method::get_outputs: the method is not loaded");
    return Error::InvalidState;
  }
  if (outputs == nullptr && size > 0) {
    KILN_LOG(Error, "Method::get_outputs: no array to copy %zu outputs into", size);
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < size && i < outputs_size(); ++i) outputs[i] = get_output(i);
  return Error::Ok;
}

Error Method::set_inputs(Span<const EValue> inputs) {
  if (inputs.size() != inputs_size()) {
    KILN_LOG(Error, "Method::set_inputs: %zu inputs given, the method takes %zu", inputs.size(), inputs_size());
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < inputs.size(); ++i) KILN_TRY(set_input(inputs[i], i));
  return Error::Ok;
}

Error Method::set_input(const EValue& input, size_t index) {
  if (!initialized_) {
    KILN_LOG(Error, "Method::set_input: the method is not loaded");
    return Error::InvalidState;
  }
  if (index >= inputs_size()) {
    KILN_LOG(Error, "Method::set_input: input %zu is out of range (the method has %zu inputs)", index, inputs_size());
    return Error::InvalidArgument;
  }
  const int32_t value_index = at(plan_->inputs(), index);
  const fb::Tensor* declared = at(plan_->values(), value_index)->val_as_Tensor();
  if (declared != nullptr) {
    if (!values_[value_index].isTensor()) {  // a MoveCall put something else there
      KILN_LOG(Error, "Method::set_input: input %zu no longer holds its tensor", index);
      return Error::InvalidState;
    }
    KILN_TRY(set_tensor_input(input, index, declared, values_[value_index].toTensor()));
  } else {
    KILN_TRY(check_prim_input(input, index, values_[value_index]));
  }
  input_set_[index] = true;
  return Error::Ok;
}

Error Method::check_prim_input(const EValue& input, size_t index, const EValue& expected) const {
  bool equal = input.tag() == expected.tag();
  if (equal) {
    switch (expected.tag()) {
      case Tag::None: break;
      case Tag::Int: equal = input.toInt() == expected.toInt(); break;
      case Tag::Bool: equal = input.toBool() == expected.toBool(); break;
      case Tag::Double:
        // As ExecuTorch compares a traced float: within 1e-4 + 1e-5 relative.
        equal = std::fabs(input.toDouble() - expected.toDouble()) <= 1e-4 + 1e-5 * std::fabs(expected.toDouble());
        break;
      case Tag::String:
        equal = input.toString().size() == expected.toString().size() &&
                std::memcmp(input.toString().data(), expected.toString().data(), expected.toString().size()) == 0;
        break;
      default:
        KILN_LOG(Error, "Method::set_input: input %zu is a %s, which set_input does not take", index,
                 to_string(expected.tag()));
        return Error::NotSupported;
    }
  }
  if (!equal) {
    KILN_LOG(Error, "Method::set_input: input %zu must equal the %s the program was exported with", index,
             to_string(expected.tag()));
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error Method::set_tensor_input(const EValue& input, size_t index, const fb::Tensor* declared, Tensor target) {
  if (!input.isTensor() || input.toTensor().unsafeGetTensorImpl() == nullptr) {
    KILN_LOG(Error, "Method::set_input: input %zu must be a Tensor, got %s", index, to_string(input.tag()));
    return Error::InvalidArgument;
  }
  const Tensor given = input.toTensor();
  if (given.scalar_type() != target.scalar_type()) {
    KILN_LOG(Error, "Method::set_input: input %zu must have dtype %s, got %s", index, to_string(target.scalar_type()),
             to_string(given.scalar_type()));
    return Error::InvalidArgument;
  }
  if (given.dim() != target.dim()) {
    KILN_LOG(Error, "Method::set_input: input %zu must have %zd dims, got %zd", index, target.dim(), given.dim());
    return Error::InvalidArgument;
  }
  const SizesType* bounds = declared->sizes()->data();
  const size_t dim = static_cast<size_t>(target.dim());
  const bool dynamic = target.shape_dynamism() != TensorShapeDynamism::Static;
  for (size_t d = 0; d < dim; ++d) {
    const SizesType size = given.sizes()[d];
    if (dynamic ? size <= bounds[d] : size == bounds[d]) continue;
    char want[160], got[160];
    format_sizes(bounds, dim, want, sizeof want);
    format_sizes(given.sizes().data(), dim, got, sizeof got);
    KILN_LOG(Error, "Method::set_input: input %zu must have sizes %s%s, got %s", index, dynamic ? "up to " : "", want,
             got);
    return Error::InvalidArgument;
  }
  for (size_t d = 0; d < dim; ++d) {
    if (given.dim_order()[d] == target.dim_order()[d]) continue;
    KILN_LOG(Error, "Method::set_input: input %zu is laid out in another dim order than the program's", index);
    return Error::InvalidArgument;
  }
  if (resize_tensor(target, given.sizes()) != Error::Ok) {
    KILN_LOG(Error, "Method::set_input: input %zu cannot take the given sizes", index);
    return Error::InvalidArgument;
  }
  if (given.numel() > 0 && given.const_data_ptr() == nullptr) {
    KILN_LOG(Error, "Method::set_input: input %zu has no data", index);
    return Error::InvalidArgument;
  }
  if (declared->allocation_info() == nullptr) {
    target.unsafeGetTensorImpl()->set_data(given.mutable_data_ptr());  // shared until execute returns
  } else if (given.const_data_ptr() != target.const_data_ptr() && given.nbytes() > 0) {
    std::memcpy(target.mutable_data_ptr(), given.const_data_ptr(), given.nbytes());
  }
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* buffer, size_t size, size_t output_index) {
  if (!initialized_) {
    KILN_LOG(Error, "Method::set_output_data_ptr: the method is not loaded");
    return Error::InvalidState;
  }
  if (output_index >= outputs_size()) {
    KILN_LOG(Error, "Method::set_output_data_ptr: output %zu is out of range (the method has %zu outputs)",
             output_index, outputs_size());
    return Error::InvalidArgument;
  }
  const int32_t value_index = at(plan_->outputs(), output_index);
  const fb::Tensor* declared = at(plan_->values(), value_index)->val_as_Tensor();
  if (declared == nullptr || !values_[value_index].isTensor()) {
    KILN_LOG(Error, "Method::set_output_data_ptr: output %zu is a %s, not a Tensor", output_index,
             to_string(values_[value_index].tag()));
    return Error::InvalidArgument;
  }
  if (declared->allocation_info() != nullptr || declared->data_buffer_idx() != 0) {
    KILN_LOG(Error, "Method::set_output_data_ptr: output %zu is memory planned or constant; its data stays where it is",
             output_index);
    return Error::InvalidState;
  }
  const Tensor tensor = values_[value_index].toTensor();
  // A dynamic output may grow up to its declared (upper-bound) sizes.
  size_t needed = tensor.element_size();
  for (size_t d = 0; d < size_of(declared->sizes()); ++d) needed *= static_cast<size_t>(at(declared->sizes(), d));
  if (buffer == nullptr || size < needed) {
    KILN_LOG(Error, "Method::set_output_data_ptr: output %zu needs %zu bytes, the buffer has %zu", output_index,
             needed, buffer == nullptr ? 0 : size);
    return Error::InvalidArgument;
  }
  tensor.unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

}  // namespace kiln::runtime
