// Decompositions of the tensor-manipulating ops: reshapes become view,
// transposes permute, padding constant_pad_nd (or reflection_padNd and
// replication_padNd for those modes), dtype conversions _to_copy (or nothing
// when the dtype is already right), chunk and split split_with_sizes_copy,
// stack unsqueeze + cat, _chunk_cat pad + view + cat, and the factory
// variants full_like and arange.start_step; empty as zeros, and the layout
// queries (sym_stride, ...) as the ints they are for Kiln's dense tensors.
#include <algorithm>
#include <limits>
#include <optional>

#include "aot/ir/c10_enums.h"
#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

// flatten, reshape, unflatten, _unsafe_view: a view to the output's sizes.
void decompose_to_view(Rewriter& r) {
  Node* input = r.tensor_arg(0);
  r.replace_with(r.call("aten::view", {input, r.size_list(r.out().sizes, input)}, r.out()));
}

void permute_swapping(Rewriter& r, int64_t dim0, int64_t dim1) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  if (rank < 2) {
    r.replace_with(r.tensor_arg(0));
    return;
  }
  const std::string where = "node '" + r.node().name() + "'";
  ArgumentList dims;
  for (size_t d = 0; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
  std::swap(dims[static_cast<size_t>(normalize_dim(dim0, rank, where))], dims[static_cast<size_t>(normalize_dim(dim1, rank, where))]);
  r.replace_with(r.call("aten::permute", {r.arg(0), std::move(dims)}, r.out()));
}

void decompose_squeeze_dim(Rewriter& r) {
  r.replace_with(r.call("aten::squeeze.dims", {r.arg(0), ArgumentList{r.arg(1)}}, r.out()));
}

// squeeze(x): every dim of static size 1, as squeeze.dims names them.
void decompose_squeeze(Rewriter& r) {
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  ArgumentList dims;
  for (size_t d = 0; d < input.rank(); ++d) {
    if (input.sizes[d].constant_value() == 1) dims.emplace_back(static_cast<int64_t>(d));
  }
  r.replace_with(r.call("aten::squeeze.dims", {r.arg(0), dims}, r.out()));
}

void decompose_contiguous(Rewriter& r) { r.replace_with(r.call("aten::clone", {r.arg(0)}, r.out())); }

// pad(self, pad, mode, value): constant padding is constant_pad_nd; reflect
// and replicate padding of the last 1, 2 or 3 dims (pad holding 2, 4 or 6
// entries) are reflection_padNd and replication_padNd; circular padding is
// _pad_circular.
void decompose_pad(Rewriter& r) {
  const std::string mode = r.arg(2).is_string() ? r.arg(2).to_string() : "";
  if (mode == "constant") {
    const Argument value = r.arg(3).is_none() ? Argument(0.0) : r.arg(3);
    r.replace_with(r.op("aten::constant_pad_nd", {r.arg(0), r.arg(1), value}));
    return;
  }
  if (mode == "circular") {
    // _pad_circular has a rule of its own (decompose_index.cpp), not a meta rule.
    r.replace_with(r.call("aten::_pad_circular", {r.arg(0), r.arg(1)}, r.out()));
    return;
  }
  if (mode != "reflect" && mode != "replicate") {
    r.fail("padding mode '" + mode + "' does not decompose (constant, reflect, replicate and circular padding do)");
  }
  const size_t entries = r.arg(1).is_list() ? r.arg(1).list().size() : 0;
  if (entries != 2 && entries != 4 && entries != 6) {
    r.fail(mode + " padding takes 2, 4 or 6 pad entries (the last 1, 2 or 3 dims), got " + std::to_string(entries));
  }
  const std::string spatial = std::to_string(entries / 2);
  const std::string op = (mode == "reflect" ? "aten::reflection_pad" : "aten::replication_pad") + spatial + "d";
  r.replace_with(r.op(op, {r.arg(0), r.arg(1)}));
}

