// prelu_as_relus: a PReLU with a slope per channel, as decompositions spell
// it -- where(x > 0, x, w * x) -- becomes relu(x) + w * clamp(x, max=0), with
// the where's provenance. A backend runs those ops (OneDnnBackend: two
// eltwise ops and a product per channel taking the sum as its post-op),
// where the comparison and the select on booleans would cut its partition
// around every PReLU (MobileFaceNet's, ArcFace ResNets'). A slope of one
// element stays as it is: OneDnnBackend takes that whole, as one relu of
// that negative slope (its fusion rule 'prelu').
#include <optional>

#include "aot/passes/lowering.h"
#include "aot/passes/pattern.h"
#include "aot/passes/rewriter.h"

namespace kiln::aot {

namespace {

using passes::is_float;
using passes::is_number;
using passes::node_of;
using passes::only_read_by;

struct PerChannelPRelu {
  Node* where = nullptr;
  Node* x = nullptr;
  Node* slope = nullptr;
  Node* condition = nullptr;
  Node* negative = nullptr;
  bool slope_first = false;  ///< w * x, not x * w
};

std::optional<PerChannelPRelu> match(Node* where) {
  const auto args = passes::call_args(where, "aten::where.self");
  if (!args || args->size() != 3) return std::nullopt;
  PerChannelPRelu p{where, node_of((*args)[1]), nullptr, node_of((*args)[0]), node_of((*args)[2])};
  if (p.x == nullptr || p.condition == nullptr || p.negative == nullptr || !is_float(p.x)) return std::nullopt;
  const auto compared = passes::call_args(p.condition, "aten::gt.Scalar");
  if (!compared || node_of((*compared)[0]) != p.x || !is_number((*compared)[1], 0) || !only_read_by(p.condition, where)) {
    return std::nullopt;
  }
  const auto product = passes::call_args(p.negative, "aten::mul.Tensor");
  if (!product || !only_read_by(p.negative, where)) return std::nullopt;
  p.slope_first = node_of((*product)[1]) == p.x;
  p.slope = node_of((*product)[p.slope_first ? 0 : 1]);
  if (node_of((*product)[p.slope_first ? 1 : 0]) != p.x || p.slope == nullptr || p.slope == p.x || !is_float(p.slope)) {
    return std::nullopt;
  }
  const std::optional<std::vector<int64_t>> sizes = passes::static_sizes_of(p.slope);
  if (!sizes) return std::nullopt;
  int64_t elements = 1;
  for (int64_t size : *sizes) elements *= size;
  if (elements <= 1) return std::nullopt;  // one slope: a backend's relu of that slope
  return p;
}

}  // namespace

bool prelu_as_relus(ExportedProgram& program) {
  return passes::rewrite_each_match<PerChannelPRelu>(program, match, [&](const PerChannelPRelu& p) {
    Node* sum = nullptr;
    {
      passes::Rewriter r(*p.where);
      Node* positive = r.op("aten::relu", {p.x});
      Node* clamped = r.op("aten::clamp", {p.x, None{}, 0.0});
      Node* scaled = r.op("aten::mul.Tensor", {p.slope_first ? p.slope : clamped, p.slope_first ? clamped : p.slope});
      sum = r.op("aten::add.Tensor", {positive, scaled});
      r.replace_with(sum);
    }
    passes::erase_unused(program.graph(), {p.condition, p.negative});
    return sum;
  });
}

}  // namespace kiln::aot
