// Meta rules of the ops that move data without computing on it: views and
// their _copy twins (view, permute, expand, select, slice, squeeze, ...),
// cat, split, stack, padding, repeat and the index ops. Sizes follow
// PyTorch's formulas, symbolic where the input's sizes are.
#include <algorithm>
#include <limits>

#include "aot/ir/op_table/infer_meta_rules.h"
#include "aot/ir/memory_ops.h"

namespace kiln::aot::meta {
namespace {

SymExpr numel(const std::vector<SymExpr>& sizes) {
  SymExpr result = SymExpr::constant(1);
  for (const SymExpr& size : sizes) result = result * size;
  return result;
}

// view, reshape, view_copy, _unsafe_view: at most one -1, inferred.
std::vector<SymExpr> view_sizes(const Call& c, const TensorMeta& input, std::vector<SymExpr> sizes, size_t sizes_arg) {
  const SymExpr total = numel(input.sizes);
  std::optional<size_t> inferred;
  SymExpr known = SymExpr::constant(1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].constant_value() == -1) {
      if (inferred) c.fail("only one size may be -1, got " + to_string(c.arg(sizes_arg)));
      inferred = i;
    } else {
      if (const auto v = sizes[i].constant_value(); v && *v < 0) c.fail("invalid size " + std::to_string(*v));
      known = known * sizes[i];
    }
  }
  if (total.is_constant() && known.is_constant()) {
    const int64_t all = *total.constant_value();
    const int64_t part = *known.constant_value();
    if ((inferred && (part == 0 || all % part != 0)) || (!inferred && all != part)) {
      c.fail("cannot view " + input.to_string() + " (" + std::to_string(all) + " elements) as " + to_string(c.arg(sizes_arg)));
    }
  }
  if (inferred) sizes[*inferred] = SymExpr::floordiv(total, known);
  return sizes;
}

ValueMeta view(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  return TensorMeta(input.dtype, view_sizes(c, input, c.sym_list(1), 1));
}

ValueMeta permute(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const auto dims = c.int_list(1);
  if (dims.size() != input.rank()) c.fail("permutation has " + std::to_string(dims.size()) + " dims for " + input.to_string());
  TensorMeta out(input.dtype, std::vector<SymExpr>{});
  std::vector<bool> used(input.rank(), false);
  for (int64_t d : dims) {
    const size_t dim = c.dim(d, input.rank());
    if (used[dim]) c.fail("dim " + std::to_string(d) + " appears twice in the permutation");
    used[dim] = true;
    out.sizes.push_back(input.sizes[dim]);
  }
  return out;
}

ValueMeta transpose(const Call& c) {
  TensorMeta out = c.tensor(0);
  if (out.rank() == 0) return out;
  std::swap(out.sizes[c.dim(c.integer(1), out.rank())], out.sizes[c.dim(c.integer(2), out.rank())]);
  return TensorMeta(out.dtype, out.sizes);
}

ValueMeta expand(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const auto sizes = c.sym_list(1);
  if (sizes.size() < input.rank()) {
    c.fail("cannot expand " + input.to_string() + " to " + to_string(c.arg(1)) + ": fewer dims than the input");
  }
  const size_t lead = sizes.size() - input.rank();
  std::vector<SymExpr> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const bool keep = sizes[i].constant_value() == -1;
    if (i < lead) {
      if (keep) c.fail("size -1 is not allowed for the new leading dim " + std::to_string(i));
      out.push_back(sizes[i]);
      continue;
    }
    const SymExpr& have = input.sizes[i - lead];
    if (keep || sizes[i] == have) {
      out.push_back(have);
    } else if (have.constant_value() == 1 || !have.is_constant()) {
      out.push_back(sizes[i]);
    } else {
      c.fail("cannot expand " + input.to_string() + " to " + to_string(c.arg(1)) + ": dim " + std::to_string(i) +
             " has size " + have.to_string());
    }
  }
  return TensorMeta(input.dtype, out);
}

