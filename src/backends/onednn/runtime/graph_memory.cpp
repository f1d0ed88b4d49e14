// Stages 2 and 3 of init (compiled_graph.h). Placement: persistent buffers
// (weights) first in the arena, then every intermediate, largest first, at
// the lowest offset no buffer alive at the same time overlaps (first fit by
// lifetime, as a planner over usage records). Materialization: one oneDNN
// memory object per memory (arguments bound later, at execute), one
// primitive per step, and each constant reordered once from its named data,
// which is released right after -- or, packed at lowering in the layout
// chosen here (packed_layout.h), read in place: its named data is held until
// release and takes no arena bytes.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/graph_builder.h"
#include "backends/onednn/runtime/packed_layout.h"
#include "runtime/core/log.h"

namespace kiln::backends::onednn {

using runtime::Error;
using runtime::FreeableBuffer;
using runtime::MemoryAllocator;

namespace {

constexpr size_t kAlignment = 64;

size_t round_up(size_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

bool alive_together(const Buffer& a, const Buffer& b) {
  return !(a.last_step < b.first_step || b.last_step < a.first_step);
}

// The lowest offset at which `buffer` overlaps none of the `placed` buffers
// that are alive with it.
size_t first_fit(const Buffer& buffer, const Buffer* const* placed, uint32_t num_placed, size_t start) {
  size_t offset = start;
  for (bool moved = true; moved;) {
    moved = false;
    for (uint32_t i = 0; i < num_placed; ++i) {
      const Buffer& other = *placed[i];
      if (!alive_together(buffer, other)) continue;
      const size_t end = other.offset + round_up(other.bytes);
      if (offset < end && other.offset < offset + round_up(buffer.bytes)) {
        offset = end;
        moved = true;
      }
    }
  }
  return offset;
}

}  // namespace

size_t place_buffers(Buffer* buffers, uint32_t count, Buffer** order) {
  size_t persistent = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (!buffers[i].persistent) continue;
    buffers[i].offset = persistent;
    persistent += round_up(buffers[i].bytes);
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (!buffers[i].persistent) order[n++] = &buffers[i];
  }
  std::stable_sort(order, order + n, [](const Buffer* a, const Buffer* b) { return a->bytes > b->bytes; });
  size_t end = persistent;
  for (uint32_t i = 0; i < n; ++i) {
    order[i]->offset = first_fit(*order[i], order, i, persistent);
    end = std::max(end, order[i]->offset + round_up(order[i]->bytes));
  }
  return end;
}

// Why int8_staging_layout (graph_builder.h) stages only what oneDNN has no
// JIT reorder for: a linear's [N, K] weights read as [K, N] into a layout
// with zero-point compensation take 3.7 ms on `simple:any` against 0.39 +
// 0.03 through row-major [K, N] (1280 -> 1000, one thread, Zen 5). Staging a
// JIT reorder too (a convolution's OIHW weights through OHWI, 4x faster
// in isolation) made ResNet-18's load slower (16 -> 20 ms): the second
// primitive and the fresh staging pages cost more than it saves.
bool int8_staging_layout(dnnl_engine_t engine, const_dnnl_memory_desc_t source, const_dnnl_memory_desc_t to,
                         dnnl_memory_desc_t* staging) {
  dnnl_data_type_t from_type = dnnl_data_type_undef, to_type = dnnl_data_type_undef;
  int ndims = 0, source_blocks = 0, blocks = 0;
  const dnnl_dims_t* dims = nullptr;
  const dnnl_dims_t* source_strides = nullptr;
  const dnnl_dims_t* inner = nullptr;
  if (dnnl_memory_desc_query(source, dnnl_query_data_type, &from_type) != dnnl_success ||
      dnnl_memory_desc_query(to, dnnl_query_data_type, &to_type) != dnnl_success || from_type != dnnl_s8 ||
      to_type != dnnl_s8 ||
      dnnl_memory_desc_query(source, dnnl_query_inner_nblks_s32, &source_blocks) != dnnl_success ||
      source_blocks != 0 || dnnl_memory_desc_query(to, dnnl_query_inner_nblks_s32, &blocks) != dnnl_success ||
      blocks == 0 || dnnl_memory_desc_query(to, dnnl_query_inner_idxs, &inner) != dnnl_success ||
      dnnl_memory_desc_query(source, dnnl_query_ndims_s32, &ndims) != dnnl_success ||
      dnnl_memory_desc_query(source, dnnl_query_dims, &dims) != dnnl_success ||
      dnnl_memory_desc_query(source, dnnl_query_strides, &source_strides) != dnnl_success) {
    return false;
  }
  dnnl_primitive_desc_t direct = nullptr;
  if (dnnl_reorder_primitive_desc_create(&direct, source, engine, to, engine, nullptr) != dnnl_success) return false;
  const char* impl = nullptr;
  const bool jit = dnnl_primitive_desc_query(direct, dnnl_query_impl_info_str, 0, &impl) == dnnl_success &&
                   impl != nullptr && std::strncmp(impl, "simple:", 7) != 0 && std::strncmp(impl, "ref:", 4) != 0;
  dnnl_primitive_desc_destroy(direct);
  if (jit) return false;
  const auto dense = [&](int last, dnnl_dims_t strides) {
    dnnl_dim_t stride = 1;
    if (last >= 0) {
      strides[last] = stride;
      stride *= (*dims)[last];
    }
    for (int d = ndims - 1; d >= 0; --d) {
      if (d == last) continue;
      strides[d] = stride;
      stride *= (*dims)[d];
    }
  };
  const auto is_source = [&](const dnnl_dims_t strides) {
    for (int d = 0; d < ndims; ++d) {
      if ((*dims)[d] > 1 && strides[d] != (*source_strides)[d]) return false;
    }
    return true;
  };
  dnnl_dims_t strides = {0};
  dense(static_cast<int>((*inner)[blocks - 1]), strides);
  if (is_source(strides)) dense(-1, strides);
  if (is_source(strides)) return false;
  return dnnl_memory_desc_create_with_strides(staging, ndims, *dims, dnnl_s8, strides) == dnnl_success;
}

namespace {

Error dnnl_failed(const CompiledGraph& compiled, uint32_t operation, const char* call, dnnl_status_t status) {
  const char* name = compiled.operation_names != nullptr ? compiled.operation_names[operation] : "";
  KILN_LOG(Error, "OneDnnBackend: method '%s': operation %u '%s': %s failed: %s", compiled.method_name, operation, name,
           call, status_name(status));
  return status == dnnl_out_of_memory ? Error::DelegateMemoryAllocationFailed : Error::DelegateInvalidCompatibility;
}

void* memory_handle(const CompiledGraph& compiled, const Storage& storage) {
  switch (storage.kind) {
    case Storage::kBuffer: return compiled.arena + compiled.buffers[storage.index].offset + storage.offset;
    case Storage::kScratchpad: return compiled.scratchpad;
    // Read only: no primitive writes its weights.
    case Storage::kConstant:
      return static_cast<uint8_t*>(const_cast<void*>(compiled.constant_uses[storage.index].held.data())) + storage.offset;
    case Storage::kArgument: break;
  }
  return DNNL_MEMORY_NONE;
}

Error create_memories_and_primitives(CompiledGraph* compiled) {
  for (uint32_t i = 0; i < compiled->memories.size; ++i) {
    Memory& memory = compiled->memories[i];
    const dnnl_status_t status =
        dnnl_memory_create(&memory.memory, memory.desc, compiled->engine, memory_handle(*compiled, memory.storage));
    if (status != dnnl_success) {
      memory.memory = nullptr;
      return dnnl_failed(*compiled, 0, "dnnl_memory_create", status);
    }
  }
  for (uint32_t s = 0; s < compiled->steps.size; ++s) {
    Step& step = compiled->steps[s];
    for (uint32_t a = 0; a < step.num_args; ++a) {
      step.exec_args[a] = dnnl_exec_arg_t{step.args[a].arg, compiled->memories[step.args[a].memory].memory};
    }
    // A step Kiln's matrix-vector product runs needs no primitive (nor its JIT code).
    if (step.pd == nullptr || step.panel_gemv.src >= 0) continue;
    ScopedThreads threads(step.single_thread ? 1 : omp_get_max_threads());
    const dnnl_status_t status = dnnl_primitive_create(&step.primitive, step.pd);
    if (status != dnnl_success) {
      step.primitive = nullptr;
      return dnnl_failed(*compiled, step.operation, "dnnl_primitive_create", status);
    }
  }
  return Error::Ok;
}

// Runs one reorder from `source` (over `data`) into `to` on the stream; a
// copy when the layouts are the same (a bias, a layer norm's scale), which
// spares creating a reorder primitive for it.
// `scales` (float32, `scales_count` of them, non-null): int8 weights
// dequantized by the reorder, scaled along the source dims `scales_mask` names.
dnnl_status_t reorder_once(const CompiledGraph& compiled, const_dnnl_memory_desc_t source, const void* data,
                           dnnl_memory_t to, const char** call, const float* scales = nullptr, int64_t scales_count = 0,
                           int scales_mask = 0, bool may_stage = true) {
  const_dnnl_memory_desc_t to_desc = nullptr;
  dnnl_memory_t from = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_memory_desc_t scales_desc = nullptr;
  dnnl_memory_t scales_memory = nullptr;
  dnnl_status_t status = dnnl_memory_get_memory_desc(to, &to_desc);
  if (status == dnnl_success && scales != nullptr) {
    *call = "dnnl_primitive_attr_set_scales_mask(weights)";
    status = dnnl_primitive_attr_create(&attr);
    if (status == dnnl_success) status = dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, scales_mask);
    const dnnl_dims_t count = {scales_count};
    if (status == dnnl_success) status = dnnl_memory_desc_create_with_tag(&scales_desc, 1, count, dnnl_f32, dnnl_a);
    if (status == dnnl_success) {
      status = dnnl_memory_create(&scales_memory, scales_desc, compiled.engine, const_cast<float*>(scales));
    }
  } else if (status == dnnl_success && dnnl_memory_desc_equal(source, to_desc)) {
    void* destination = nullptr;
    *call = "dnnl_memory_get_data_handle(weights)";
    status = dnnl_memory_get_data_handle(to, &destination);
    if (status == dnnl_success) std::memcpy(destination, data, dnnl_memory_desc_get_size(source));
    return status;
  }
  dnnl_memory_desc_t staging = nullptr;
  if (status == dnnl_success && may_stage && scales == nullptr &&
      int8_staging_layout(compiled.engine, source, to_desc, &staging)) {
    dnnl_memory_t between = nullptr;
    void* between_data = nullptr;
    *call = "dnnl_memory_create(int8 weights staging)";
    status = dnnl_memory_create(&between, staging, compiled.engine, DNNL_MEMORY_ALLOCATE);
    if (status == dnnl_success) status = dnnl_memory_get_data_handle(between, &between_data);
    if (status == dnnl_success) status = reorder_once(compiled, source, data, between, call, nullptr, 0, 0, false);
    if (status == dnnl_success) status = reorder_once(compiled, staging, between_data, to, call, nullptr, 0, 0, false);
    if (between != nullptr) dnnl_memory_destroy(between);
    dnnl_memory_desc_destroy(staging);
    return status;
  }
  *call = "dnnl_memory_create(named data)";
  if (status == dnnl_success) status = dnnl_memory_create(&from, source, compiled.engine, const_cast<void*>(data));
  if (status == dnnl_success) {
    *call = "dnnl_reorder_primitive_desc_create(weights)";
    status = dnnl_reorder_primitive_desc_create(&pd, source, compiled.engine, to_desc, compiled.engine, attr);
  }
  if (status == dnnl_success) {
    *call = "dnnl_primitive_create(weights reorder)";
    status = dnnl_primitive_create(&reorder, pd);
  }
  if (status == dnnl_success) {
    *call = "dnnl_primitive_execute(weights reorder)";
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, scales_memory}};
    status = dnnl_primitive_execute(reorder, compiled.stream, scales_memory != nullptr ? 3 : 2, args);
  }
  if (status == dnnl_success) {
    *call = "dnnl_stream_wait";
    status = dnnl_stream_wait(compiled.stream);
  }
  if (reorder != nullptr) dnnl_primitive_destroy(reorder);
  if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
  if (from != nullptr) dnnl_memory_destroy(from);
  if (scales_memory != nullptr) dnnl_memory_destroy(scales_memory);
  if (scales_desc != nullptr) dnnl_memory_desc_destroy(scales_desc);
  if (attr != nullptr) dnnl_primitive_attr_destroy(attr);
  return status;
}

