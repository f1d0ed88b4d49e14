// The op table: the rows of ops.def, parsed once on first use, looked up by
// qualified name (with close matches suggested for unknown ones).
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot {

namespace {

struct OpRow {
  unsigned tags;
  const char* functional;
  const char* out;
};

constexpr OpRow kOpRows[] = {
#define KILN_OP(tags, functional, out) {tags, functional, out},
#include "aot/ir/op_table/ops.def"
#include "aot/ir/op_table/kiln_ops.def"
#undef KILN_OP
};

// Hashes std::string and std::string_view alike, so lookups need no copy.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
};

struct OpTable {
  std::vector<OpSchema> schemas;
  std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> by_name;

  void add(OpSchema schema, size_t row) {
    const std::string name = schema.qualified_name();
    if (!by_name.emplace(name, schemas.size()).second) {
      throw AotError("ops.def row " + std::to_string(row + 1) + ": op '" + name + "' is defined twice");
    }
    schemas.push_back(std::move(schema));
  }
};

OpTable build_table() {
  OpTable table;
  for (size_t row = 0; row < std::size(kOpRows); ++row) {
    OpSchema functional = parse_op_schema(kOpRows[row].functional);
    functional.is_core = (kOpRows[row].tags & kTagCore) != 0;
    functional.is_view_copy = (kOpRows[row].tags & kTagViewCopy) != 0;
    functional.is_pointwise = (kOpRows[row].tags & kTagPointwise) != 0;
    if (functional.is_out_variant()) {
      throw AotError("ops.def row " + std::to_string(row + 1) + ": '" + functional.qualified_name() +
                     "' has out arguments; list it as the out variant of its functional op");
    }
    if (std::string_view(kOpRows[row].out).empty()) {
      table.add(std::move(functional), row);
      continue;
    }
    OpSchema out = parse_op_schema(kOpRows[row].out);
    if (!out.is_out_variant()) {
      throw AotError("ops.def row " + std::to_string(row + 1) + ": out variant '" + out.qualified_name() +
                     "' has no out argument (a keyword-only Tensor(a!))");
    }
    if (out.name != functional.name) {
      throw AotError("ops.def row " + std::to_string(row + 1) + ": out variant '" + out.qualified_name() +
                     "' is not an overload of '" + functional.name + "'");
    }
    out.out_variant = out.qualified_name();
    functional.out_variant = out.out_variant;
    table.add(std::move(functional), row);
    table.add(std::move(out), row);
  }
  return table;
}

const OpTable& op_table() {
  static const OpTable table = build_table();
  return table;
}

// Edits (insert, delete, substitute, swap neighbours) from `a` to `b`.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

// Other overloads of the same op, and names a few edits away, closest first.
std::vector<std::string> close_op_names(std::string_view wanted, const std::function<bool(const OpSchema&)>& keep) {
  const size_t namespace_end = wanted.find("::");
  const std::string_view base =
      wanted.substr(0, wanted.find('.', namespace_end == std::string_view::npos ? 0 : namespace_end));
  const size_t name_length = wanted.size() - (namespace_end == std::string_view::npos ? 0 : namespace_end + 2);
  const size_t limit = std::max<size_t>(1, name_length / 4);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const OpSchema& schema : op_table().schemas) {
    if (keep && !keep(schema)) continue;
    const std::string name = schema.qualified_name();
    // "aten::rleu" is compared with op names, "aten::add.Tenser" with qualified names.
    const size_t distance = edit_distance(wanted, base.size() == wanted.size() ? schema.name : name);
    if (schema.name == base || distance <= limit) scored.emplace_back(distance, name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) names.push_back(scored[i].second);
  return names;
}

const OpSchema* find_op_schema(std::string_view qualified_name) {
  const OpTable& table = op_table();
  auto it = table.by_name.find(qualified_name);
  if (it == table.by_name.end()) {
    // "aten::relu" names the default overload, as torch.ops.aten.relu does.
    const size_t name_start = qualified_name.find("::");
    if (name_start == std::string_view::npos ||
        qualified_name.find('.', name_start) != std::string_view::npos) {
      return nullptr;
    }
    it = table.by_name.find(std::string(qualified_name) + ".default");
    if (it == table.by_name.end()) return nullptr;
  }
  return &table.schemas[it->second];
}

const OpSchema& get_op_schema(std::string_view qualified_name) {
  if (const OpSchema* schema = find_op_schema(qualified_name)) return *schema;
  std::string message = "unknown op '" + std::string(qualified_name) + "'";
  const std::vector<std::string> names = close_op_names(qualified_name);
  for (size_t i = 0; i < names.size(); ++i) {
    message += (i == 0 ? " (did you mean '" : ", '") + names[i] + "'";
  }
  if (!names.empty()) message += "?)";
  throw AotError(message);
}

std::span<const OpSchema> all_op_schemas() { return op_table().schemas; }

}  // namespace kiln::aot

namespace kiln::aot {

const OpSchema* alias_target(const OpSchema& schema) {
  static const std::unordered_map<std::string, std::string> aliases = {
#define KILN_ALIAS(from, to) {from, to},
#include "aot/ir/op_table/aliases.def"
#undef KILN_ALIAS
  };
  const auto it = aliases.find(schema.qualified_name());
  return it == aliases.end() ? nullptr : &get_op_schema(it->second);
}

}  // namespace kiln::aot
