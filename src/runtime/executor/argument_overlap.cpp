// check_argument_overlap: each planned tensor argument of a kernel call (and
// each planned tensor item of its tensor lists) becomes a byte range of its
// planned buffer; the ranges are sorted and swept once, keeping the range that
// reaches furthest, and a range starting inside it that is not the same range
// is a partial overlap. More ranges than fit on the stack: every pair is compared.
#include "runtime/executor/argument_overlap.h"

#include <algorithm>
#include <cstdint>

#include "runtime/core/log.h"
#include "runtime/executor/flatbuffer_values.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

namespace {

/// The bytes [begin, end) a planned tensor value occupies in planned buffer `buffer`.
struct PlannedRange {
  uint32_t buffer;
  uint64_t begin;
  uint64_t end;
  size_t value;
};

bool same_bytes(const PlannedRange& a, const PlannedRange& b) {
  return a.buffer == b.buffer && a.begin == b.begin && a.end == b.end;
}

bool overlap_in_part(const PlannedRange& a, const PlannedRange& b) {
  return a.buffer == b.buffer && a.begin < b.end && b.begin < a.end && !same_bytes(a, b);
}

/// The range of value `index`; false if it is not a planned tensor or holds
/// no byte. Method::load placed it, so offset + nbytes fits its buffer.
bool planned_range(const fb::ExecutionPlan* plan, const EValue* values, size_t index, PlannedRange* out) {
  if (index >= size_of(plan->values()) || !values[index].isTensor()) return false;
  const fb::EValue* value = at(plan->values(), index);
  const fb::Tensor* tensor = value == nullptr ? nullptr : value->val_as_Tensor();
  const fb::AllocationDetails* allocation = tensor == nullptr ? nullptr : tensor->allocation_info();
  const size_t nbytes = values[index].toTensor().nbytes();
  if (allocation == nullptr || nbytes == 0) return false;
  const uint64_t offset = allocation->memory_offset_low() | (uint64_t{allocation->memory_offset_high()} << 32);
  *out = PlannedRange{allocation->memory_id(), offset, offset + nbytes, index};
  return true;
}

/// The value indices a (possibly optional) tensor list holds, or null.
const flatbuffers::Vector<int32_t>* tensor_list_items(const fb::EValue* value) {
  if (value == nullptr) return nullptr;
  if (const fb::TensorList* list = value->val_as_TensorList()) return list->items();
  if (const fb::OptionalTensorList* list = value->val_as_OptionalTensorList()) return list->items();
  return nullptr;
}

/// Calls `visit(range)` for each planned tensor the call reads or writes,
/// until it returns false.
template <typename Visit>
void for_each_planned_tensor(const fb::ExecutionPlan* plan, const EValue* values, const fb::KernelCall* call,
                             Visit visit) {
  PlannedRange range;
  for (size_t a = 0; a < size_of(call->args()); ++a) {
    const auto index = static_cast<size_t>(at(call->args(), a));
    const flatbuffers::Vector<int32_t>* items = tensor_list_items(at(plan->values(), index));
    if (items == nullptr) {
      if (planned_range(plan, values, index, &range) && !visit(range)) return;
      continue;
    }
    for (size_t i = 0; i < items->size(); ++i) {
      const int32_t item = at(items, i);  // -1: None in an optional list
      if (item >= 0 && planned_range(plan, values, static_cast<size_t>(item), &range) && !visit(range)) return;
    }
  }
}

bool find_overlap_sorted(PlannedRange* ranges, size_t count, PlannedRange* first, PlannedRange* second) {
  std::sort(ranges, ranges + count, [](const PlannedRange& a, const PlannedRange& b) {
    if (a.buffer != b.buffer) return a.buffer < b.buffer;
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t i = 1, furthest = 0; i < count; ++i) {
    if (ranges[i].buffer != ranges[furthest].buffer) {
      furthest = i;
      continue;
    }
    if (overlap_in_part(ranges[furthest], ranges[i])) {
      *first = ranges[furthest];
      *second = ranges[i];
      return true;
    }
    if (ranges[i].end > ranges[furthest].end) furthest = i;
  }
  return false;
}

bool find_overlap_pairwise(const fb::ExecutionPlan* plan, const EValue* values, const fb::KernelCall* call,
                           PlannedRange* first, PlannedRange* second) {
  bool found = false;
  for_each_planned_tensor(plan, values, call, [&](const PlannedRange& a) {
    for_each_planned_tensor(plan, values, call, [&](const PlannedRange& b) {
      found = overlap_in_part(a, b);
      if (found) {
        *first = a;
        *second = b;
      }
      return !found;
    });
    return !found;
  });
  return found;
}

}  // namespace

Error check_argument_overlap(const fb::ExecutionPlan* plan, const EValue* values, const fb::KernelCall* call,
                             size_t chain, size_t instruction, const char* op_name) {
  PlannedRange ranges[kSortedOverlapRanges];
  size_t count = 0;
  bool on_stack = true;
  for_each_planned_tensor(plan, values, call, [&](const PlannedRange& range) {
    on_stack = count < kSortedOverlapRanges;
    if (on_stack) ranges[count++] = range;
    return on_stack;
  });
  PlannedRange first{};
  PlannedRange second{};
  const bool found = on_stack ? find_overlap_sorted(ranges, count, &first, &second)
                              : find_overlap_pairwise(plan, values, call, &first, &second);
  if (!found) return Error::Ok;
  KILN_LOG(Error,
           "Method::load: chain %zu instruction %zu (%s): value %zu (bytes [%llu, %llu) of planned buffer %u) and "
           "value %zu (bytes [%llu, %llu)) overlap in part; a kernel's planned tensors must be disjoint or the same "
           "memory",
           chain, instruction, op_name, first.value, static_cast<unsigned long long>(first.begin),
           static_cast<unsigned long long>(first.end), first.buffer, second.value,
           static_cast<unsigned long long>(second.begin), static_cast<unsigned long long>(second.end));
  return Error::InvalidProgram;
}

}  // namespace kiln::runtime