// A copy of `input` in `dtype`, or `input` itself when it has that dtype already.
void convert(Rewriter& r, Node* input, ScalarType dtype, bool copy, const Argument& memory_format) {
  if (input->meta.tensor().dtype == dtype && !copy) {
    r.replace_with(input);
    return;
  }
  KwargList kwargs = {{"dtype", dtype}};
  if (!memory_format.is_none()) kwargs.emplace_back("memory_format", memory_format);
  r.replace_with(r.op("aten::_to_copy", {input}, std::move(kwargs)));
}

// to.dtype(self, dtype, non_blocking, copy, memory_format).
void decompose_to_dtype(Rewriter& r) {
  const auto* dtype = std::get_if<ScalarType>(&r.arg(1).value);
  if (dtype == nullptr) r.fail("dtype must be a dtype, got " + to_string(r.arg(1)));
  convert(r, r.tensor_arg(0), *dtype, r.bool_arg(3), r.arg(4));
}

// to.dtype_layout(self, *, dtype, layout, device, pin_memory, non_blocking,
// copy, memory_format), as GPT-2's attention mask casts: a dtype conversion
// on the CPU's strided layout (a missing dtype keeps self's).
void decompose_to_dtype_layout(Rewriter& r) {
  if (!r.arg(2).is_none() && r.arg(2) != Argument(Layout::Strided)) r.fail("only the strided layout is supported, got " + to_string(r.arg(2)));
  const ScalarType dtype = r.arg(1).is_none() ? r.tensor_arg(0)->meta.tensor().dtype : r.out().dtype;
  convert(r, r.tensor_arg(0), dtype, r.bool_arg(6), r.arg(7));
}

// to.device(self, device, dtype, non_blocking, copy, memory_format) and
// to.other(self, other, ...): Kiln runs on the CPU, so only the dtype matters.
void decompose_to_device(Rewriter& r) { convert(r, r.tensor_arg(0), r.out().dtype, r.bool_arg(4), r.arg(5)); }
void decompose_to_other(Rewriter& r) {
  convert(r, r.tensor_arg(0), r.tensor_arg(1)->meta.tensor().dtype, r.bool_arg(3), r.arg(4));
}

void decompose_type_as(Rewriter& r) { convert(r, r.tensor_arg(0), r.tensor_arg(1)->meta.tensor().dtype, false, None{}); }

// chunk and split: the sizes their meta already holds, as one split_with_sizes_copy.
void decompose_split(Rewriter& r) {
  const auto* parts = std::get_if<std::vector<TensorMeta>>(&r.node().meta.val);
  if (parts == nullptr) r.fail("has no list of tensor metas");
  const TensorMeta& input = r.tensor_arg(0)->meta.tensor();
  const size_t dim = static_cast<size_t>(normalize_dim(r.int_arg(2), input.rank(), "node '" + r.node().name() + "'"));
  if (!input.sizes.at(dim).is_constant()) r.fail("cannot split dim " + std::to_string(dim) + " of " + input.to_string() + ": its size is symbolic");
  ArgumentList sizes;
  for (const TensorMeta& part : *parts) {
    const auto size = part.sizes.at(dim).constant_value();
    if (!size) r.fail("the part " + part.to_string() + " has a symbolic size");
    sizes.emplace_back(*size);
  }
  r.replace_with(r.op("aten::split_with_sizes_copy", {r.arg(0), std::move(sizes), static_cast<int64_t>(dim)}));
}

