// What the operation builders share: an argument list and the last stage of
// every single-result operation (its output's memory and the step).
#pragma once

#include "backends/onednn/runtime/graph_builder.h"

namespace kiln::backends::onednn {

/// A step's arguments being gathered: the primitive's, then its post-ops'.
/// Past the table's room they are counted, not kept, and add_step refuses
/// the step.
struct ArgList {
  StepArg items[kMaxStepArgs];
  uint32_t size = 0;       ///< kept in `items`
  uint32_t requested = 0;  ///< added
  void add(int arg, uint32_t memory) {
    if (size < kMaxStepArgs) items[size++] = StepArg{arg, memory};
    ++requested;
  }
};

/// GraphBuilder::add_step with `args`; a list that overflowed is refused.
inline runtime::Error add_step(GraphBuilder& b, PrimitiveDesc* pd, const ArgList& args) {
  if (args.requested > args.size) return b.too_many_arguments(args.requested);
  return b.add_step(pd, args.items, args.size);
}

/// After a primitive descriptor is made: the output value's memory in the
/// layout it chose, then the step with `args` + DST + post-op args.
inline runtime::Error finish(GraphBuilder& b, PrimitiveDesc* pd, ArgList& args, StepArg* post_args, uint32_t num_post) {
  KILN_TRY(b.resolve_post_args(*pd, post_args, num_post));
  const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd->get(), dnnl_query_dst_md, 0);
  if (chosen == nullptr) return b.refuse("the primitive has no destination");
  KILN_ASSIGN_OR_RETURN(const uint32_t dst, b.define_output(b.output(), chosen));
  args.add(DNNL_ARG_DST, dst);
  for (uint32_t i = 0; i < num_post; ++i) args.add(post_args[i].arg, post_args[i].memory);
  return add_step(b, pd, args);
}

}  // namespace kiln::backends::onednn