// The named data of `use`'s value: row-major `dtype` elements, or the bytes
// of its packed layout.
runtime::Result<FreeableBuffer> constant_bytes(const BlobGraph& blob, const runtime::NamedDataMap* named_data,
                                               const CompiledGraph& compiled, const ConstantUse& use) {
  const fb::Value* value = blob.graph->values()->Get(use.value);
  const char* key = value->constant_key()->c_str();
  KILN_CHECK_OR_LOG_RETURN(named_data != nullptr, NotFound,
                           "OneDnnBackend: method '%s' needs named data '%s', but the program has no named data",
                           compiled.method_name, key);
  runtime::Result<FreeableBuffer> data = named_data->get_data(key);
  if (!data.ok()) {
    KILN_LOG(Error, "OneDnnBackend: method '%s': cannot get named data '%s' (%s)", compiled.method_name, key,
             runtime::to_string(data.error()));
    return data.error();
  }
  const size_t element = value->dtype() == fb::DataType::Float32 ? sizeof(float) : 1;
  const size_t expected = use.packed != nullptr ? dnnl_memory_desc_get_size(use.packed)
                                                : element * static_cast<size_t>(numel_of(value));
  KILN_CHECK_OR_LOG_RETURN(data->size() == expected && data->data() != nullptr, DelegateInvalidCompatibility,
                           "OneDnnBackend: method '%s': named data '%s' has %zu bytes; value %u expects %zu (%s%s)",
                           compiled.method_name, key, data->size(), use.value, expected,
                           fb::EnumNameDataType(value->dtype()), use.packed != nullptr ? ", packed" : "");
  return data;
}

