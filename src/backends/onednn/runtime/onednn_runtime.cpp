#include "backends/onednn/runtime/onednn_runtime.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>

#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/runtime/compiled_graph.h"
#include "runtime/core/log.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::backends::onednn {

using runtime::BackendExecutionContext;
using runtime::BackendInitContext;
using runtime::CompileSpec;
using runtime::DelegateHandle;
using runtime::Error;
using runtime::EValue;
using runtime::FreeableBuffer;
using runtime::MemoryAllocator;
using runtime::Result;
using runtime::Span;

namespace {

std::atomic<int> g_num_threads{1};

// OpenMP's thread count is per calling thread: apply it where oneDNN runs.
void apply_num_threads() {
  const int wanted = g_num_threads.load(std::memory_order_relaxed);
  if (omp_get_max_threads() != wanted) omp_set_num_threads(wanted);
}

const char* name_or_unknown(const char* method_name) { return method_name != nullptr ? method_name : "(unnamed)"; }

Error no_room(const char* method_name, const char* what) {
  KILN_LOG(Error, "OneDnnBackend: method '%s': the method allocator has no room for %s", method_name, what);
  return Error::DelegateMemoryAllocationFailed;
}

// The tables execute reads that would otherwise point into the blob:
// argument shapes and operation names.
Error copy_from_blob(const BlobGraph& blob, MemoryAllocator* allocator, CompiledGraph* compiled) {
  const uint32_t num_arguments = blob.num_inputs + blob.num_outputs;
  compiled->num_inputs = blob.num_inputs;
  compiled->num_outputs = blob.num_outputs;
  compiled->arguments = allocator->allocateList<ArgumentSpec>(num_arguments);
  compiled->argument_data = allocator->allocateList<void*>(num_arguments);
  const uint32_t num_operations = blob.graph->operations()->size();
  compiled->operation_names = allocator->allocateList<const char*>(num_operations);
  if ((compiled->arguments == nullptr || compiled->argument_data == nullptr) && num_arguments != 0) {
    return no_room(compiled->method_name, "the argument table");
  }
  if (compiled->operation_names == nullptr && num_operations != 0) return no_room(compiled->method_name, "names");
  for (uint32_t v = 0; v < blob.graph->values()->size(); ++v) {
    const fb::Value* value = blob.graph->values()->Get(v);
    if (value->kind() != fb::ValueKind::Input && value->kind() != fb::ValueKind::Output) continue;
    const uint32_t a = value->kind() == fb::ValueKind::Input ? value->index() : blob.num_inputs + value->index();
    compiled->arguments[a].rank = rank_of(value);
    for (uint32_t d = 0; d < rank_of(value); ++d) compiled->arguments[a].sizes[d] = value->sizes()->Get(d);
    compiled->arguments[a].runtime_dim =
        value->runtime_dim() >= 0 && static_cast<uint32_t>(value->runtime_dim()) < rank_of(value) ? value->runtime_dim() : -1;
  }
  for (uint32_t o = 0; o < num_operations; ++o) {
    const flatbuffers::String* name = blob.graph->operations()->Get(o)->name();
    const size_t length = name != nullptr ? name->size() : 0;
    char* copy = allocator->allocateList<char>(length + 1);
    if (copy == nullptr) return no_room(compiled->method_name, "an operation's name");
    if (length != 0) std::memcpy(copy, name->c_str(), length);
    copy[length] = '\0';
    compiled->operation_names[o] = copy;
  }
  return Error::Ok;
}

Error build(const BlobGraph& blob, BackendInitContext& context, CompiledGraph* compiled) {
  MemoryAllocator* allocator = context.get_runtime_allocator();
  KILN_TRY(copy_from_blob(blob, allocator, compiled));
  const dnnl_status_t status = dnnl_stream_create(&compiled->stream, compiled->engine, dnnl_stream_in_order);
  if (status != dnnl_success) {
    compiled->stream = nullptr;
    KILN_LOG(Error, "OneDnnBackend: method '%s': dnnl_stream_create failed: %s", compiled->method_name,
             status_name(status));
    return Error::Internal;
  }
  KILN_TRY(plan_compiled_graph(blob, allocator, compiled));
  return materialize_compiled_graph(blob, allocator, context.get_named_data_map(), compiled);
}

// Checks that argument `index` is a contiguous float32 tensor of exactly
// the blob's sizes (up to them in its run-time dimension, whose size it sets
// in `runtime_size`, the same for every argument) and returns its data.
Error tensor_argument(const CompiledGraph& graph, EValue* arg, uint32_t index, void** data, int64_t* runtime_size) {
  const char* method = graph.method_name;
  KILN_CHECK_OR_LOG_RETURN(arg != nullptr && arg->isTensor(), InvalidArgument,
                           "OneDnnBackend: method '%s': delegate argument %u is %s, not a tensor", method, index,
                           arg == nullptr ? "missing" : runtime::to_string(arg->tag()));
  const runtime::Tensor tensor = arg->toTensor();
  KILN_CHECK_OR_LOG_RETURN(tensor.scalar_type() == runtime::ScalarType::Float, InvalidArgument,
                           "OneDnnBackend: method '%s': delegate argument %u is %s; the blob runs float32 only",
                           method, index, runtime::to_string(tensor.scalar_type()));
  const ArgumentSpec& spec = graph.arguments[index];
  if (index >= graph.num_inputs && spec.runtime_dim >= 0 && *runtime_size >= 0 && tensor.dim() == static_cast<ssize_t>(spec.rank)) {
    // An output of run-time size: the inputs set it, the delegate sizes it.
    runtime::SizesType sizes[kMaxRank];
    for (uint32_t d = 0; d < spec.rank; ++d) sizes[d] = static_cast<runtime::SizesType>(spec.sizes[d]);
    sizes[spec.runtime_dim] = static_cast<runtime::SizesType>(*runtime_size);
    const Error resized = runtime::resize_tensor(tensor, Span<const runtime::SizesType>(sizes, spec.rank));
    KILN_CHECK_OR_LOG_RETURN(resized == Error::Ok, InvalidArgument,
                             "OneDnnBackend: method '%s': delegate output %u cannot be resized to its run-time size %lld",
                             method, index - graph.num_inputs, static_cast<long long>(*runtime_size));
  }
  bool same = tensor.dim() == static_cast<ssize_t>(spec.rank);
  for (uint32_t d = 0; same && d < spec.rank; ++d) {
    const int64_t size = tensor.sizes()[d];
    if (static_cast<int32_t>(d) != spec.runtime_dim) {
      same = size == spec.sizes[d];
    } else {
      same = size >= 1 && size <= spec.sizes[d] && (*runtime_size < 0 || size == *runtime_size);
      if (same) *runtime_size = size;
    }
  }
  if (!same) {
    char want[160] = "", got[160] = "";
    size_t w = 0, g = 0;
    for (uint32_t d = 0; d < spec.rank && w < sizeof want - 24; ++d) {
      w += static_cast<size_t>(std::snprintf(want + w, sizeof want - w, d ? ", %lld" : "%lld",
                                             static_cast<long long>(spec.sizes[d])));
    }
    for (ssize_t d = 0; d < tensor.dim() && g < sizeof got - 24; ++d) {
      g += static_cast<size_t>(std::snprintf(got + g, sizeof got - g, d ? ", %d" : "%d",
                                             static_cast<int>(tensor.sizes()[static_cast<size_t>(d)])));
    }
    KILN_LOG(Error,
             "OneDnnBackend: method '%s': delegate argument %u has sizes [%s]; the blob expects [%s]%s", method,
             index, got, want,
             spec.runtime_dim >= 0 ? " (at most that in its run-time dimension, the same in every argument)" : "");
    return Error::InvalidArgument;
  }
  if (!runtime::is_contiguous_dim_order(tensor.dim_order())) {
    char order[80] = "";
    size_t n = 0;
    for (size_t d = 0; d < tensor.dim_order().size() && n < sizeof order - 8; ++d) {
      n += static_cast<size_t>(std::snprintf(order + n, sizeof order - n, d ? ", %d" : "%d",
                                             static_cast<int>(tensor.dim_order()[d])));
    }
    KILN_LOG(Error,
             "OneDnnBackend: method '%s': delegate argument %u has dim order (%s); the blob reads and writes "
             "contiguous tensors only",
             method, index, order);
    return Error::InvalidArgument;
  }
  KILN_CHECK_OR_LOG_RETURN(tensor.numel() == 0 || tensor.const_data_ptr() != nullptr, InvalidArgument,
                           "OneDnnBackend: method '%s': delegate argument %u has no data", method, index);
  *data = tensor.mutable_data_ptr();
  return Error::Ok;
}

Error step_failed(const CompiledGraph& graph, uint32_t operation, const char* call, dnnl_status_t status) {
  KILN_LOG(Error, "OneDnnBackend: method '%s': operation %u '%s': %s failed: %s", graph.method_name, operation,
           graph.operation_names[operation], call, status_name(status));
  return Error::Internal;
}

void* storage_data(const CompiledGraph& graph, const Storage& storage) {
  switch (storage.kind) {
    case Storage::kArgument: return static_cast<uint8_t*>(graph.argument_data[storage.index]) + storage.offset;
    case Storage::kBuffer: return graph.arena + graph.buffers[storage.index].offset + storage.offset;
    case Storage::kScratchpad: return graph.scratchpad;
    case Storage::kConstant:
      return static_cast<uint8_t*>(const_cast<void*>(graph.constant_uses[storage.index].held.data())) + storage.offset;
  }
  return nullptr;
}

// Pad's first half: every element of a plain memory set to `value`.
void fill(const CompiledGraph& graph, const Memory& memory, float value) {
  auto* data = static_cast<float*>(storage_data(graph, memory.storage));
  const size_t count = dnnl_memory_desc_get_size(memory.desc) / sizeof(float);
  if (value == 0.0f) {
    std::memset(data, 0, count * sizeof(float));
    return;
  }
  for (size_t i = 0; i < count; ++i) data[i] = value;
}

// A dynamic quantization's parameters from its source's range, in float32
// as PyTorch's choose_qparams computes them (onednn_graph.fbs
// DynamicQuantize); the zero point shifted by 128 (values held as uint8).
void choose_qparams(const CompiledGraph& graph, const Step& step) {
  const Step::ChooseQParams& p = step.choose_qparams;
  const Memory& source = graph.memories[static_cast<uint32_t>(p.source)];
  const auto* x = static_cast<const float*>(storage_data(graph, source.storage));
  const size_t count = dnnl_memory_desc_get_size(source.desc) / sizeof(float);
  float lowest = std::numeric_limits<float>::infinity(), highest = -lowest;
  for (size_t i = 0; i < count; ++i) {
    lowest = std::min(lowest, x[i]);
    highest = std::max(highest, x[i]);
  }
  const float min_neg = std::min(lowest, 0.0f), max_pos = std::max(highest, 0.0f);
  const float scale = std::max((max_pos - min_neg) / static_cast<float>(p.quant_max - p.quant_min), p.eps);
  int32_t zero_point = p.quant_min - static_cast<int32_t>(std::nearbyint(min_neg / scale));
  zero_point = std::min(std::max(zero_point, p.quant_min), p.quant_max);
  const float inverse = static_cast<float>(1.0 / static_cast<double>(scale));
  zero_point += 128;
  std::memcpy(storage_data(graph, graph.memories[step.args[1].memory].storage), &scale, sizeof scale);
  std::memcpy(storage_data(graph, graph.memories[step.args[2].memory].storage), &inverse, sizeof inverse);
  std::memcpy(storage_data(graph, graph.memories[step.args[3].memory].storage), &zero_point, sizeof zero_point);
}

// y[n] = bias[n] + sum_k x[k] * w[n * k_size + k]: sixteen partial sums per
// row, which the compiler keeps in vector registers (one clone per ISA).
__attribute__((target_clones("avx512f", "avx2", "default"))) void dot_rows(const float* x, const float* w,
                                                                            const float* bias, float* y, int64_t first,
                                                                            int64_t last, int64_t k_size) {
  constexpr int64_t kLanes = 16;
  for (int64_t n = first; n < last; ++n) {
    const float* row = w + n * k_size;
    float partial[kLanes] = {};
    int64_t k = 0;
    for (; k + kLanes <= k_size; k += kLanes) {
      for (int64_t j = 0; j < kLanes; ++j) partial[j] += row[k + j] * x[k + j];
    }
    float sum = 0;
    for (; k < k_size; ++k) sum += row[k] * x[k];
    for (int64_t j = 0; j < kLanes; ++j) sum += partial[j];
    y[n] = bias != nullptr ? sum + bias[n] : sum;
  }
}

// Step::RowDots: the one row, split over the backend's threads.
void run_row_dots(const CompiledGraph& graph, const Step& step, int threads) {
  const Step::RowDots& r = step.row_dots;
  const auto* x = static_cast<const float*>(storage_data(graph, graph.memories[static_cast<uint32_t>(r.src)].storage));
  const auto* w = static_cast<const float*>(storage_data(graph, graph.memories[static_cast<uint32_t>(r.weights)].storage));
  const auto* bias =
      r.bias >= 0 ? static_cast<const float*>(storage_data(graph, graph.memories[static_cast<uint32_t>(r.bias)].storage)) : nullptr;
  auto* y = static_cast<float*>(storage_data(graph, graph.memories[static_cast<uint32_t>(r.dst)].storage));
  if (threads <= 1) return dot_rows(x, w, bias, y, 0, r.n, r.k);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    dot_rows(x, w, bias, y, r.n * part / parts, r.n * (part + 1) / parts, r.k);
  }
#else
  // Built without GNU OpenMP's code generation (clang, whose -fopenmp targets
  // another runtime than the libgomp oneDNN uses): one thread.
  dot_rows(x, w, bias, y, 0, r.n, r.k);
#endif
}

