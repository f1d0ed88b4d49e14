// Method::load builds the values, delegates and instruction arguments of one
// execution plan in the caller's method allocator (running them, and inputs
// and outputs: method_execute.cpp).
//
// Loading, in order: planned memory is checked against the plan's buffer
// sizes; every value is parsed (method_values.cpp); delegates are initialised;
// each instruction's EValue* argument array is built with every index checked,
// each kernel resolved by name and dtype/dim-order key (every missing kernel
// logged, by the registry and with its instruction, before OperatorMissing
// is returned), and its planned tensors checked
// not to overlap in part (argument_overlap.cpp). execute touches only what
// load built and the temp allocator.
#include "runtime/executor/method.h"

#include <cstdio>
#include <cstring>
#include <new>

#include "runtime/core/log.h"
#include "runtime/executor/argument_overlap.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/method_internal.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;
using method_detail::allocate_list;
using method_detail::operator_name;

namespace method_detail {

bool operator_name(const fb::Operator* op, char* buffer, size_t size) {
  if (op == nullptr || op->name() == nullptr) return false;
  const char* overload = op->overload() == nullptr ? "" : op->overload()->c_str();
  const int written = std::snprintf(buffer, size, "%s%s%s", op->name()->c_str(), overload[0] != '\0' ? "." : "",
                                    overload);
  return written >= 0 && static_cast<size_t>(written) < size;
}

}  // namespace method_detail

namespace {

/// Kernel keys are made from at most this many tensor arguments (more: the
/// fallback kernel only).
constexpr size_t kMaxKeyedTensors = 32;

/// False (logged) unless `index` names one of `num_values` values.
bool check_value_index(int64_t index, size_t num_values, size_t chain, size_t instruction) {
  if (index >= 0 && static_cast<uint64_t>(index) < num_values) return true;
  KILN_LOG(Error, "Method::load: chain %zu instruction %zu names value %lld, out of range (%zu values)", chain,
           instruction, static_cast<long long>(index), num_values);
  return false;
}

/// An instruction's arguments as EValue pointers, in the method allocator.
Error argument_array(const flatbuffers::Vector<int32_t>* indices, EValue* values, size_t num_values,
                     MemoryAllocator* allocator, size_t chain, size_t instruction, Span<EValue*>* out) {
  const size_t n = size_of(indices);
  EValue** args = nullptr;
  KILN_TRY(allocate_list(allocator, n, "instruction arguments", &args));
  for (size_t i = 0; i < n; ++i) {
    const int32_t index = at(indices, i);
    if (!check_value_index(index, num_values, chain, instruction)) return Error::InvalidProgram;
    args[i] = &values[index];
  }
  *out = Span<EValue*>(args, n);
  return Error::Ok;
}

}  // namespace

Result<Method> Method::load(const fb::ExecutionPlan* plan, const Program* program, MemoryManager* memory_manager) {
  if (plan == nullptr || program == nullptr || memory_manager == nullptr ||
      memory_manager->method_allocator() == nullptr) {
    KILN_LOG(Error, "Method::load needs a plan, a program and a memory manager with a method allocator");
    return Error::InvalidArgument;
  }
  if (memory_manager->method_allocator() == memory_manager->temp_allocator()) {
    KILN_LOG(Error, "Method::load: the method allocator and the temp allocator must differ");
    return Error::InvalidArgument;
  }
  Method method(plan, program, memory_manager);
  const Error error = method.init();
  if (error != Error::Ok) return error;  // ~Method releases the delegates initialised so far
  return method;
}

Method::Method(Method&& other) noexcept
    : plan_(other.plan_),
      program_(other.program_),
      memory_manager_(other.memory_manager_),
      values_(other.values_),
      num_values_(other.num_values_),
      input_set_(other.input_set_),
      chains_(other.chains_),
      num_chains_(other.num_chains_),
      delegates_(other.delegates_),
      num_delegates_(other.num_delegates_),
      initialized_(other.initialized_) {
  other.delegates_ = nullptr;
  other.num_delegates_ = 0;
  other.initialized_ = false;
}

