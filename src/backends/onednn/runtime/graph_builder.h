// Stage 1 of init (compiled_graph.h): the GraphBuilder the operation
// builders share. It tracks each value's memory (its layout and storage),
// adds memories, buffers and steps, and turns every oneDNN status into a Kiln
// error with a log line naming the operation and the oneDNN call.
//
// Layouts: a value's layout is the one oneDNN chose (format `any`) for the
// step that writes it; a delegate output written in another layout than
// plain gets one reorder into the caller's tensor. A consumer reads the
// layout it is given (a convolution's source, and a residual post-op input,
// are declared `any` and reordered once if the primitive wants another);
// only when a primitive refuses it (dnnl_unimplemented) or falls back to
// oneDNN's reference implementation is the operation planned again with
// plain inputs (plain_inputs()), each non-plain input reordered once.
#pragma once

#include <cstdarg>
#include <cstdint>

#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/runtime/compiled_graph.h"

namespace kiln::backends::onednn {

/// An owned oneDNN memory descriptor.
class MemoryDesc {
 public:
  MemoryDesc() = default;
  explicit MemoryDesc(dnnl_memory_desc_t md) : md_(md) {}
  MemoryDesc(MemoryDesc&& other) noexcept : md_(other.release()) {}
  MemoryDesc& operator=(MemoryDesc&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ~MemoryDesc() { reset(nullptr); }
  const_dnnl_memory_desc_t get() const { return md_; }
  dnnl_memory_desc_t* out() {
    reset(nullptr);
    return &md_;
  }
  dnnl_memory_desc_t release() {
    dnnl_memory_desc_t md = md_;
    md_ = nullptr;
    return md;
  }
  void reset(dnnl_memory_desc_t md) {
    if (md_ != nullptr) dnnl_memory_desc_destroy(md_);
    md_ = md;
  }

 private:
  dnnl_memory_desc_t md_ = nullptr;
};

/// An owned oneDNN primitive descriptor (or attribute set, post-op list).
template <typename T, dnnl_status_t (*Destroy)(T)>
class Owned {
 public:
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  void reset() {
    if (value_ != nullptr) Destroy(value_);
    value_ = nullptr;
  }
  T get() const { return value_; }
  T* out() { return &value_; }
  T release() {
    T value = value_;
    value_ = nullptr;
    return value;
  }

 private:
  T value_ = nullptr;
};
using PrimitiveDesc = Owned<dnnl_primitive_desc_t, dnnl_primitive_desc_destroy>;
using Attr = Owned<dnnl_primitive_attr_t, dnnl_primitive_attr_destroy>;
using PostOps = Owned<dnnl_post_ops_t, dnnl_post_ops_destroy>;

/// The plan of one value while building.
struct ValueState {
  int32_t memory;        ///< its memory in its layout; -1 before first use
  int32_t plain_memory;  ///< a plain copy or view; -1 until asked for
  /// A dynamic quantized value: the memories of its scale (float32) and
  /// zero point (int32), written at run time; -1 otherwise.
  int32_t scale_memory;
  int32_t zero_point_memory;
  int32_t channels_last_memory = -1;  ///< a channels-last copy or the memory itself; -1 until asked for
};

class GraphBuilder {
 public:
  /// `allocator`: where a step's tables of its own go (a Pointwise
  /// program); null refuses such steps.
  GraphBuilder(const BlobGraph& blob, CompiledGraph* compiled, ValueState* values,
               runtime::MemoryAllocator* allocator = nullptr)
      : blob_(blob), compiled_(compiled), values_(values), allocator_(allocator) {}

  // ---- the operation being planned
  void begin_operation(uint32_t index, bool plain_inputs, bool single_thread);
  const fb::Operation* operation() const { return operation_; }
  /// True on the second attempt: every input must be read in plain layout.
  bool plain_inputs() const { return plain_inputs_; }
  /// Set when a primitive descriptor was refused on the first attempt.
  bool wants_retry() const { return wants_retry_; }

  const fb::Graph& graph() const { return *blob_.graph; }
  const fb::Value* value(int32_t v) const { return blob_.graph->values()->Get(static_cast<uint32_t>(v)); }
  /// The operation's input `i` (a value index, or -1 if absent).
  int32_t input(uint32_t i) const {
    return i < operation_->inputs()->size() ? operation_->inputs()->Get(i) : -1;
  }
  int32_t output() const { return operation_->outputs()->Get(0); }

