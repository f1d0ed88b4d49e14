// What OneDnnBackend's runtime builds, written once and read by both halves:
// the partitioner and the fusion rules (what they take), the lowering (what
// it writes: it checks every operation it emits) and the runtime's builder
// (what it accepts: it checks every operation of a blob before building it).
// A rule changed here changes all of them (capabilities_test.cpp).
//
//   - numeric limits (ranks, arguments, post-ops, sizes);
//   - the rules of each operation kind of the blob (onednn_graph.fbs):
//     run-time sizes, quantized values, post-ops (kOperationRules);
//   - facts_of and verdict_of: one operation of a blob against its kind's
//     rules, the verdict a value with its reason.
//
// C++17, header-only, no allocation: both halves include it.
#pragma once

#include <cstdint>

#include "backends/onednn/onednn_graph_generated.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

// ---------------------------------------------------------------- limits

/// The most dimensions a value may have (oneDNN's DNNL_MAX_NDIMS).
inline constexpr uint32_t kMaxRank = 12;

/// The most arguments (sources, destination, post-op operands) one built
/// primitive takes: the runtime keeps them in fixed arrays, so that building
/// and executing allocate nothing per operation.
inline constexpr uint32_t kMaxOperationArgs = 24;

/// The most tensors one Concat joins (its destination and scratchpad take
/// the other two arguments). The lowering joins more as a chain of Concats.
inline constexpr uint32_t kMaxConcatInputs = kMaxOperationArgs - 2;

/// The most post-ops one operation carries (each binary post-op reads one
/// more argument). Fusion stops a chain there and starts a new operation.
inline constexpr uint32_t kMaxPostOps = kMaxOperationArgs / 2;

/// The most steps one Pointwise program runs (onednn_graph.fbs), and the
/// most elements of its result: its kernel is for the small tensors whose
/// ops cost more to dispatch than to compute (at 4096 floats, GPT-2's gelu
/// spelled out, oneDNN's operations were as fast).
inline constexpr uint32_t kMaxPointwiseSteps = 64;
inline constexpr int64_t kMaxPointwiseNumel = 2048;
/// A value's largest dimension and element count the runtime accepts.
inline constexpr int64_t kMaxDimension = int64_t{1} << 31;
inline constexpr int64_t kMaxNumel = int64_t{1} << 40;

// ---------------------------------------------------------------- rules

/// Where an operation may read and write a value with a run-time size
/// (onednn_graph.fbs Value.runtime_dim). oneDNN 3.2 fixes a primitive's
/// sizes when it makes it, but for its gemm-based matmul.
enum class RuntimeSizes : uint8_t {
  kNone,
  /// In the rows of its first operand and its result (not the reduced
  /// dimension, not the second operand nor the bias). Where the operands
  /// are is the kind's own: the partitioner finds them in aten's matmuls
  /// (runtime_sizes.cpp), the runtime in a MatMul (build_runtime_matmul).
  kRows,
};

/// Which quantized values (int8, uint8) an operation reads or writes.
enum class QuantizedValues : uint8_t {
  kNone,  ///< float32 only
  /// An int8 computation: a uint8 source with int8 constant weights and
  /// their float32 scales, a uint8 or float32 result (or float32 throughout
  /// on int8 weights dequantized at load).
  kWeighted,
  /// Quantized values kept on their grid: every input and the result on
  /// one static grid, the result some of the inputs' values (a max pool, a
  /// concat, a crop; see picks_input_values) or their averages rounded to
  /// it (an average pool over the source alone: averages_on_its_grid).
  kOnItsGrid,
  /// An image times one value per channel (a squeeze-excitation's gate),
  /// each quantized on a static grid of its own, the result on a third and
  /// nothing after it (scales_channels): Kiln's kernel, channel_scale_int8.h.
  kScalesChannels,
  /// Any: it quantizes, dequantizes, or moves quantized values (a Reorder).
  kConverts,
  /// It writes a dynamic quantized value from float32 (DynamicQuantize).
  kDynamic,
};