Error load_constant(const BlobGraph& blob, const runtime::NamedDataMap* named_data, CompiledGraph* compiled,
                    const ConstantUse& use) {
  if (use.in_place) return Error::Ok;  // held since before the memories were made
  const fb::Value* value = blob.graph->values()->Get(use.value);
  const char* key = value->constant_key()->c_str();
  runtime::Result<FreeableBuffer> data = constant_bytes(blob, named_data, *compiled, use);
  if (!data.ok()) return data.error();
  // Int8 weights dequantized as they are laid out: their float32 scales.
  const fb::Value* scale_value = use.scales >= 0 ? blob.graph->values()->Get(static_cast<uint32_t>(use.scales)) : nullptr;
  const int64_t scales_count = scale_value != nullptr ? numel_of(scale_value) : 0;
  runtime::Result<FreeableBuffer> scales = scale_value != nullptr
                                               ? named_data->get_data(scale_value->constant_key()->c_str())
                                               : runtime::Result<FreeableBuffer>(runtime::Error::NotFound);
  if (scale_value != nullptr) {
    KILN_CHECK_OR_LOG_RETURN(scales.ok() && scales->size() == sizeof(float) * static_cast<size_t>(scales_count),
                             DelegateInvalidCompatibility,
                             "OneDnnBackend: method '%s': the scales of constant '%s' (value %d) are missing or mis-sized",
                             compiled->method_name, key, use.scales);
  }
  const char* call = "";
  // Packed weights: reordered from their layout into the one chosen here,
  // or, packed for another view of the value, unpacked to row-major first.
  const_dnnl_memory_desc_t from = use.source;
  const void* bytes = data->data();
  MemoryDesc view;
  dnnl_memory_t unpacked = nullptr;
  dnnl_status_t status = dnnl_success;
  if (use.packed != nullptr && use.packed_for_source && use.scales < 0) {
    from = use.packed;
  } else if (use.packed != nullptr) {
    void* row_major = nullptr;
    call = "dnnl_memory_create(unpacked weights)";
    status = packed_view_desc(value->packed(), view.out());
    if (status == dnnl_success) status = dnnl_memory_create(&unpacked, view.get(), compiled->engine, DNNL_MEMORY_ALLOCATE);
    if (status == dnnl_success) status = dnnl_memory_get_data_handle(unpacked, &row_major);
    if (status == dnnl_success) {
      call = "reorder(unpacked weights)";
      status = reorder_bytes(compiled->engine, use.packed, bytes, view.get(), row_major);
    }
    bytes = row_major;
  }
  if (status == dnnl_success) {
    status = reorder_once(*compiled, from, bytes, compiled->memories[use.memory].memory, &call,
                          use.scales >= 0 ? static_cast<const float*>(scales->data()) : nullptr, scales_count,
                          use.scales_mask);
  }
  if (unpacked != nullptr) dnnl_memory_destroy(unpacked);
  if (status != dnnl_success) {
    KILN_LOG(Error, "OneDnnBackend: method '%s': constant '%s' (value %u): %s failed: %s", compiled->method_name, key,
             use.value, call, status_name(status));
    return Error::DelegateInvalidCompatibility;
  }
  return Error::Ok;  // `data` is released here: the weights live in the arena now
}

}  // namespace

