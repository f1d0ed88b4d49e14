#include "backends/onednn/runtime/graph_builder.h"

#include <cstdio>
#include <new>

#include "backends/onednn/runtime/implementations.h"
#include "backends/onednn/runtime/packed_layout.h"
#include "runtime/core/log.h"

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::Result;

const char* status_name(dnnl_status_t status) {
  switch (status) {
    case dnnl_success: return "dnnl_success";
    case dnnl_out_of_memory: return "dnnl_out_of_memory";
    case dnnl_invalid_arguments: return "dnnl_invalid_arguments";
    case dnnl_unimplemented: return "dnnl_unimplemented";
    case dnnl_last_impl_reached: return "dnnl_last_impl_reached";
    case dnnl_runtime_error: return "dnnl_runtime_error";
    case dnnl_not_required: return "dnnl_not_required";
    default: return "an unknown oneDNN status";
  }
}

namespace {

Error error_of(dnnl_status_t status) {
  switch (status) {
    case dnnl_out_of_memory: return Error::DelegateMemoryAllocationFailed;
    case dnnl_unimplemented: return Error::NotSupported;
    case dnnl_invalid_arguments: return Error::DelegateInvalidCompatibility;
    default: return Error::Internal;
  }
}

}  // namespace

// ---------------------------------------------------------------- messages

void GraphBuilder::begin_operation(uint32_t index, bool plain_inputs, bool single_thread) {
  operation_index_ = index;
  single_thread_ = single_thread;
  operation_ = blob_.graph->operations()->Get(index);
  plain_inputs_ = plain_inputs;
  wants_retry_ = false;
  pending_output_reorder_ = PendingReorder{};
  any_post_inputs_ = 0;
}

void GraphBuilder::log_operation(const char* format, va_list args) {
  char reason[320];
  std::vsnprintf(reason, sizeof reason, format, args);
  const char* name = operation_ != nullptr && operation_->name() != nullptr ? operation_->name()->c_str() : "";
  KILN_LOG(Error, "OneDnnBackend: method '%s': operation %u '%s' (%s): %s", compiled_->method_name, operation_index_,
           name, operation_ != nullptr ? fb::EnumNameOperationKind(operation_->op_type()) : "", reason);
}

Error GraphBuilder::refuse(const char* format, ...) {
  va_list args;
  va_start(args, format);
  log_operation(format, args);
  va_end(args);
  return Error::DelegateInvalidCompatibility;
}

Error GraphBuilder::no_room(const char* what) {
  KILN_LOG(Error, "OneDnnBackend: method '%s': operation %u: no room for %s (the plan's tables are full)",
           compiled_->method_name, operation_index_, what);
  return Error::DelegateMemoryAllocationFailed;
}

Error GraphBuilder::too_many_arguments(uint32_t count) {
  return refuse("the step has %u arguments; a step takes at most %u (kMaxStepArgs, less one for the scratchpad)",
                count, kMaxStepArgs - 1);
}

Error GraphBuilder::check(dnnl_status_t status, const char* call) {
  if (status == dnnl_success) return Error::Ok;
  (void)refuse("%s failed: %s", call, status_name(status));  // its log line; the code follows oneDNN's status
  return error_of(status);
}

Error GraphBuilder::check_pd(dnnl_status_t status, const char* call, const PrimitiveDesc* pd) {
  if (status == dnnl_unimplemented && !plain_inputs_) {
    wants_retry_ = true;
    return Error::NotSupported;
  }
  KILN_TRY(check(status, call));
  const char* implementation = nullptr;
  if (!plain_inputs_ &&
      dnnl_primitive_desc_query(pd->get(), dnnl_query_impl_info_str, 0, &implementation) == dnnl_success &&
      is_reference_implementation(implementation)) {
    wants_retry_ = true;
    return Error::NotSupported;
  }
  return Error::Ok;
}

// ---------------------------------------------------------------- memories

Result<uint32_t> GraphBuilder::add_memory(dnnl_memory_desc_t desc, Storage storage) {
  Memory* memory = compiled_->memories.push();
  if (memory == nullptr) {
    dnnl_memory_desc_destroy(desc);
    return no_room("a memory");
  }
  *memory = Memory{desc, storage, nullptr};
  return compiled_->memories.size - 1;
}