// _chunk_cat(tensors, dim, num_chunks): each tensor zero-padded along dim to
// a multiple of num_chunks and viewed as [..., num_chunks, rest] (dims from
// dim on flattened into the chunks), then all cat along dim + 1.
void decompose_chunk_cat(Rewriter& r) {
  if (!r.arg(0).is_list() || r.arg(0).list().empty()) r.fail("expects a non-empty list of tensors");
  const int64_t chunks = r.int_arg(2);
  if (chunks < 1) r.fail("num_chunks must be at least 1, got " + std::to_string(chunks));
  const size_t rank = r.arg(0).list()[0].node()->meta.tensor().rank();
  const auto dim = static_cast<size_t>(normalize_dim(r.int_arg(1), rank, "node '" + r.node().name() + "'"));
  ArgumentList parts;
  for (const Argument& tensor : r.arg(0).list()) {
    const TensorMeta& meta = tensor.node()->meta.tensor();
    if (!meta.is_static() || meta.rank() <= dim) {
      r.fail("needs static tensors of rank " + std::to_string(dim + 1) + " or more, got " + meta.to_string());
    }
    const std::vector<int64_t> sizes = meta.static_sizes();
    const int64_t padded = (sizes[dim] + chunks - 1) / chunks * chunks;
    Node* part = tensor.node();
    if (padded != sizes[dim]) {
      ArgumentList pad(2 * (meta.rank() - dim), Argument(int64_t{0}));
      pad.back() = padded - sizes[dim];
      part = r.op("aten::constant_pad_nd", {part, std::move(pad), 0.0});
    }
    ArgumentList view(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(dim));
    view.emplace_back(chunks);
    view.emplace_back(int64_t{-1});
    parts.emplace_back(r.op("aten::view", {part, std::move(view)}));
  }
  r.replace_with(r.op("aten::cat", {std::move(parts), static_cast<int64_t>(dim + 1)}));
}

// stack(tensors, dim): each tensor unsqueezed at dim, then cat along it.
void decompose_stack(Rewriter& r) {
  if (!r.arg(0).is_list() || r.arg(0).list().empty()) r.fail("expects a non-empty list of tensors");
  const size_t rank = r.arg(0).list()[0].is_node() ? r.arg(0).list()[0].node()->meta.tensor().rank() : 0;
  const int64_t dim = normalize_dim(r.int_arg(1), rank + 1, "node '" + r.node().name() + "'");
  ArgumentList parts;
  for (const Argument& tensor : r.arg(0).list()) {
    if (!tensor.is_node()) r.fail("expects tensors, got " + to_string(tensor));
    parts.emplace_back(r.op("aten::unsqueeze", {tensor, dim}));
  }
  r.replace_with(r.op("aten::cat", {std::move(parts), dim}));
}

// zeros_like / ones_like(self, dtype, layout, device, pin_memory, memory_format).
void decompose_fill_like(Rewriter& r, int64_t value) {
  KwargList kwargs;
  if (!r.arg(1).is_none()) kwargs.emplace_back("dtype", r.arg(1));
  if (!r.arg(5).is_none()) kwargs.emplace_back("memory_format", r.arg(5));
  r.replace_with(r.op("aten::full_like", {r.arg(0), value}, std::move(kwargs)));
}

// fill(self, value): full_like in self's dtype and sizes.
void decompose_fill(Rewriter& r) { r.replace_with(r.op("aten::full_like", {r.arg(0), r.arg(1)})); }

// mean(self, dtype) over every dim: mean.dim naming them all.
void decompose_mean(Rewriter& r) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  ArgumentList dims;
  for (size_t d = 0; d < rank; ++d) dims.emplace_back(static_cast<int64_t>(d));
  KwargList kwargs;
  if (!r.arg(1).is_none()) kwargs.emplace_back("dtype", r.arg(1));
  r.replace_with(r.op("aten::mean.dim", {r.arg(0), std::move(dims), false}, std::move(kwargs)));
}

// var(self, dim, unbiased, keepdim): var.correction with correction 1 or 0.
void decompose_var_dim(Rewriter& r) {
  KwargList kwargs{{"correction", int64_t{r.bool_arg(2) ? 1 : 0}}, {"keepdim", r.arg(3)}};
  r.replace_with(r.op("aten::var.correction", {r.arg(0), r.arg(1)}, std::move(kwargs)));
}

