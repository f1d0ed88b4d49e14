// Memory planning: gives every planned tensor of a lowered program a place
// (arena, offset) so that two tensors that are live at the same step never
// share a byte. It is a pure function from lifetime records to offsets
// (`plan_memory`); `compute_lifetimes` reads the records off a program in the
// executable form (aot/ir/memory_ops.h), and the emitter reads the result
// through `emitter_allocations`.
//
// Stages: (1) compute_lifetimes: one record per tensor that owns memory
// (memory.alloc nodes, delegate outputs, user inputs, mutated buffers), its
// size at the upper bound of its symbolic dims, and the steps from its
// definition to its last use, aliases (out-variant calls, getitems) included;
// (2) plan_memory: every configured algorithm places the records, and the
// plan with the fewest total bytes wins; (3) verify_memory_plan re-checks the
// winner independently. Left to others: in-place reuse (a tensor sharing its
// input's storage) is a lowering decision, and tensors with no upper bound are
// refused here rather than freed at runtime (ExecuTorch's DYNAMIC_UNBOUND).
//
// Algorithms (all plan each arena on its own and use aligned sizes):
//  - Greedy: ExecuTorch's `greedy` (exir/memory_planning.py). Records sorted
//    by aligned size, largest first (ties in record order); each goes at
//    offset 0 of the first "shared object" none of whose allocations overlaps
//    it in time; failing that, into the first object where it fits above the
//    highest overlapping allocation; failing that, into a new object of its
//    size. Objects are laid out back to back.
//  - Naive: ExecuTorch's `naive`: records in order, bumped one after another,
//    no reuse. The upper bound of every plan.
//  - BestFit: TFLite's greedy-by-size. Records sorted by aligned size, largest
//    first; each is placed in the smallest gap (in offset order) left between
//    the already placed records that overlap it in time, or above the highest
//    of them if no gap fits. Unlike Greedy it is not confined to objects, so a
//    small tensor can use the space a large one leaves free part of the time.
//  - FirstFit: as BestFit, but in the lowest gap that fits.
//  - BestFitByArea: as BestFit, but records sorted by size times the number of
//    steps they live, largest first: long-lived tensors settle low first.
// None of the offset-gap algorithms wins on every program (on random sets of
// 10^5 records FirstFit and BestFitByArea beat Greedy by 1-4%, BestFit loses
// to it by up to 10%), hence the suite. Greedy is in it, so a plan is never
// larger than ExecuTorch's greedy gives for the same records in the same
// order (ExecuTorch breaks ties between equal sizes in set order).
// Cost: every algorithm but Naive asks an interval index for the placed
// records that overlap the one it places, so planning n records costs
// O(n log n) plus O(k log k) per record for the k records met; Naive is O(n).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::aot {

class ExportedProgram;
class Node;

/// One tensor to place: how many bytes it needs and the steps during which
/// they must be kept. Steps are node indices in graph order; both ends count.
struct TensorLifetime {
  std::string label;      ///< for messages and summaries (the node's name)
  int64_t size = 0;       ///< bytes, before alignment
  int64_t first_step = 0;
  int64_t last_step = 0;
  /// Lives across every step and from one call to the next (a mutated
  /// buffer): it overlaps every other record whatever its steps say.
  bool whole_run = false;
  bool graph_input = false;   ///< a user input; planned only if options say so
  bool graph_output = false;  ///< a user output; planned only if options say so
  bool constant = false;      ///< weights and constants: never planned
  int arena = 0;              ///< which arena (0-based; mem_id - 1 in the file)
  /// The node it stands for (compute_lifetimes fills it), and for an element
  /// of a multi-output node that has no getitem, that element's index.
  const Node* node = nullptr;
  int64_t output_index = -1;
};

enum class MemoryPlanningAlgorithm { Greedy, Naive, BestFit, FirstFit, BestFitByArea };
/// "greedy", "naive", "best_fit", "first_fit", "best_fit_by_area".
const char* to_string(MemoryPlanningAlgorithm algorithm);

struct MemoryPlanOptions {
  /// Every offset and every planned size is a multiple of this (ExecuTorch: 16).
  int64_t alignment = 16;
  /// Tried in this order; the smallest total wins, the earlier one on a tie.
  /// Naive never wins against Greedy; it is there for the summary's "no reuse" size.
  std::vector<MemoryPlanningAlgorithm> algorithms = {
      MemoryPlanningAlgorithm::Greedy, MemoryPlanningAlgorithm::BestFit, MemoryPlanningAlgorithm::FirstFit,
      MemoryPlanningAlgorithm::BestFitByArea, MemoryPlanningAlgorithm::Naive};
  bool plan_inputs = true;   ///< ExecuTorch's alloc_graph_input
  bool plan_outputs = true;  ///< ExecuTorch's alloc_graph_output
  /// Bytes added at the end of every arena (ExecuTorch adds 64 when the
  /// program has an XNNPACK delegate).
  int64_t arena_padding = 0;
};