// Step::PanelGemv: the panels of columns split over the threads; then its
// addend, if any.
void run_panel_gemv(const CompiledGraph& graph, const Step& step, int threads) {
  const Step::PanelGemv& g = step.panel_gemv;
  const auto data = [&](int32_t memory) {
    return memory < 0 ? nullptr : storage_data(graph, graph.memories[static_cast<uint32_t>(memory)].storage);
  };
  const auto* x = static_cast<const float*>(data(g.src));
  const auto* w = static_cast<const float*>(data(g.weights));
  const auto* bias = static_cast<const float*>(data(g.bias));
  auto* y = static_cast<float*>(data(g.dst));
  const int64_t panels = panel_gemv_f32_panels(g.shape);
  if (threads <= 1 || panels < 2) {
    run_panel_gemv_f32(g.shape, x, w, bias, y, 0, panels, g.path);
  } else {
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
    {
      const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
      run_panel_gemv_f32(g.shape, x, w, bias, y, panels * part / parts, panels * (part + 1) / parts, g.path);
    }
#else
    run_panel_gemv_f32(g.shape, x, w, bias, y, 0, panels, g.path);
#endif
  }
  if (g.addend >= 0) {
    const auto* addend = static_cast<const float*>(data(g.addend));
    for (int64_t i = 0; i < g.shape.n; ++i) y[i] += addend[i];
  }
}