// new_zeros / new_ones(self, size, dtype, ...): full(size, value) in dtype,
// else self's.
void decompose_new_full(Rewriter& r, int64_t value) {
  const ScalarType dtype = r.arg(2).is_none() ? r.tensor_arg(0)->meta.tensor().dtype : r.out().dtype;
  r.replace_with(r.op("aten::full", {r.arg(1), value}, {{"dtype", dtype}}));
}

// empty(size, dtype, ...) and empty_strided(size, stride, dtype, ...): the
// values are unspecified, so zeros (Kiln's tensors are contiguous: the
// strides asked for change nothing a program can read but through as_strided).
void decompose_empty(Rewriter& r) { r.replace_with(r.op("aten::full", {r.arg(0), int64_t{0}}, {{"dtype", r.out().dtype}})); }

// Sampling spelled with the ops that draw, as torch's decompositions spell
// it: normal_ (functionalized to normal_functional) is normal(mean, std) of
// self's sizes; bernoulli is rand < p (p a number or self), in self's dtype.
void decompose_normal_functional(Rewriter& r) {
  if (!r.arg(3).is_none()) r.fail("takes a torch.Generator; Kiln draws from its one generator");
  Node* self = r.tensor_arg(0);
  r.replace_with(r.op("aten::normal.float_float", {r.arg(1), r.arg(2), ints(sizes_of(r, self))},
                      {{"dtype", self->meta.tensor().dtype}}));
}

void decompose_bernoulli(Rewriter& r, std::optional<size_t> p_arg, size_t generator_arg) {
  if (!r.arg(generator_arg).is_none()) r.fail("takes a torch.Generator; Kiln draws from its one generator");
  Node* self = r.tensor_arg(0);
  Node* drawn = r.op("aten::rand", {ints(sizes_of(r, self))}, {{"dtype", ScalarType::Float}});
  Node* below = p_arg ? r.op("aten::lt.Scalar", {drawn, r.arg(*p_arg)}) : r.op("aten::lt.Tensor", {drawn, self});
  r.replace_with(r.op("aten::_to_copy", {below}, {{"dtype", self->meta.tensor().dtype}}));
}

// resize(self, size), what functionalization makes of resize_: the same
// elements in the new shape, or the first of them.
void decompose_resize(Rewriter& r) {
  Node* self = r.tensor_arg(0);
  const TensorMeta& in = self->meta.tensor();
  const std::optional<int64_t> wanted = product(r.out().sizes).constant_value();
  const std::optional<int64_t> have = product(in.sizes).constant_value();
  if (!wanted || !have) r.fail("needs static sizes, got " + in.to_string());
  if (*wanted > *have) {
    r.fail("grows '" + self->name() + "' from " + std::to_string(*have) + " to " + std::to_string(*wanted) +
           " elements, whose values would be unspecified");
  }
  Node* flat = r.op("aten::view", {self, ArgumentList{*have}});
  Node* kept = r.op("aten::slice.Tensor", {flat, 0, 0, *wanted});
  r.replace_with(r.op("aten::view", {kept, r.arg(1)}));
}

// sym_stride(self, dim), sym_storage_offset(self) and sym_is_contiguous(self,
// memory_format) ask about self's layout; Kiln's tensors are dense, in their
// dim order, from offset 0, so the answers are known ahead of time.
void decompose_sym_stride(Rewriter& r) {
  Node* self = r.tensor_arg(0);
  const TensorMeta& meta = self->meta.tensor();
  const auto dim = static_cast<uint8_t>(normalize_dim(r.int_arg(1), meta.rank(), "sym_stride"));
  const std::vector<uint8_t> order = meta.resolved_dim_order();
  SymExpr stride(1);
  for (size_t i = order.size(); i-- > 0 && order[i] != dim;) stride = stride * meta.sizes[order[i]];
  r.replace_with_literal(r.sym_int(stride, {self}));
}