ValueMeta select(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() == 0) c.fail("cannot select from a 0-dim tensor");
  const size_t dim = c.dim(c.integer(1), input.rank());
  const SymExpr index = c.sym_arg(2);
  const auto size = input.sizes[dim].constant_value();
  if (const auto i = index.constant_value(); i && size && (*i < -*size || *i >= *size)) {
    c.fail("index " + std::to_string(*i) + " is out of range for dim " + std::to_string(dim) + " of " + input.to_string());
  }
  std::vector<SymExpr> sizes = input.sizes;
  sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(dim));
  return TensorMeta(input.dtype, sizes);
}

// Python slicing of one dim; `end` past the size (torch writes INT64_MAX) is the size.
ValueMeta slice(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() == 0) c.fail("cannot slice a 0-dim tensor");
  const size_t dim = c.dim(c.integer(1), input.rank());
  const SymExpr step = c.sym_arg(4);
  if (!step.is_constant() || *step.constant_value() <= 0) c.fail("step must be a positive int, got " + to_string(c.arg(4)));
  const SymExpr& size = input.sizes[dim];
  // Against a symbolic size, torch assumes a start within it; an end past it clamps.
  auto bound = [&](size_t i, SymExpr fallback, bool is_end) {
    if (c.is_none(i)) return fallback;
    SymExpr value = c.sym_arg(i);
    const auto v = value.constant_value();
    if (!v) return value;
    if (const auto s = size.constant_value()) return SymExpr::constant(std::clamp<int64_t>(*v < 0 ? *v + *s : *v, 0, *s));
    if (*v < 0) return size + value;
    if (!is_end) return value;
    return *v >= std::numeric_limits<int64_t>::max() / 2 ? size : SymExpr::min(value, size);
  };
  const SymExpr start = bound(2, SymExpr::constant(0), false);
  const SymExpr end = bound(3, size, true);
  SymExpr length = SymExpr::floordiv(end - start + step - SymExpr::constant(1), step);
  if (const auto n = length.constant_value(); n && *n < 0) length = SymExpr::constant(0);
  std::vector<SymExpr> sizes = input.sizes;
  sizes[dim] = length;
  return TensorMeta(input.dtype, sizes);
}

// The other dims in order, then the diagonal of dim1 and dim2, shortened by |offset|.
ValueMeta diagonal(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const int64_t offset = c.integer(1);
  const size_t dim1 = c.dim(c.integer(2), input.rank(), "dim1");
  const size_t dim2 = c.dim(c.integer(3), input.rank(), "dim2");
  if (dim1 == dim2) c.fail("dim1 and dim2 both name dim " + std::to_string(dim1));
  std::vector<SymExpr> sizes;
  for (size_t d = 0; d < input.rank(); ++d) {
    if (d != dim1 && d != dim2) sizes.push_back(input.sizes[d]);
  }
  const SymExpr shift = SymExpr::constant(offset >= 0 ? offset : -offset);
  const SymExpr length = offset >= 0 ? SymExpr::min(input.sizes[dim1], input.sizes[dim2] - shift)
                                     : SymExpr::min(input.sizes[dim1] - shift, input.sizes[dim2]);
  sizes.push_back(SymExpr::max(length, SymExpr::constant(0)));
  return TensorMeta(input.dtype, sizes);
}

// unfold(self, dimension, size, step): dimension counts the windows, a new
// last dim of `size` walks each.
ValueMeta unfold(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const int64_t size = c.integer(2);
  const int64_t step = c.integer(3);
  if (step <= 0) c.fail("step must be positive, got " + std::to_string(step));
  std::vector<SymExpr> sizes = input.sizes;
  if (input.rank() > 0) {
    const size_t d = c.dim(c.integer(1), input.rank(), "dimension");
    const SymExpr& length = input.sizes[d];
    if (size < 0 || (length.is_constant() && *length.constant_value() < size)) {
      c.fail("size " + std::to_string(size) + " does not fit dim " + std::to_string(d) + " of " + input.to_string());
    }
    sizes[d] = SymExpr::floordiv(length - size, SymExpr::constant(step)) + 1;
  } else if (size < 0 || size > 1) {
    c.fail("size " + std::to_string(size) + " does not fit the 0-dim input");
  }
  sizes.push_back(SymExpr::constant(size));
  return TensorMeta(input.dtype, sizes);
}

