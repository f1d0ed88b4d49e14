// The checks describe_node's per-op functions share (internal to
// src/backends/onednn/aot): each returns the argument's value or throws
// Refusal naming what does not fit. A Refusal unwinds a describer from deep
// inside its argument checks; `supported` turns it into a value at the
// describers' public edge (describe_node, quantized_grid,
// dynamic_quantization), and nothing outside them sees it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aot/ir/node.h"
#include "host/host_error.h"
#include "backends/onednn/aot/node_ops.h"

namespace kiln::backends::onednn {

/// Why a describer refuses a node, thrown by refuse().
class Refusal : public HostError {
 public:
  explicit Refusal(const std::string& reason) : HostError(reason) {}
};

[[noreturn]] void refuse(const std::string& reason);

/// `describe()`'s result, or the reason of the Refusal it throws: the one
/// place a Refusal becomes a value.
template <typename Describe>
auto supported(Describe&& describe) -> Supported<decltype(describe())> {
  try {
    return describe();
  } catch (const Refusal& refusal) {
    return Supported<decltype(describe())>::no(refusal.what());
  }
}

/// A float32 tensor node with static, non-empty sizes (its layout: layout_problem, node_ops.h).
const aot::TensorMeta& tensor_arg(const aot::Argument& arg, const std::string& what);
/// Checks the node's result (its first, for a multi-output op) as tensor_arg does.
void check_result(const aot::Node& node);
/// The static sizes of the node's (first) result.
std::vector<int64_t> result_sizes(const aot::Node& node);
/// Refuses a multi-output node whose other results are used: only getitem(node, 0) may read it.
void only_first_result_used(const aot::Node& node);

int64_t int_arg(const aot::Argument& arg, const std::string& what);
bool bool_arg(const aot::Argument& arg, const std::string& what);
double number_arg(const aot::Argument& arg, const std::string& what);
/// A list of ints (no symbolic sizes).
std::vector<int64_t> int_list(const aot::Argument& arg, const std::string& what);
/// An int list of `count` entries (one entry is repeated), each >= `minimum`.
std::vector<int64_t> spatial_list(const aot::Argument& arg, size_t count, const std::string& what, int64_t minimum);
/// A node argument or null for None.
const aot::Node* optional_node(const aot::Argument& arg);
/// `dim` in [0, rank).
int64_t normalize_dim(int64_t dim, size_t rank);
/// "[1, 2]"
std::string list_text(const std::vector<int64_t>& values);

using NodeDescriber = NodeOp (*)(const aot::Node&, const std::vector<aot::Argument>&);
/// Eltwise and binary ops (node_ops_elementwise.cpp).
const std::map<std::string, NodeDescriber>& elementwise_describers();
/// Layout ops as Reorder (node_ops_layout.cpp).
const std::map<std::string, NodeDescriber>& layout_describers();
/// quantize and dequantize ops (node_ops_quantized.cpp); they check their
/// own results (a quantize op's is an integer tensor).
const std::map<std::string, NodeDescriber>& quantized_describers();

}  // namespace kiln::backends::onednn
