// Reading sympy's srepr text, which .pt2 files use for symbolic sizes:
// "Symbol('s77', positive=True, integer=True)", "Mul(Integer(2), Symbol('s0'))",
// "FloorDiv(Add(Symbol('s0'), Integer(-1)), Integer(2))", ...
#pragma once

#include <string_view>

#include "aot/ir/sym_expr.h"

namespace kiln::aot {

/// The expression `text` spells. Understands Symbol, Integer (and the
/// singletons Zero, One, NegativeOne), Add, Mul, Pow with a constant exponent,
/// FloorDiv, Mod, PythonMod, Max and Min; keyword arguments such as
/// `integer=True` are skipped. Throws AotError quoting the text on anything else.
SymExpr parse_sympy_srepr(std::string_view text);

}  // namespace kiln::aot