// Step::Depthwise: Kiln's int8 depthwise kernel, its items split over the
// threads (at most the ones its scratchpad has slices for).
void run_depthwise(const CompiledGraph& graph, const Step& step, int threads) {
  const Step::Depthwise& d = step.depthwise;
  const auto* packed = static_cast<const uint8_t*>(storage_data(graph, graph.memories[static_cast<uint32_t>(d.packed)].storage));
  const void* src = storage_data(graph, graph.memories[static_cast<uint32_t>(d.src)].storage);
  void* dst = storage_data(graph, graph.memories[static_cast<uint32_t>(d.dst)].storage);
  const int64_t parts = std::max(1, std::min(threads, d.parts));
  if (parts == 1) return run_depthwise_int8(d.shape, packed, src, dst, 0, depthwise_int8_items(d.shape), graph.scratchpad);
  const auto run_part = [&](int64_t part) {
    run_depthwise_int8(d.shape, packed, src, dst, depthwise_int8_first_item(d.shape, parts, part),
                       depthwise_int8_first_item(d.shape, parts, part + 1),
                       graph.scratchpad + static_cast<size_t>(part) * d.scratch_bytes);
  };
#ifdef _OPENMP
#pragma omp parallel num_threads(parts)
  {
    // However many threads came, the parts the items were split for.
    for (int64_t part = omp_get_thread_num(); part < parts; part += omp_get_num_threads()) run_part(part);
  }
#else
  for (int64_t part = 0; part < parts; ++part) run_part(part);
#endif
}