Result<uint32_t> GraphBuilder::view(uint32_t memory, const_dnnl_memory_desc_t desc, size_t offset) {
  MemoryDesc copy;
  KILN_TRY(check(dnnl_memory_desc_clone(copy.out(), desc), "dnnl_memory_desc_clone"));
  Storage storage = compiled_->memories[memory].storage;
  storage.offset += offset;
  return add_memory(copy.release(), storage);
}

Result<uint32_t> GraphBuilder::new_buffer(const_dnnl_memory_desc_t desc, bool persistent) {
  Buffer* buffer = compiled_->buffers.push();
  if (buffer == nullptr) return no_room("a buffer");
  const uint32_t now = compiled_->steps.size;
  *buffer = Buffer{dnnl_memory_desc_get_size(desc), now, now, persistent, 0};
  MemoryDesc copy;
  KILN_TRY(check(dnnl_memory_desc_clone(copy.out(), desc), "dnnl_memory_desc_clone"));
  return add_memory(copy.release(), Storage{Storage::kBuffer, compiled_->buffers.size - 1});
}

bool GraphBuilder::is_plain(uint32_t memory, int32_t v) {
  MemoryDesc plain;
  if (plain_desc_of(v, &plain) != Error::Ok) return false;
  return dnnl_memory_desc_equal(plain.get(), desc(memory)) != 0;
}

Result<uint32_t> GraphBuilder::value_memory(int32_t v, bool plain) {
  ValueState& state = values_[v];
  const fb::Value* val = value(v);
  if (state.memory < 0) {
    // Inputs and constants are plain; written values have a memory already.
    MemoryDesc desc;
    KILN_TRY(plain_desc_of(v, &desc));
    if (val->kind() == fb::ValueKind::Input) {
      KILN_ASSIGN_OR_RETURN(const uint32_t m, add_memory(desc.release(), Storage{Storage::kArgument, val->index()}));
      state.memory = static_cast<int32_t>(m);
    } else {
      KILN_ASSIGN_OR_RETURN(const uint32_t m, constant(v, desc.get(), desc.get()));
      state.memory = static_cast<int32_t>(m);
    }
  }
  if (!plain) return static_cast<uint32_t>(state.memory);
  if (state.plain_memory < 0) {
    if (is_plain(static_cast<uint32_t>(state.memory), v)) {
      state.plain_memory = state.memory;
    } else {
      MemoryDesc desc;
      KILN_TRY(plain_desc_of(v, &desc));
      KILN_ASSIGN_OR_RETURN(const uint32_t m, reorder_into_buffer(static_cast<uint32_t>(state.memory), desc.get()));
      state.plain_memory = static_cast<int32_t>(m);
    }
  }
  return static_cast<uint32_t>(state.plain_memory);
}

Result<uint32_t> GraphBuilder::channels_last_memory(int32_t v) {
  KILN_ASSIGN_OR_RETURN(const uint32_t m, value_memory(v, false));
  ValueState& state = values_[v];
  if (state.channels_last_memory < 0) {
    MemoryDesc channels_last;
    KILN_TRY(channels_last_desc_of(v, &channels_last));
    if (dnnl_memory_desc_equal(channels_last.get(), desc(m)) != 0) {
      state.channels_last_memory = static_cast<int32_t>(m);
    } else {
      KILN_ASSIGN_OR_RETURN(const uint32_t copy, reorder_into_buffer(m, channels_last.get()));
      state.channels_last_memory = static_cast<int32_t>(copy);
    }
  }
  return static_cast<uint32_t>(state.channels_last_memory);
}

Result<uint32_t> GraphBuilder::value_memory_with_rank(int32_t v, uint32_t rank, bool plain) {
  if (rank == rank_of(value(v)) || (rank == 1 && rank_of(value(v)) == 0)) return value_memory(v, plain);
  KILN_ASSIGN_OR_RETURN(const uint32_t m, value_memory(v, true));
  int64_t dims[kMaxRank];
  broadcast_dims(v, rank, dims);
  MemoryDesc desc;
  KILN_TRY(plain_desc(dims, rank, &desc, data_type_of(value(v))));
  return view(m, desc.get());
}

