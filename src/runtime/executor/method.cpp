// Method: load builds the values, delegates and instruction arguments of one
// execution plan in the caller's method allocator; execute runs the chains.
//
// Loading, in order: planned memory is checked against the plan's buffer
// sizes; every value is parsed (tensors point into planned memory, the
// constant segment, or nothing until set_input); delegates are initialised;
// each instruction's EValue* argument array is built with every index checked
// and each kernel resolved by name and dtype/dim-order key, every missing
// kernel logged before OperatorMissing is returned. execute touches only what
// load built and the temp allocator.
#include "runtime/executor/method.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

#include "runtime/core/log.h"
#include "runtime/executor/argument_overlap.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

/// One instruction, ready to run.
struct Method::Instruction {
  fb::InstructionArguments kind;
  Span<EValue*> args;         // KernelCall, DelegateCall
  OpFunction kernel;          // KernelCall
  uint32_t op_index;          // KernelCall: for messages
  size_t first;               // Move: from; JumpFalse: cond; Free: value; DelegateCall: delegate
  size_t second;              // Move: to; JumpFalse: destination
};

struct Method::Chain {
  Instruction* instructions;
  size_t num_instructions;
};

struct Method::DelegateEntry {
  const BackendInterface* backend;
  DelegateHandle* handle;
  FreeableBuffer processed;
  const char* id;
};

namespace {

/// A JumpFalse loop that never ends is a bad program, not a hang.
constexpr size_t kMaxInstructionsPerExecute = 10000000;
/// Kernel keys are made from at most this many tensor arguments (more: the
/// fallback kernel only).
constexpr size_t kMaxKeyedTensors = 32;

/// `count` Ts from the method allocator, logged when it is full.
template <typename T>
Error allocate_list(MemoryAllocator* allocator, size_t count, const char* what, T** out) {
  if (count == 0) {
    *out = nullptr;
    return Error::Ok;
  }
  *out = allocator->allocateList<T>(count);
  if (*out == nullptr) {
    KILN_LOG(Error, "Method::load: the method allocator is full: %zu %s do not fit (%zu of %zu bytes free)", count,
             what, allocator->free_size(), allocator->size());
    return Error::MemoryAllocationFailed;
  }
  return Error::Ok;
}

/// "[2, 3]" into `buffer`.
void format_sizes(const SizesType* sizes, size_t dim, char* buffer, size_t size) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, size, "["));
  for (size_t d = 0; d < dim && used < size; ++d) {
    used += static_cast<size_t>(std::snprintf(buffer + used, size - used, d > 0 ? ", %d" : "%d", sizes[d]));
  }
  if (used < size) std::snprintf(buffer + used, size - used, "]");
}

/// "aten::add.out" (or just the name for the default overload ""). False if
/// it does not fit.
bool operator_name(const fb::Operator* op, char* buffer, size_t size) {
  if (op == nullptr || op->name() == nullptr) return false;
  const char* overload = op->overload() == nullptr ? "" : op->overload()->c_str();
  const int written = std::snprintf(buffer, size, "%s%s%s", op->name()->c_str(), overload[0] != '\0' ? "." : "",
                                    overload);
  return written >= 0 && static_cast<size_t>(written) < size;
}

/// What parse_tensor needs besides the tensor.
struct TensorSource {
  MemoryAllocator* method_allocator;
  const HierarchicalAllocator* planned_memory;
  const Program* program;
};

/// Copies `count` Ts of a flatbuffer vector into the method allocator (for a
/// dynamic tensor's sizes and dim order, which resizing rewrites).
template <typename T>
Error copy_to_allocator(MemoryAllocator* allocator, const T* from, size_t count, T** out) {
  KILN_TRY(allocate_list(allocator, count, "tensor shape entries", out));
  if (count > 0) std::memcpy(*out, from, count * sizeof(T));
  return Error::Ok;
}

