// validate_program: one walk over the verified flatbuffer, program-level
// tables first (segments, constant and mutable subsegments, named data,
// inline data), then each execution plan (values, I/O, operators, delegates,
// chains). The first inconsistency is logged with its path in the program
// ("execution_plan[0].values[12]: ...") and returned as InvalidProgram.
#include "runtime/executor/program_validation.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "runtime/core/log.h"
#include "runtime/core/result.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

namespace {

Error reject(const char* format, ...) __attribute__((format(printf, 1, 2)));
Error reject(const char* format, ...) {
  char message[440];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  KILN_LOG(Error, "invalid program: %s", message);
  return Error::InvalidProgram;
}

/// True if the elements of `vector` (absent: true) sit at a multiple of their
/// size. The flatbuffer verifier aligns a vector's length field (4 bytes), not
/// its data: a [long], [ulong] or [double] may start 4 bytes off, and reading
/// it is then a misaligned 8-byte load. The program's bytes are aligned to
/// kSchemaMaxAlignment, so an aligned address is an aligned offset too.
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* vector) {
  static_assert(sizeof(T) == 8, "only 8-byte elements can be misaligned by the verifier");
  // FlatBuffers leaves an empty vector unaligned; nothing is read from it.
  return vector == nullptr || vector->size() == 0 || reinterpret_cast<uintptr_t>(vector->data()) % sizeof(T) == 0;
}

/// The index of the first of `size` bytes that is neither 0 nor 1 (`size` if none).
size_t first_non_bool_byte(const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] > 1) return i;
  }
  return size;
}

/// Checks of the program-level tables, then of every execution plan.
class ProgramValidator {
 public:
  ProgramValidator(const fb::Program* program, const ProgramLayout& layout) : program_(program), layout_(layout) {}

  Error run() {
    KILN_TRY(check_segments());
    KILN_TRY(check_constant_segment());
    KILN_TRY(check_mutable_data_segments());
    KILN_TRY(check_named_data());
    if (program_->execution_plan() == nullptr) return reject("the program has no execution_plan");
    for (size_t p = 0; p < program_->execution_plan()->size(); ++p) KILN_TRY(check_plan(p));
    return Error::Ok;
  }

 private:
  // ---- program-level tables ----

  /// The size of segment `index` (after check_segments), or 0 if out of range.
  uint64_t segment_size(size_t index) const { return at(program_->segments(), index)->size(); }
  size_t num_segments() const { return size_of(program_->segments()); }

  Error check_segments() const {
    for (size_t s = 0; s < num_segments(); ++s) {
      const fb::DataSegment* segment = at(program_->segments(), s);
      if (segment == nullptr) return reject("segments[%zu] is missing", s);
      uint64_t end = 0;
      if (__builtin_add_overflow(segment->offset(), segment->size(), &end)) {
        return reject("segments[%zu]: offset %" PRIu64 " + size %" PRIu64 " overflows", s, segment->offset(),
                      segment->size());
      }
      if (segment->size() == 0) continue;
      if (layout_.segment_base_offset == 0) {
        return reject("segments[%zu] has %" PRIu64 " bytes but the file has no segment base (extended header) to locate it", s,
                      segment->size());
      }
      if (layout_.segment_data_size != 0 && end > layout_.segment_data_size) {
        return reject("segments[%zu] [%" PRIu64 ", %" PRIu64 ") ends past the header's segment_data_size %zu", s,
                      segment->offset(), end, layout_.segment_data_size);
      }
      uint64_t file_end = 0;
      if (__builtin_add_overflow(end, static_cast<uint64_t>(layout_.segment_base_offset), &file_end) ||
          file_end > layout_.file_size) {
        return reject("segments[%zu] [%" PRIu64 ", %" PRIu64 ") from segment base %zu ends past the %zu-byte file", s,
                      segment->offset(), end, layout_.segment_base_offset, layout_.file_size);
      }
    }
    return Error::Ok;
  }