Result<uint32_t> GraphBuilder::constant(int32_t v, const_dnnl_memory_desc_t source, const_dnnl_memory_desc_t chosen,
                                        int32_t scales, int scales_mask) {
  for (uint32_t i = 0; i < compiled_->constant_uses.size; ++i) {
    const ConstantUse& use = compiled_->constant_uses[i];
    if (use.value == static_cast<uint32_t>(v) && dnnl_memory_desc_equal(use.source, source) &&
        dnnl_memory_desc_equal(desc(use.memory), chosen) && use.scales == scales && use.scales_mask == scales_mask) {
      return use.memory;
    }
  }
  if (scales >= 0 && (is_quantized(value(scales)) || value(scales)->kind() != fb::ValueKind::Constant)) {
    return refuse("the scales of int8 weights must be a float32 constant");
  }
  ConstantUse* use = compiled_->constant_uses.push();
  if (use == nullptr) return no_room("a constant");
  new (use) ConstantUse();
  use->value = static_cast<uint32_t>(v);
  use->scales = scales;
  use->scales_mask = scales_mask;
  KILN_TRY(check(dnnl_memory_desc_clone(&use->source, source), "dnnl_memory_desc_clone"));
  if (const fb::PackedLayout* packed = value(v)->packed()) {
    if (packed_layout_desc(packed, &use->packed) != dnnl_success) {
      use->packed = nullptr;
      return refuse("constant %d is packed in a layout this oneDNN has no format for", v);
    }
    use->packed_for_source = is_packed_view(packed, source);
    use->in_place = use->packed_for_source && scales < 0 && dnnl_memory_desc_equal(use->packed, chosen) != 0;
  }
  if (use->in_place) {
    // Read where the named data lies (materialize_compiled_graph holds it).
    MemoryDesc copy;
    KILN_TRY(check(dnnl_memory_desc_clone(copy.out(), chosen), "dnnl_memory_desc_clone"));
    KILN_ASSIGN_OR_RETURN(use->memory, add_memory(copy.release(), Storage{Storage::kConstant, compiled_->constant_uses.size - 1}));
    return use->memory;
  }
  KILN_ASSIGN_OR_RETURN(use->memory, new_buffer(chosen, /*persistent=*/true));
  return use->memory;
}

Result<uint32_t> GraphBuilder::define_output(int32_t v, const_dnnl_memory_desc_t chosen) {
  const fb::Value* val = value(v);
  uint32_t m = 0;
  MemoryDesc plain;
  KILN_TRY(plain_desc_of(v, &plain));
  const bool is_plain = dnnl_memory_desc_equal(plain.get(), chosen) != 0;
  if (val->kind() == fb::ValueKind::Output) {
    KILN_ASSIGN_OR_RETURN(const uint32_t argument,
                          add_memory(plain.release(), Storage{Storage::kArgument, blob_.num_inputs + val->index()}));
    if (is_plain) {
      m = argument;
    } else {
      // Written in the primitive's layout, reordered to the plain output by
      // the next step (the delegate's edge).
      KILN_ASSIGN_OR_RETURN(m, new_buffer(chosen, /*persistent=*/false));
      pending_output_reorder_ = {static_cast<int32_t>(m), static_cast<int32_t>(argument)};
    }
    values_[v] = ValueState{static_cast<int32_t>(argument), static_cast<int32_t>(argument), values_[v].scale_memory,
                            values_[v].zero_point_memory};
    return m;
  }
  KILN_ASSIGN_OR_RETURN(m, new_buffer(chosen, /*persistent=*/false));
  values_[v] = ValueState{static_cast<int32_t>(m), is_plain ? static_cast<int32_t>(m) : -1, values_[v].scale_memory,
                          values_[v].zero_point_memory};
  return m;
}

Result<uint32_t> GraphBuilder::persistent_bytes(size_t bytes) {
  const int64_t dims[] = {static_cast<int64_t>(bytes)};
  MemoryDesc desc;
  KILN_TRY(plain_desc(dims, 1, &desc, dnnl_u8));
  return new_buffer(desc.get(), /*persistent=*/true);
}

Result<uint32_t> GraphBuilder::reorder_into_buffer(uint32_t memory, const_dnnl_memory_desc_t desc) {
  KILN_ASSIGN_OR_RETURN(const uint32_t m, new_buffer(desc, /*persistent=*/false));
  KILN_TRY(add_reorder(memory, m));
  return m;
}

Error GraphBuilder::add_reorder(uint32_t from, uint32_t to, int32_t fill_memory, float fill_value) {
  PrimitiveDesc pd;
  KILN_TRY(check(dnnl_reorder_primitive_desc_create(pd.out(), desc(from), engine(), desc(to), engine(), nullptr),
                 "dnnl_reorder_primitive_desc_create"));
  const StepArg args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return add_step(&pd, args, 2, fill_memory, fill_value);
}