ValueMeta squeeze(const Call& c, const std::vector<int64_t>& dims) {
  const TensorMeta& input = c.tensor(0);
  const auto wrapped = c.dims(dims, input.rank());
  std::vector<SymExpr> sizes;
  for (size_t d = 0; d < input.rank(); ++d) {
    const bool listed = std::find(wrapped.begin(), wrapped.end(), d) != wrapped.end();
    if (!listed || input.sizes[d].constant_value() != 1) sizes.push_back(input.sizes[d]);
  }
  return TensorMeta(input.dtype, sizes);
}

ValueMeta unsqueeze(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const size_t dim = c.dim(c.integer(1), input.rank() + 1);
  std::vector<SymExpr> sizes = input.sizes;
  sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(dim), SymExpr::constant(1));
  return TensorMeta(input.dtype, sizes);
}

ValueMeta flatten(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() == 0) return TensorMeta(input.dtype, std::vector<SymExpr>{SymExpr::constant(1)});
  const size_t start = c.dim(c.integer(1), input.rank(), "start_dim");
  const size_t end = c.dim(c.integer(2), input.rank(), "end_dim");
  if (start > end) c.fail("start_dim " + std::to_string(start) + " comes after end_dim " + std::to_string(end));
  std::vector<SymExpr> sizes(input.sizes.begin(), input.sizes.begin() + static_cast<std::ptrdiff_t>(start));
  sizes.push_back(numel({input.sizes.begin() + static_cast<std::ptrdiff_t>(start),
                         input.sizes.begin() + static_cast<std::ptrdiff_t>(end) + 1}));
  sizes.insert(sizes.end(), input.sizes.begin() + static_cast<std::ptrdiff_t>(end) + 1, input.sizes.end());
  return TensorMeta(input.dtype, sizes);
}

ValueMeta unflatten(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const size_t dim = c.dim(c.integer(1), input.rank());
  const TensorMeta part(input.dtype, std::vector<SymExpr>{input.sizes[dim]});
  const auto inner = view_sizes(c, part, c.sym_list(2), 2);
  std::vector<SymExpr> sizes(input.sizes.begin(), input.sizes.begin() + static_cast<std::ptrdiff_t>(dim));
  sizes.insert(sizes.end(), inner.begin(), inner.end());
  sizes.insert(sizes.end(), input.sizes.begin() + static_cast<std::ptrdiff_t>(dim) + 1, input.sizes.end());
  return TensorMeta(input.dtype, sizes);
}

std::vector<TensorMeta> split_into(const Call& c, const TensorMeta& input, size_t dim, const std::vector<SymExpr>& parts) {
  std::vector<TensorMeta> outputs;
  for (const SymExpr& part : parts) {
    TensorMeta piece(input.dtype, input.sizes);
    piece.sizes[dim] = part;
    outputs.push_back(std::move(piece));
  }
  if (outputs.empty()) c.fail("the split has no parts");
  return outputs;
}

ValueMeta split_with_sizes(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() == 0) c.fail("cannot split a 0-dim tensor");
  const size_t dim = c.dim(c.integer(2), input.rank());
  const auto parts = c.sym_list(1);
  SymExpr total = SymExpr::constant(0);
  for (const SymExpr& part : parts) {
    if (const auto v = part.constant_value(); v && *v < 0) c.fail("split sizes must not be negative, got " + to_string(c.arg(1)));
    total = total + part;
  }
  if (total.is_constant() && input.sizes[dim].is_constant() && !(total == input.sizes[dim])) {
    c.fail("split sizes " + to_string(c.arg(1)) + " add up to " + total.to_string() + ", but dim " + std::to_string(dim) +
           " of " + input.to_string() + " has " + input.sizes[dim].to_string());
  }
  return split_into(c, input, dim, parts);
}

// The sizes chunk(n) and split(size) cut a dim of static `total` into.
std::vector<SymExpr> equal_parts(int64_t total, int64_t part) {
  std::vector<SymExpr> parts;
  for (int64_t offset = 0; offset < total; offset += part) parts.push_back(SymExpr::constant(std::min(part, total - offset)));
  if (parts.empty()) parts.push_back(SymExpr::constant(0));
  return parts;
}

int64_t static_dim_size(const Call& c, const TensorMeta& input, size_t dim) {
  const auto size = input.sizes[dim].constant_value();
  if (!size) c.fail("dim " + std::to_string(dim) + " of " + input.to_string() + " must have a static size to be split");
  return *size;
}

