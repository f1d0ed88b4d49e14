// MethodMeta: answers read straight from the execution plan. Every index the
// answers follow is checked here too (a Minimal-verified program may be
// inconsistent): a bad one is InvalidProgram with a log line.
#include "runtime/executor/method_meta.h"

#include <cstring>

#include "runtime/core/log.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/method_internal.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

namespace {

/// The value that entry `index` of `io` (the plan's inputs or outputs) names.
Result<const fb::EValue*> io_value(const fb::ExecutionPlan* plan, const flatbuffers::Vector<int32_t>* io, size_t index,
                                   const char* what) {
  if (index >= size_of(io)) {
    KILN_LOG(Error, "MethodMeta: %s %zu is out of range (the method has %zu)", what, index, size_of(io));
    return Error::InvalidArgument;
  }
  const int32_t value_index = at(io, index);
  const size_t num_values = size_of(plan->values());
  if (value_index < 0 || static_cast<size_t>(value_index) >= num_values) {
    KILN_LOG(Error, "MethodMeta: %s %zu names value %d, out of range (the method has %zu values)", what, index,
             value_index, num_values);
    return Error::InvalidProgram;
  }
  const fb::EValue* value = at(plan->values(), value_index);
  if (value == nullptr) {
    KILN_LOG(Error, "MethodMeta: %s %zu names value %d, which is missing", what, index, value_index);
    return Error::InvalidProgram;
  }
  return value;
}

Result<Tag> value_tag(const fb::EValue* value, size_t index, const char* what) {
  Tag tag = Tag::None;
  if (!tag_of_value_type(value->val_type(), &tag)) {
    KILN_LOG(Error, "MethodMeta: %s %zu has value type %u, which is not a known kind", what, index,
             static_cast<unsigned>(value->val_type()));
    return Error::InvalidProgram;
  }
  return tag;
}

Result<TensorInfo> tensor_info(const fb::EValue* value, size_t index, const char* what) {
  const fb::Tensor* tensor = value->val_as_Tensor();
  if (tensor == nullptr) {
    KILN_LOG(Error, "MethodMeta: %s %zu is not a tensor", what, index);
    return Error::InvalidArgument;
  }
  const auto* sizes = tensor->sizes();
  const auto* dim_order = tensor->dim_order();
  const size_t rank = size_of(sizes);
  if (size_of(dim_order) != rank) {
    KILN_LOG(Error, "MethodMeta: %s %zu has %zu sizes but %zu dim_order entries", what, index, rank,
             size_of(dim_order));
    return Error::InvalidProgram;
  }
  const auto type = static_cast<ScalarType>(tensor->scalar_type());
  size_t nbytes = 0;
  if (!checked_nbytes(type, rank == 0 ? nullptr : sizes->data(), rank, &nbytes)) {
    KILN_LOG(Error, "MethodMeta: %s %zu: dtype %d with these sizes has no valid byte count (unknown dtype, a negative "
             "size or an overflow)", what, index, static_cast<int>(tensor->scalar_type()));
    return Error::InvalidProgram;
  }
  return TensorInfo(Span<const int32_t>(rank == 0 ? nullptr : sizes->data(), rank),
                    Span<const uint8_t>(rank == 0 ? nullptr : dim_order->data(), rank), type,
                    static_cast<TensorShapeDynamism>(tensor->shape_dynamism()), tensor->allocation_info() != nullptr,
                    nbytes);
}

}  // namespace

const char* MethodMeta::name() const { return plan_->name() == nullptr ? "" : plan_->name()->c_str(); }

size_t MethodMeta::num_inputs() const { return size_of(plan_->inputs()); }

Result<Tag> MethodMeta::input_tag(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const fb::EValue* value, io_value(plan_, plan_->inputs(), index, "input"));
  return value_tag(value, index, "input");
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const fb::EValue* value, io_value(plan_, plan_->inputs(), index, "input"));
  return tensor_info(value, index, "input");
}

size_t MethodMeta::num_outputs() const { return size_of(plan_->outputs()); }

