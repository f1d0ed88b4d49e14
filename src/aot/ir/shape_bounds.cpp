#include "aot/ir/shape_bounds.h"

#include <limits>

#include "aot/ir/error.h"

namespace kiln::aot {

int64_t upper_bound(const SymExpr& size, const RangeConstraints& ranges, const std::string& where) {
  if (const auto constant = size.constant_value()) return *constant;
  SymbolBindings high;
  SymbolBindings low;
  for (const std::string& symbol : size.free_symbols()) {
    auto range = ranges.find(symbol);
    if (range == ranges.end() || !range->second.max) {
      throw AotError(where + ": size " + size.to_string() + " has no upper bound (" + symbol + " is " +
                     (range == ranges.end() ? std::string("unconstrained") : range->second.to_string()) +
                     "); export it with a maximum, e.g. Dim(\"" + symbol + "\", max=...)");
    }
    high[symbol] = *range->second.max;
    low[symbol] = range->second.min;
  }
  return std::max(size.evaluate(high), size.evaluate(low));
}

std::vector<int64_t> upper_bound_sizes(const TensorMeta& meta, const RangeConstraints& ranges, const std::string& where) {
  std::vector<int64_t> sizes;
  for (const SymExpr& size : meta.sizes) sizes.push_back(upper_bound(size, ranges, where));
  return sizes;
}

uint64_t upper_bound_nbytes(const TensorMeta& meta, const RangeConstraints& ranges, const std::string& where) {
  uint64_t bytes = runtime::element_size(meta.dtype);
  for (int64_t size : upper_bound_sizes(meta, ranges, where)) {
    if (size < 0) throw AotError(where + ": negative size " + std::to_string(size) + " in " + meta.to_string());
    if (size != 0 && bytes > std::numeric_limits<int64_t>::max() / static_cast<uint64_t>(size)) {
      throw AotError(where + ": tensor " + meta.to_string() + " is too large (its byte size overflows)");
    }
    bytes *= static_cast<uint64_t>(size);
  }
  return bytes;
}

}  // namespace kiln::aot