  /// Each offset of `subsegment` (named `what`) lies inside its segment.
  Error check_subsegment(const fb::SubsegmentOffsets* subsegment, const char* what) const {
    if (!elements_aligned(subsegment->offsets())) return reject("%s.offsets (uint64) is not 8-byte aligned", what);
    if (subsegment->segment_index() >= num_segments()) {
      return reject("%s.segment_index %" PRIu32 " is out of range (the program has %zu segments)", what,
                    subsegment->segment_index(), num_segments());
    }
    const uint64_t size = segment_size(subsegment->segment_index());
    for (size_t i = 0; i < size_of(subsegment->offsets()); ++i) {
      if (at(subsegment->offsets(), i) > size) {
        return reject("%s.offsets[%zu] = %" PRIu64 " is past the end of its %" PRIu64 "-byte segment %" PRIu32, what, i,
                      at(subsegment->offsets(), i), size, subsegment->segment_index());
      }
    }
    return Error::Ok;
  }

  bool has_constant_segment() const {
    const fb::SubsegmentOffsets* constants = program_->constant_segment();
    return constants != nullptr && size_of(constants->offsets()) > 1;
  }

  Error check_constant_segment() const {
    const fb::SubsegmentOffsets* constants = program_->constant_segment();
    if (constants != nullptr && !elements_aligned(constants->offsets())) {
      return reject("constant_segment.offsets (uint64) is not 8-byte aligned");
    }
    return has_constant_segment() ? check_subsegment(constants, "constant_segment") : Error::Ok;
  }

  Error check_mutable_data_segments() const {
    char what[64];
    for (size_t i = 0; i < size_of(program_->mutable_data_segments()); ++i) {
      const fb::SubsegmentOffsets* subsegment = at(program_->mutable_data_segments(), i);
      std::snprintf(what, sizeof what, "mutable_data_segments[%zu]", i);
      if (subsegment == nullptr) return reject("%s is missing", what);
      KILN_TRY(check_subsegment(subsegment, what));
    }
    return Error::Ok;
  }

  Error check_named_data() const {
    for (size_t i = 0; i < size_of(program_->named_data()); ++i) {
      const fb::NamedData* entry = at(program_->named_data(), i);
      if (entry == nullptr || entry->key() == nullptr) return reject("named_data[%zu] has no key", i);
      if (entry->segment_index() >= num_segments()) {
        return reject("named_data[%zu] ('%s'): segment_index %" PRIu32 " is out of range (the program has %zu segments)",
                      i, entry->key()->c_str(), entry->segment_index(), num_segments());
      }
    }
    return Error::Ok;
  }

  // ---- one execution plan ----

  Error check_plan(size_t p) {
    plan_index_ = p;
    plan_ = at(program_->execution_plan(), p);
    if (plan_ == nullptr) return reject("execution_plan[%zu] is missing", p);
    if (plan_->name() == nullptr) return reject("execution_plan[%zu] has no name", p);
    if (plan_->values() == nullptr) return reject("execution_plan[%zu] has no values", p);
    if (plan_->non_const_buffer_sizes() == nullptr) return reject("execution_plan[%zu] has no non_const_buffer_sizes", p);
    if (!elements_aligned(plan_->non_const_buffer_sizes())) {
      return reject("execution_plan[%zu].non_const_buffer_sizes (int64) is not 8-byte aligned", p);
    }
    num_values_ = plan_->values()->size();
    for (size_t i = 0; i < size_of(plan_->non_const_buffer_sizes()); ++i) {
      if (at(plan_->non_const_buffer_sizes(), i) < 0) {
        return reject("execution_plan[%zu].non_const_buffer_sizes[%zu] is negative (%" PRId64 ")", p, i,
                      at(plan_->non_const_buffer_sizes(), i));
      }
    }
    for (size_t v = 0; v < num_values_; ++v) KILN_TRY(check_value(v));
    KILN_TRY(check_value_indices(plan_->inputs(), "inputs"));
    KILN_TRY(check_value_indices(plan_->outputs(), "outputs"));
    for (size_t o = 0; o < size_of(plan_->operators()); ++o) {
      const fb::Operator* op = at(plan_->operators(), o);
      if (op == nullptr || op->name() == nullptr) return reject("execution_plan[%zu].operators[%zu] has no name", p, o);
    }
    for (size_t d = 0; d < size_of(plan_->delegates()); ++d) KILN_TRY(check_delegate(d));
    // No chains: nothing to run, as in a constant method (ExecuTorch writes
    // those with one empty chain; its runtime refuses none, Kiln's does not).
    for (size_t c = 0; c < size_of(plan_->chains()); ++c) KILN_TRY(check_chain(c));
    return Error::Ok;
  }