Method::~Method() {
  for (size_t i = 0; i < num_delegates_; ++i) {
    delegates_[i].backend->destroy(delegates_[i].handle);
    delegates_[i].~DelegateEntry();
  }
}

Error Method::init() {
  KILN_TRY(check_planned_memory());
  KILN_TRY(parse_values());
  KILN_TRY(check_inputs_and_outputs());
  KILN_TRY(init_delegates());
  KILN_TRY(prepare_chains());
  initialized_ = true;
  return Error::Ok;
}

Error Method::check_planned_memory() const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  const size_t needed = size_of(sizes) > 1 ? size_of(sizes) - 1 : 0;  // id 0 is reserved
  const HierarchicalAllocator* planned = memory_manager_->planned_memory();
  const size_t given = planned == nullptr ? 0 : planned->num_buffers();
  if (given < needed) {
    KILN_LOG(Error, "Method::load: the plan needs %zu planned buffers, the caller gave %zu", needed, given);
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < needed; ++i) {
    const int64_t size = at(sizes, i + 1);
    if (size < 0) {
      KILN_LOG(Error, "Method::load: planned buffer %zu has negative size %lld", i, static_cast<long long>(size));
      return Error::InvalidProgram;
    }
    if (planned->buffer(i).size() < static_cast<uint64_t>(size)) {
      KILN_LOG(Error, "Method::load: planned buffer %zu is %zu bytes, the plan needs %lld", i,
               planned->buffer(i).size(), static_cast<long long>(size));
      return Error::InvalidArgument;
    }
  }
  return Error::Ok;
}

Error Method::check_inputs_and_outputs() {
  for (const auto* list : {plan_->inputs(), plan_->outputs()}) {
    for (size_t i = 0; i < size_of(list); ++i) {
      const int32_t index = at(list, i);
      if (index < 0 || static_cast<size_t>(index) >= num_values_) {
        KILN_LOG(Error, "Method::load: %s %zu is value %d, out of range (%zu values)",
                 list == plan_->inputs() ? "input" : "output", i, index, num_values_);
        return Error::InvalidProgram;
      }
    }
  }
  KILN_TRY(allocate_list(memory_manager_->method_allocator(), inputs_size(), "input flags", &input_set_));
  for (size_t i = 0; i < inputs_size(); ++i) input_set_[i] = false;
  return Error::Ok;
}

Error Method::init_delegates() {
  const auto* delegates = plan_->delegates();
  const size_t n = size_of(delegates);
  MemoryAllocator* allocator = memory_manager_->method_allocator();
  KILN_TRY(allocate_list(allocator, n, "delegates", &delegates_));
  const char* method_name = plan_->name() == nullptr ? "" : plan_->name()->c_str();
  for (size_t i = 0; i < n; ++i) {
    const fb::BackendDelegate* delegate = at(delegates, i);
    if (delegate == nullptr || delegate->id() == nullptr || delegate->processed() == nullptr) {
      KILN_LOG(Error, "Method::load: delegate %zu has no backend id or no processed data", i);
      return Error::InvalidProgram;
    }
    const char* id = delegate->id()->c_str();
    const BackendInterface* backend = get_backend_class(id);
    if (backend == nullptr) {
      KILN_LOG(Error, "Method::load: delegate %zu: backend '%s' is not registered", i, id);
      return Error::NotFound;
    }
    if (!backend->is_available()) {
      KILN_LOG(Error, "Method::load: delegate %zu: backend '%s' is not available on this machine", i, id);
      return Error::NotSupported;
    }
    Span<const CompileSpec> specs;
    KILN_TRY(compile_specs(delegate, i, &specs));
    DelegateEntry* entry = new (&delegates_[i]) DelegateEntry{backend, nullptr, FreeableBuffer(), id};
    Error error = processed_data(delegate, i, &entry->processed);
    if (error == Error::Ok) {
      BackendInitContext context(allocator, method_name, program_);
      Result<DelegateHandle*> handle = backend->init(context, &entry->processed, specs);
      if (handle.ok()) {
        entry->handle = handle.get();
      } else {
        error = handle.error();
        KILN_LOG(Error, "Method::load: delegate %zu: backend '%s' refused its blob (%s)", i, id, to_string(error));
      }
    }
    if (error != Error::Ok) {
      entry->~DelegateEntry();
      return error;
    }
    ++num_delegates_;  // from here on ~Method destroys it
  }
  return Error::Ok;
}

