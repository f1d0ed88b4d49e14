// TensorMeta: what the compiler knows of a tensor without its data — dtype,
// sizes (possibly symbolic), dim order — as torch.export records in a node's
// meta["val"].
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "aot/ir/sym_expr.h"
#include "runtime/core/scalar_type.h"

namespace kiln::aot {

using runtime::ScalarType;

/// Bindings of size symbols to values ("s0" -> 4), found by checking inputs.
using SymbolBindings = std::map<std::string, int64_t>;

struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  std::vector<SymExpr> sizes;
  /// Outermost dimension first; empty means contiguous (0, 1, ..., rank-1).
  std::vector<uint8_t> dim_order;
  bool requires_grad = false;

  TensorMeta() = default;
  TensorMeta(ScalarType dtype, std::vector<SymExpr> sizes) : dtype(dtype), sizes(std::move(sizes)) {}
  /// A tensor of static sizes.
  TensorMeta(ScalarType dtype, const std::vector<int64_t>& sizes);

  size_t rank() const { return sizes.size(); }
  /// True if no size mentions a symbol.
  bool is_static() const;
  /// The sizes; throws AotError if any is symbolic.
  std::vector<int64_t> static_sizes() const;
  /// The sizes with `bindings` substituted; throws AotError naming an unbound symbol.
  std::vector<int64_t> concrete_sizes(const SymbolBindings& bindings) const;
  /// The dim order, filled in when it is left implicit.
  std::vector<uint8_t> resolved_dim_order() const;
  /// `f32[4, s0, 3]`, as ExportedProgram printouts show tensors.
  std::string to_string() const;

  bool operator==(const TensorMeta& other) const;
};

/// Shorthands for building metas in tests and the demo: f32({4, 3, 64, 64}).
TensorMeta f32(const std::vector<SymExpr>& sizes);
TensorMeta i64(const std::vector<SymExpr>& sizes);

/// A node's meta["val"]: nothing, one tensor, several tensors (a multi-output
/// op), or a symbolic int (sym_size and SymInt arithmetic).
using ValueMeta = std::variant<std::monostate, TensorMeta, std::vector<TensorMeta>, SymExpr>;

std::string to_string(const ValueMeta& meta);

}  // namespace kiln::aot