ValueMeta chunk(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const int64_t chunks = c.integer(1);
  if (chunks <= 0) c.fail("chunks must be positive, got " + std::to_string(chunks));
  const size_t dim = c.dim(c.integer(2), input.rank());
  const int64_t total = static_dim_size(c, input, dim);
  return split_into(c, input, dim, equal_parts(total, std::max<int64_t>((total + chunks - 1) / chunks, 1)));
}

ValueMeta split(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const int64_t part = c.integer(1);
  if (part < 0) c.fail("split_size must not be negative, got " + std::to_string(part));
  const size_t dim = c.dim(c.integer(2), input.rank());
  const int64_t total = static_dim_size(c, input, dim);
  if (part == 0 && total != 0) c.fail("split_size 0 cannot split a dim of size " + std::to_string(total));
  return split_into(c, input, dim, part == 0 ? std::vector<SymExpr>{SymExpr::constant(0)} : equal_parts(total, part));
}

// Tensors joined along `dim` (none for stack) must agree in every other dim.
void check_joinable(const Call& c, const TensorMeta& first, const TensorMeta& other, std::optional<size_t> dim) {
  if (other.rank() != first.rank()) c.fail("tensors " + first.to_string() + " and " + other.to_string() + " differ in rank");
  for (size_t d = 0; d < first.rank(); ++d) {
    if (d == dim || first.sizes[d] == other.sizes[d]) continue;
    if (first.sizes[d].is_constant() && other.sizes[d].is_constant()) {
      c.fail("tensors " + first.to_string() + " and " + other.to_string() + " differ in dim " + std::to_string(d));
    }
  }
}

ValueMeta cat(const Call& c) {
  const auto tensors = c.tensor_list(0);
  ResultType type(c);
  std::vector<const TensorMeta*> shaped;
  for (const TensorMeta* t : tensors) {
    type.add_tensor(*t);
    // PyTorch skips 1-D empty tensors when checking shapes (legacy behaviour).
    if (!(t->rank() == 1 && t->sizes[0].constant_value() == 0)) shaped.push_back(t);
  }
  if (tensors.empty()) c.fail("needs at least one tensor");
  if (shaped.empty()) return TensorMeta(type.result(), tensors[0]->sizes);
  const TensorMeta& first = *shaped[0];
  if (first.rank() == 0) c.fail("cannot concatenate 0-dim tensors");
  const size_t dim = c.dim(c.integer(1), first.rank());
  SymExpr total = SymExpr::constant(0);
  for (const TensorMeta* t : shaped) {
    check_joinable(c, first, *t, dim);
    total = total + t->sizes[dim];
  }
  std::vector<SymExpr> sizes = first.sizes;
  sizes[dim] = total;
  return TensorMeta(type.result(), sizes);
}

ValueMeta stack(const Call& c) {
  const auto tensors = c.tensor_list(0);
  if (tensors.empty()) c.fail("needs at least one tensor");
  ResultType type(c);
  for (const TensorMeta* t : tensors) {
    type.add_tensor(*t);
    check_joinable(c, *tensors[0], *t, std::nullopt);
  }
  std::vector<SymExpr> sizes = tensors[0]->sizes;
  const size_t dim = c.dim(c.integer(1), sizes.size() + 1);
  sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(dim), SymExpr::constant(static_cast<int64_t>(tensors.size())));
  return TensorMeta(type.result(), sizes);
}

// constant_pad_nd and pad: pairs (before, after) from the last dim backwards.
ValueMeta pad(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const auto amounts = c.sym_list(1);
  if (amounts.size() % 2 != 0) c.fail("the padding " + to_string(c.arg(1)) + " must have an even length");
  if (amounts.size() > 2 * input.rank()) {
    c.fail("the padding " + to_string(c.arg(1)) + " pads more dims than " + input.to_string() + " has");
  }
  std::vector<SymExpr> sizes = input.sizes;
  for (size_t i = 0; i < amounts.size() / 2; ++i) {
    SymExpr& size = sizes[input.rank() - 1 - i];
    size = size + amounts[2 * i] + amounts[2 * i + 1];
    if (const auto v = size.constant_value(); v && *v < 0) {
      c.fail("the padding " + to_string(c.arg(1)) + " leaves dim " + std::to_string(input.rank() - 1 - i) + " of " +
             input.to_string() + " with a negative size");
    }
  }
  return TensorMeta(input.dtype, sizes);
}