/// Where a tensor's bytes are (see program.fbs on Tensor): planned memory
/// (with an initial value copied in for an initialised mutable buffer), the
/// constant segment, or nowhere yet.
Error tensor_data(const fb::Tensor* t, size_t index, size_t nbytes, const TensorSource& source, void** data) {
  *data = nullptr;
  const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    KILN_LOG(Error, "Method::load: value %zu: tensor '%s' is stored outside the program (external data is not supported)",
             index, extra->fully_qualified_name() == nullptr ? "" : extra->fully_qualified_name()->c_str());
    return Error::NotSupported;
  }
  const fb::AllocationDetails* allocation = t->allocation_info();
  if (allocation != nullptr) {
    const uint64_t offset = allocation->memory_offset_low() | (uint64_t{allocation->memory_offset_high()} << 32);
    if (source.planned_memory == nullptr) {
      KILN_LOG(Error, "Method::load: value %zu is a planned tensor, but the memory manager has no planned memory", index);
      return Error::InvalidArgument;
    }
    Result<void*> address = source.planned_memory->get_offset_address(allocation->memory_id(), offset, nbytes);
    if (!address.ok()) {
      KILN_LOG(Error,
               "Method::load: value %zu: %zu bytes at offset %llu of planned buffer %u do not fit in the planned "
               "memory given (%zu buffers)",
               index, nbytes, static_cast<unsigned long long>(offset), allocation->memory_id(),
               source.planned_memory->num_buffers());
      return Error::InvalidArgument;
    }
    *data = address.get();
    if (t->data_buffer_idx() > 0) {
      const size_t segment = extra == nullptr ? 0 : static_cast<size_t>(extra->mutable_data_segments_idx());
      const Error error = source.program->load_mutable_subsegment_into(segment, t->data_buffer_idx(), nbytes, *data);
      if (error != Error::Ok) {
        KILN_LOG(Error, "Method::load: value %zu: cannot load the initial value of a mutable buffer (%s)", index,
                 to_string(error));
        return error;
      }
    }
    return Error::Ok;
  }
  if (t->data_buffer_idx() > 0) {
    Result<const void*> constant = source.program->get_constant_buffer_data(t->data_buffer_idx(), nbytes);
    if (!constant.ok()) {
      KILN_LOG(Error, "Method::load: value %zu: constant %u (%zu bytes) is not in the program", index,
               t->data_buffer_idx(), nbytes);
      return Error::InvalidProgram;
    }
    *data = const_cast<void*>(constant.get());  // kernels never write their inputs
  }
  return Error::Ok;
}