void decompose_sym_is_contiguous(Rewriter& r) {
  const TensorMeta& meta = r.tensor_arg(0)->meta.tensor();
  const auto* named = std::get_if<MemoryFormat>(&r.arg(1).value);
  const std::optional<int64_t> format = named != nullptr ? c10_memory_format(*named) : std::optional(r.int_arg(1));
  std::vector<uint8_t> wanted(meta.rank());
  for (size_t d = 0; d < wanted.size(); ++d) wanted[d] = static_cast<uint8_t>(d);
  const bool channels_last = format == static_cast<int64_t>(C10MemoryFormat::ChannelsLast) ||
                             format == static_cast<int64_t>(C10MemoryFormat::ChannelsLast3d);
  if (channels_last && wanted.size() >= 3) std::rotate(wanted.begin() + 1, wanted.begin() + 2, wanted.end());
  r.replace_with_literal(meta.resolved_dim_order() == wanted);
}

// diff(self, n, dim, prepend, append): n times, the differences of
// neighbours along dim (for bool, whether they differ), after prepend and
// append are joined on. Static sizes along dim.
void decompose_diff(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const size_t rank = x->meta.tensor().rank();
  const int64_t dim = normalize_dim(r.int_arg(2), rank, "diff");
  if (!r.arg(3).is_none() || !r.arg(4).is_none()) {
    ArgumentList parts;
    if (!r.arg(3).is_none()) parts.emplace_back(r.arg(3));
    parts.emplace_back(x);
    if (!r.arg(4).is_none()) parts.emplace_back(r.arg(4));
    x = r.op("aten::cat", {std::move(parts), dim});
  }
  const bool is_bool = x->meta.tensor().dtype == ScalarType::Bool;
  for (int64_t i = 0; i < r.int_arg(1); ++i) {
    const std::optional<int64_t> size = x->meta.tensor().sizes.at(static_cast<size_t>(dim)).constant_value();
    if (size && *size == 0) break;
    // Of a symbolic size (a sequence's length): from the second to the end,
    // and from the first to one before the end.
    Node* later = r.op("aten::slice.Tensor", {x, dim, 1, size ? *size : std::numeric_limits<int64_t>::max()});
    Node* earlier = r.op("aten::slice.Tensor", {x, dim, 0, size ? *size - 1 : int64_t{-1}});
    x = r.op(is_bool ? "aten::ne.Tensor" : "aten::sub.Tensor", {later, earlier});
  }
  r.replace_with(x);
}

// where with a Scalar for self or other: that scalar as a tensor of the
// other's dtype (a Python number does not promote a tensor of its kind).
void decompose_where_scalar_other(Rewriter& r) {
  r.replace_with(r.op("aten::where.self", {r.arg(0), r.arg(1), r.op("aten::full_like", {r.arg(1), r.arg(2)})}));
}
void decompose_where_scalar_self(Rewriter& r) {
  r.replace_with(r.op("aten::where.self", {r.arg(0), r.op("aten::full_like", {r.arg(2), r.arg(1)}), r.arg(2)}));
}

// expand_as / view_as / reshape_as(self, other): the op to other's sizes.
void decompose_as(Rewriter& r, const char* op) {
  Node* other = r.tensor_arg(1);
  r.replace_with(r.op(op, {r.arg(0), r.size_list(other->meta.tensor().sizes, other)}));
}