  /// The union type of value `index`, which must be in range (NONE for a
  /// missing value, which check_value refuses in its turn).
  fb::KernelTypes type_of(int64_t index) const {
    const fb::EValue* value = at(plan_->values(), static_cast<size_t>(index));
    return value == nullptr ? fb::KernelTypes::NONE : value->val_type();
  }
  bool in_range(int64_t index) const { return index >= 0 && static_cast<uint64_t>(index) < num_values_; }

  Error check_value_indices(const flatbuffers::Vector<int32_t>* indices, const char* what) const {
    if (indices == nullptr) return reject("execution_plan[%zu] has no %s", plan_index_, what);
    for (size_t i = 0; i < indices->size(); ++i) {
      if (!in_range(at(indices, i))) {
        return reject("execution_plan[%zu].%s[%zu] = %" PRId32 " is not a value index (the plan has %zu values)",
                      plan_index_, what, i, at(indices, i), num_values_);
      }
    }
    return Error::Ok;
  }

  Error check_value(size_t v) const {
    const fb::EValue* value = at(plan_->values(), v);
    Tag tag = Tag::None;
    if (value == nullptr || !tag_of_value_type(value->val_type(), &tag)) {
      return reject("execution_plan[%zu].values[%zu] has no value of a known kind (type %u)", plan_index_, v,
                    value == nullptr ? 0u : static_cast<unsigned>(value->val_type()));
    }
    if (value->val() == nullptr) {
      return reject("execution_plan[%zu].values[%zu] (%s) has no payload", plan_index_, v, to_string(tag));
    }
    switch (value->val_type()) {
      case fb::KernelTypes::Tensor: return check_tensor(v, value->val_as_Tensor());
      case fb::KernelTypes::String:
        if (value->val_as_String()->string_val() == nullptr) {
          return reject("execution_plan[%zu].values[%zu]: String has no string_val", plan_index_, v);
        }
        return Error::Ok;
      case fb::KernelTypes::IntList: return check_int_list(v, value->val_as_IntList()->items());
      case fb::KernelTypes::TensorList: return check_tensor_list(v, value->val_as_TensorList()->items(), false);
      case fb::KernelTypes::OptionalTensorList:
        return check_tensor_list(v, value->val_as_OptionalTensorList()->items(), true);
      case fb::KernelTypes::DoubleList: {
        const auto* items = value->val_as_DoubleList()->items();
        if (items == nullptr) return reject("execution_plan[%zu].values[%zu]: DoubleList has no items", plan_index_, v);
        if (!elements_aligned(items)) {
          return reject("execution_plan[%zu].values[%zu]: DoubleList items are not 8-byte aligned", plan_index_, v);
        }
        return Error::Ok;
      }
      case fb::KernelTypes::BoolList: return check_bool_list(v, value->val_as_BoolList()->items());
      default: return Error::Ok;
    }
  }