// Step::QuantizeImage: the pixels split over the threads.
void run_quantize_image(const CompiledGraph& graph, const Step& step, int threads) {
  const Step::QuantizeImage& q = step.quantize_image;
  const auto* src = static_cast<const float*>(storage_data(graph, graph.memories[static_cast<uint32_t>(q.src)].storage));
  auto* dst = static_cast<uint8_t*>(storage_data(graph, graph.memories[static_cast<uint32_t>(q.dst)].storage));
  const int64_t pixels = q.shape.pixels;
  if (threads <= 1) return run_channels_last_quantize(q.shape, src, dst, 0, pixels);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    // Whole blocks of 16 pixels to each thread but the last.
    const int64_t first = pixels * part / parts / 16 * 16;
    const int64_t last = part + 1 == parts ? pixels : pixels * (part + 1) / parts / 16 * 16;
    run_channels_last_quantize(q.shape, src, dst, first, last);
  }
#else
  run_channels_last_quantize(q.shape, src, dst, 0, pixels);
#endif
}

// Step::Pointwise: Kiln's kernel on one thread (its results are small).
void run_pointwise(const CompiledGraph& graph, const Step& step) {
  const PointwiseF32& p = *step.pointwise;
  const float* inputs[kMaxStepArgs];
  for (uint32_t i = 0; i < p.num_inputs; ++i) {
    inputs[i] = static_cast<const float*>(storage_data(graph, graph.memories[step.args[i].memory].storage));
  }
  auto* dst = static_cast<float*>(storage_data(graph, graph.memories[step.args[p.num_inputs].memory].storage));
  run_pointwise_f32(p, inputs, dst, reinterpret_cast<float*>(graph.scratchpad));
}

