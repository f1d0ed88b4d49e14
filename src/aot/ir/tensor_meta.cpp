#include "aot/ir/tensor_meta.h"

#include "aot/ir/error.h"

namespace kiln::aot {

TensorMeta::TensorMeta(ScalarType dtype, const std::vector<int64_t>& static_sizes) : dtype(dtype) {
  sizes.reserve(static_sizes.size());
  for (int64_t size : static_sizes) sizes.push_back(SymExpr::constant(size));
}

bool TensorMeta::is_static() const {
  for (const SymExpr& size : sizes) {
    if (!size.is_constant()) return false;
  }
  return true;
}

std::vector<int64_t> TensorMeta::static_sizes() const {
  std::vector<int64_t> result;
  result.reserve(sizes.size());
  for (const SymExpr& size : sizes) {
    if (!size.is_constant()) throw AotError("tensor " + to_string() + " has symbolic size " + size.to_string());
    result.push_back(*size.constant_value());
  }
  return result;
}

std::vector<int64_t> TensorMeta::concrete_sizes(const SymbolBindings& bindings) const {
  std::vector<int64_t> result;
  result.reserve(sizes.size());
  for (const SymExpr& size : sizes) result.push_back(size.evaluate(bindings));
  return result;
}

std::vector<uint8_t> TensorMeta::resolved_dim_order() const {
  if (!dim_order.empty()) return dim_order;
  std::vector<uint8_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
  return order;
}

std::string TensorMeta::to_string() const {
  std::string text = std::string(runtime::short_name(dtype)) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += sizes[i].to_string();
  }
  return text + "]";
}

bool TensorMeta::operator==(const TensorMeta& other) const {
  return dtype == other.dtype && sizes == other.sizes && resolved_dim_order() == other.resolved_dim_order() &&
         requires_grad == other.requires_grad;
}

TensorMeta f32(const std::vector<SymExpr>& sizes) { return TensorMeta(ScalarType::Float, sizes); }
TensorMeta i64(const std::vector<SymExpr>& sizes) { return TensorMeta(ScalarType::Long, sizes); }

std::string to_string(const ValueMeta& meta) {
  if (const auto* tensor = std::get_if<TensorMeta>(&meta)) return tensor->to_string();
  if (const auto* sym = std::get_if<SymExpr>(&meta)) return "Sym(" + sym->to_string() + ")";
  if (const auto* list = std::get_if<std::vector<TensorMeta>>(&meta)) {
    std::string text = "(";
    for (size_t i = 0; i < list->size(); ++i) text += (i ? ", " : "") + (*list)[i].to_string();
    return text + (list->size() == 1 ? ",)" : ")");
  }
  return "";
}

}  // namespace kiln::aot
