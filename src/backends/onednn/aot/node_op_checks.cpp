#include "backends/onednn/aot/node_op_checks.h"
#include "aot/ir/exec_kind.h"
#include "backends/onednn/capabilities.h"

#include <algorithm>
#include <variant>

namespace kiln::backends::onednn {

using aot::Argument;
using aot::Node;
using aot::TensorMeta;

void refuse(const std::string& reason) { throw Refusal(reason); }

namespace {

const TensorMeta& checked_tensor(const aot::ValueMeta& val, const std::string& what) {
  const TensorMeta* meta = std::get_if<TensorMeta>(&val);
  if (const auto* several = std::get_if<std::vector<TensorMeta>>(&val); several != nullptr && !several->empty()) {
    meta = &several->front();
  }
  if (meta == nullptr) refuse(what + " is not a tensor");
  if (meta->dtype != aot::ScalarType::Float) refuse(what + " is " + meta->to_string() + "; OneDnnBackend runs float32 only");
  if (!meta->is_static()) refuse(what + " is " + meta->to_string() + "; OneDnnBackend needs static sizes");
  const std::vector<int64_t> sizes = meta->static_sizes();
  if (sizes.size() > kMaxRank) {
    refuse(what + " is " + meta->to_string() + "; OneDnnBackend takes at most " + std::to_string(kMaxRank) + " dimensions");
  }
  int64_t numel = 1;
  for (int64_t size : sizes) {
    if (size == 0) refuse(what + " is " + meta->to_string() + ", empty; oneDNN takes no empty tensors");
    if (size >= kMaxDimension || numel > kMaxNumel / size) refuse(what + " is " + meta->to_string() + ", too large for OneDnnBackend");
    numel *= size;
  }
  return *meta;
}

}  // namespace

const TensorMeta& tensor_arg(const Argument& arg, const std::string& what) {
  if (!arg.is_node()) refuse(what + " (" + aot::to_string(arg) + ") is not a tensor");
  return checked_tensor(arg.node()->meta.val, what + " '" + arg.node()->name() + "'");
}

void check_result(const Node& node) { checked_tensor(node.meta.val, "its result"); }

std::vector<int64_t> result_sizes(const Node& node) { return checked_tensor(node.meta.val, "its result").static_sizes(); }

void only_first_result_used(const Node& node) {
  for (const Node* user : node.users()) {
    const bool first = aot::is_call_of(*user, aot::ExecKind::GetItem) && user->args().size() == 2 && user->args()[1].is_int() &&
                       user->args()[1].to_int() == 0;
    if (!first) refuse("'" + user->name() + "' uses a result other than its first; OneDnnBackend computes the first only");
  }
}

int64_t int_arg(const Argument& arg, const std::string& what) {
  if (!arg.is_int()) refuse(what + "=" + aot::to_string(arg) + " is not a constant int");
  return arg.to_int();
}

bool bool_arg(const Argument& arg, const std::string& what) {
  if (!arg.is_bool()) refuse(what + "=" + aot::to_string(arg) + " is not a constant bool");
  return arg.to_bool();
}

double number_arg(const Argument& arg, const std::string& what) {
  if (arg.is_int()) return static_cast<double>(arg.to_int());
  if (arg.is_double()) return arg.to_double();
  if (arg.is_bool()) return arg.to_bool() ? 1.0 : 0.0;
  refuse(what + "=" + aot::to_string(arg) + " is not a constant number");
}

std::vector<int64_t> int_list(const Argument& arg, const std::string& what) {
  if (arg.is_int()) return {arg.to_int()};
  if (!arg.is_list()) refuse(what + "=" + aot::to_string(arg) + " is not a list of ints");
  std::vector<int64_t> values;
  for (const Argument& item : arg.list()) {
    if (!item.is_int()) refuse(what + "=" + aot::to_string(arg) + " has a symbolic or non-int entry; OneDnnBackend needs static values");
    values.push_back(item.to_int());
  }
  return values;
}

std::vector<int64_t> spatial_list(const Argument& arg, size_t count, const std::string& what, int64_t minimum) {
  std::vector<int64_t> values = int_list(arg, what);
  if (values.size() == 1) values.assign(count, values[0]);
  if (values.size() != count) refuse(what + "=" + list_text(values) + " has " + std::to_string(values.size()) + " entries, not " + std::to_string(count));
  for (int64_t v : values) {
    if (v < minimum) refuse(what + "=" + list_text(values) + " has an entry below " + std::to_string(minimum));
  }
  return values;
}

const Node* optional_node(const Argument& arg) { return arg.is_node() ? arg.node() : nullptr; }

int64_t normalize_dim(int64_t dim, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  const int64_t d = dim < 0 ? dim + r : dim;
  if (d < 0 || d >= std::max<int64_t>(r, 1)) refuse("dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  return d;
}

std::string list_text(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

}  // namespace kiln::backends::onednn