// Step::ChannelScale: the call's factors, then the rows split over the
// threads.
void run_channel_scale(const CompiledGraph& graph, const Step& step, int threads) {
  const Step::ChannelScale& c = step.channel_scale;
  const void* src = storage_data(graph, graph.memories[static_cast<uint32_t>(c.src)].storage);
  const void* gate = storage_data(graph, graph.memories[static_cast<uint32_t>(c.gate)].storage);
  void* dst = storage_data(graph, graph.memories[static_cast<uint32_t>(c.dst)].storage);
  auto* factors = reinterpret_cast<float*>(graph.scratchpad);
  channel_scale_factors(c.shape, gate, factors);
  const int64_t rows = c.shape.batch * c.shape.pixels;
  if (threads <= 1) return run_channel_scale_int8(c.shape, factors, src, dst, 0, rows);
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    run_channel_scale_int8(c.shape, factors, src, dst, rows * part / parts, rows * (part + 1) / parts);
  }
#else
  run_channel_scale_int8(c.shape, factors, src, dst, 0, rows);
#endif
}

// The operation's result (its last step's destination), reordered into a
// plain row-major float32 copy, logged with its event. For `kiln compare`
// only (the tracer wants outputs): it makes a reorder primitive per call.
// A destination that is not float32, or a failure, logs the event alone.
void log_operation(const CompiledGraph& graph, const Step& last, const BackendExecutionContext& context,
                   uint64_t start_ns, uint64_t end_ns) {
  const Memory* destination = nullptr;
  for (uint32_t a = 0; a < last.num_args; ++a) {
    if (last.args[a].arg == DNNL_ARG_DST) destination = &graph.memories[last.args[a].memory];
  }
  int ndims = 0;
  dnnl_data_type_t type = dnnl_data_type_undef;
  const dnnl_dim_t* dims = nullptr;
  if (destination == nullptr || !context.wants_outputs() ||
      dnnl_memory_desc_query(destination->desc, dnnl_query_ndims_s32, &ndims) != dnnl_success ||
      dnnl_memory_desc_query(destination->desc, dnnl_query_data_type, &type) != dnnl_success ||
      dnnl_memory_desc_query(destination->desc, dnnl_query_dims, &dims) != dnnl_success ||
      (type != dnnl_f32 && last.dst_scale_memory < 0) || ndims < 1 || ndims > 6) {
    context.log_event(last.debug_id, start_ns, end_ns);
    return;
  }
  static constexpr dnnl_format_tag_t kPlain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  size_t numel = 1;
  runtime::SizesType sizes[6];
  runtime::DimOrderType dim_order[6];
  runtime::StridesType strides[6];
  for (int d = ndims - 1; d >= 0; --d) {
    sizes[d] = static_cast<runtime::SizesType>(dims[d]);
    dim_order[d] = static_cast<runtime::DimOrderType>(d);
    strides[d] = static_cast<runtime::StridesType>(numel);
    numel *= static_cast<size_t>(dims[d]);
  }
  void* data = std::malloc(numel * sizeof(float) + 1);
  dnnl_memory_desc_t plain = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  dnnl_memory_t copy = nullptr;
  bool ok = data != nullptr &&
            dnnl_memory_desc_create_with_tag(&plain, ndims, dims, dnnl_f32, kPlain[ndims - 1]) == dnnl_success;
  // A quantized result is logged as the floats it stands for.
  const bool quantized = type != dnnl_f32;
  dnnl_primitive_attr_t attr = nullptr;
  if (ok && quantized) {
    ok = dnnl_primitive_attr_create(&attr) == dnnl_success &&
         dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0) == dnnl_success &&
         dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0) == dnnl_success;
  }
  ok = ok && dnnl_reorder_primitive_desc_create(&pd, destination->desc, graph.engine, plain, graph.engine, attr) ==
                 dnnl_success &&
            dnnl_primitive_create(&reorder, pd) == dnnl_success &&
            dnnl_memory_create(&copy, plain, graph.engine, data) == dnnl_success;
  if (ok) {
    const dnnl_exec_arg_t args[] = {
        {DNNL_ARG_FROM, destination->memory},
        {DNNL_ARG_TO, copy},
        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC,
         quantized ? graph.memories[static_cast<uint32_t>(last.dst_scale_memory)].memory : nullptr},
        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
         quantized ? graph.memories[static_cast<uint32_t>(last.dst_zero_point_memory)].memory : nullptr}};
    ok = dnnl_primitive_execute(reorder, graph.stream, quantized ? 4 : 2, args) == dnnl_success &&
         dnnl_stream_wait(graph.stream) == dnnl_success;
  }
  if (ok) {
    runtime::TensorImpl impl(runtime::ScalarType::Float, ndims, sizes, data, dim_order, strides);
    const runtime::Tensor output(&impl);
    context.log_event(last.debug_id, start_ns, end_ns, &output);
  } else {
    context.log_event(last.debug_id, start_ns, end_ns);
  }
  if (copy != nullptr) dnnl_memory_destroy(copy);
  if (reorder != nullptr) dnnl_primitive_destroy(reorder);
  if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
  if (plain != nullptr) dnnl_memory_desc_destroy(plain);
  if (attr != nullptr) dnnl_primitive_attr_destroy(attr);
  std::free(data);
}