// Kiln's own kernels' weights, packed from their constants (Step::Depthwise).
Error pack_kernel_weights(const CompiledGraph& compiled) {
  const auto data_of = [&](int32_t memory) -> void* {
    void* data = nullptr;
    if (memory < 0 || dnnl_memory_get_data_handle(compiled.memories[static_cast<uint32_t>(memory)].memory, &data) !=
                          dnnl_success) {
      return nullptr;
    }
    return data;
  };
  for (uint32_t s = 0; s < compiled.steps.size; ++s) {
    const Step::Depthwise& d = compiled.steps[s].depthwise;
    if (d.packed < 0) continue;
    void* packed = data_of(d.packed);
    const void* weights = data_of(d.weights);
    const void* scales = data_of(d.scales);
    KILN_CHECK_OR_LOG_RETURN(packed != nullptr && weights != nullptr && scales != nullptr, DelegateInvalidCompatibility,
                             "OneDnnBackend: method '%s': operation %u: a depthwise convolution's weights have no data",
                             compiled.method_name, compiled.steps[s].operation);
    pack_depthwise_int8(d.shape, static_cast<const int8_t*>(weights), static_cast<const float*>(scales),
                        static_cast<const float*>(data_of(d.bias)), static_cast<uint8_t*>(packed));
  }
  return Error::Ok;
}