// reflection_pad and replication_pad of the last `spatial` dims of an input
// with one or two more dims; a reflection pad must be smaller than its dim.
ValueMeta edge_pad(const Call& c, size_t spatial, bool reflect) {
  const TensorMeta& input = c.tensor(0);
  if (input.rank() != spatial + 1 && input.rank() != spatial + 2) {
    c.fail("expects a " + std::to_string(spatial + 1) + "-D or " + std::to_string(spatial + 2) + "-D input, got " +
           input.to_string());
  }
  const auto amounts = c.sym_list(1);
  if (amounts.size() != 2 * spatial) {
    c.fail("the padding " + to_string(c.arg(1)) + " must have " + std::to_string(2 * spatial) + " entries");
  }
  for (size_t i = 0; reflect && i < amounts.size(); ++i) {
    const auto size = input.sizes[input.rank() - 1 - i / 2].constant_value();
    const auto amount = amounts[i].constant_value();
    if (size && amount && *amount >= *size) {
      c.fail("the reflection padding " + to_string(c.arg(1)) + " must be smaller than the padded dims of " +
             input.to_string());
    }
  }
  return pad(c);
}

ValueMeta repeat(const Call& c) {
  const TensorMeta& input = c.tensor(0);
  const auto repeats = c.sym_list(1);
  if (repeats.size() < input.rank()) {
    c.fail("repeats " + to_string(c.arg(1)) + " has fewer entries than " + input.to_string() + " has dims");
  }
  std::vector<SymExpr> sizes;
  const size_t lead = repeats.size() - input.rank();
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (const auto v = repeats[i].constant_value(); v && *v < 0) c.fail("repeats must not be negative, got " + to_string(c.arg(1)));
    sizes.push_back(i < lead ? repeats[i] : repeats[i] * input.sizes[i - lead]);
  }
  return TensorMeta(input.dtype, sizes);
}

bool is_index_dtype(ScalarType type) { return type == ScalarType::Long || type == ScalarType::Int; }

// Advanced indexing: the index tensors broadcast to one shape B; B replaces
// the indexed dims where they are adjacent, and leads the result otherwise.
ValueMeta index(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!c.arg(1).is_list()) c.fail(c.arg_name(1) + " must be a list, got " + to_string(c.arg(1)));
  const ArgumentList& indices = c.arg(1).list();
  if (indices.size() > self.rank()) c.fail("too many indices (" + std::to_string(indices.size()) + ") for " + self.to_string());
  std::vector<std::vector<SymExpr>> shapes;
  std::vector<size_t> indexed;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d].is_none()) continue;
    const auto* meta = indices[d].is_node() ? std::get_if<TensorMeta>(&indices[d].node()->meta.val) : nullptr;
    if (meta == nullptr) c.fail("index " + std::to_string(d) + " must be a tensor or None, got " + to_string(indices[d]));
    if (meta->dtype == ScalarType::Bool || meta->dtype == ScalarType::Byte) {
      c.fail("index " + std::to_string(d) + " is a mask: its result size depends on the data");
    }
    if (!is_index_dtype(meta->dtype)) c.fail(std::string("index ") + std::to_string(d) + " must be int64 or int32, got " + runtime::to_string(meta->dtype));
    shapes.push_back(meta->sizes);
    indexed.push_back(d);
  }
  if (indexed.empty()) return TensorMeta(self.dtype, self.sizes);
  const std::vector<SymExpr> broadcast = broadcast_shapes(c, shapes);
  const bool adjacent = indexed.back() - indexed.front() + 1 == indexed.size();
  std::vector<SymExpr> sizes;
  const auto first = static_cast<std::ptrdiff_t>(indexed.front());
  if (adjacent) sizes.assign(self.sizes.begin(), self.sizes.begin() + first);
  sizes.insert(sizes.end(), broadcast.begin(), broadcast.end());
  for (size_t d = 0; d < self.rank(); ++d) {
    const bool is_indexed = std::find(indexed.begin(), indexed.end(), d) != indexed.end();
    if (!is_indexed && (!adjacent || d > indexed.back())) sizes.push_back(self.sizes[d]);
  }
  return TensorMeta(self.dtype, sizes);
}