/// The post-ops (onednn_graph.fbs PostOp) an operation carries.
enum class PostOpKinds : uint8_t {
  kNone,
  kRelu,     ///< one relu (any negative slope) at most: oneDNN 3.2's batch norm takes no other
  kEltwise,  ///< eltwise post-ops only
  kAll,      ///< eltwise and binary post-ops
};

/// The rules of one operation kind.
struct OperationRules {
  fb::OperationKind kind;
  RuntimeSizes runtime_sizes;
  QuantizedValues quantized;
  /// What the runtime builds. An operation with a run-time size carries
  /// eltwise post-ops at most (oneDNN's binary post-ops fix their sizes).
  PostOpKinds post_ops;
  /// Whether fusion extends the operation with the ops after it as its
  /// post-ops. oneDNN runs an eltwise primitive with post-ops on its
  /// reference implementation, ten times slower than the ops apart (GPT-2's
  /// tanh gelu: 0.5 ms against 0.05).
  bool fuses_post_ops;
};

/// One row per operation kind, in the schema's order (kind - 1). The
/// post-ops are what oneDNN 3.2 makes primitives with: a layer norm takes
/// none, a batch norm one relu (capabilities_test.cpp builds each). A batch
/// norm fuses it: DenseNet's norm-relu before each convolution is one
/// primitive (bnorm_jit, as fast as the norm alone) instead of two.
inline constexpr OperationRules kOperationRules[] = {
    // kind                              run-time sizes       quantized values             post-ops               fuses post-ops
    {fb::OperationKind::Convolution,     RuntimeSizes::kNone, QuantizedValues::kWeighted,  PostOpKinds::kAll,     true},
    {fb::OperationKind::MatMul,          RuntimeSizes::kRows, QuantizedValues::kWeighted,  PostOpKinds::kAll,     true},
    {fb::OperationKind::BatchNorm,       RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kRelu,    true},
    {fb::OperationKind::LayerNorm,       RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kNone,    false},
    {fb::OperationKind::Softmax,         RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kAll,     false},
    {fb::OperationKind::Pooling,         RuntimeSizes::kNone, QuantizedValues::kOnItsGrid, PostOpKinds::kAll,     false},
    {fb::OperationKind::Reduction,       RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kAll,     false},
    {fb::OperationKind::Resampling,      RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kAll,     false},
    {fb::OperationKind::Concat,          RuntimeSizes::kNone, QuantizedValues::kOnItsGrid, PostOpKinds::kNone,    false},
    {fb::OperationKind::EltwiseOp,       RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kAll,     false},
    {fb::OperationKind::BinaryOp,        RuntimeSizes::kNone, QuantizedValues::kScalesChannels, PostOpKinds::kAll, true},
    {fb::OperationKind::Reorder,         RuntimeSizes::kNone, QuantizedValues::kConverts,  PostOpKinds::kNone,    false},
    {fb::OperationKind::Pad,             RuntimeSizes::kNone, QuantizedValues::kOnItsGrid, PostOpKinds::kNone,    false},
    {fb::OperationKind::DynamicQuantize, RuntimeSizes::kNone, QuantizedValues::kDynamic,   PostOpKinds::kNone,    false},
    {fb::OperationKind::Pointwise,       RuntimeSizes::kNone, QuantizedValues::kNone,      PostOpKinds::kNone,    false},
};

namespace capabilities_detail {

constexpr bool in_schema_order() {
  uint32_t expected = 1;
  for (const OperationRules& rules : kOperationRules) {
    if (static_cast<uint32_t>(rules.kind) != expected++) return false;
  }
  return expected - 1 == static_cast<uint32_t>(fb::OperationKind::MAX);
}
static_assert(in_schema_order(), "kOperationRules has one entry per OperationKind, in the schema's order");

inline constexpr OperationRules kNoRules = {fb::OperationKind::NONE, RuntimeSizes::kNone, QuantizedValues::kNone,
                                            PostOpKinds::kNone, false};

}  // namespace capabilities_detail

