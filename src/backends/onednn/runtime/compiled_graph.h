// What init makes of a verified blob: a list of steps (oneDNN primitives with
// their arguments) over memories (a oneDNN memory descriptor and where its
// bytes are), plus the buffers behind them. Built in three stages:
//   1. plan (graph_plan.cpp, graph_builder.cpp, operation_builders.cpp,
//      normalization_builders.cpp, layout_builders.cpp): one primitive
//      descriptor per operation, layouts chosen by oneDNN (format `any`) for
//      weights and intermediates, plain at the delegate's arguments; reorders
//      only where a layout must change (arguments, or a primitive refusing
//      its producer's layout);
//   2. place (graph_memory.cpp): buffers by lifetime in one arena, one
//      scratchpad for the largest primitive, from the method allocator;
//   3. materialize (graph_memory.cpp): memory objects, primitives, and the
//      weights reordered once from the named data into their chosen layouts,
//      or read in place where they were packed in that layout at lowering
//      (packed_layout.h).
// Everything here lives in the method allocator; the oneDNN objects it points
// to are oneDNN's and are released by release_compiled_graph.
#pragma once

#include <cstddef>
#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/runtime/blob_graph.h"
#include "backends/onednn/runtime/channel_scale_int8.h"
#include "backends/onednn/runtime/channels_last_quantize.h"
#include "backends/onednn/runtime/depthwise_int8.h"
#include "backends/onednn/runtime/panel_gemv_f32.h"
#include "backends/onednn/runtime/pointwise_f32.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"