// Runs the steps; when tracing, logs one event per operation (its reorders
// and primitive together) under the operation's delegate debug identifier.
Error run_steps(CompiledGraph& graph, const BackendExecutionContext& context) {
  for (uint32_t i = 0; i < graph.memories.size; ++i) {
    const Memory& memory = graph.memories[i];
    if (memory.storage.kind != Storage::kArgument) continue;
    const dnnl_status_t status = dnnl_memory_set_data_handle(
        memory.memory, static_cast<uint8_t*>(graph.argument_data[memory.storage.index]) + memory.storage.offset);
    if (status != dnnl_success) return step_failed(graph, 0, "dnnl_memory_set_data_handle", status);
  }
  const bool tracing = context.tracing();
  uint64_t operation_start = tracing ? runtime::trace_clock_ns() : 0;
  const int threads = omp_get_max_threads();
  const ScopedThreads restore(threads);  // after steps that ran on one thread
  bool single = false;
  for (uint32_t s = 0; s < graph.steps.size; ++s) {
    const Step& step = graph.steps[s];
    if (step.fill_memory >= 0) fill(graph, graph.memories[static_cast<uint32_t>(step.fill_memory)], step.fill_value);
    if (step.choose_qparams.source >= 0) choose_qparams(graph, step);
    if (step.pointwise != nullptr) {
      run_pointwise(graph, step);
    } else if (step.depthwise.packed >= 0) {
      run_depthwise(graph, step, step.single_thread ? 1 : threads);
    } else if (step.quantize_image.src >= 0) {
      run_quantize_image(graph, step, step.single_thread ? 1 : threads);
    } else if (step.channel_scale.src >= 0) {
      run_channel_scale(graph, step, step.single_thread ? 1 : threads);
    } else if (step.panel_gemv.src >= 0) {
      run_panel_gemv(graph, step, step.single_thread ? 1 : threads);
    } else if (step.row_dots.src >= 0 && graph.runtime_size == 1) {
      run_row_dots(graph, step, step.single_thread ? 1 : threads);
    } else if (step.primitive != nullptr) {
      if (step.single_thread != single) {
        omp_set_num_threads(step.single_thread ? 1 : threads);
        single = step.single_thread;
      }
      const dnnl_status_t status =
          dnnl_primitive_execute(step.primitive, graph.stream, static_cast<int>(step.num_args), step.exec_args);
      if (status != dnnl_success) return step_failed(graph, step.operation, "dnnl_primitive_execute", status);
    }
    const bool operation_ends = s + 1 == graph.steps.size || graph.steps[s + 1].operation != step.operation;
    if (tracing && operation_ends) {
      const dnnl_status_t status = dnnl_stream_wait(graph.stream);
      if (status != dnnl_success) return step_failed(graph, step.operation, "dnnl_stream_wait", status);
      const uint64_t end = runtime::trace_clock_ns();
      if (step.debug_id >= 0) log_operation(graph, step, context, operation_start, end);
      operation_start = runtime::trace_clock_ns();  // logging is not the next operation's time
    }
  }
  const dnnl_status_t status = dnnl_stream_wait(graph.stream);
  if (status != dnnl_success) return step_failed(graph, 0, "dnnl_stream_wait", status);
  return Error::Ok;
}

}  // namespace