Error GraphBuilder::alias_value(int32_t v, uint32_t memory) {
  values_[v] = ValueState{static_cast<int32_t>(memory), static_cast<int32_t>(memory), -1, -1};
  return Error::Ok;
}

Error GraphBuilder::add_fill(uint32_t memory, float fill_value) {
  PrimitiveDesc none;
  const StepArg args[] = {{DNNL_ARG_DST, memory}};
  return add_step(&none, args, 1, static_cast<int32_t>(memory), fill_value);
}

void GraphBuilder::note_use(uint32_t memory) {
  const Storage storage = compiled_->memories[memory].storage;
  if (storage.kind != Storage::kBuffer) return;
  Buffer& buffer = compiled_->buffers[storage.index];
  const uint32_t now = compiled_->steps.size - 1;
  if (now < buffer.first_step) buffer.first_step = now;
  if (now > buffer.last_step) buffer.last_step = now;
}

// ---------------------------------------------------------------- steps

Error GraphBuilder::add_step(PrimitiveDesc* pd, const StepArg* args, uint32_t num_args, int32_t fill_memory,
                             float fill_value) {
  if (num_args > kMaxStepArgs - 1) return too_many_arguments(num_args);
  Step* step = compiled_->steps.push();
  if (step == nullptr) return no_room("a step");
  step->pd = pd->release();
  step->primitive = nullptr;
  step->operation = operation_index_;
  step->debug_id = operation_ != nullptr ? operation_->debug_id() : -1;
  step->num_args = 0;
  step->fill_memory = fill_memory;
  step->fill_value = fill_value;
  step->single_thread = single_thread_;
  step->choose_qparams = Step::ChooseQParams{-1, 0, 0, 0};
  step->row_dots = Step::RowDots{-1, -1, -1, -1, 0, 0};
  step->panel_gemv.src = -1;
  step->dst_scale_memory = -1;
  step->dst_zero_point_memory = -1;
  for (uint32_t i = 0; i < num_args; ++i) {
    step->args[step->num_args++] = args[i];
    note_use(args[i].memory);
  }
  step->depthwise.packed = -1;
  step->quantize_image.src = -1;
  step->channel_scale.src = -1;
  step->pointwise = nullptr;
  if (step->pd == nullptr) return Error::Ok;  // a fill, never followed by a pending reorder
  const_dnnl_memory_desc_t scratchpad = dnnl_primitive_desc_query_md(step->pd, dnnl_query_scratchpad_md, 0);
  const size_t scratchpad_bytes = scratchpad != nullptr ? dnnl_memory_desc_get_size(scratchpad) : 0;
  if (scratchpad_bytes > 0) {
    MemoryDesc copy;
    KILN_TRY(check(dnnl_memory_desc_clone(copy.out(), scratchpad), "dnnl_memory_desc_clone"));
    KILN_ASSIGN_OR_RETURN(const uint32_t m, add_memory(copy.release(), Storage{Storage::kScratchpad, 0}));
    step->args[step->num_args++] = StepArg{DNNL_ARG_SCRATCHPAD, m};
    if (scratchpad_bytes > compiled_->scratchpad_bytes) compiled_->scratchpad_bytes = scratchpad_bytes;
  }
  return add_pending_output_reorder();
}

Error GraphBuilder::add_kernel_step(const StepArg* args, uint32_t num_args, size_t scratchpad_bytes, Step** added) {
  PrimitiveDesc none;
  KILN_TRY(add_step(&none, args, num_args));
  Step* step = last_step();
  *added = step;
  if (scratchpad_bytes > 0) {
    const int64_t dims[] = {static_cast<int64_t>(scratchpad_bytes)};
    MemoryDesc bytes;
    KILN_TRY(plain_desc(dims, 1, &bytes, dnnl_u8));
    KILN_ASSIGN_OR_RETURN(const uint32_t m, add_memory(bytes.release(), Storage{Storage::kScratchpad, 0}));
    step->args[step->num_args++] = StepArg{DNNL_ARG_SCRATCHPAD, m};
    if (scratchpad_bytes > compiled_->scratchpad_bytes) compiled_->scratchpad_bytes = scratchpad_bytes;
  }
  return add_pending_output_reorder();
}

Error GraphBuilder::add_pending_output_reorder() {
  if (pending_output_reorder_.from >= 0) {
    const PendingReorder pending = pending_output_reorder_;
    pending_output_reorder_ = PendingReorder{};
    return add_reorder(static_cast<uint32_t>(pending.from), static_cast<uint32_t>(pending.to));
  }
  return Error::Ok;
}