/// Builds the TensorImpl of value `index` in the method allocator.
Error parse_tensor(const fb::Tensor* t, size_t index, const TensorSource& source, Tensor* out) {
  const auto type = static_cast<ScalarType>(t->scalar_type());
  if (!is_valid(type)) {
    KILN_LOG(Error, "Method::load: value %zu: tensor has unknown dtype %d", index, static_cast<int>(t->scalar_type()));
    return Error::InvalidProgram;
  }
  if (t->storage_offset() != 0) {
    KILN_LOG(Error, "Method::load: value %zu: tensor has storage offset %d (only 0 is supported)", index,
             t->storage_offset());
    return Error::NotSupported;
  }
  const auto dynamism = static_cast<TensorShapeDynamism>(t->shape_dynamism());
  if (dynamism != TensorShapeDynamism::Static && dynamism != TensorShapeDynamism::DynamicBound) {
    KILN_LOG(Error, "Method::load: value %zu: tensor shape dynamism %d is not supported (static or bounded only)",
             index, static_cast<int>(dynamism));
    return Error::NotSupported;
  }
  const size_t dim = size_of(t->sizes());
  if (t->sizes() == nullptr || size_of(t->dim_order()) != dim) {
    KILN_LOG(Error, "Method::load: value %zu: tensor has %zu sizes and %zu dim order entries", index, dim,
             size_of(t->dim_order()));
    return Error::InvalidProgram;
  }
  size_t nbytes = element_size(type);
  for (size_t d = 0; d < dim; ++d) {
    const int32_t size = at(t->sizes(), d);
    if (size < 0 || __builtin_mul_overflow(nbytes, static_cast<size_t>(size), &nbytes) || nbytes > SIZE_MAX / 2) {
      KILN_LOG(Error, "Method::load: value %zu: tensor size %d of dim %zu is negative or overflows", index, size, d);
      return Error::InvalidProgram;
    }
  }
  if (nbytes / element_size(type) > static_cast<size_t>(INT32_MAX)) {
    KILN_LOG(Error, "Method::load: value %zu: tensor of %zu elements is too large (strides are 32-bit)", index,
             nbytes / element_size(type));
    return Error::NotSupported;
  }
  MemoryAllocator* allocator = source.method_allocator;
  // A static tensor's shape never changes: it stays in the flatbuffer.
  auto* sizes = const_cast<SizesType*>(dim == 0 ? nullptr : t->sizes()->data());
  auto* dim_order = const_cast<DimOrderType*>(dim == 0 ? nullptr : t->dim_order()->data());
  if (dynamism != TensorShapeDynamism::Static) {
    KILN_TRY(copy_to_allocator(allocator, t->sizes()->data(), dim, &sizes));
    KILN_TRY(copy_to_allocator(allocator, t->dim_order()->data(), dim, &dim_order));
  }
  StridesType* strides = nullptr;
  KILN_TRY(allocate_list(allocator, dim, "tensor strides", &strides));
  if (compute_strides({sizes, dim}, {dim_order, dim}, {strides, dim}) != Error::Ok) {
    KILN_LOG(Error, "Method::load: value %zu: tensor dim order is not a permutation of its %zu dims", index, dim);
    return Error::InvalidProgram;
  }
  void* data = nullptr;
  KILN_TRY(tensor_data(t, index, nbytes, source, &data));
  TensorImpl* impl = nullptr;
  KILN_TRY(allocate_list(allocator, 1, "tensors", &impl));
  new (impl) TensorImpl(type, static_cast<ssize_t>(dim), sizes, data, dim_order, strides, dynamism);
  *out = Tensor(impl);
  return Error::Ok;
}

/// The boxed list of value `index` whose items are value indices; -1 (for an
/// optional tensor list) points at `none`.
template <typename T, typename Index>
Error parse_boxed_list(const flatbuffers::Vector<Index>* items, size_t index, EValue* values, size_t num_values,
                       EValue* none, MemoryAllocator* allocator, BoxedEvalueList<T>** out) {
  const size_t n = size_of(items);
  EValue** wrapped = nullptr;
  T* unwrapped = nullptr;
  KILN_TRY(allocate_list(allocator, n, "list items", &wrapped));
  KILN_TRY(allocate_list(allocator, n, "list items", &unwrapped));
  for (size_t i = 0; i < n; ++i) {
    const int64_t item = static_cast<int64_t>(at(items, i));
    new (&unwrapped[i]) T();
    if (item == -1 && none != nullptr) {
      wrapped[i] = none;
    } else if (item < 0 || static_cast<uint64_t>(item) >= num_values) {
      KILN_LOG(Error, "Method::load: value %zu: list item %zu is value %lld, out of range (%zu values)", index, i,
               static_cast<long long>(item), num_values);
      return Error::InvalidProgram;
    } else {
      wrapped[i] = &values[item];
    }
  }
  BoxedEvalueList<T>* list = nullptr;
  KILN_TRY(allocate_list(allocator, 1, "lists", &list));
  *out = new (list) BoxedEvalueList<T>(wrapped, unwrapped, n);
  return Error::Ok;
}

/// Every list item is a value of the kind its list holds (checked once all
/// values exist, so an item may name a later value).
Error check_list_items(const fb::ExecutionPlan* plan, const EValue* values) {
  for (size_t i = 0; i < size_of(plan->values()); ++i) {
    const EValue& value = values[i];
    if (!value.isIntList() && !value.isTensorList() && !value.isListOptionalTensor()) continue;
    if (!value.isWellFormedList()) {
      KILN_LOG(Error, "Method::load: value %zu: a %s holds a value of another kind", i, to_string(value.tag()));
      return Error::InvalidProgram;
    }
  }
  return Error::Ok;
}

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
  KILN_TRY(check_list_items(plan_, values_));
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