ValueMeta index_select(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& idx = c.tensor(2);
  if (idx.rank() > 1) c.fail("index " + idx.to_string() + " must be 0-D or 1-D");
  if (!is_index_dtype(idx.dtype)) c.fail(std::string("index must be int64 or int32, got ") + runtime::to_string(idx.dtype));
  const size_t dim = c.dim(c.integer(1), self.rank());
  std::vector<SymExpr> sizes = self.sizes;
  if (self.rank() > 0) sizes[dim] = idx.rank() == 0 ? SymExpr::constant(1) : idx.sizes[0];
  return TensorMeta(self.dtype, sizes);
}

// index_copy(self, dim, index, source): self's meta; source is self with
// dim `dim` as long as the index (PyTorch's index_copy checks).
ValueMeta index_copy(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& idx = c.tensor(2);
  const TensorMeta& source = c.tensor(3);
  if (idx.rank() > 1) c.fail("index " + idx.to_string() + " must be 0-D or 1-D");
  if (idx.dtype != ScalarType::Long) c.fail(std::string("index must be int64, got ") + runtime::to_string(idx.dtype));
  if (source.dtype != self.dtype) {
    c.fail("source " + source.to_string() + " must have self's dtype " + runtime::to_string(self.dtype));
  }
  const size_t dim = c.dim(c.integer(1), self.rank());
  std::vector<SymExpr> expected = self.sizes;
  if (self.rank() > 0) expected[dim] = idx.rank() == 0 ? SymExpr::constant(1) : idx.sizes[0];
  if (source.rank() != self.rank() || !(source.sizes == expected)) {
    c.fail("source " + source.to_string() + " must have self's sizes with dim " + std::to_string(dim) +
           " as long as the index");
  }
  return self;
}

ValueMeta gather(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& idx = c.tensor(2);
  c.dim(c.integer(1), self.rank());
  if (idx.dtype != ScalarType::Long) c.fail(std::string("index must be int64, got ") + runtime::to_string(idx.dtype));
  if (std::max<size_t>(idx.rank(), 1) != std::max<size_t>(self.rank(), 1)) {
    c.fail("index " + idx.to_string() + " and self " + self.to_string() + " must have the same number of dims");
  }
  return TensorMeta(self.dtype, idx.sizes);
}

// scatter.src, scatter.value, scatter_add, scatter_reduce.two: self's meta,
// index int64 or int32 of self's rank, src (when `has_src`) of self's dtype.
ValueMeta scatter(const Call& c, bool has_src) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& idx = c.tensor(2);
  c.dim(c.integer(1), self.rank());
  if (!is_index_dtype(idx.dtype)) c.fail(std::string("index must be int64 or int32, got ") + runtime::to_string(idx.dtype));
  if (std::max<size_t>(idx.rank(), 1) != std::max<size_t>(self.rank(), 1)) {
    c.fail("index " + idx.to_string() + " and self " + self.to_string() + " must have the same number of dims");
  }
  if (has_src && c.tensor(3).dtype != self.dtype) {
    c.fail("src " + c.tensor(3).to_string() + " must have the dtype of self " + self.to_string());
  }
  return TensorMeta(self.dtype, self.sizes);
}

// index_put: self's meta, values of self's dtype. Whether values broadcast
// to the indexing result is the kernel's check (a mask's count is data).
ValueMeta index_put(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  if (!c.arg(1).is_list()) c.fail(c.arg_name(1) + " must be a list, got " + to_string(c.arg(1)));
  if (c.tensor(2).dtype != self.dtype) {
    c.fail("values " + c.tensor(2).to_string() + " must have the dtype of self " + self.to_string());
  }
  return TensorMeta(self.dtype, self.sizes);
}