void set_num_threads(int num_threads) {
  g_num_threads.store(num_threads < 1 ? 1 : num_threads, std::memory_order_relaxed);
  apply_num_threads();
}

int num_threads() { return g_num_threads.load(std::memory_order_relaxed); }

bool OneDnnBackendRuntime::is_available() const { return shared_cpu_engine() != nullptr; }

void OneDnnBackendRuntime::set_num_threads(int num_threads) const { onednn::set_num_threads(num_threads); }

Result<DelegateHandle*> OneDnnBackendRuntime::init(BackendInitContext& context, FreeableBuffer* processed,
                                                   Span<const CompileSpec>) const {
  const char* method_name = name_or_unknown(context.get_method_name());
  if (processed == nullptr) {
    KILN_LOG(Error, "OneDnnBackend: refusing the blob of method '%s': there is no blob", method_name);
    return Error::DelegateInvalidCompatibility;
  }
  MemoryAllocator* allocator = context.get_runtime_allocator();
  if (allocator == nullptr) return no_room(method_name, "anything (there is no method allocator)");
  BlobGraph blob;
  KILN_TRY(read_blob_graph(processed->data(), processed->size(), method_name, allocator, &blob));
  const dnnl_engine_t engine = shared_cpu_engine();
  KILN_CHECK_OR_LOG_RETURN(engine != nullptr, NotSupported,
                           "OneDnnBackend: method '%s': oneDNN has no CPU engine on this machine", method_name);
  auto* compiled = allocator->allocateInstance<CompiledGraph>();
  if (compiled == nullptr) return no_room(method_name, "the handle");
  new (compiled) CompiledGraph{};
  compiled->method_name = method_name;
  compiled->engine = engine;
  compiled->runtime_size = -1;
  apply_num_threads();
  const Error error = build(blob, context, compiled);
  if (error != Error::Ok) {
    release_compiled_graph(compiled);
    return error;
  }
  processed->Free();  // everything execute reads is in the handle now
  return static_cast<DelegateHandle*>(compiled);
}

