// Method: one loaded execution plan, ready to run.
//
// Method::load builds every value in the caller's method allocator, points
// each planned tensor into planned memory and each constant into the program
// (no copy), resolves every kernel (all missing ones are reported together)
// and initialises every delegate. After that, set_input/execute/get_output
// never allocate: execute runs the instructions, resetting the temp allocator
// after each. Mutated buffers live in planned memory and keep their values
// from one execute to the next.
//
// A Method is not thread-safe; it borrows the Program and the MemoryManager,
// which must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/backend/backend_interface.h"
#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method_meta.h"
#include "runtime/kernel/operator_registry.h"

namespace executorch_flatbuffer {
struct BackendDelegate;
struct ExecutionPlan;
struct Instruction;
struct KernelCall;
struct Tensor;
}

namespace kiln::runtime {

class Program;

class Method final {
 public:
  /// Loads `plan` of `program`. Errors (each also logged with what was wrong):
  /// @retval MemoryAllocationFailed the method allocator is too small.
  /// @retval InvalidArgument planned memory missing, too few buffers, or a
  ///   buffer smaller than a tensor placed in it.
  /// @retval OperatorMissing some kernels are not registered (every missing
  ///   one is logged, with its name and dtype/dim-order key).
  /// @retval NotFound a delegate's backend is not registered (named).
  /// @retval NotSupported a backend is not available, or a value kind or
  ///   feature this runtime does not run (named).
  /// @retval InvalidProgram an index or size in the plan is out of range, or
  ///   two planned tensors of one kernel call overlap in part (not the same bytes).
  /// A delegate's init error is returned as it is.
  [[nodiscard]] static Result<Method> load(const executorch_flatbuffer::ExecutionPlan* plan, const Program* program,
                                           MemoryManager* memory_manager);

  Method(Method&& other) noexcept;
  Method& operator=(Method&&) = delete;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  /// Destroys every delegate handle.
  ~Method();

  /// Sets input `index`. A tensor must match the input's dtype and rank; its
  /// sizes may differ only where the input is dynamic, within the planned
  /// bounds (the method's tensors are resized). A planned input's bytes are
  /// copied in; an unplanned one shares the caller's data, which must stay
  /// valid until execute returns. Prim inputs (int, double, bool) must equal
  /// the value the program was exported with.
  /// @retval InvalidArgument wrong index, dtype, rank, size (all named).
  [[nodiscard]] Error set_input(const EValue& input, size_t index);
  /// set_input for each of `inputs`; InvalidArgument if the count differs.
  [[nodiscard]] Error set_inputs(Span<const EValue> inputs);

  /// For an output that is not memory planned: where execute writes it.
  [[nodiscard]] Error set_output_data_ptr(void* buffer, size_t size, size_t output_index);

  /// Reports every kernel and delegate call of execute to `tracer` (and lets
  /// the backends log their own events); null, the default, turns tracing
  /// off. The tracer must outlive the executes it sees.
  void set_event_tracer(EventTracer* tracer) { event_tracer_ = tracer; }

  /// Runs every instruction. InvalidState if an input was never set; a
  /// kernel's or delegate's failure is returned (and logged, naming the
  /// instruction and operator).
  [[nodiscard]] Error execute();

  size_t inputs_size() const;
  size_t outputs_size() const;
  /// Output `index` after execute: a tensor points into planned memory and
  /// stays valid until the next execute. Aborts when out of range (check
  /// outputs_size()).
  const EValue& get_output(size_t index) const;
  /// Copies up to `size` outputs into `outputs` (shallow copies).
  [[nodiscard]] Error get_outputs(EValue* outputs, size_t size) const;
  /// The input value itself (e.g. to fill a planned input in place).
  const EValue& get_input(size_t index) const;

  MethodMeta method_meta() const { return MethodMeta(plan_); }

 private:
  struct Chain;
  struct DelegateEntry;
  struct Instruction;

  Method(const executorch_flatbuffer::ExecutionPlan* plan, const Program* program, MemoryManager* memory_manager)
      : plan_(plan), program_(program), memory_manager_(memory_manager) {}

  // Loading (each step logs what was wrong).
  Error init();
  Error check_planned_memory() const;
  Error parse_values();  // method_values.cpp
  Error check_inputs_and_outputs();
  Error init_delegates();
  Error compile_specs(const executorch_flatbuffer::BackendDelegate* delegate, size_t index,
                      Span<const CompileSpec>* out) const;
  Error processed_data(const executorch_flatbuffer::BackendDelegate* delegate, size_t index,
                       FreeableBuffer* out) const;
  Error prepare_chains();
  Error prepare_instruction(const executorch_flatbuffer::Instruction* instruction, size_t chain, size_t index,
                            size_t num_instructions, Instruction* out, size_t* missing) const;
  Error resolve_kernel(const executorch_flatbuffer::KernelCall* call, size_t instruction, Instruction* out,
                       size_t* missing) const;

  // Running.
  Error execute_chain(size_t chain_index);
  Error execute_instruction(const Instruction& instruction, size_t chain, size_t index, size_t* next);
  void log_instruction(const Instruction& instruction, size_t chain, size_t index, uint64_t start_ns) const;
  Error jump_condition(const EValue& value, size_t index, bool* condition) const;
  Error check_prim_input(const EValue& input, size_t index, const EValue& expected) const;
  Error set_tensor_input(const EValue& input, size_t index, const executorch_flatbuffer::Tensor* declared,
                         Tensor target);

  const executorch_flatbuffer::ExecutionPlan* plan_;
  const Program* program_;
  MemoryManager* memory_manager_;
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  bool* input_set_ = nullptr;
  Chain* chains_ = nullptr;
  size_t num_chains_ = 0;
  DelegateEntry* delegates_ = nullptr;
  size_t num_delegates_ = 0;
  bool initialized_ = false;
  EventTracer* event_tracer_ = nullptr;
};

}  // namespace kiln::runtime