// masked_scatter: self broadcast with the bool mask, source of self's dtype.
ValueMeta masked_scatter(const Call& c) {
  const TensorMeta& self = c.tensor(0);
  const TensorMeta& mask = c.tensor(1);
  if (mask.dtype != ScalarType::Bool) c.fail("mask " + mask.to_string() + " must be bool");
  if (c.tensor(2).dtype != self.dtype) {
    c.fail("source " + c.tensor(2).to_string() + " must have the dtype of self " + self.to_string());
  }
  return TensorMeta(self.dtype, broadcast_shapes(c, {self.sizes, mask.sizes}));
}

// nonzero: int64 [n, rank of self], n known only when the data is. n is the
// node's recorded size when it has one (torch.export's unbacked u0, which its
// range constraints bound by self's numel, so that memory can be planned),
// else a new symbol named after the node, which nothing bounds.
ValueMeta nonzero(const Call& c) {
  SymExpr count = SymExpr::symbol("u_" + c.node().name());
  const auto* recorded = std::get_if<TensorMeta>(&c.node().meta.val);
  if (recorded != nullptr && recorded->rank() == 2) count = recorded->sizes[0];
  return TensorMeta(ScalarType::Long, {count, static_cast<int64_t>(c.tensor(0).rank())});
}

ValueMeta embedding(const Call& c) {
  const TensorMeta& weight = c.tensor(0);
  const TensorMeta& idx = c.tensor(1);
  if (weight.rank() != 2) c.fail("weight " + weight.to_string() + " must be 2-D");
  if (!is_index_dtype(idx.dtype)) c.fail(std::string("indices must be int64 or int32, got ") + runtime::to_string(idx.dtype));
  std::vector<SymExpr> sizes = idx.sizes;
  sizes.push_back(weight.sizes[1]);
  return TensorMeta(weight.dtype, sizes);
}

// _embedding_bag: (output, offset2bag, bag_size, max_indices) as PyTorch's
// CPU kernel (and torch.export) shape them: bags = offsets' size, less one with
// include_last_offset; offset2bag empty on the summing fast path (mode sum,
// no padding_idx, float or half weight); max_indices [bags, D] in mode max,
// else [bags]; the index outputs int32 when indices and offsets both are.
ValueMeta embedding_bag(const Call& c) {
  const TensorMeta& weight = c.tensor(0);
  const TensorMeta& indices = c.tensor(1);
  const TensorMeta& offsets = c.tensor(2);
  if (weight.rank() != 2) c.fail("weight " + weight.to_string() + " must be 2-D");
  if (indices.rank() != 1 || offsets.rank() != 1) c.fail("indices and offsets must be 1-D");
  if (!is_index_dtype(indices.dtype) || !is_index_dtype(offsets.dtype)) c.fail("indices and offsets must be int64 or int32");
  const int64_t mode = c.integer(4);
  if (mode < 0 || mode > 2) c.fail("mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(mode));
  const SymExpr bags = offsets.sizes[0] - (c.boolean(7) ? 1 : 0);
  const bool fast_sum = mode == 0 && c.integer(8) < 0 && (weight.dtype == ScalarType::Float || weight.dtype == ScalarType::Half);
  const ScalarType index = indices.dtype == ScalarType::Int && offsets.dtype == ScalarType::Int ? ScalarType::Int : ScalarType::Long;
  std::vector<SymExpr> max_indices = {bags};
  if (mode == 2) max_indices.push_back(weight.sizes[1]);
  return std::vector<TensorMeta>{TensorMeta(weight.dtype, {bags, weight.sizes[1]}),
                                 TensorMeta(index, {fast_sum ? SymExpr(0) : indices.sizes[0]}),
                                 TensorMeta(index, {bags}), TensorMeta(index, max_indices)};
}

}  // namespace