  // ---- errors, each logged once with the operation's name
  /// Ok for dnnl_success; otherwise logs "<call> failed: <status>" and
  /// returns the matching Kiln error.
  runtime::Error check(dnnl_status_t status, const char* call);
  /// As check, for primitive descriptor creation: on the first attempt a
  /// dnnl_unimplemented, or oneDNN's reference implementation (`ref:`, many
  /// times slower than its JIT kernels, picked for a layout they do not
  /// take) is not logged but asks for a retry with plain inputs.
  runtime::Error check_pd(dnnl_status_t status, const char* call, const PrimitiveDesc* pd);
  /// Logs the formatted reason and returns DelegateInvalidCompatibility.
  runtime::Error refuse(const char* format, ...) __attribute__((format(printf, 2, 3)));
  runtime::Error no_room(const char* what);
  /// Refuses a step of `count` arguments, more than its table holds.
  runtime::Error too_many_arguments(uint32_t count);

  // ---- memory descriptors
  /// Row-major `type` of `rank` dims (rank 0 becomes [1]).
  runtime::Error plain_desc(const int64_t* dims, uint32_t rank, MemoryDesc* out, dnnl_data_type_t type = dnnl_f32);
  /// The value's sizes and data type, row-major.
  runtime::Error plain_desc_of(int32_t value, MemoryDesc* out);
  runtime::Error any_desc(const int64_t* dims, uint32_t rank, MemoryDesc* out, dnnl_data_type_t type = dnnl_f32);
  /// Format `any` with the value's sizes (an Output written in another
  /// layout is reordered to plain by define_output's pending reorder).
  runtime::Error dst_desc_of(int32_t value, MemoryDesc* out);
  /// `rank` dims: the value's sizes after leading 1s (numpy broadcasting).
  void broadcast_dims(int32_t value, uint32_t rank, int64_t* dims) const;