// roll(self, shifts, dims): per dim, the last `shift` elements moved to the
// front by two slices and a cat (torch's decomposition); with no dims, the
// flattened tensor is rolled and reshaped back. Static sizes only.
void decompose_roll(Rewriter& r) {
  const TensorMeta& meta = r.tensor_arg(0)->meta.tensor();
  if (!meta.is_static()) r.fail("roll needs static sizes");
  const std::vector<int64_t> shifts = r.ints_arg(1);
  std::vector<int64_t> dims = r.ints_arg(2);
  Node* x = r.tensor_arg(0);
  const std::string where = "node '" + r.node().name() + "'";
  if (dims.empty()) {
    if (shifts.size() != 1) r.fail("roll without dims takes one shift");
    const int64_t numel = product(meta.sizes).constant_value().value_or(0);
    Node* flat = r.op("aten::view", {x, ArgumentList{numel}});
    const int64_t s = numel == 0 ? 0 : ((shifts[0] % numel) + numel) % numel;
    Node* rolled = s == 0 ? flat
                          : r.op("aten::cat", {ArgumentList{r.op("aten::slice.Tensor", {flat, 0, numel - s, numel}),
                                                            r.op("aten::slice.Tensor", {flat, 0, 0, numel - s})},
                                               0});
    r.replace_with(r.op("aten::view", {rolled, r.size_list(meta.sizes, x)}));
    return;
  }
  if (shifts.size() != dims.size()) r.fail("roll takes one shift per dim");
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t dim = normalize_dim(dims[i], meta.rank(), where);
    const int64_t n = meta.static_sizes()[static_cast<size_t>(dim)];
    const int64_t s = n == 0 ? 0 : ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    x = r.op("aten::cat", {ArgumentList{r.op("aten::slice.Tensor", {x, dim, n - s, n}),
                                        r.op("aten::slice.Tensor", {x, dim, 0, n - s})},
                           dim});
  }
  r.replace_with(x == r.tensor_arg(0) ? r.op("aten::clone", {x}) : x);
}

// arange(end) and arange(start, end): arange.start_step with step 1.
void decompose_arange(Rewriter& r, const Argument& start, const Argument& end, size_t dtype_arg) {
  KwargList kwargs;
  if (!r.arg(dtype_arg).is_none()) kwargs.emplace_back("dtype", r.arg(dtype_arg));
  r.replace_with(r.op("aten::arange.start_step", {start, end}, std::move(kwargs)));
}

// index_copy(self, dim, index, source): index_put with the index at `dim`
// (None before it), as torch's decomposition writes it.
void decompose_index_copy(Rewriter& r) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  const int64_t dim = r.int_arg(1);
  const int64_t wrapped = dim < 0 ? dim + static_cast<int64_t>(std::max<size_t>(rank, 1)) : dim;
  ArgumentList indices(static_cast<size_t>(wrapped), None{});
  Node* index = r.tensor_arg(2);
  // A 0-D index of a 0-D self: index_put wants a 1-D index.
  if (index->meta.tensor().rank() == 0) index = r.op("aten::unsqueeze", {index, int64_t{0}});
  indices.push_back(index);
  r.replace_with(r.op("aten::index_put", {r.arg(0), std::move(indices), r.arg(3)}));
}

}  // namespace