void add_shape_rules(RuleTable& t) {
  for (const char* op : {"aten::view.default", "aten::view_copy.default", "aten::reshape.default", "aten::_unsafe_view.default"}) {
    t[op] = view;
  }
  for (const char* op : {"aten::as_strided.default", "aten::as_strided_copy.default"}) {
    t[op] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(0).dtype, c.sym_list(1))); };
  }
  t["aten::permute.default"] = permute;
  t["aten::permute_copy.default"] = permute;
  t["aten::transpose.int"] = transpose;
  t["aten::swapaxes.default"] = transpose;
  t["aten::swapdims.default"] = transpose;
  t["aten::transpose_copy.int"] = transpose;
  t["aten::t.default"] = [](const Call& c) {
    if (c.tensor(0).rank() > 2) c.fail("expects a tensor of rank <= 2, got " + c.tensor(0).to_string());
    TensorMeta out(c.tensor(0).dtype, c.tensor(0).sizes);
    if (out.rank() == 2) std::swap(out.sizes[0], out.sizes[1]);
    return ValueMeta(out);
  };
  t["aten::expand.default"] = expand;
  t["aten::expand_copy.default"] = expand;
  t["aten::select.int"] = select;
  t["aten::select_copy.int"] = select;
  t["aten::slice.Tensor"] = slice;
  t["aten::slice_copy.Tensor"] = slice;
  t["aten::squeeze.dims"] = [](const Call& c) { return squeeze(c, c.int_list(1)); };
  t["aten::squeeze_copy.dims"] = [](const Call& c) { return squeeze(c, c.int_list(1)); };
  t["aten::squeeze.dim"] = [](const Call& c) { return squeeze(c, {c.integer(1)}); };
  t["aten::squeeze.default"] = [](const Call& c) {  // every dim of static size 1
    std::vector<int64_t> all(c.tensor(0).rank());
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
    return squeeze(c, all);
  };
  t["aten::unsqueeze.default"] = unsqueeze;
  t["aten::unsqueeze_copy.default"] = unsqueeze;
  t["aten::flatten.using_ints"] = flatten;
  t["aten::diagonal.default"] = diagonal;
  t["aten::diagonal_copy.default"] = diagonal;
  t["aten::unfold.default"] = unfold;
  t["aten::unfold_copy.default"] = unfold;
  t["aten::flip.default"] = [](const Call& c) {
    c.dims(c.int_list(1), c.tensor(0).rank());
    return ValueMeta(TensorMeta(c.tensor(0).dtype, c.tensor(0).sizes));
  };
  t["aten::unflatten.int"] = unflatten;
  t["aten::contiguous.default"] = [](const Call& c) { return ValueMeta(TensorMeta(c.tensor(0).dtype, c.tensor(0).sizes)); };
  t["aten::split_with_sizes_copy.default"] = split_with_sizes;
  t["aten::split_with_sizes.default"] = split_with_sizes;
  // A check torch.export leaves before `.to(dtype)`: no result.
  t["aten::_assert_tensor_metadata.default"] = [](const Call&) { return ValueMeta(std::vector<TensorMeta>{}); };
  t["aten::chunk.default"] = chunk;
  t["aten::split.Tensor"] = split;
  t["aten::cat.default"] = cat;
  t["aten::stack.default"] = stack;
  t["aten::constant_pad_nd.default"] = pad;
  t["aten::pad.default"] = pad;
  for (size_t spatial = 1; spatial <= 3; ++spatial) {
    const std::string suffix = "_pad" + std::to_string(spatial) + "d.default";
    t["aten::reflection" + suffix] = [spatial](const Call& c) { return edge_pad(c, spatial, true); };
    t["aten::replication" + suffix] = [spatial](const Call& c) { return edge_pad(c, spatial, false); };
  }
  t["aten::repeat.default"] = repeat;
  t["aten::index.Tensor"] = index;
  t["aten::index_select.default"] = index_select;
  t["aten::index_copy.default"] = index_copy;
  t["aten::gather.default"] = gather;
  t["aten::embedding.default"] = embedding;
  for (const char* op : {"aten::scatter.src", "aten::scatter_add.default", "aten::scatter_reduce.two"}) {
    t[op] = [](const Call& c) { return scatter(c, true); };
  }
  t["aten::scatter.value"] = [](const Call& c) { return scatter(c, false); };
  t["aten::index_put.default"] = index_put;
  t["aten::masked_scatter.default"] = masked_scatter;
  t["aten::nonzero.default"] = nonzero;
  t["aten::_embedding_bag.default"] = embedding_bag;
  t[kSymSize] = [](const Call& c) {
    const TensorMeta& input = c.tensor(0);
    if (input.rank() == 0) c.fail("a 0-dim tensor has no sizes");
    return ValueMeta(input.sizes[c.dim(c.integer(1), input.rank())]);
  };
}

}  // namespace kiln::aot::meta
