// Stage 1 of init (compiled_graph.h): the plan driver. Reserves the plan's
// tables, then builds each operation (operation_builders.cpp), once more
// with plain inputs when the first attempt asks for a retry.
#include "backends/onednn/runtime/graph_builder.h"

#include <omp.h>

#include "runtime/core/log.h"

namespace kiln::backends::onednn {

using runtime::Error;

namespace {

// Upper bounds of the plan's tables, from the graph's sizes.
struct Capacities {
  uint32_t steps = 0, memories = 0, constant_uses = 0, init_values = 0;
};

Capacities capacities_of(const fb::Graph* graph) {
  Capacities c;
  c.memories = graph->values()->size();
  for (uint32_t o = 0; o < graph->operations()->size(); ++o) {
    const fb::Operation* op = graph->operations()->Get(o);
    const uint32_t reads = op->inputs()->size() + (op->post_ops() != nullptr ? op->post_ops()->size() : 0);
    c.steps += 2 * reads + 3;  // a first attempt's reorders, then a retry's
    c.memories += 4 * reads + 12;
    c.constant_uses += reads;
    c.init_values += 8;  // a quantized operation's source and result scales and zero points, a reorder's inverse scale
  }
  return c;
}

}  // namespace

Error plan_compiled_graph(const BlobGraph& blob, runtime::MemoryAllocator* allocator, CompiledGraph* compiled) {
  const Capacities c = capacities_of(blob.graph);
  const uint32_t num_values = blob.graph->values()->size();
  auto* values = allocator->allocateList<ValueState>(num_values);
  if (values == nullptr || !compiled->steps.reserve(allocator, c.steps) ||
      !compiled->memories.reserve(allocator, c.memories) || !compiled->buffers.reserve(allocator, c.memories) ||
      !compiled->constant_uses.reserve(allocator, c.constant_uses) ||
      !compiled->init_values.reserve(allocator, c.init_values)) {
    KILN_LOG(Error, "OneDnnBackend: method '%s': the method allocator has no room for the plan's tables",
             compiled->method_name);
    return Error::DelegateMemoryAllocationFailed;
  }
  for (uint32_t v = 0; v < num_values; ++v) values[v] = ValueState{-1, -1, -1, -1};
  GraphBuilder builder(blob, compiled, values, allocator);
  const bool several_threads = omp_get_max_threads() > 1;
  for (uint32_t o = 0; o < blob.graph->operations()->size(); ++o) {
    // A small operation's primitives are made for one thread (oneDNN fixes
    // a primitive's thread split when it makes it) and run on one.
    const bool single = several_threads && estimated_ns(blob.graph, blob.graph->operations()->Get(o)) < kSmallOperationNs;
    ScopedThreads threads(single ? 1 : omp_get_max_threads());
    builder.begin_operation(o, /*plain_inputs=*/false, single);
    Error error = build_operation(builder);
    if (error != Error::Ok && builder.wants_retry()) {
      builder.begin_operation(o, /*plain_inputs=*/true, single);
      error = build_operation(builder);
    }
    KILN_TRY(error);
  }
  return Error::Ok;
}

}  // namespace kiln::backends::onednn