Result<Tag> MethodMeta::output_tag(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const fb::EValue* value, io_value(plan_, plan_->outputs(), index, "output"));
  return value_tag(value, index, "output");
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const fb::EValue* value, io_value(plan_, plan_->outputs(), index, "output"));
  return tensor_info(value, index, "output");
}

size_t MethodMeta::num_memory_planned_buffers() const {
  const size_t sizes = size_of(plan_->non_const_buffer_sizes());
  return sizes == 0 ? 0 : sizes - 1;  // entry 0 is reserved
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  if (index >= num_memory_planned_buffers()) {
    KILN_LOG(Error, "MethodMeta: planned buffer %zu is out of range (the method has %zu)", index,
             num_memory_planned_buffers());
    return Error::InvalidArgument;
  }
  const int64_t size = at(plan_->non_const_buffer_sizes(), index + 1);
  if (size < 0) {
    KILN_LOG(Error, "MethodMeta: planned buffer %zu has negative size %lld", index, static_cast<long long>(size));
    return Error::InvalidProgram;
  }
  return size;
}

namespace {

/// The id of delegate `i`, or null when the delegate or its id is missing.
const char* delegate_id(const fb::ExecutionPlan* plan, size_t i) {
  const fb::BackendDelegate* delegate = at(plan->delegates(), i);
  return delegate == nullptr || delegate->id() == nullptr ? nullptr : delegate->id()->c_str();
}

/// True if delegate `i` is the first with its id.
bool is_first_with_its_id(const fb::ExecutionPlan* plan, size_t i) {
  const char* id = delegate_id(plan, i);
  if (id == nullptr) return false;
  for (size_t j = 0; j < i; ++j) {
    const char* other = delegate_id(plan, j);
    if (other != nullptr && std::strcmp(other, id) == 0) return false;
  }
  return true;
}

}  // namespace

size_t MethodMeta::num_backends() const {
  size_t count = 0;
  for (size_t i = 0; i < size_of(plan_->delegates()); ++i) count += is_first_with_its_id(plan_, i);
  return count;
}

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  size_t seen = 0;
  for (size_t i = 0; i < size_of(plan_->delegates()); ++i) {
    if (!is_first_with_its_id(plan_, i)) continue;
    if (seen++ == index) return delegate_id(plan_, i);
  }
  KILN_LOG(Error, "MethodMeta: backend %zu is out of range (the method uses %zu)", index, seen);
  return Error::InvalidArgument;
}

bool MethodMeta::uses_backend(const char* backend_name) const {
  if (backend_name == nullptr) return false;
  for (size_t i = 0; i < size_of(plan_->delegates()); ++i) {
    const char* id = delegate_id(plan_, i);
    if (id != nullptr && std::strcmp(id, backend_name) == 0) return true;
  }
  return false;
}

size_t MethodMeta::num_instructions() const {
  size_t count = 0;
  for (size_t c = 0; c < size_of(plan_->chains()); ++c) {
    const fb::Chain* chain = at(plan_->chains(), c);
    if (chain != nullptr) count += size_of(chain->instructions());
  }
  return count;
}

size_t MethodMeta::num_operators() const { return size_of(plan_->operators()); }

Error MethodMeta::operator_name(size_t index, char* buffer, size_t size) const {
  KILN_CHECK_OR_LOG_RETURN(index < num_operators(), InvalidArgument,
                           "MethodMeta: operator %zu is out of range (the method has %zu)", index, num_operators());
  KILN_CHECK_OR_LOG_RETURN(buffer != nullptr && size > 0, InvalidArgument, "MethodMeta: no buffer for operator %zu's name",
                           index);
  const fb::Operator* op = at(plan_->operators(), index);
  KILN_CHECK_OR_LOG_RETURN(op != nullptr && op->name() != nullptr, InvalidProgram, "MethodMeta: operator %zu has no name",
                           index);
  if (!method_detail::operator_name(op, buffer, size)) {
    buffer[0] = '\0';
    KILN_LOG(Error, "MethodMeta: the name of operator %zu does not fit in %zu bytes", index, size);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

}  // namespace kiln::runtime
