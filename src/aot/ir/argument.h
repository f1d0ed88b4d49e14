// Argument: the value of one node argument or keyword argument, and of an op
// schema's default. Mirrors what torch.fx allows in `node.args`.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "runtime/core/scalar_type.h"

namespace kiln::aot {

class Node;
using runtime::ScalarType;

/// torch.memory_format, numbered as the .pt2 schema numbers it.
enum class MemoryFormat : int8_t { Unknown = 0, Contiguous = 1, ChannelsLast = 2, ChannelsLast3d = 3, Preserve = 4 };
/// torch.layout, numbered as the .pt2 schema numbers it.
enum class Layout : int8_t { Unknown = 0, SparseCoo = 1, SparseCsr = 2, SparseCsc = 3, SparseBsr = 4, SparseBsc = 5, Mkldnn = 6, Strided = 7 };

struct Device {
  std::string type = "cpu";
  int index = -1;  ///< -1: no index given
  bool operator==(const Device&) const = default;
};

struct None {
  bool operator==(const None&) const = default;
};

struct Argument;
using ArgumentList = std::vector<Argument>;

/// One argument value. A list holds any mix (e.g. SymInt[] of ints and nodes,
/// Tensor?[] of nodes and None).
struct Argument {
  using Variant = std::variant<None, Node*, int64_t, double, bool, std::string, ScalarType, MemoryFormat,
                               Layout, Device, ArgumentList>;
  Variant value;

  Argument() : value(None{}) {}
  Argument(None) : value(None{}) {}                               // NOLINT
  Argument(Node* node) : value(node) {}                           // NOLINT
  Argument(int64_t v) : value(v) {}                               // NOLINT
  Argument(int v) : value(static_cast<int64_t>(v)) {}             // NOLINT
  Argument(double v) : value(v) {}                                // NOLINT
  Argument(bool v) : value(v) {}                                  // NOLINT
  Argument(std::string v) : value(std::move(v)) {}                // NOLINT
  Argument(const char* v) : value(std::string(v)) {}              // NOLINT
  Argument(ScalarType v) : value(v) {}                            // NOLINT
  Argument(MemoryFormat v) : value(v) {}                          // NOLINT
  Argument(Layout v) : value(v) {}                                // NOLINT
  Argument(Device v) : value(std::move(v)) {}                     // NOLINT
  Argument(ArgumentList v) : value(std::move(v)) {}               // NOLINT

  bool is_none() const { return std::holds_alternative<None>(value); }
  bool is_node() const { return std::holds_alternative<Node*>(value); }
  bool is_int() const { return std::holds_alternative<int64_t>(value); }
  bool is_double() const { return std::holds_alternative<double>(value); }
  bool is_bool() const { return std::holds_alternative<bool>(value); }
  bool is_string() const { return std::holds_alternative<std::string>(value); }
  bool is_list() const { return std::holds_alternative<ArgumentList>(value); }

  Node* node() const { return std::get<Node*>(value); }
  int64_t to_int() const { return std::get<int64_t>(value); }
  double to_double() const { return std::get<double>(value); }
  bool to_bool() const { return std::get<bool>(value); }
  const std::string& to_string() const { return std::get<std::string>(value); }
  const ArgumentList& list() const { return std::get<ArgumentList>(value); }
  ArgumentList& list() { return std::get<ArgumentList>(value); }

  bool operator==(const Argument& other) const = default;
};

/// Python-like text of an argument: `x`, `3`, `1.0`, `True`, `'mean'`,
/// `torch.float32`, `[1, 1]`, `None`. Nodes print as their name.
std::string to_string(const Argument& argument);
/// "torch.float32" for Float, etc.
std::string torch_dtype_name(ScalarType type);
std::string to_string(MemoryFormat format);
std::string to_string(Layout layout);
std::string to_string(const Device& device);

/// Calls `fn(Node*)` for every node referenced by `argument`, lists included.
template <typename Fn>
void for_each_node(const Argument& argument, Fn&& fn) {
  if (argument.is_node()) {
    fn(argument.node());
  } else if (argument.is_list()) {
    for (const Argument& item : argument.list()) for_each_node(item, fn);
  }
}

}  // namespace kiln::aot