/// The rules of `kind`; for NONE or a kind beyond the schema, rules that
/// allow nothing.
constexpr const OperationRules& operation_rules(fb::OperationKind kind) {
  const auto index = static_cast<uint32_t>(kind);
  if (index == 0 || index > sizeof kOperationRules / sizeof kOperationRules[0]) return capabilities_detail::kNoRules;
  return kOperationRules[index - 1];
}

/// Whether a Pooling, Concat or Pad's result is some of its inputs' values
/// (the maximum of grid values is one of them; a concat copies them; a Pad
/// that `pads` nothing is a crop), which QuantizedValues::kOnItsGrid asks for.
constexpr bool picks_input_values(fb::OperationKind kind, fb::PoolingAlgorithm pooling, uint32_t num_inputs,
                                  bool pads = false) {
  if (kind == fb::OperationKind::Concat) return true;
  if (kind == fb::OperationKind::Pad) return !pads && num_inputs == 1;
  return kind == fb::OperationKind::Pooling && pooling == fb::PoolingAlgorithm::Max && num_inputs == 1;
}

/// Whether a Pooling averages its source's values onto their own grid: an
/// average over the elements it covers (padding excluded, so that no value
/// off the grid enters) is the mean of q - zero point, rounded, plus the
/// zero point; oneDNN's int8 pooling rounds the mean of q itself, the same
/// but for ties when the zero point is odd (one step, as PyTorch's float32
/// mean may too).
constexpr bool averages_on_its_grid(fb::OperationKind kind, fb::PoolingAlgorithm pooling, uint32_t num_inputs) {
  return kind == fb::OperationKind::Pooling && pooling == fb::PoolingAlgorithm::AvgExcludePadding && num_inputs == 1;
}
/// Whether an operation may take quantized values of one grid and write
/// them on it (the quantize op after it then is the identity): a Reorder,
/// a max pool, a concat, a crop; an average pool (its rounding is the
/// quantize op's).
constexpr bool moves_values_on_their_grid(fb::OperationKind kind, fb::PoolingAlgorithm pooling, uint32_t num_inputs,
                                          bool pads = false) {
  const QuantizedValues quantized = operation_rules(kind).quantized;
  return quantized == QuantizedValues::kConverts ||
         (quantized == QuantizedValues::kOnItsGrid &&
          (picks_input_values(kind, pooling, num_inputs, pads) || averages_on_its_grid(kind, pooling, num_inputs)));
}

/// Whether a Pointwise program's kernel computes `algorithm` (onednn_graph.fbs
/// PointwiseStep): every eltwise but gelu's erf and rounding.
constexpr bool pointwise_computes(fb::EltwiseAlgorithm algorithm) {
  return algorithm != fb::EltwiseAlgorithm::GeluErf && algorithm != fb::EltwiseAlgorithm::Round &&
         algorithm <= fb::EltwiseAlgorithm::MAX;
}
/// Whether a Pad adds elements (a positive amount before or after a
/// dimension), rather than only cropping.
template <typename Amounts>
constexpr bool pads_any(const Amounts& before, const Amounts& after) {
  for (const auto amount : before) {
    if (amount > 0) return true;
  }
  for (const auto amount : after) {
    if (amount > 0) return true;
  }
  return false;
}

// ---------------------------------------------------------------- verdicts

/// What the rules read of one operation, as either half finds it (the
/// lowering in its fb::OperationT, the runtime in the blob's fb::Operation).
struct OperationFacts {
  fb::OperationKind kind = fb::OperationKind::NONE;
  bool runtime_size = false;     ///< reads or writes a value with a run-time size
  bool quantized_input = false;  ///< one of its inputs is quantized
  bool quantized_result = false;
  bool quantized_post_op_input = false;  ///< a binary post-op reads a quantized value
  /// Every input and the result are quantized on one static grid, and the
  /// result is some of the inputs' values or their average
  /// (moves_values_on_their_grid).
  bool on_one_grid = false;
  /// A Mul of a static quantized image (the first input, the result's
  /// sizes) by a static quantized value per image and channel ([N, C, 1,
  /// ...]) into a static quantized result, no post-ops: scales_channels.
  bool scales_channels = false;
  uint32_t eltwise_post_ops = 0;
  uint32_t relu_post_ops = 0;  ///< of the eltwise ones, relus
  uint32_t binary_post_ops = 0;
};