bool GraphBuilder::same_sizes(int32_t a, int32_t b, uint32_t rank) const {
  const fb::Value* x = value(a);
  const fb::Value* y = value(b);
  if (rank_of(x) != rank || rank_of(y) != rank) return false;
  for (uint32_t d = 0; d < rank; ++d) {
    if (x->sizes()->Get(d) != y->sizes()->Get(d)) return false;
  }
  return true;
}

Error GraphBuilder::resolve_post_args(const PrimitiveDesc& pd, StepArg* post_args, uint32_t num_post_args) {
  for (uint32_t i = 0; i < num_post_args; ++i) {
    if ((any_post_inputs_ & (1u << i)) == 0) continue;
    const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd.get(), dnnl_query_exec_arg_md, post_args[i].arg);
    if (chosen == nullptr) return refuse("post-op input %u has no layout", i);
    if (dnnl_memory_desc_equal(chosen, desc(post_args[i].memory))) continue;
    KILN_ASSIGN_OR_RETURN(post_args[i].memory, reorder_into_buffer(post_args[i].memory, chosen));
  }
  any_post_inputs_ = 0;
  return Error::Ok;
}

Error GraphBuilder::make_attr(uint32_t dst_rank, Attr* attr, StepArg* post_args, uint32_t* num_post_args) {
  *num_post_args = 0;
  any_post_inputs_ = 0;
  KILN_TRY(check(dnnl_primitive_attr_create(attr->out()), "dnnl_primitive_attr_create"));
  KILN_TRY(check(dnnl_primitive_attr_set_scratchpad_mode(attr->get(), dnnl_scratchpad_mode_user),
                 "dnnl_primitive_attr_set_scratchpad_mode"));
  const auto* post_ops = operation_->post_ops();
  if (post_ops == nullptr || post_ops->size() == 0) return Error::Ok;
  if (post_ops->size() > kMaxPostOps) return refuse("%u post-ops (at most %u)", post_ops->size(), kMaxPostOps);
  PostOps list;
  KILN_TRY(check(dnnl_post_ops_create(list.out()), "dnnl_post_ops_create"));
  for (uint32_t p = 0; p < post_ops->size(); ++p) {
    const fb::PostOp* post = post_ops->Get(p);
    if (const fb::Eltwise* eltwise = post->op_as_Eltwise()) {
      dnnl_alg_kind_t alg;
      float alpha, beta;
      if (!eltwise_algorithm(eltwise, &alg, &alpha, &beta)) return refuse("post-op %u: unknown eltwise algorithm", p);
      KILN_TRY(check(dnnl_post_ops_append_eltwise(list.get(), alg, alpha, beta), "dnnl_post_ops_append_eltwise"));
      continue;
    }
    const fb::BinaryPostOp* binary = post->op_as_BinaryPostOp();
    dnnl_alg_kind_t alg;
    if (binary == nullptr || !binary_algorithm(binary->algorithm(), &alg)) {
      return refuse("post-op %u: unknown binary algorithm", p);
    }
    if (rank_of(value(binary->input())) > dst_rank) {
      return refuse("post-op %u: value %d has more dimensions than the result", p, binary->input());
    }
    KILN_ASSIGN_OR_RETURN(const uint32_t m, value_memory_with_rank(binary->input(), dst_rank, plain_inputs_));
    if (!plain_inputs_ && same_sizes(binary->input(), output(), dst_rank)) {
      // A full-shaped input (a residual) is declared `any`: the primitive
      // takes it in its result's layout (resolve_post_args reorders it if
      // it is in another).
      MemoryDesc any;
      KILN_TRY(any_desc(dims_of(value(output())), dst_rank, &any, data_type_of(value(binary->input()))));
      KILN_TRY(check(dnnl_post_ops_append_binary(list.get(), alg, any.get()), "dnnl_post_ops_append_binary"));
      any_post_inputs_ |= 1u << *num_post_args;
    } else {
      KILN_TRY(check(dnnl_post_ops_append_binary(list.get(), alg, desc(m)), "dnnl_post_ops_append_binary"));
    }
    post_args[(*num_post_args)++] = StepArg{DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(p)) | DNNL_ARG_SRC_1, m};
  }
  return check(dnnl_primitive_attr_set_post_ops(attr->get(), list.get()), "dnnl_primitive_attr_set_post_ops");
}

}  // namespace kiln::backends::onednn
