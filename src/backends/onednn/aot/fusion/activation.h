// A PReLU of one learned slope, as decompositions spell nn.PReLU():
//
//   out = where(gt(x, 0), x, mul(w, x))     (or mul(x, w))
//
// with w a constant of one float32 element that only the product reads. It
// is a relu of negative slope w, one oneDNN eltwise (the activation family
// of fusion rules, activation.cpp). Its comparison and select are boolean
// ops OneDnnBackend does not run alone; left on the portable kernels they
// split the delegate around every PReLU (ESPCN: two delegates, 1.5x the
// peers' time). The partitioner takes the pattern's nodes together through
// prelu_containing.
#pragma once

#include <optional>
#include <vector>

#include "aot/ir/node.h"

namespace kiln::backends::onednn {

struct PRelu {
  const aot::Node* x = nullptr;
  const aot::Node* slope = nullptr;      ///< w: a placeholder
  std::vector<const aot::Node*> nodes;   ///< the comparison, the product, the where (last)
};

/// The pattern whose where is `anchor`, if it is one. Whether w is a
/// constant is the caller's to check (the partitioner in the program's
/// signature, the fusion rule in its constants).
std::optional<PRelu> match_prelu(const aot::Node& anchor);

/// The pattern `node` is a node of (found through its user), if any.
std::optional<PRelu> prelu_containing(const aot::Node& node);

}  // namespace kiln::backends::onednn