  // ---- memories
  /// The value's memory: in its layout, or plain when `plain` (a reorder
  /// step is added the first time a non-plain value is asked for plain).
  runtime::Result<uint32_t> value_memory(int32_t value, bool plain);
  /// As value_memory, seen with `rank` dims (leading 1s; plain then).
  runtime::Result<uint32_t> value_memory_with_rank(int32_t value, uint32_t rank, bool plain);
  /// The value channels-last (channels_last_desc_of): its memory when it is
  /// laid out so, else a reorder of it, added the first time it is asked for.
  runtime::Result<uint32_t> channels_last_memory(int32_t value);
  /// A memory over `memory`'s storage with another descriptor (cloned),
  /// starting `offset` bytes into it.
  runtime::Result<uint32_t> view(uint32_t memory, const_dnnl_memory_desc_t desc, size_t offset = 0);
  /// A constant in the layout `chosen`, reordered at init from its named
  /// data laid out as `source`; int8 weights with `scales` (a value, >= 0)
  /// are dequantized on the way, scaled along the dims `scales_mask` names.
  runtime::Result<uint32_t> constant(int32_t value, const_dnnl_memory_desc_t source, const_dnnl_memory_desc_t chosen,
                                     int32_t scales = -1, int scales_mask = 0);
  /// The memory the operation writes `value` to, in layout `chosen`: a new
  /// buffer, or an Output's argument memory when `chosen` is plain; an Output
  /// in another layout gets a buffer and a reorder into its argument, added
  /// right after the operation's next add_step.
  runtime::Result<uint32_t> define_output(int32_t value, const_dnnl_memory_desc_t chosen);
  /// A reorder step from `memory` into a new buffer of layout `desc`.
  runtime::Result<uint32_t> reorder_into_buffer(uint32_t memory, const_dnnl_memory_desc_t desc);
  /// `value` is `memory` (a plain view of another value's bytes): no step.
  runtime::Error alias_value(int32_t value, uint32_t memory);
  /// A one-element persistent memory holding `value` from init on (a
  /// quantization's scale or zero point, read by a primitive at run time).
  runtime::Result<uint32_t> scalar_memory(float value);
  runtime::Result<uint32_t> scalar_memory(int32_t value);
  /// The memories of a quantized value's scale and zero point: constants
  /// made from the value, or a dynamic value's, written at run time.
  runtime::Result<uint32_t> scale_memory_of(int32_t value);
  runtime::Result<uint32_t> zero_point_memory_of(int32_t value);
  /// The value's layout as a (de)quantization writes it: an image (3 to 5
  /// dims) inside the delegate channels-last, the layout oneDNN's int8
  /// convolutions take and write; an output, and other ranks, plain.
  runtime::Error channels_last_desc_of(int32_t value, MemoryDesc* out);
  /// A step quantizing float32 `from` into `to` (`quantize`), or
  /// dequantizing `from` into float32 `to`, by the scale and zero point of
  /// `quantized_value` (PyTorch's rounding).
  runtime::Error add_quantization(uint32_t from, uint32_t to, int32_t quantized_value, bool quantize);
  /// add_quantization's kernel of Kiln's own for an image entering the
  /// delegate (channels_last_quantize.h), when it applies.
  bool image_to_channels_last(uint32_t from, uint32_t to, int32_t quantized_value, ChannelsLastQuantize* image);
  /// add_quantization's one reorder that converts, in any layouts.
  runtime::Error add_conversion(uint32_t from, uint32_t to, int32_t quantized_value, bool quantize);
  /// A reorder from `from` to `to` computing scale * (x - the zero point of
  /// value `src_zero_point`) + the zero point of value `dst_zero_point`
  /// (-1: none); `scale` a memory of one float32.
  runtime::Error add_scaled_reorder(uint32_t from, uint32_t to, uint32_t scale, int32_t src_zero_point,
                                    int32_t dst_zero_point);
  /// A buffer of `bytes` bytes alive from init on, which init fills (a
  /// kernel of Kiln's own's packed weights).
  runtime::Result<uint32_t> persistent_bytes(size_t bytes);
  /// A buffer of layout `desc` that only the operation's own steps use.
  runtime::Result<uint32_t> temporary_buffer(const_dnnl_memory_desc_t desc) { return new_buffer(desc, false); }
  /// The last step writes `value`: when it is quantized, tracing logs it
  /// dequantized by its scale and zero point memories (nothing otherwise).
  /// A reorder of quantized bytes `from` (of value `from_value`) into
  /// `to` (of `to_value`, another grid): q' = saturate(round((q - zero
  /// point) * factor) + zero point'), factor = scale / scale'.
  runtime::Error add_requantization(uint32_t from, uint32_t to, int32_t from_value, int32_t to_value, float factor);
  runtime::Error describe_quantized_result(int32_t value);
  /// Records a dynamic value's run-time scale and zero point memories.
  void set_dynamic_qparams(int32_t value, uint32_t scale, uint32_t zero_point);
  /// Adds a step (no primitive) computing a dynamic quantization's scale,
  /// inverse scale and zero point from plain float32 `source`.
  runtime::Error add_choose_qparams(uint32_t source, const fb::DynamicQuantize* params, uint32_t scale,
                                    uint32_t inverse_scale, uint32_t zero_point);
  /// A step that only fills plain `memory` with `fill_value`.
  runtime::Error add_fill(uint32_t memory, float fill_value);
  /// Adds a reorder step from `from` to `to`.
  runtime::Error add_reorder(uint32_t from, uint32_t to, int32_t fill_memory = -1, float fill_value = 0);
  const_dnnl_memory_desc_t desc(uint32_t memory) const { return compiled_->memories[memory].desc; }
  /// `memory` (plain) takes the call's run-time size in dimension `dim`.
  void set_runtime_dim(uint32_t memory, int32_t dim) { compiled_->memories[memory].runtime_dim = dim; }
  /// The last step added, or null.
  Step* last_step() { return compiled_->steps.size == 0 ? nullptr : &compiled_->steps[compiled_->steps.size - 1]; }
  bool is_plain(uint32_t memory, int32_t value);