  Error check_int_list(size_t v, const flatbuffers::Vector<int64_t>* items) const {
    if (items == nullptr) return reject("execution_plan[%zu].values[%zu]: IntList has no items", plan_index_, v);
    if (!elements_aligned(items)) {
      return reject("execution_plan[%zu].values[%zu]: IntList items are not 8-byte aligned", plan_index_, v);
    }
    for (size_t i = 0; i < items->size(); ++i) {
      const int64_t item = at(items, i);
      if (!in_range(item) || type_of(item) != fb::KernelTypes::Int) {
        return reject("execution_plan[%zu].values[%zu]: IntList item %zu = %" PRId64 " is not the index of an Int value",
                      plan_index_, v, i, item);
      }
    }
    return Error::Ok;
  }

  /// Method reads the items as bools: each byte must be 0 or 1.
  Error check_bool_list(size_t v, const flatbuffers::Vector<uint8_t>* items) const {
    if (items == nullptr) return reject("execution_plan[%zu].values[%zu]: BoolList has no items", plan_index_, v);
    const size_t bad = first_non_bool_byte(items->data(), items->size());
    if (bad < items->size()) {
      return reject("execution_plan[%zu].values[%zu]: BoolList item %zu is %u, not 0 or 1", plan_index_, v, bad,
                    static_cast<unsigned>(items->Get(static_cast<flatbuffers::uoffset_t>(bad))));
    }
    return Error::Ok;
  }

  Error check_tensor_list(size_t v, const flatbuffers::Vector<int32_t>* items, bool optional) const {
    const char* kind = optional ? "OptionalTensorList" : "TensorList";
    if (items == nullptr) return reject("execution_plan[%zu].values[%zu]: %s has no items", plan_index_, v, kind);
    for (size_t i = 0; i < items->size(); ++i) {
      const int32_t item = at(items, i);
      if (optional && item == -1) continue;
      const bool ok = in_range(item) && (type_of(item) == fb::KernelTypes::Tensor ||
                                         (optional && type_of(item) == fb::KernelTypes::Null));
      if (!ok) {
        return reject("execution_plan[%zu].values[%zu]: %s item %zu = %" PRId32 " is not the index of a %s value",
                      plan_index_, v, kind, i, item, optional ? "Tensor or Null" : "Tensor");
      }
    }
    return Error::Ok;
  }

  // ---- tensors ----