/// Whether a binary post-op of a `kind` operation may read a quantized value
/// (its stored integers, onednn_graph.fbs BinaryPostOp): the int8
/// computations, whose oneDNN kernels take uint8 post-op operands.
constexpr bool post_ops_read_integers(fb::OperationKind kind) {
  return operation_rules(kind).quantized == QuantizedValues::kWeighted;
}

/// Whether `image` times `gate` into `result`, values of `graph` whose
/// indices are in range, is an image scaled per channel on static grids:
/// all three quantized and not dynamic, the image of the result's sizes (3
/// to 5 dimensions), the gate [N, C, 1, ...].
inline bool scales_channels(const fb::Graph& graph, int32_t image, int32_t gate, int32_t result) {
  if (image < 0 || gate < 0 || result < 0) return false;
  const auto static_quantized = [&](int32_t v) {
    const fb::Value* x = graph.values()->Get(static_cast<uint32_t>(v));
    return x->dtype() != fb::DataType::Float32 && !x->dynamic() && x->runtime_dim() < 0 && x->sizes() != nullptr;
  };
  if (!static_quantized(image) || !static_quantized(gate) || !static_quantized(result)) return false;
  const auto* x = graph.values()->Get(static_cast<uint32_t>(image))->sizes();
  const auto* g = graph.values()->Get(static_cast<uint32_t>(gate))->sizes();
  const auto* y = graph.values()->Get(static_cast<uint32_t>(result))->sizes();
  const uint32_t rank = y->size();
  if (rank < 3 || rank > 5 || x->size() != rank || g->size() != rank) return false;
  for (uint32_t d = 0; d < rank; ++d) {
    if (x->Get(d) != y->Get(d) || g->Get(d) != (d < 2 ? y->Get(d) : 1)) return false;
  }
  return true;
}
/// The facts of `op`, an operation of `graph` whose indices are in range
/// (a verified blob, or the lowering's own graph packed as it will be read).
inline OperationFacts facts_of(const fb::Graph& graph, const fb::Operation& op) {
  const auto value = [&](int32_t v) { return graph.values()->Get(static_cast<uint32_t>(v)); };
  const auto quantized = [&](int32_t v) { return v >= 0 && value(v)->dtype() != fb::DataType::Float32; };
  const auto runtime = [&](int32_t v) { return v >= 0 && value(v)->runtime_dim() >= 0; };
  OperationFacts facts;
  facts.kind = op.op_type();
  const int32_t result = op.outputs() != nullptr && op.outputs()->size() > 0 ? op.outputs()->Get(0) : -1;
  facts.runtime_size = runtime(result);
  facts.quantized_result = quantized(result);
  // One static grid: the result's, which every input shares.
  const auto on_result_grid = [&](int32_t v) {
    const fb::Value* x = value(v);
    const fb::Value* y = value(result);
    return x->dtype() == y->dtype() && !x->dynamic() && !y->dynamic() && x->scale() == y->scale() &&
           x->zero_point() == y->zero_point();
  };
  const fb::Pooling* pooling = op.op_as_Pooling();
  const fb::Pad* pad = op.op_as_Pad();
  const bool pads = pad != nullptr && (pad->before() == nullptr || pad->after() == nullptr ||
                                       pads_any(*pad->before(), *pad->after()));
  const uint32_t num_inputs = op.inputs() != nullptr ? op.inputs()->size() : 0;
  facts.on_one_grid = result >= 0 && facts.quantized_result &&
                      moves_values_on_their_grid(facts.kind,
                                                 pooling != nullptr ? pooling->algorithm() : fb::PoolingAlgorithm::Max,
                                                 num_inputs, pads);
  const fb::BinaryOp* binary_op = op.op_as_BinaryOp();
  facts.scales_channels = binary_op != nullptr && binary_op->algorithm() == fb::BinaryAlgorithm::Mul && num_inputs == 2 &&
                          result >= 0 && (op.post_ops() == nullptr || op.post_ops()->size() == 0) &&
                          scales_channels(graph, op.inputs()->Get(0), op.inputs()->Get(1), result);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    const int32_t v = op.inputs()->Get(i);
    facts.runtime_size = facts.runtime_size || runtime(v);
    facts.quantized_input = facts.quantized_input || quantized(v);
    facts.on_one_grid = facts.on_one_grid && v >= 0 && on_result_grid(v);
  }
  if (op.post_ops() != nullptr) {
    for (const fb::PostOp* post : *op.post_ops()) {
      const fb::BinaryPostOp* binary = post->op_as_BinaryPostOp();
      if (binary == nullptr) {
        ++facts.eltwise_post_ops;
        const fb::Eltwise* eltwise = post->op_as_Eltwise();
        if (eltwise != nullptr && eltwise->algorithm() == fb::EltwiseAlgorithm::Relu) ++facts.relu_post_ops;
        continue;
      }
      ++facts.binary_post_ops;
      facts.runtime_size = facts.runtime_size || runtime(binary->input());
      facts.quantized_post_op_input = facts.quantized_post_op_input || quantized(binary->input());
    }
  }
  return facts;
}

