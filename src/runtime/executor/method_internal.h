// Internal to the executor's Method files (method.cpp loads, method_values.cpp
// parses the plan's values, method_execute.cpp runs and takes inputs and
// outputs): the prepared forms Method keeps and the helpers they share.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/log.h"
#include "runtime/executor/method.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

/// One instruction, ready to run.
struct Method::Instruction {
  executorch_flatbuffer::InstructionArguments kind;
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

namespace method_detail {

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

/// "aten::add.out" (or just the name for the default overload ""). False if
/// it does not fit.
bool operator_name(const executorch_flatbuffer::Operator* op, char* buffer, size_t size);

}  // namespace method_detail
}  // namespace kiln::runtime
