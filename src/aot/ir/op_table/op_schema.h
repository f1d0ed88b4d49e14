// The one op schema table of Kiln: each op's name, overload, arguments with
// their defaults, returns, out-variant and torch.Tag flags, written once in
// ops.def in PyTorch's own schema syntax and parsed here. The importer, the
// verifier, the interpreter and the emitter all read it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aot/ir/argument.h"

namespace kiln::aot {

/// The type of a schema argument or return, as PyTorch spells it:
/// "Tensor", "Tensor?", "SymInt[]", "int[2]", "Tensor?[]", "float[]?".
struct SchemaType {
  enum class Kind : uint8_t {
    Tensor,
    Int,       ///< int
    SymInt,
    Float,     ///< float (a double)
    SymFloat,
    Bool,      ///< bool
    SymBool,
    Scalar,    ///< int, float or bool
    ScalarType,
    Layout,
    MemoryFormat,
    Device,
    String,    ///< str
    Generator,
    Dimname,
    Storage,
    Any,
  };

  Kind kind = Kind::Tensor;
  bool optional = false;            ///< "T?", or for a list "T[]?": the whole value may be None
  bool is_list = false;             ///< "T[]" or "T[N]"
  std::optional<int> fixed_length;  ///< N of "T[N]" (a size hint: PyTorch does not enforce it)
  bool list_of_optional = false;    ///< "T?[]": the items may be None

  /// PyTorch's spelling, without alias annotations: "Tensor?[]", "int[2]?".
  std::string to_string() const;
  bool operator==(const SchemaType&) const = default;
};

/// "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", ...
const char* to_string(SchemaType::Kind kind);

struct SchemaArgument {
  std::string name;
  SchemaType type;
  /// The default, typed by `type`: int64_t for int/SymInt, double for float,
  /// int64_t or double for Scalar, ScalarType / Layout / MemoryFormat / Device
  /// for those, None for "=None", and an ArgumentList for lists (a scalar
  /// default of a sized list, `int[2] padding=0`, is stored broadcast: [0, 0]).
  std::optional<Argument> default_value;
  bool kwarg_only = false;  ///< after the `*` of the argument list
  /// An out argument: keyword-only and written to (`*, Tensor(a!) out`), as
  /// PyTorch's Argument::is_out() defines it. `Tensor(a!) self` of an in-place
  /// op is written to but is not an out argument.
  bool is_out = false;
  /// The alias annotation without its parentheses: "a!", "a", "a -> *", "b|a",
  /// or "" for none. For a list it annotates the items: "Tensor(a!)[]".
  std::string alias;

  bool is_write() const { return alias.find('!') != std::string::npos; }
  /// "Tensor(a!) out", "int[2] padding=0", "str approximate=\"none\"".
  std::string to_string() const;
  bool operator==(const SchemaArgument&) const = default;
};

struct SchemaReturn {
  std::string name;  ///< "" unless named, as in "-> (Tensor values, Tensor indices)"
  SchemaType type;
  std::string alias;

  bool is_write() const { return alias.find('!') != std::string::npos; }
  std::string to_string() const;
  bool operator==(const SchemaReturn&) const = default;
};

struct OpSchema {
  std::string name;      ///< "aten::add"
  std::string overload;  ///< "Tensor"; "" for the default overload
  std::vector<SchemaArgument> arguments;
  std::vector<SchemaReturn> returns;
  bool is_core = false;       ///< torch.Tag.core
  bool is_view_copy = false;  ///< torch.Tag.view_copy (view_copy, permute_copy, ...)
  /// torch.Tag.pointwise: each result element from the same element of each
  /// tensor operand, the operands broadcast together (add, mul, where, relu, ...)
  bool is_pointwise = false;
  /// Qualified name of the out variant ("aten::add.out"); an out variant names
  /// itself; "" when the op has none.
  std::string out_variant;

  /// "aten::add.Tensor", and "aten::relu.default" for the default overload:
  /// the name torch.ops and the graph printer use.
  std::string qualified_name() const;
  /// PyTorch's schema text, as str(torch.ops.aten.add.Tensor._schema) prints
  /// it: "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
  std::string to_string() const;
  /// The argument called `name`, or nullptr.
  const SchemaArgument* find_argument(std::string_view name) const;
  /// True for an out= variant: it has at least one out argument.
  bool is_out_variant() const { return num_out_arguments() > 0; }
  size_t num_out_arguments() const;
  /// Core ATen or a view_copy op: the ops ExecuTorch's edge dialect accepts
  /// ("Aten Canonical" in its verifier).
  bool is_canonical() const { return is_core || is_view_copy; }

  bool operator==(const OpSchema&) const = default;
};

/// Parses PyTorch's schema syntax (native_functions.yaml's `func:` and
/// str(op._schema) both read), for example
///   aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
/// Throws AotError quoting the schema and the column of the first problem.
OpSchema parse_op_schema(std::string_view text);

/// The schema called `qualified_name`: "aten::add.Tensor", "aten::add.out",
/// "aten::relu.default" or just "aten::relu" (the default overload); nullptr
/// if the table has no such op.
const OpSchema* find_op_schema(std::string_view qualified_name);
/// As find_op_schema, but throws AotError("unknown op '...'") naming close
/// matches when it has none.
const OpSchema& get_op_schema(std::string_view qualified_name);
/// Names of the table close to `wanted` ("aten::rleu", "aten::add.Tenser"):
/// its other overloads and names a few edits away, closest first, at most
/// three, among the schemas `keep` accepts (all when it is empty).
std::vector<std::string> close_op_names(std::string_view wanted,
                                        const std::function<bool(const OpSchema&)>& keep = {});
/// The `_copy` twin a view op runs as (aten::view_copy.default for
/// aten::view.default, aten::split_with_sizes_copy.default for
/// aten::split_with_sizes.default), named by PyTorch's convention as
/// ExecuTorch's edge dialect names it: for an op whose first argument is a
/// view of its input (alias "a", or "a -> *" for a list of views), that has no
/// out variant of its own, and whose twin has one. nullptr for other ops.
const OpSchema* view_copy_twin(const OpSchema& schema);
/// The functional op computing the value an in-place op leaves in `self`, by
/// PyTorch's naming convention: aten::relu.default for aten::relu_.default,
/// aten::index_put.default for aten::index_put_.default, aten::dropout.default
/// for aten::dropout_.default. The in-place op writes its first argument and
/// no other; the functional op has the same overload name, the same arguments
/// but for self's write annotation (and name: dropout's is `input`), and one
/// result. nullptr for other ops.
const OpSchema* functional_of_inplace(const OpSchema& schema);
/// The op torch documents `schema` as an alias of ("Alias for :func:`torch.acos`":
/// aten::acos.default for aten::arccos.default), with the same arguments and
/// returns (aliases.def, generated from torch). nullptr for other ops.
const OpSchema* alias_target(const OpSchema& schema);
/// Every schema of the table, functional ops and out variants, in ops.def order
/// (each row's functional op, then its out variant).
std::span<const OpSchema> all_op_schemas();

/// Tags of an ops.def row (torch.Tag), OR-ed together.
inline constexpr unsigned kTagNone = 0;
inline constexpr unsigned kTagCore = 1u << 0;      ///< torch.Tag.core
inline constexpr unsigned kTagViewCopy = 1u << 1;  ///< torch.Tag.view_copy
inline constexpr unsigned kTagPointwise = 1u << 2;  ///< torch.Tag.pointwise

}  // namespace kiln::aot