  Error check_tensor(size_t v, const fb::Tensor* tensor) const {
    const size_t p = plan_index_;
    if (!is_valid(static_cast<ScalarType>(tensor->scalar_type()))) {
      return reject("execution_plan[%zu].values[%zu]: tensor scalar_type %d is not a dtype this runtime knows", p, v,
                    static_cast<int>(tensor->scalar_type()));
    }
    if (tensor->sizes() == nullptr || tensor->dim_order() == nullptr) {
      return reject("execution_plan[%zu].values[%zu]: tensor has no %s", p, v,
                    tensor->sizes() == nullptr ? "sizes" : "dim_order");
    }
    const size_t rank = tensor->sizes()->size();
    for (size_t d = 0; d < rank; ++d) {
      if (at(tensor->sizes(), d) < 0) {
        return reject("execution_plan[%zu].values[%zu]: tensor sizes[%zu] is negative (%" PRId32 ")", p, v, d,
                      at(tensor->sizes(), d));
      }
    }
    KILN_TRY(check_dim_order(v, tensor, rank));
    size_t nbytes = 0;
    if (!checked_nbytes(static_cast<ScalarType>(tensor->scalar_type()), tensor->sizes()->data(), rank, &nbytes)) {
      return reject("execution_plan[%zu].values[%zu]: tensor byte count overflows (%zu dims)", p, v, rank);
    }
    if (tensor->storage_offset() != 0) {
      return reject("execution_plan[%zu].values[%zu]: tensor storage_offset %" PRId32 " is not 0", p, v,
                    tensor->storage_offset());
    }
    const fb::ExtraTensorInfo* extra = tensor->extra_tensor_info();
    if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
      if (extra->fully_qualified_name() == nullptr) {
        return reject("execution_plan[%zu].values[%zu]: external tensor has no fully_qualified_name", p, v);
      }
      return Error::Ok;
    }
    const size_t alignment = element_size(static_cast<ScalarType>(tensor->scalar_type()));
    if (tensor->allocation_info() != nullptr) KILN_TRY(check_allocation(v, tensor->allocation_info(), nbytes, alignment));
    if (tensor->data_buffer_idx() == 0) return Error::Ok;
    return tensor->allocation_info() != nullptr ? check_mutable_initial_value(v, tensor, nbytes)
                                                : check_constant(v, tensor->data_buffer_idx(), nbytes, alignment);
  }

  Error check_dim_order(size_t v, const fb::Tensor* tensor, size_t rank) const {
    const auto* dim_order = tensor->dim_order();
    if (dim_order->size() != rank) {
      return reject("execution_plan[%zu].values[%zu]: tensor has %zu sizes but %" PRIu32 " dim_order entries",
                    plan_index_, v, rank, dim_order->size());
    }
    // A permutation of 0..rank-1: every entry below rank and none twice. Rank
    // is at most 255 when entries are distinct bytes, so a 256-bit set will do.
    uint64_t seen[4] = {0, 0, 0, 0};
    for (size_t d = 0; d < rank; ++d) {
      const uint8_t dim = at(dim_order, d);
      const uint64_t bit = uint64_t{1} << (dim % 64);
      if (dim >= rank || (seen[dim / 64] & bit) != 0) {
        return reject("execution_plan[%zu].values[%zu]: tensor dim_order is not a permutation of its %zu dims "
                      "(entry %zu is %u)",
                      plan_index_, v, rank, d, static_cast<unsigned>(dim));
      }
      seen[dim / 64] |= bit;
    }
    return Error::Ok;
  }

  /// A planned tensor lies inside its buffer, at an offset its kernels can
  /// read elements from (a multiple of the element size).
  Error check_allocation(size_t v, const fb::AllocationDetails* allocation, size_t nbytes, size_t alignment) const {
    const size_t num_buffers = plan_->non_const_buffer_sizes()->size();
    const uint32_t memory_id = allocation->memory_id();
    if (memory_id == 0 || memory_id >= num_buffers) {
      return reject("execution_plan[%zu].values[%zu]: tensor memory_id %" PRIu32
                    " is not a planned buffer (ids 1..%zu; 0 is reserved)",
                    plan_index_, v, memory_id, num_buffers == 0 ? 0 : num_buffers - 1);
    }
    const uint64_t offset = (static_cast<uint64_t>(allocation->memory_offset_high()) << 32) | allocation->memory_offset_low();
    const auto buffer_size = static_cast<uint64_t>(at(plan_->non_const_buffer_sizes(), memory_id));
    if (offset > buffer_size || nbytes > buffer_size - offset) {
      return reject("execution_plan[%zu].values[%zu]: tensor of %zu bytes at offset %" PRIu64
                    " lies outside planned buffer %" PRIu32 " (%" PRIu64 " bytes)",
                    plan_index_, v, nbytes, offset, memory_id, buffer_size);
    }
    if (offset % alignment != 0) {
      return reject("execution_plan[%zu].values[%zu]: planned tensor offset %" PRIu64
                    " in buffer %" PRIu32 " is not a multiple of its element size %zu",
                    plan_index_, v, offset, memory_id, alignment);
    }
    return Error::Ok;
  }

  /// A constant's bytes exist, and start at a multiple of its element size
  /// both in the file (mapped or buffer loaders) and in its segment (loaders
  /// that copy the segment into an aligned buffer).
  Error check_constant(size_t v, uint32_t index, size_t nbytes, size_t alignment) const {
    if (has_constant_segment()) {
      const fb::SubsegmentOffsets* constants = program_->constant_segment();
      if (index >= constants->offsets()->size()) {
        return reject("execution_plan[%zu].values[%zu]: tensor data_buffer_idx %" PRIu32
                      " is out of range (constant_segment has %" PRIu32 " offsets)",
                      plan_index_, v, index, constants->offsets()->size());
      }
      const uint64_t offset = at(constants->offsets(), index);
      const uint64_t size = segment_size(constants->segment_index());
      if (nbytes > size - offset) {  // offset <= size: check_constant_segment
        return reject("execution_plan[%zu].values[%zu]: constant %" PRIu32 " (%zu bytes at offset %" PRIu64
                      ") runs past the %" PRIu64 "-byte constant segment",
                      plan_index_, v, index, nbytes, offset, size);
      }
      const uint64_t in_file =
          layout_.segment_base_offset + at(program_->segments(), constants->segment_index())->offset() + offset;
      if (offset % alignment != 0 || in_file % alignment != 0) {
        return reject("execution_plan[%zu].values[%zu]: constant %" PRIu32 " at offset %" PRIu64
                      " of its segment (file offset %" PRIu64 ") is not aligned to its element size %zu",
                      plan_index_, v, index, offset, in_file, alignment);
      }
      return Error::Ok;
    }
    const size_t count = size_of(program_->constant_buffer());
    if (index >= count) {
      return reject("execution_plan[%zu].values[%zu]: tensor data_buffer_idx %" PRIu32
                    " is out of range (the program has %zu constant buffers and no constant segment)",
                    plan_index_, v, index, count);
    }
    const fb::Buffer* buffer = at(program_->constant_buffer(), index);
    const size_t size = buffer == nullptr ? 0 : size_of(buffer->storage());
    if (nbytes > size) {
      return reject("execution_plan[%zu].values[%zu]: constant_buffer[%" PRIu32 "] holds %zu bytes, the tensor needs %zu",
                    plan_index_, v, index, size, nbytes);
    }
    return Error::Ok;
  }

  Error check_mutable_initial_value(size_t v, const fb::Tensor* tensor, size_t nbytes) const {
    const fb::ExtraTensorInfo* extra = tensor->extra_tensor_info();
    const uint64_t which = extra == nullptr ? 0 : extra->mutable_data_segments_idx();
    const size_t count = size_of(program_->mutable_data_segments());
    if (which >= count) {
      return reject("execution_plan[%zu].values[%zu]: planned tensor with an initial value names "
                    "mutable_data_segments[%" PRIu64 "], out of range (the program has %zu)",
                    plan_index_, v, which, count);
    }
    const fb::SubsegmentOffsets* subsegment = at(program_->mutable_data_segments(), static_cast<size_t>(which));
    const uint32_t index = tensor->data_buffer_idx();
    if (index >= size_of(subsegment->offsets())) {
      return reject("execution_plan[%zu].values[%zu]: data_buffer_idx %" PRIu32
                    " is out of range of mutable_data_segments[%" PRIu64 "].offsets (%zu)",
                    plan_index_, v, index, which, size_of(subsegment->offsets()));
    }
    const uint64_t offset = at(subsegment->offsets(), index);
    const uint64_t size = segment_size(subsegment->segment_index());
    if (nbytes > size - offset) {
      return reject("execution_plan[%zu].values[%zu]: initial value (%zu bytes at offset %" PRIu64
                    ") runs past its %" PRIu64 "-byte segment",
                    plan_index_, v, nbytes, offset, size);
    }
    return Error::Ok;
  }

  // ---- delegates and instructions ----

  Error check_delegate(size_t d) const {
    const fb::BackendDelegate* delegate = at(plan_->delegates(), d);
    if (delegate == nullptr || delegate->id() == nullptr || delegate->processed() == nullptr) {
      return reject("execution_plan[%zu].delegates[%zu] has no id or no processed data", plan_index_, d);
    }
    const fb::BackendDelegateDataReference* processed = delegate->processed();
    const bool inline_data = processed->location() == fb::DataLocation::INLINE;
    const size_t count = inline_data ? size_of(program_->backend_delegate_data()) : num_segments();
    if (processed->location() != fb::DataLocation::INLINE && processed->location() != fb::DataLocation::SEGMENT) {
      return reject("execution_plan[%zu].delegates[%zu] ('%s'): unknown data location %d", plan_index_, d,
                    delegate->id()->c_str(), static_cast<int>(processed->location()));
    }
    if (processed->index() >= count) {
      return reject("execution_plan[%zu].delegates[%zu] ('%s'): processed index %" PRIu32 " is out of range (%zu %s)",
                    plan_index_, d, delegate->id()->c_str(), processed->index(), count,
                    inline_data ? "backend_delegate_data entries" : "segments");
    }
    for (size_t s = 0; s < size_of(delegate->compile_specs()); ++s) {
      const fb::CompileSpec* spec = at(delegate->compile_specs(), s);
      if (spec == nullptr || spec->key() == nullptr) {
        return reject("execution_plan[%zu].delegates[%zu].compile_specs[%zu] has no key", plan_index_, d, s);
      }
    }
    return Error::Ok;
  }

  Error check_args(size_t c, size_t i, const flatbuffers::Vector<int32_t>* args) const {
    if (args == nullptr) return reject("execution_plan[%zu].chains[%zu].instructions[%zu] has no args", plan_index_, c, i);
    for (size_t a = 0; a < args->size(); ++a) {
      if (!in_range(at(args, a))) {
        return reject("execution_plan[%zu].chains[%zu].instructions[%zu]: arg %zu = %" PRId32
                      " is not a value index (the plan has %zu values)",
                      plan_index_, c, i, a, at(args, a), num_values_);
      }
    }
    return Error::Ok;
  }

  /// `index` (named `what`) of instruction i of chain c is a value index.
  Error check_value_operand(size_t c, size_t i, int32_t index, const char* what) const {
    if (in_range(index)) return Error::Ok;
    return reject("execution_plan[%zu].chains[%zu].instructions[%zu]: %s %" PRId32 " is not a value index (%zu values)",
                  plan_index_, c, i, what, index, num_values_);
  }

  Error check_instruction(size_t c, size_t i, size_t num_instructions, const fb::Instruction* instruction) const {
    if (instruction == nullptr || instruction->instr_args() == nullptr) {
      return reject("execution_plan[%zu].chains[%zu].instructions[%zu] has no arguments", plan_index_, c, i);
    }
    switch (instruction->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
        const size_t count = size_of(plan_->operators());
        if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= count) {
          return reject("execution_plan[%zu].chains[%zu].instructions[%zu]: op_index %" PRId32
                        " is out of range (%zu operators)",
                        plan_index_, c, i, call->op_index(), count);
        }
        return check_args(c, i, call->args());
      }
      case fb::InstructionArguments::DelegateCall: {
        const fb::DelegateCall* call = instruction->instr_args_as_DelegateCall();
        const size_t count = size_of(plan_->delegates());
        if (call->delegate_index() < 0 || static_cast<size_t>(call->delegate_index()) >= count) {
          return reject("execution_plan[%zu].chains[%zu].instructions[%zu]: delegate_index %" PRId32
                        " is out of range (%zu delegates)",
                        plan_index_, c, i, call->delegate_index(), count);
        }
        return check_args(c, i, call->args());
      }
      case fb::InstructionArguments::MoveCall: {
        const fb::MoveCall* call = instruction->instr_args_as_MoveCall();
        KILN_TRY(check_value_operand(c, i, call->move_from(), "move_from"));
        return check_value_operand(c, i, call->move_to(), "move_to");
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const fb::JumpFalseCall* call = instruction->instr_args_as_JumpFalseCall();
        KILN_TRY(check_value_operand(c, i, call->cond_value_index(), "cond_value_index"));
        const int32_t destination = call->destination_instruction();
        if (destination < 0 || static_cast<size_t>(destination) >= num_instructions) {
          return reject("execution_plan[%zu].chains[%zu].instructions[%zu]: destination_instruction %" PRId32
                        " is outside the chain's %zu instructions",
                        plan_index_, c, i, destination, num_instructions);
        }
        return Error::Ok;
      }
      case fb::InstructionArguments::FreeCall:
        return check_value_operand(c, i, instruction->instr_args_as_FreeCall()->value_index(), "value_index");
      case fb::InstructionArguments::NONE: break;
    }
    return reject("execution_plan[%zu].chains[%zu].instructions[%zu] has unknown kind %u", plan_index_, c, i,
                  static_cast<unsigned>(instruction->instr_args_type()));
  }

  Error check_chain(size_t c) const {
    const fb::Chain* chain = at(plan_->chains(), c);
    if (chain == nullptr || chain->instructions() == nullptr) {
      return reject("execution_plan[%zu].chains[%zu] has no instructions", plan_index_, c);
    }
    char what[48];
    std::snprintf(what, sizeof what, "chains[%zu].inputs", c);
    if (chain->inputs() != nullptr) KILN_TRY(check_value_indices(chain->inputs(), what));
    std::snprintf(what, sizeof what, "chains[%zu].outputs", c);
    if (chain->outputs() != nullptr) KILN_TRY(check_value_indices(chain->outputs(), what));
    const size_t n = chain->instructions()->size();
    for (size_t i = 0; i < n; ++i) KILN_TRY(check_instruction(c, i, n, at(chain->instructions(), i)));
    return Error::Ok;
  }

  const fb::Program* program_;
  const ProgramLayout& layout_;
  size_t plan_index_ = 0;
  const fb::ExecutionPlan* plan_ = nullptr;
  size_t num_values_ = 0;
};