Error OneDnnBackendRuntime::execute(BackendExecutionContext& context, DelegateHandle* handle,
                                    Span<EValue*> args) const {
  KILN_CHECK_OR_LOG_RETURN(handle != nullptr, DelegateInvalidHandle, "OneDnnBackend: execute without a handle");
  auto* graph = static_cast<CompiledGraph*>(handle);
  const uint32_t num_arguments = graph->num_inputs + graph->num_outputs;
  KILN_CHECK_OR_LOG_RETURN(args.size() == num_arguments, InvalidArgument,
                           "OneDnnBackend: method '%s': the delegate call passes %zu arguments; the blob takes %u "
                           "inputs and %u outputs",
                           graph->method_name, args.size(), graph->num_inputs, graph->num_outputs);
  int64_t runtime_size = -1;
  for (uint32_t i = 0; i < num_arguments; ++i) {
    KILN_TRY(tensor_argument(*graph, args[i], i, &graph->argument_data[i], &runtime_size));
  }
  if (runtime_size >= 0 && runtime_size != graph->runtime_size) KILN_TRY(resize_runtime_memories(graph, runtime_size));
  apply_num_threads();
  return run_steps(*graph, context);
}

void OneDnnBackendRuntime::destroy(DelegateHandle* handle) const {
  if (handle != nullptr) release_compiled_graph(static_cast<CompiledGraph*>(handle));
}

namespace {

OneDnnBackendRuntime onednn_backend;
[[maybe_unused]] const Error registered =
    runtime::register_backend({OneDnnBackendRuntime::kName, &onednn_backend});

}  // namespace

}  // namespace kiln::backends::onednn