Error Method::parse_values() {
  MemoryAllocator* allocator = memory_manager_->method_allocator();
  const auto* values = plan_->values();
  const size_t n = size_of(values);
  KILN_TRY(allocate_list(allocator, n, "values", &values_));
  for (size_t i = 0; i < n; ++i) new (&values_[i]) EValue();
  num_values_ = n;
  EValue* none = nullptr;  // what a None item of an optional tensor list points at
  const TensorSource source{allocator, memory_manager_->planned_memory(), program_};
  for (size_t i = 0; i < n; ++i) {
    const fb::EValue* value = at(values, i);
    const fb::KernelTypes kind = value == nullptr ? fb::KernelTypes::NONE : value->val_type();
    switch (kind) {
      case fb::KernelTypes::Null: break;
      case fb::KernelTypes::Int: values_[i] = EValue(static_cast<int64_t>(value->val_as_Int()->int_val())); break;
      case fb::KernelTypes::Bool: values_[i] = EValue(value->val_as_Bool()->bool_val()); break;
      case fb::KernelTypes::Double: values_[i] = EValue(value->val_as_Double()->double_val()); break;
      case fb::KernelTypes::String: {
        const flatbuffers::String* s = value->val_as_String()->string_val();
        values_[i] = s == nullptr ? EValue("", 0) : EValue(s->c_str(), s->size());
        break;
      }
      case fb::KernelTypes::Tensor: {
        Tensor tensor;
        KILN_TRY(parse_tensor(value->val_as_Tensor(), i, source, &tensor));
        values_[i] = EValue(tensor);
        break;
      }
      case fb::KernelTypes::IntList: {
        BoxedEvalueList<int64_t>* list = nullptr;
        KILN_TRY(parse_boxed_list(value->val_as_IntList()->items(), i, values_, n, nullptr, allocator, &list));
        values_[i] = EValue(list);
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = value->val_as_DoubleList()->items();
        values_[i] = EValue(Span<const double>(items == nullptr ? nullptr : items->data(), size_of(items)));
        break;
      }
      case fb::KernelTypes::BoolList: {
        const auto* items = value->val_as_BoolList()->items();
        const bool* data = items == nullptr ? nullptr : reinterpret_cast<const bool*>(items->data());
        values_[i] = EValue(Span<const bool>(data, size_of(items)));
        break;
      }
      case fb::KernelTypes::TensorList: {
        BoxedEvalueList<Tensor>* list = nullptr;
        KILN_TRY(parse_boxed_list(value->val_as_TensorList()->items(), i, values_, n, nullptr, allocator, &list));
        values_[i] = EValue(list);
        break;
      }
      case fb::KernelTypes::OptionalTensorList: {
        if (none == nullptr) {
          KILN_TRY(allocate_list(allocator, 1, "values", &none));
          new (none) EValue();
        }
        BoxedEvalueList<std::optional<Tensor>>* list = nullptr;
        KILN_TRY(parse_boxed_list(value->val_as_OptionalTensorList()->items(), i, values_, n, none, allocator, &list));
        values_[i] = EValue(list);
        break;
      }
      default:
        KILN_LOG(Error, "Method::load: value %zu has unknown kind %d", i, static_cast<int>(kind));
        return Error::InvalidProgram;
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
  char key[kMaxKernelKeyLength];
  if (make_kernel_key(key_metas, key, sizeof key) != Error::Ok) std::snprintf(key, sizeof key, "(too long)");
  KILN_LOG(Error, "Method::load: instruction %zu: no kernel registered for '%s' (key %s)", instruction, name, key);
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
    const Error error = execute_instruction(chain.instructions[pc], pc, &next);
    if (temp != nullptr) temp->reset();
    if (error != Error::Ok) return error;
    pc = next;
  }
  return Error::Ok;
}

Error Method::execute_instruction(const Instruction& instruction, size_t index, size_t* next) {
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
      BackendExecutionContext context(memory_manager_->temp_allocator(),
                                      plan_->name() == nullptr ? "" : plan_->name()->c_str());
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