namespace kiln::backends::onednn {

/// Where a memory's bytes are.
struct Storage {
  enum Kind : uint8_t { kArgument, kBuffer, kScratchpad, kConstant };
  Kind kind;
  /// argument number (inputs, then outputs), buffer number, or constant use
  /// number (a constant read in place from its named data)
  uint32_t index;
  /// Bytes into it: a crop of a value, read in place (build_pad).
  size_t offset = 0;
};

/// Bytes init owns: a constant's reordered weights (persistent) or an
/// intermediate (alive from its first to its last step).
struct Buffer {
  size_t bytes;
  uint32_t first_step;
  uint32_t last_step;
  bool persistent;
  size_t offset;  ///< in the arena, set by placement
};

struct Memory {
  dnnl_memory_desc_t desc;  ///< owned
  Storage storage;
  dnnl_memory_t memory;  ///< created at materialization; owned
  /// >= 0: a plain memory whose dimension `runtime_dim` is the call's
  /// run-time size (onednn_graph.fbs Value.runtime_dim); `desc` and `memory`
  /// are made again whenever that size changes (resize_runtime_memories).
  int32_t runtime_dim = -1;
};

/// A constant's named data reordered into `memory` at init: `source` says
/// how the use reads the value's row-major elements (owned).
struct ConstantUse {
  uint32_t value = 0;
  dnnl_memory_desc_t source = nullptr;
  uint32_t memory = 0;
  /// >= 0: int8 weights dequantized as they are reordered, by this value's
  /// float32 scales along the source dims `scales_mask` names.
  int32_t scales = -1;
  int scales_mask = 0;
  /// A value packed at lowering (Value.packed): the layout of its named data
  /// (owned), else null. When `source` is the view it was packed for, init
  /// reorders from it; otherwise it unpacks it to row-major first.
  dnnl_memory_desc_t packed = nullptr;
  bool packed_for_source = false;
  /// Packed exactly as `memory` wants: `memory` is the named data itself
  /// (Storage::kConstant), held from init to release, and no arena bytes.
  bool in_place = false;
  runtime::FreeableBuffer held;
};

/// Four bytes written into a one-element persistent buffer at init: a
/// quantization's scale (float32) or zero point (int32), which oneDNN reads
/// as run-time arguments of a primitive.
struct InitValue {
  uint32_t memory;
  uint32_t bits;
};

struct StepArg {
  int arg;  ///< DNNL_ARG_*
  uint32_t memory;
};

/// A step's arguments: as many as one operation may take (capabilities.h).
inline constexpr uint32_t kMaxStepArgs = kMaxOperationArgs;

struct Step {
  dnnl_primitive_desc_t pd;      ///< owned
  dnnl_primitive_t primitive;    ///< owned, created at materialization
  uint32_t operation;            ///< for messages; consecutive steps of one operation share it
  int32_t debug_id;              ///< the operation's delegate debug identifier, logged when tracing
  uint32_t num_args;
  StepArg args[kMaxStepArgs];
  dnnl_exec_arg_t exec_args[kMaxStepArgs];
  int32_t fill_memory;  ///< >= 0: fill this plain memory with fill_value first (Pad)
  float fill_value;
  /// Made and run on one thread, whatever the backend's thread count: too
  /// small an operation to repay waking the others (small_operation_ns).
  bool single_thread;
  /// source >= 0 (no primitive): a dynamic quantization's parameters,
  /// computed from that plain float32 memory into args 1 to 3 (scale,
  /// inverse scale, zero point); copied from the blob, which init may free.
  struct ChooseQParams {
    int32_t source;
    int32_t quant_min, quant_max;
    float eps;
  } choose_qparams;
  /// >= 0 for a step writing a quantized value: the memories of its scale
  /// and zero point, to log it dequantized when tracing (kiln compare).
  int32_t dst_scale_memory;
  int32_t dst_zero_point_memory;
  /// src >= 0: a matmul on weights the call passes as (N, K) row-major (a
  /// tied embedding table), which at a run-time size of 1 runs as Kiln's own
  /// dot products instead of the primitive: oneDNN reads such weights at a
  /// third of the memory bandwidth (6 against 19 GB/s for SmolLM2's 113 MB
  /// output projection, one thread) and they cannot be packed at load.
  struct RowDots {
    int32_t src, weights, bias, dst;  ///< memories (bias -1 if none)
    int64_t n, k;
  } row_dots;
  /// src >= 0: a float32 matmul of one row or 1x1 convolution of one pixel
  /// on constant weights, which runs as Kiln's own matrix-vector product
  /// over the weights in the layout its primitive descriptor chose
  /// (panel_gemv_f32.h); no primitive is made for it. Memories src (K
  /// floats), weights, bias (-1 if none) and dst (N floats); the sums on
  /// the instructions of oneDNN's effective ISA (a cap on it caps them).
  /// addend >= 0: a binary post-op's N floats added after the bias (an
  /// LSTM's input part of its gates, added to the hidden state's product).
  struct PanelGemv {
    int32_t src, weights, bias, dst, addend;
    PanelGemvF32 shape;
    PanelGemvF32::Path path;
  } panel_gemv;
  /// packed >= 0 (no primitive): an int8 depthwise convolution that Kiln's
  /// own kernel runs (depthwise_int8.h), from memory src to dst. Init packs
  /// its weights (int8, plain), weight scales and bias (-1 if none) into the
  /// persistent buffer `packed`; each of up to `parts` threads takes its
  /// slice of `scratch_bytes` of the scratchpad.
  struct Depthwise {
    int32_t packed, src, dst, weights, scales, bias;
    int32_t parts;
    size_t scratch_bytes;
    DepthwiseInt8 shape;
  } depthwise;
  /// src >= 0 (no primitive): Kiln's quantization of a float32 image of a
  /// few channels, plain, into channels-last bytes (channels_last_quantize.h),
  /// from memory src to dst.
  struct QuantizeImage {
    int32_t src, dst;
    ChannelsLastQuantize shape;
  } quantize_image;
  /// src >= 0 (no primitive): Kiln's product of a quantized channels-last
  /// image and a quantized value per channel (channel_scale_int8.h), from
  /// memories src and gate to dst; the call's factors in the scratchpad.
  struct ChannelScale {
    int32_t src, gate, dst;
    ChannelScaleInt8 shape;
  } channel_scale;
  /// Non-null (no primitive): a Pointwise program Kiln's kernel runs
  /// (pointwise_f32.h), its tables in the method allocator. args: the
  /// sources' plain memories in the program's order, then the result's, then
  /// the scratchpad.
  const PointwiseF32* pointwise;
};

/// A table from the method allocator with a capacity fixed at init.
template <typename T>
struct Table {
  T* items = nullptr;
  uint32_t size = 0;
  uint32_t capacity = 0;