/// Where one record went. `arena` is -1 for a record that is not planned.
struct TensorPlacement {
  int arena = -1;
  int64_t offset = 0;
  bool planned() const { return arena >= 0; }
  bool operator==(const TensorPlacement&) const = default;
};

/// What one algorithm would have needed.
struct AlgorithmResult {
  MemoryPlanningAlgorithm algorithm = MemoryPlanningAlgorithm::Greedy;
  std::vector<int64_t> arena_sizes;
  int64_t total_bytes = 0;
};

struct MemoryPlan {
  int64_t alignment = 16;
  /// Bytes of each arena, index = arena id; at least one arena (maybe empty).
  std::vector<int64_t> arena_sizes;
  /// One per record, in record order.
  std::vector<TensorPlacement> placements;
  MemoryPlanningAlgorithm algorithm = MemoryPlanningAlgorithm::Greedy;  ///< the winner
  /// Every algorithm tried, in the order of the options.
  std::vector<AlgorithmResult> tried;

  int64_t total_bytes() const;
};

/// `size` rounded up to a multiple of `alignment`; throws AotError on int64 overflow.
int64_t align_size(int64_t size, int64_t alignment);

/// True if the options plan `record` (not a constant, not an input or output
/// the options leave to the caller).
bool is_planned(const TensorLifetime& record, const MemoryPlanOptions& options);

/// Places every planned record with each configured algorithm and keeps the
/// plan with the smallest total. Throws AotError naming the record on a bad
/// record (negative size, last step before first, negative arena) or bad
/// options (alignment < 1, no algorithm).
MemoryPlan plan_memory(const std::vector<TensorLifetime>& records, const MemoryPlanOptions& options = {});

/// Checks `plan` against `records` on its own: every planned offset is a
/// multiple of the plan's alignment, every planned record fits its arena, and
/// no two planned records that are live at a common step share a byte (a
/// whole-run record is live at every step). Throws AotError naming the
/// records. O(n log n).
void verify_memory_plan(const std::vector<TensorLifetime>& records, const MemoryPlan& plan);

/// The most bytes live at one step in arena `arena` (aligned sizes): no plan
/// of that arena can be smaller.
int64_t peak_live_bytes(const std::vector<TensorLifetime>& records, const MemoryPlan& plan, int arena);

/// Text for `kiln lower --print-memory`: per arena (by its file mem_id) its
/// size, peak live bytes and efficiency (peak / size), the winning algorithm
/// and the totals of the others.
std::string memory_plan_summary(const std::vector<TensorLifetime>& records, const MemoryPlan& plan);

/// What the emitter writes for one planned tensor: AllocationDetails.
struct PlannedAllocation {
  uint32_t memory_id = 0;  ///< 1-based, as in the file
  uint64_t offset = 0;
  bool operator==(const PlannedAllocation&) const = default;
};

/// The plan as the emitter needs it.
struct EmitterMemoryPlan {
  /// ExecutionPlan.non_const_buffer_sizes: [0, arena 1, arena 2, ...]; index 0 is reserved.
  std::vector<int64_t> non_const_buffer_sizes;
  /// (node, output index) -> allocation; output index -1 except for an
  /// element of a multi-output node that no getitem names.
  std::map<std::pair<const Node*, int64_t>, PlannedAllocation> allocations;

  /// The allocation of `node` (element `output_index`), or null if it is not planned.
  const PlannedAllocation* find(const Node* node, int64_t output_index = -1) const;
};

/// Throws AotError if a planned record has no node.
EmitterMemoryPlan emitter_allocations(const std::vector<TensorLifetime>& records, const MemoryPlan& plan);

/// One record per tensor of `program` (in the executable form) that the
/// options plan, tied to its node, in graph order:
///  - a memory.alloc node, live from itself to the last use of it or of any
///    alias: an out-variant call naming it as an out argument, a getitem of
///    such a call (which aliases its own element only); likewise a call that
///    writes an argument in place (the mutation write-back `aten::copy_`)
///    aliases that argument;
///  - a getitem of executorch_call_delegate (the delegate writes it), live
///    from the call; a delegate output that no getitem names is a record of
///    the call with its output index;
///  - a user-input placeholder (if options.plan_inputs), live from step 0;
///  - a buffer that the program mutates (a BUFFER_MUTATION output names it):
///    whole run.
/// Tensors the output node returns live to it; user outputs are flagged and
/// left out unless options.plan_outputs. Parameters, constants and buffers
/// that are not mutated get no record. Symbolic dims are sized at their upper
/// bound from the range constraints. Throws AotError naming the node on an
/// unbounded dynamic size, a size that overflows int64, or a call that makes
/// a tensor without a memory.alloc (the program is not in executable form).
std::vector<TensorLifetime> compute_lifetimes(const ExportedProgram& program, const MemoryPlanOptions& options = {});

}  // namespace kiln::aot