Error materialize_compiled_graph(const BlobGraph& blob, MemoryAllocator* allocator,
                                 const runtime::NamedDataMap* named_data, CompiledGraph* compiled) {
  Table<Buffer>& buffers = compiled->buffers;
  auto** order = allocator->allocateList<Buffer*>(buffers.size);
  const bool placed = order != nullptr || buffers.size == 0;
  if (placed) {
    compiled->arena_bytes = place_buffers(buffers.items, buffers.size, order);
    compiled->arena = compiled->arena_bytes == 0
                          ? nullptr
                          : static_cast<uint8_t*>(allocator->allocate(compiled->arena_bytes, kAlignment));
    compiled->scratchpad = compiled->scratchpad_bytes == 0
                               ? nullptr
                               : static_cast<uint8_t*>(allocator->allocate(compiled->scratchpad_bytes, kAlignment));
  }
  if (!placed || (compiled->arena == nullptr && compiled->arena_bytes != 0) ||
      (compiled->scratchpad == nullptr && compiled->scratchpad_bytes != 0)) {
    KILN_LOG(Error,
             "OneDnnBackend: method '%s': the method allocator has no room for the buffers (%zu bytes of weights and "
             "intermediates, %zu bytes of scratchpad)",
             compiled->method_name, compiled->arena_bytes, compiled->scratchpad_bytes);
    return Error::DelegateMemoryAllocationFailed;
  }
  for (uint32_t i = 0; i < compiled->constant_uses.size; ++i) {
    ConstantUse& use = compiled->constant_uses[i];
    if (!use.in_place) continue;
    runtime::Result<FreeableBuffer> data = constant_bytes(blob, named_data, *compiled, use);
    if (!data.ok()) return data.error();
    if (reinterpret_cast<uintptr_t>(data->data()) % kAlignment == 0) {
      use.held = std::move(*data);
      continue;
    }
    // Named data in a buffer of the caller's that is not 64-byte aligned
    // (a Python bytes object): copied once, as it lies, onto the boundary
    // oneDNN's kernels read weights best from.
    void* copy = allocator->allocate(data->size(), kAlignment);
    KILN_CHECK_OR_LOG_RETURN(copy != nullptr, DelegateMemoryAllocationFailed,
                             "OneDnnBackend: method '%s': the method allocator has no room for a copy of constant %u "
                             "(%zu bytes) on a 64-byte boundary", compiled->method_name, use.value, data->size());
    std::memcpy(copy, data->data(), data->size());
    use.held = FreeableBuffer(copy, data->size(), nullptr);
  }
  KILN_TRY(create_memories_and_primitives(compiled));
  for (uint32_t i = 0; i < compiled->constant_uses.size; ++i) {
    KILN_TRY(load_constant(blob, named_data, compiled, compiled->constant_uses[i]));
  }
  for (uint32_t i = 0; i < compiled->init_values.size; ++i) {
    const InitValue& init = compiled->init_values[i];
    void* data = nullptr;
    const dnnl_status_t status = dnnl_memory_get_data_handle(compiled->memories[init.memory].memory, &data);
    KILN_CHECK_OR_LOG_RETURN(status == dnnl_success && data != nullptr, DelegateInvalidCompatibility,
                             "OneDnnBackend: method '%s': a quantization parameter's memory has no data",
                             compiled->method_name);
    std::memcpy(data, &init.bits, sizeof init.bits);
  }
  return pack_kernel_weights(*compiled);
}