  bool reserve(runtime::MemoryAllocator* allocator, uint32_t n) {
    items = allocator->allocateList<T>(n);
    capacity = items != nullptr ? n : 0;
    return items != nullptr || n == 0;
  }
  T* push() { return size < capacity ? &items[size++] : nullptr; }
  T& operator[](uint32_t i) { return items[i]; }
  const T& operator[](uint32_t i) const { return items[i]; }
};

/// The expected shape of one delegate argument.
struct ArgumentSpec {
  uint32_t rank;
  int64_t sizes[kMaxRank];
  /// >= 0: this dimension takes the run-time size, 1 to sizes[runtime_dim].
  int32_t runtime_dim;
};

struct CompiledGraph {
  const char* method_name;
  dnnl_engine_t engine;  ///< shared by every handle; not owned
  dnnl_stream_t stream;  ///< owned
  uint32_t num_inputs, num_outputs;
  ArgumentSpec* arguments;  ///< num_inputs + num_outputs
  void** argument_data;     ///< bound at each execute
  const char** operation_names;  ///< copied from the blob (it may be freed)
  Table<Memory> memories;
  Table<Step> steps;
  Table<Buffer> buffers;
  Table<ConstantUse> constant_uses;
  Table<InitValue> init_values;
  uint8_t* arena;
  size_t arena_bytes;
  uint8_t* scratchpad;
  size_t scratchpad_bytes;
  /// The run-time size the runtime_dim memories have now; -1 while they
  /// have their bounds (as init makes them).
  int64_t runtime_size;
};

/// Makes every runtime_dim memory again with `size` in that dimension, and
/// points the steps' arguments at the new memories. Allocates (oneDNN's
/// descriptors and memory objects): only when the run-time size changes.
[[nodiscard]] runtime::Error resize_runtime_memories(CompiledGraph* compiled, int64_t size);

/// Stage 2's planner: sets every buffer's offset (persistent ones first,
/// back to back; then the others largest first, each at the lowest offset
/// that overlaps no placed buffer alive during any of the same steps), all
/// 64-byte aligned; returns the arena's size. `order` lends `count` slots.
size_t place_buffers(Buffer* buffers, uint32_t count, Buffer** order);

/// An operation's estimated time on one thread, from its sizes: its
/// multiply-adds (a convolution's or a matmul's) at 30 per ns and every
/// element it reads or writes at 5 per ns; an int8 one (a quantized source
/// where oneDNN's int8 dot products are exact) in a quarter of that. Below kSmallOperationNs, an
/// operation's steps run on one thread when the backend has several: forking
/// to the others and joining them costs more than it saves (ShuffleNetV2 at
/// 64x64 ran slower on two threads than on one).
double estimated_ns(const fb::Graph* graph, const fb::Operation* operation);
inline constexpr double kSmallOperationNs = 8000;

/// Sets the OpenMP threads oneDNN uses for the scope (when they differ).
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int before_;
};

/// Stage 1: fills `compiled` (tables reserved from `allocator`) from `blob`.
[[nodiscard]] runtime::Error plan_compiled_graph(const BlobGraph& blob, runtime::MemoryAllocator* allocator,
                                                 CompiledGraph* compiled);

/// Stages 2 and 3: the arena and scratchpad from `allocator`, memory
/// objects and primitives, and the constants fetched from `named_data`,
/// reordered and released.
[[nodiscard]] runtime::Error materialize_compiled_graph(const BlobGraph& blob, runtime::MemoryAllocator* allocator,
                                                        const runtime::NamedDataMap* named_data,
                                                        CompiledGraph* compiled);

/// Destroys every oneDNN object `compiled` owns (safe on a partly built one).
void release_compiled_graph(CompiledGraph* compiled);

/// The oneDNN CPU engine every handle shares, created on first use; null
/// (after a log line) if oneDNN cannot create one.
dnnl_engine_t shared_cpu_engine();

/// "dnnl_unimplemented" etc.
const char* status_name(dnnl_status_t status);

}  // namespace kiln::backends::onednn