void add_tensor_decompositions(DecompositionTable& t) {
  for (const char* op : {"aten::flatten.using_ints", "aten::reshape.default", "aten::unflatten.int", "aten::_unsafe_view.default"}) {
    t[op] = decompose_to_view;
  }
  t["aten::t.default"] = [](Rewriter& r) { permute_swapping(r, 0, 1); };
  // transpose, and its NumPy names (MaxViT's training IR).
  for (const char* op : {"aten::transpose.int", "aten::swapaxes.default", "aten::swapdims.default"}) {
    t[op] = [](Rewriter& r) { permute_swapping(r, r.int_arg(1), r.int_arg(2)); };
  }
  t["aten::squeeze.dim"] = decompose_squeeze_dim;
  t["aten::squeeze.default"] = decompose_squeeze;
  t["aten::contiguous.default"] = decompose_contiguous;
  t["aten::pad.default"] = decompose_pad;
  t["aten::to.dtype"] = decompose_to_dtype;
  t["aten::to.dtype_layout"] = decompose_to_dtype_layout;
  t["aten::to.device"] = decompose_to_device;
  t["aten::to.other"] = decompose_to_other;
  t["aten::zero.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::full_like", {r.arg(0), int64_t{0}})); };
  t["aten::min.other"] = [](Rewriter& r) { r.replace_with(r.op("aten::minimum", {r.arg(0), r.arg(1)})); };
  t["aten::max.other"] = [](Rewriter& r) { r.replace_with(r.op("aten::maximum", {r.arg(0), r.arg(1)})); };
  t["aten::type_as.default"] = decompose_type_as;
  t["aten::chunk.default"] = decompose_split;
  t["aten::split.Tensor"] = decompose_split;
  t["aten::stack.default"] = decompose_stack;
  t["aten::_chunk_cat.default"] = decompose_chunk_cat;
  t["aten::zeros_like.default"] = [](Rewriter& r) { decompose_fill_like(r, 0); };
  t["aten::ones_like.default"] = [](Rewriter& r) { decompose_fill_like(r, 1); };
  t["aten::fill.Scalar"] = decompose_fill;
  t["aten::new_zeros.default"] = [](Rewriter& r) { decompose_new_full(r, 0); };
  t["aten::new_ones.default"] = [](Rewriter& r) { decompose_new_full(r, 1); };
  t["aten::clamp_min.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::clamp", {r.arg(0), r.arg(1)})); };
  t["aten::clamp_max.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::clamp", {r.arg(0), None{}, r.arg(1)})); };
  t["aten::roll.default"] = decompose_roll;
  // detach only stops gradients: the value itself.
  t["aten::detach.default"] = [](Rewriter& r) { r.replace_with(r.tensor_arg(0)); };
  t["aten::index_copy.default"] = decompose_index_copy;
  t["aten::diff.default"] = decompose_diff;
  t["aten::expand_as.default"] = [](Rewriter& r) { decompose_as(r, "aten::expand"); };
  t["aten::view_as.default"] = [](Rewriter& r) { decompose_as(r, "aten::view"); };
  t["aten::reshape_as.default"] = [](Rewriter& r) { decompose_as(r, "aten::view"); };
  // Python's &, | and ^ on tensors.
  for (const char* op : {"and", "or", "xor"}) {
    for (const char* overload : {"Tensor", "Scalar"}) {
      const std::string bitwise = std::string("aten::bitwise_") + op + "." + overload;
      t[std::string("aten::__") + op + "__." + overload] = [bitwise](Rewriter& r) {
        r.replace_with(r.op(bitwise, {r.arg(0), r.arg(1)}));
      };
    }
  }
  t["aten::where.ScalarOther"] = decompose_where_scalar_other;
  t["aten::where.ScalarSelf"] = decompose_where_scalar_self;
  t["aten::empty.memory_format"] = decompose_empty;
  t["aten::empty_strided.default"] = decompose_empty;
  t["aten::normal_functional.default"] = decompose_normal_functional;
  t["aten::bernoulli.default"] = [](Rewriter& r) { decompose_bernoulli(r, std::nullopt, 1); };
  t["aten::bernoulli.p"] = [](Rewriter& r) { decompose_bernoulli(r, 1, 2); };
  t["aten::resize.default"] = decompose_resize;
  t["aten::sym_stride.int"] = decompose_sym_stride;
  t["aten::sym_storage_offset.default"] = [](Rewriter& r) { r.replace_with_literal(int64_t{0}); };
  t["aten::sym_is_contiguous.default"] = decompose_sym_is_contiguous;
  t["aten::mean.default"] = decompose_mean;
  t["aten::var.dim"] = decompose_var_dim;
  t["aten::arange.default"] = [](Rewriter& r) { decompose_arange(r, int64_t{0}, r.arg(0), 1); };
  t["aten::arange.start"] = [](Rewriter& r) { decompose_arange(r, r.arg(0), r.arg(1), 2); };
}

}  // namespace kiln::aot::passes
