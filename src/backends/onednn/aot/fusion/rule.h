// The fusion rules of OneDnnBackend, as a table: each rule a selector, which
// finds nodes a group of nodes can run as one oneDNN operation, and an
// action, which edits the group to run them. plan_fusion (fusion.h) is the
// one driver; the families are one file each:
//
//   softmax.cpp     torch's safe softmax as one operation
//   activation.cpp  swish and hardswish as core ATen spells them out
//   quantize.cpp    a quantize op and its dequantize ops as the value on the grid;
//                   a clamp between two grids of the same parameters
//   matmul.cpp      a matmul's transposed operand; the reshapes around a linear
//   batch_norm.cpp  a batch norm folded into the convolution before it
//   post_ops.cpp    eltwise and binary ops after an operation as its post-ops
//   layout.cpp      consecutive reshapes, consecutive permutes
//   pointwise.cpp   a DAG of elementwise ops on a small tensor as one program
//
// The driver runs the stages in this order, each stage's rules in table order:
//   Pattern  several nodes that are one operation, matched at their last
//            node (the anchor) over the whole partition before any group
//            forms, since their inner nodes come first and must not start
//            groups of their own; the action makes the anchor's operation.
//   Absorb   nodes around an operation that the operation runs itself,
//            found on each node's own operation before groups form (again:
//            they may come before it).
//   Extend   nodes after a formed group, tried in graph order on the group
//            as it stands, each rule again while it matches.
// A selector never throws, and only proposes nodes that have no other
// reader than the fusion (the value it removes is read nowhere else). The
// driver applies a match only if none of its nodes is taken already.
//
// Adding a pattern to a family touches its file and a case of
// fusion_rules_test.cpp (which checks that every rule of the table makes a
// group in some case); a new family also adds a line to the table (rule.cpp)
// and its declaration below.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "backends/onednn/aot/fusion.h"

namespace kiln::backends::onednn {

/// What a selector found: the nodes it fuses and the action that fuses them.
struct Match {
  /// The nodes the group takes, besides its base (a Pattern's anchor is its base).
  std::vector<const aot::Node*> nodes;
  /// The action, run when the group forms (Pattern, Absorb) or at once (Extend).
  std::function<void(FusedGroup&)> apply;
  /// A Pattern that computes eltwise ops of one tensor (an activation): a
  /// post-op chain reaching its anchor takes it whole, as these post-ops.
  const aot::Node* eltwise_input = nullptr;
  std::vector<fb::EltwiseT> eltwises;
};

/// What the driver knows when a selector runs.
struct FusionContext {
  const ConstantTensors& constants;
  const std::set<const aot::Node*>& taken;             ///< in a group, or an inner node of a Pattern
  const std::map<const aot::Node*, Match>& patterns;   ///< Pattern matches by anchor
  const std::map<const aot::Node*, const aot::Node*>& anchor_of;  ///< a Pattern's inner node -> its anchor

  bool is_taken(const aot::Node* node) const { return taken.count(node) > 0; }
  bool is_constant(const aot::Node* node) const { return node == nullptr || constants.count(node) > 0; }
  /// The Pattern anchored at `node`, or null.
  const Match* pattern_at(const aot::Node* node) const;
  /// The one op reading `node`, a Pattern's inner node counted as its
  /// anchor; null if none or several.
  const aot::Node* next_in_chain(const aot::Node* node) const;
};

enum class FusionStage { Pattern, Absorb, Extend };

struct FusionRule {
  const char* name;
  FusionStage stage;
  /// Pattern: `group` holds only its base, the candidate anchor (not
  /// described: it may be no operation of its own). Absorb: the base and its
  /// own operation. Extend: the group so far.
  std::optional<Match> (*select)(const FusedGroup& group, const FusionContext& context);
};

/// Every rule, in the order the driver tries them (rule.cpp).
std::span<const FusionRule> fusion_rules();

// The families (one file each, above).
std::span<const FusionRule> softmax_rules();
std::span<const FusionRule> activation_rules();
std::span<const FusionRule> quantize_rules();
std::span<const FusionRule> requantization_rules();
std::span<const FusionRule> matmul_rules();
std::span<const FusionRule> batch_norm_rules();
std::span<const FusionRule> post_op_rules();
std::span<const FusionRule> layout_rules();
std::span<const FusionRule> pointwise_rules();

/// Whether `group`, a batch norm (with its relu, if any), reads a
/// dequantize op of constant parameters and `quantize`, a quantize op of
/// constant parameters over its dtype's whole range, comes after it: a
/// norm between two grids, which takes the second as its post-ops and which
/// the lowering writes as an int8 depthwise 1x1 convolution of the norm's
/// per-channel scale and shift (GraphWriter::emit_norm_between_grids).
/// quantize.cpp.
bool norm_between_grids(const FusedGroup& group, const aot::Node& quantize);

// ---- helpers the rules share (rule.cpp) ----

/// A node's static sizes; empty if it has none.
std::vector<int64_t> sizes_of(const aot::Node* node);
bool is_getitem(const aot::Node* node);
/// The single user of `node`, if it has exactly one and that is an op.
const aot::Node* only_user(const aot::Node* node);
/// describe_node(node), or nothing if OneDnnBackend refuses it (or it is no op).
std::optional<NodeOp> describe_if(const aot::Node* node);
/// describe_node(node); a refusal becomes an AotError naming the node.
NodeOp describe_or_throw(const aot::Node& node);
/// `chain` + `next`, a Linear after a Linear composed into one (and an
/// identity Linear dropped): a pattern's rescaling and a division after it
/// cost nothing.
void append_eltwise(std::vector<fb::EltwiseT>& chain, const fb::EltwiseT& next);
/// Appends an eltwise post-op from `node`, composed with a Linear before it.
void add_eltwise_post_op(FusedGroup& group, const fb::EltwiseT& eltwise, const aot::Node* node);
/// The getitem(multi, 0) users of a multi-output op: the first is the result, the others aliases.
void take_first_results(FusedGroup& group, const aot::Node* multi);

}  // namespace kiln::backends::onednn
