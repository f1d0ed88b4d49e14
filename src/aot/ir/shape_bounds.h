// Upper bounds of symbolic sizes: what memory is planned for and what a .pte
// records as a dynamic tensor's sizes. The one place this is decided.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aot/ir/exported_program.h"
#include "aot/ir/tensor_meta.h"

namespace kiln::aot {

/// The largest value `size` takes over the ranges of its symbols: evaluated
/// with every symbol at its upper bound and at its lower bound, the larger
/// (sizes grow with their symbols in practice: products and sums with
/// positive coefficients). Throws AotError naming `where` if a symbol has no
/// upper bound or the size overflows.
int64_t upper_bound(const SymExpr& size, const RangeConstraints& ranges, const std::string& where);

/// upper_bound of every size of `meta`.
std::vector<int64_t> upper_bound_sizes(const TensorMeta& meta, const RangeConstraints& ranges, const std::string& where);

/// Bytes of a tensor of `meta` at its upper-bound sizes; throws AotError
/// naming `where` on overflow.
uint64_t upper_bound_nbytes(const TensorMeta& meta, const RangeConstraints& ranges, const std::string& where);

}  // namespace kiln::aot