/// Bool constant `v` of plan `p` holds only 0s and 1s.
Error check_bool_constant(const Program& program, size_t p, size_t v, const fb::Tensor* tensor) {
  size_t nbytes = 0;
  if (!checked_nbytes(ScalarType::Bool, tensor->sizes()->data(), tensor->sizes()->size(), &nbytes)) {
    return reject("execution_plan[%zu].values[%zu]: tensor byte count overflows", p, v);
  }
  Result<const void*> data = program.get_constant_buffer_data(tensor->data_buffer_idx(), nbytes);
  if (!data.ok()) return data.error();  // logged; validate_program has already refused this
  const auto* bytes = static_cast<const uint8_t*>(data.get());
  const size_t bad = first_non_bool_byte(bytes, nbytes);
  if (bad < nbytes) {
    return reject("execution_plan[%zu].values[%zu]: Bool constant %" PRIu32 " holds %u at element %zu (not 0 or 1)", p,
                  v, tensor->data_buffer_idx(), static_cast<unsigned>(bytes[bad]), bad);
  }
  return Error::Ok;
}

}  // namespace

Error validate_bool_constants(const Program& program) {
  const fb::Program* flatbuffer = program.flatbuffer_program();
  for (size_t p = 0; p < size_of(flatbuffer->execution_plan()); ++p) {
    const fb::ExecutionPlan* plan = at(flatbuffer->execution_plan(), p);
    for (size_t v = 0; v < size_of(plan->values()); ++v) {
      const fb::Tensor* tensor = at(plan->values(), v)->val_as_Tensor();
      if (tensor == nullptr || static_cast<ScalarType>(tensor->scalar_type()) != ScalarType::Bool ||
          tensor->data_buffer_idx() == 0 || tensor->allocation_info() != nullptr) {
        continue;
      }
      const fb::ExtraTensorInfo* extra = tensor->extra_tensor_info();
      if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) continue;
      KILN_TRY(check_bool_constant(program, p, v, tensor));
    }
  }
  return Error::Ok;
}

Error validate_program(const fb::Program* program, const ProgramLayout& layout) {
  if (program == nullptr) {
    KILN_LOG(Error, "invalid program: no program to validate");
    return Error::InvalidProgram;
  }
  return ProgramValidator(program, layout).run();
}

}  // namespace kiln::runtime