Error resize_runtime_memories(CompiledGraph* compiled, int64_t size) {
  bool any = false;
  for (uint32_t i = 0; i < compiled->memories.size; ++i) {
    Memory& memory = compiled->memories[i];
    if (memory.runtime_dim < 0) continue;
    any = true;
    int ndims = 0;
    const dnnl_dims_t* dims = nullptr;
    dnnl_data_type_t type = dnnl_data_type_undef;
    dnnl_status_t status = dnnl_memory_desc_query(memory.desc, dnnl_query_ndims_s32, &ndims);
    if (status == dnnl_success) status = dnnl_memory_desc_query(memory.desc, dnnl_query_dims, &dims);
    if (status == dnnl_success) status = dnnl_memory_desc_query(memory.desc, dnnl_query_data_type, &type);
    if (status != dnnl_success) return dnnl_failed(*compiled, 0, "dnnl_memory_desc_query", status);
    dnnl_dims_t resized, strides;
    for (int d = 0; d < ndims; ++d) resized[d] = (*dims)[d];
    resized[memory.runtime_dim] = size;
    for (int d = ndims - 1; d >= 0; --d) strides[d] = d == ndims - 1 ? 1 : strides[d + 1] * resized[d + 1];
    dnnl_memory_desc_t desc = nullptr;
    status = dnnl_memory_desc_create_with_strides(&desc, ndims, resized, type, strides);
    if (status != dnnl_success) return dnnl_failed(*compiled, 0, "dnnl_memory_desc_create_with_strides", status);
    void* handle = nullptr;
    status = dnnl_memory_get_data_handle(memory.memory, &handle);
    dnnl_memory_t created = nullptr;
    if (status == dnnl_success) status = dnnl_memory_create(&created, desc, compiled->engine, handle);
    if (status != dnnl_success) {
      dnnl_memory_desc_destroy(desc);
      return dnnl_failed(*compiled, 0, "dnnl_memory_create", status);
    }
    dnnl_memory_destroy(memory.memory);
    dnnl_memory_desc_destroy(memory.desc);
    memory.memory = created;
    memory.desc = desc;
  }
  compiled->runtime_size = size;
  if (!any) return Error::Ok;
  for (uint32_t s = 0; s < compiled->steps.size; ++s) {
    Step& step = compiled->steps[s];
    for (uint32_t a = 0; a < step.num_args; ++a) step.exec_args[a].memory = compiled->memories[step.args[a].memory].memory;
  }
  return Error::Ok;
}

void release_compiled_graph(CompiledGraph* compiled) {
  for (uint32_t i = 0; i < compiled->steps.size; ++i) {
    Step& step = compiled->steps[i];
    if (step.primitive != nullptr) dnnl_primitive_destroy(step.primitive);
    if (step.pd != nullptr) dnnl_primitive_desc_destroy(step.pd);
  }
  compiled->steps.size = 0;
  for (uint32_t i = 0; i < compiled->memories.size; ++i) {
    Memory& memory = compiled->memories[i];
    if (memory.memory != nullptr) dnnl_memory_destroy(memory.memory);
    if (memory.desc != nullptr) dnnl_memory_desc_destroy(memory.desc);
  }
  compiled->memories.size = 0;
  for (uint32_t i = 0; i < compiled->constant_uses.size; ++i) {
    ConstantUse& use = compiled->constant_uses[i];
    if (use.source != nullptr) dnnl_memory_desc_destroy(use.source);
    if (use.packed != nullptr) dnnl_memory_desc_destroy(use.packed);
    use.~ConstantUse();  // frees the named data it held
  }
  compiled->constant_uses.size = 0;
  if (compiled->stream != nullptr) dnnl_stream_destroy(compiled->stream);
  compiled->stream = nullptr;
}

dnnl_engine_t shared_cpu_engine() {
  // Created once and kept for the process: engines are cheap to share and
  // every primitive made on one may run on any stream of it.
  static dnnl_engine_t engine = [] {
    dnnl_engine_t created = nullptr;
    const dnnl_status_t status = dnnl_engine_create(&created, dnnl_cpu, 0);
    if (status != dnnl_success) {
      KILN_LOG(Error, "OneDnnBackend: dnnl_engine_create(cpu, 0) failed: %s", status_name(status));
      return static_cast<dnnl_engine_t>(nullptr);
    }
    return created;
  }();
  return engine;
}

}  // namespace kiln::backends::onednn