Error Method::compile_specs(const fb::BackendDelegate* delegate, size_t index, Span<const CompileSpec>* out) const {
  const auto* specs = delegate->compile_specs();
  const size_t n = size_of(specs);
  CompileSpec* array = nullptr;
  KILN_TRY(allocate_list(memory_manager_->method_allocator(), n, "compile specs", &array));
  for (size_t i = 0; i < n; ++i) {
    const fb::CompileSpec* spec = at(specs, i);
    if (spec == nullptr || spec->key() == nullptr) {
      KILN_LOG(Error, "Method::load: delegate %zu: compile spec %zu has no key", index, i);
      return Error::InvalidProgram;
    }
    const auto* value = spec->value();
    array[i] = CompileSpec{spec->key()->c_str(), SizedBuffer{value == nullptr ? nullptr : value->data(), size_of(value)}};
  }
  *out = Span<const CompileSpec>(array, n);
  return Error::Ok;
}

Error Method::processed_data(const fb::BackendDelegate* delegate, size_t index, FreeableBuffer* out) const {
  const fb::BackendDelegateDataReference* reference = delegate->processed();
  const char* id = delegate->id()->c_str();
  if (reference->location() == fb::DataLocation::INLINE) {
    const auto* inline_data = program_->flatbuffer_program()->backend_delegate_data();
    if (reference->index() >= size_of(inline_data) || at(inline_data, reference->index())->data() == nullptr) {
      KILN_LOG(Error, "Method::load: delegate %zu ('%s'): inline data %u is not in the program (%zu entries)", index,
               id, reference->index(), size_of(inline_data));
      return Error::InvalidProgram;
    }
    const auto* data = at(inline_data, reference->index())->data();
    *out = FreeableBuffer(data->data(), data->size(), nullptr);
    return Error::Ok;
  }
  SegmentInfo info;
  info.type = SegmentInfo::Type::Backend;
  info.segment_index = reference->index();
  info.descriptor = id;
  Result<FreeableBuffer> segment = program_->load_segment(info);
  if (!segment.ok()) {
    KILN_LOG(Error, "Method::load: delegate %zu ('%s'): cannot load segment %u (%s)", index, id, reference->index(),
             to_string(segment.error()));
    return segment.error();
  }
  *out = std::move(segment.get());
  return Error::Ok;
}

Error Method::resolve_kernel(const fb::KernelCall* call, size_t instruction, Instruction* out, size_t* missing) const {
  const auto* operators = plan_->operators();
  if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= size_of(operators)) {
    KILN_LOG(Error, "Method::load: instruction %zu calls operator %d, out of range (%zu operators)", instruction,
             call->op_index(), size_of(operators));
    return Error::InvalidProgram;
  }
  out->op_index = static_cast<uint32_t>(call->op_index());
  char name[256];
  if (!operator_name(at(operators, out->op_index), name, sizeof name)) {
    KILN_LOG(Error, "Method::load: operator %u has no name or too long a name", out->op_index);
    return Error::InvalidProgram;
  }
  TensorMeta metas[kMaxKeyedTensors];
  size_t num_metas = 0;
  bool keyed = true;
  for (EValue* arg : out->args) {
    if (!arg->isTensor()) continue;
    if (num_metas == kMaxKeyedTensors) {
      keyed = false;
      break;
    }
    const Tensor tensor = arg->toTensor();
    metas[num_metas++] = TensorMeta{tensor.scalar_type(), tensor.dim_order()};
  }
  const Span<const TensorMeta> key_metas(metas, keyed ? num_metas : 0);
  Result<OpFunction> kernel = get_op_function_from_registry(name, key_metas);
  if (kernel.ok()) {
    out->kernel = kernel.get();
    return Error::Ok;
  }
  KILN_LOG(Error, "Method::load: instruction %zu calls '%s', which has no kernel (the line above says why)",
           instruction, name);
  ++*missing;
  return Error::Ok;
}