  // ---- steps
  /// Adds a step running `pd` (ownership taken) with `args`, plus a
  /// scratchpad argument when the primitive needs one. More than
  /// kMaxStepArgs - 1 arguments (the last slot is the scratchpad's) are
  /// refused (too_many_arguments), the step not added.
  runtime::Error add_step(PrimitiveDesc* pd, const StepArg* args, uint32_t num_args, int32_t fill_memory = -1,
                          float fill_value = 0);
  /// Adds a step with no primitive (a kernel of Kiln's own, which the caller
  /// describes on `*added`) reading and writing `args`, with a scratchpad
  /// of `scratchpad_bytes`.
  runtime::Error add_kernel_step(const StepArg* args, uint32_t num_args, size_t scratchpad_bytes, Step** added);
  /// Primitive attributes: user scratchpad and the operation's post-ops
  /// (binary post-op inputs seen with `dst_rank` dims); `post_args` receives
  /// one argument per binary post-op (at most kMaxStepArgs / 2).
  runtime::Error make_attr(uint32_t dst_rank, Attr* attr, StepArg* post_args, uint32_t* num_post_args);

  /// After the primitive descriptor: each full-shaped post-op input that
  /// make_attr declared `any`, reordered if the primitive chose another
  /// layout than its own (call before the step is added).
  runtime::Error resolve_post_args(const PrimitiveDesc& pd, StepArg* post_args, uint32_t num_post_args);
  /// Values `a` and `b` both have `rank` dims, the same sizes.
  bool same_sizes(int32_t a, int32_t b, uint32_t rank) const;

  dnnl_engine_t engine() const { return compiled_->engine; }
  runtime::MemoryAllocator* allocator() const { return allocator_; }

 private:
  runtime::Result<uint32_t> add_memory(dnnl_memory_desc_t desc, Storage storage);
  runtime::Result<uint32_t> new_buffer(const_dnnl_memory_desc_t desc, bool persistent);
  void note_use(uint32_t memory);
  /// After a step: the reorder of an output written in another layout.
  runtime::Error add_pending_output_reorder();
  void log_operation(const char* format, va_list args);

  const BlobGraph& blob_;
  CompiledGraph* compiled_;
  ValueState* values_;
  runtime::MemoryAllocator* allocator_;
  uint32_t operation_index_ = 0;
  const fb::Operation* operation_ = nullptr;
  bool plain_inputs_ = false;
  bool single_thread_ = false;  ///< the operation's steps run on one thread
  bool wants_retry_ = false;
  struct PendingReorder {
    int32_t from = -1, to = -1;
  };
  PendingReorder pending_output_reorder_;
  uint32_t any_post_inputs_ = 0;  ///< bit i: post-op input i was declared `any`
};

/// The oneDNN data type of a value (onednn_graph.fbs DataType).
dnnl_data_type_t data_type_of(const fb::Value* value);
/// An Int8 or UInt8 value.
inline bool is_quantized(const fb::Value* value) { return value->dtype() != fb::DataType::Float32; }

/// Whether oneDNN's int8 convolutions and matmuls give the exact result on
/// a CPU of ISA `isa`: with VNNI (AVX-VNNI, AVX-512 VNNI and later) they add
/// u8 x s8 products in 32 bits. Without it they add pairs of products in 16
/// bits, which saturate, and halve an s8 source's weights: quantized
/// operations there run in float32 on dequantized values (Quantization in
/// operation_builders.cpp), as PyTorch's reference computes them.
bool exact_int8_dot_products(dnnl_cpu_isa_t isa);

/// The layout int8 weights pass through at load on their way from `source`
/// into oneDNN's blocked `to` when oneDNN has no JIT reorder between the
/// two (graph_memory.cpp), made into `staging`; false to reorder them
/// directly. Dense, with the dimension of `to`'s innermost block innermost,
/// or row-major when that is `source`'s layout already.
bool int8_staging_layout(dnnl_engine_t engine, const_dnnl_memory_desc_t source, const_dnnl_memory_desc_t to,
                         dnnl_memory_desc_t* staging);

/// Plans one operation (operation_builders.cpp); a refused primitive on the
/// first attempt sets wants_retry().
[[nodiscard]] runtime::Error build_operation(GraphBuilder& builder);

/// The dnnl algorithm of an eltwise with the schema's alpha/beta turned into
/// oneDNN's; false for an unknown algorithm.
bool eltwise_algorithm(const fb::Eltwise* eltwise, dnnl_alg_kind_t* alg, float* alpha, float* beta);
bool binary_algorithm(fb::BinaryAlgorithm algorithm, dnnl_alg_kind_t* alg);

}  // namespace kiln::backends::onednn