/// Whether something is allowed, and if not why: a value, not an exception.
struct Verdict {
  bool ok = true;
  const char* reason = "";  ///< static text, when not ok

  static constexpr Verdict yes() { return {true, ""}; }
  static constexpr Verdict no(const char* reason) { return {false, reason}; }
  constexpr explicit operator bool() const { return ok; }
};

/// `op` against its kind's rules (operation_rules). The reason names the
/// rule broken; callers prefix the operation (its kind, its name).
constexpr Verdict verdict_of(const OperationFacts& op) {
  const OperationRules& rules = operation_rules(op.kind);
  if (rules.kind == fb::OperationKind::NONE) return Verdict::no("an unknown operation kind");
  if (op.eltwise_post_ops + op.binary_post_ops > kMaxPostOps) return Verdict::no("more post-ops than kMaxPostOps");
  if (op.runtime_size) {
    if (rules.runtime_sizes == RuntimeSizes::kNone) {
      return Verdict::no("a run-time size on an operation kind that takes none");
    }
    if (op.quantized_input || op.quantized_result) return Verdict::no("a run-time size on quantized values");
    if (op.binary_post_ops > 0) return Verdict::no("a run-time size with a binary post-op");
  }
  if (op.quantized_post_op_input && !post_ops_read_integers(op.kind)) {
    return Verdict::no("a post-op reading a quantized value on an operation that is not an int8 computation");
  }
  if (op.quantized_input || op.quantized_result) {
    switch (rules.quantized) {
      case QuantizedValues::kNone: return Verdict::no("quantized values on an operation that runs on float32 only");
      case QuantizedValues::kOnItsGrid:
        if (!op.on_one_grid) {
          return Verdict::no("quantized values not all on one grid, or an operation that changes them (only a max "
                             "pool, an average pool excluding padding, a concat or a crop keeps them on their grid)");
        }
        break;
      case QuantizedValues::kScalesChannels:
        if (!op.scales_channels) {
          return Verdict::no("quantized values on a binary op other than an image times one value per channel, "
                             "with no post-ops");
        }
        break;
      case QuantizedValues::kWeighted:
      case QuantizedValues::kConverts:
      case QuantizedValues::kDynamic: break;
    }
  }
  if (rules.post_ops == PostOpKinds::kNone && op.eltwise_post_ops + op.binary_post_ops > 0) {
    return Verdict::no("post-ops on an operation that takes none");
  }
  if (rules.post_ops == PostOpKinds::kEltwise && op.binary_post_ops > 0) {
    return Verdict::no("a binary post-op on an operation that takes eltwise post-ops only");
  }
  if (rules.post_ops == PostOpKinds::kRelu &&
      (op.binary_post_ops > 0 || op.eltwise_post_ops > 1 || op.relu_post_ops != op.eltwise_post_ops)) {
    return Verdict::no("post-ops other than one relu on an operation that takes one relu at most");
  }
  return Verdict::yes();
}

}  // namespace kiln::backends::onednn