Error Method::prepare_instruction(const fb::Instruction* instruction, size_t chain, size_t index,
                                  size_t num_instructions, Instruction* out, size_t* missing) const {
  *out = Instruction{fb::InstructionArguments::NONE, {}, nullptr, 0, 0, 0};
  out->kind = instruction == nullptr ? fb::InstructionArguments::NONE : instruction->instr_args_type();
  switch (out->kind) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
      KILN_TRY(argument_array(call->args(), values_, num_values_, memory_manager_->method_allocator(), chain, index,
                              &out->args));
      KILN_TRY(resolve_kernel(call, index, out, missing));
      char name[256];
      if (!operator_name(at(plan_->operators(), out->op_index), name, sizeof name)) name[0] = '\0';
      return check_argument_overlap(plan_, values_, call, chain, index, name);
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall* call = instruction->instr_args_as_DelegateCall();
      if (call->delegate_index() < 0 || static_cast<size_t>(call->delegate_index()) >= num_delegates_) {
        KILN_LOG(Error, "Method::load: instruction %zu calls delegate %d, out of range (%zu delegates)", index,
                 call->delegate_index(), num_delegates_);
        return Error::InvalidProgram;
      }
      out->first = static_cast<size_t>(call->delegate_index());
      return argument_array(call->args(), values_, num_values_, memory_manager_->method_allocator(), chain, index,
                            &out->args);
    }
    case fb::InstructionArguments::MoveCall: {
      const fb::MoveCall* call = instruction->instr_args_as_MoveCall();
      if (!check_value_index(call->move_from(), num_values_, chain, index) ||
          !check_value_index(call->move_to(), num_values_, chain, index)) {
        return Error::InvalidProgram;
      }
      out->first = static_cast<size_t>(call->move_from());
      out->second = static_cast<size_t>(call->move_to());
      return Error::Ok;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall* call = instruction->instr_args_as_JumpFalseCall();
      if (!check_value_index(call->cond_value_index(), num_values_, chain, index)) return Error::InvalidProgram;
      if (call->destination_instruction() < 0 || static_cast<size_t>(call->destination_instruction()) >= num_instructions) {
        KILN_LOG(Error, "Method::load: instruction %zu jumps to %d, out of range (%zu instructions)", index,
                 call->destination_instruction(), num_instructions);
        return Error::InvalidProgram;
      }
      out->first = static_cast<size_t>(call->cond_value_index());
      out->second = static_cast<size_t>(call->destination_instruction());
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall: {
      const fb::FreeCall* call = instruction->instr_args_as_FreeCall();
      if (!check_value_index(call->value_index(), num_values_, chain, index)) return Error::InvalidProgram;
      out->first = static_cast<size_t>(call->value_index());
      return Error::Ok;
    }
    default:
      KILN_LOG(Error, "Method::load: chain %zu instruction %zu has unknown kind %d", chain, index,
               static_cast<int>(out->kind));
      return Error::InvalidProgram;
  }
}

Error Method::prepare_chains() {
  MemoryAllocator* allocator = memory_manager_->method_allocator();
  const auto* chains = plan_->chains();
  KILN_TRY(allocate_list(allocator, size_of(chains), "chains", &chains_));
  size_t missing = 0;
  for (size_t c = 0; c < size_of(chains); ++c) {
    const fb::Chain* chain = at(chains, c);
    const auto* instructions = chain == nullptr ? nullptr : chain->instructions();
    const size_t n = size_of(instructions);
    chains_[c] = Chain{nullptr, n};
    KILN_TRY(allocate_list(allocator, n, "instructions", &chains_[c].instructions));
    for (size_t i = 0; i < n; ++i) {
      KILN_TRY(prepare_instruction(at(instructions, i), c, i, n, &chains_[c].instructions[i], &missing));
    }
    num_chains_ = c + 1;
  }
  if (missing > 0) {
    KILN_LOG(Error, "Method::load: %zu kernel calls have no registered kernel (each is logged above)", missing);
    return Error::OperatorMissing;
  }
  return Error::Ok;
}

}  // namespace kiln::runtime
