// Method::parse_values: each value of the plan becomes an EValue in the
// method allocator. A tensor's TensorImpl points into planned memory (an
// initialised mutable buffer gets its initial value copied in), into the
// constant segment (no copy), or nowhere until set_input; a static tensor's
// sizes and dim order stay in the flatbuffer. Lists box value pointers; their
// items are checked to be of the list's kind once every value exists.
#include <cstring>
#include <new>

#include "runtime/core/log.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_internal.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;
using method_detail::allocate_list;

namespace {

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
    KILN_LOG(Error, "Method::load: value %zu: tensor dim order is not a permutation of its %zu dims, or a stride "
                    "passes 32 bits", index, dim);
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

}  // namespace

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
  return check_list_items(plan_, values_);
}

}  // namespace kiln::runtime
