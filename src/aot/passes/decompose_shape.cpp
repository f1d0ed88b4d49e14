// Decompositions of shape ops into views, slices, cat, where and the index
// ops: triangles and diagonals as masks from arange, eye, tile as repeat, the
// NumPy stacks, meshgrid and broadcast_tensors as expands, unbind as selects,
// flips and rot90, pixel and channel shuffles as view-permute-view,
// repeat_interleave and one_hot on static sizes, the unsafe index ops as
// their checked forms, and the factories of unspecified values as zeros.
#include <algorithm>
#include <numeric>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

Node* arange(Rewriter& r, int64_t n) { return r.op("aten::arange.start_step", {int64_t{0}, n}); }

// The mask of a triangle of the last two dims: col - row <= k (tril) or >= k (triu).
Node* triangle_mask(Rewriter& r, Node* x, int64_t k, bool lower) {
  const std::vector<int64_t> s = sizes_of(r, x);
  if (s.size() < 2) r.fail("needs at least 2 dims");
  Node* rows = r.op("aten::unsqueeze", {arange(r, s[s.size() - 2]), int64_t{1}});
  Node* offset = r.op("aten::sub.Tensor", {arange(r, s.back()), rows});
  return r.op(lower ? "aten::le.Scalar" : "aten::ge.Scalar", {offset, k});
}

void decompose_triangle(Rewriter& r, bool lower) {
  Node* x = r.tensor_arg(0);
  Node* mask = triangle_mask(r, x, r.int_arg(1), lower);
  r.replace_with(r.op("aten::where.self", {mask, x, r.op("aten::full_like", {x, int64_t{0}})}));
}

// eye(n, m): arange(n) as a column == arange(m), in the output's dtype.
Node* eye(Rewriter& r, int64_t n, int64_t m, ScalarType dtype) {
  Node* same = r.op("aten::eq.Tensor", {r.op("aten::unsqueeze", {arange(r, n), int64_t{1}}), arange(r, m)});
  return r.op("aten::_to_copy", {same}, {{"dtype", dtype}});
}

// diag_embed(self, offset, -2, -1): each row of the last dim on the diagonal
// `offset` of a square matrix, by a product with eye and a pad.
Node* diag_embed(Rewriter& r, Node* x, int64_t offset) {
  const int64_t n = sizes_of(r, x).back();
  const TensorMeta& meta = x->meta.tensor();
  Node* square = r.op("aten::mul.Tensor", {r.op("aten::unsqueeze", {x, int64_t{-1}}), eye(r, n, n, meta.dtype)});
  if (offset == 0) return square;
  const int64_t k = std::abs(offset);
  const ArgumentList pad = offset > 0 ? ints({k, 0, 0, k}) : ints({0, k, k, 0});
  return r.op("aten::constant_pad_nd", {square, pad, 0.0});
}

void decompose_diag_embed(Rewriter& r) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank() + 1;
  const std::string where = "diag_embed";
  if (normalize_dim(r.int_arg(2), rank, where) != static_cast<int64_t>(rank) - 2 ||
      normalize_dim(r.int_arg(3), rank, where) != static_cast<int64_t>(rank) - 1) {
    r.fail("diag_embed into dims other than the last two is not supported");
  }
  r.replace_with(diag_embed(r, r.tensor_arg(0), r.int_arg(1)));
}

// diag(self, diagonal): a 1-D self on a diagonal, a 2-D self's diagonal.
Node* diag(Rewriter& r, Node* x, int64_t offset) {
  if (x->meta.tensor().rank() == 1) return diag_embed(r, x, offset);
  if (x->meta.tensor().rank() != 2) r.fail("diag takes a 1-D or 2-D tensor, got " + x->meta.tensor().to_string());
  return r.op("aten::clone", {r.op("aten::diagonal", {x, offset})});
}

// tile(self, dims): repeat, dims padded with leading 1s to self's rank.
void decompose_tile(Rewriter& r) {
  std::vector<int64_t> dims = r.ints_arg(1);
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  if (dims.size() < rank) dims.insert(dims.begin(), rank - dims.size(), 1);
  r.replace_with(r.op("aten::repeat", {r.arg(0), ints(dims)}));
}

// atleast_Nd: views with 1s added as NumPy places them.
Node* atleast(Rewriter& r, Node* x, size_t n) {
  const std::vector<int64_t> s = sizes_of(r, x);
  if (s.size() >= n) return x;
  std::vector<int64_t> shape;
  if (n == 1) shape = {1};
  if (n == 2) shape = s.empty() ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{1, s[0]};
  if (n == 3) {
    shape = s.empty() ? std::vector<int64_t>{1, 1, 1}
                      : s.size() == 1 ? std::vector<int64_t>{1, s[0], 1} : std::vector<int64_t>{s[0], s[1], 1};
  }
  return r.op("aten::view", {x, ints(shape)});
}

std::vector<Node*> tensor_list(Rewriter& r, size_t index) {
  std::vector<Node*> nodes;
  if (!r.arg(index).is_list()) r.fail("expects a list of tensors");
  for (const Argument& item : r.arg(index).list()) {
    if (!item.is_node()) r.fail("expects tensors, got " + to_string(item));
    nodes.push_back(item.node());
  }
  return nodes;
}

// hstack / vstack / dstack / column_stack: atleast_Nd of each, then cat.
void decompose_stack_along(Rewriter& r, size_t n, int64_t dim, bool columns) {
  ArgumentList parts;
  const std::vector<Node*> tensors = tensor_list(r, 0);
  const bool all_1d = std::all_of(tensors.begin(), tensors.end(), [](Node* t) { return t->meta.tensor().rank() <= 1; });
  for (Node* t : tensors) {
    if (columns && t->meta.tensor().rank() <= 1) {
      const std::vector<int64_t> s = sizes_of(r, t);
      parts.emplace_back(r.op("aten::view", {t, ints({s.empty() ? 1 : s[0], 1})}));
    } else {
      parts.emplace_back(atleast(r, t, n));
    }
  }
  r.replace_with(r.op("aten::cat", {std::move(parts), (n == 1 && all_1d && !columns) ? int64_t{0} : dim}));
}

// meshgrid(tensors, indexing): each 1-D tensor viewed along its own dim and
// expanded to the grid ("xy" swaps the first two dims).
void decompose_meshgrid(Rewriter& r, const std::string& indexing) {
  const std::vector<Node*> tensors = tensor_list(r, 0);
  std::vector<int64_t> grid;
  for (Node* t : tensors) grid.push_back(sizes_of(r, t).empty() ? 1 : sizes_of(r, t)[0]);
  const bool xy = indexing == "xy" && tensors.size() >= 2;
  if (xy) std::swap(grid[0], grid[1]);
  std::vector<Node*> items;
  for (size_t i = 0; i < tensors.size(); ++i) {
    size_t at = i;
    if (xy && i < 2) at = 1 - i;
    std::vector<int64_t> shape(tensors.size(), 1);
    shape[at] = grid[at];
    items.push_back(r.op("aten::expand", {r.op("aten::view", {tensors[i], ints(shape)}), ints(grid)}));
  }
  r.replace_with_items(items);
}

// rot90(self, k, dims): k % 4 quarter turns from dims[0] towards dims[1].
void decompose_rot90(Rewriter& r) {
  const std::vector<int64_t> dims = r.ints_arg(2);
  if (dims.size() != 2) r.fail("rot90 takes two dims");
  const int64_t k = ((r.int_arg(1) % 4) + 4) % 4;
  Node* x = r.tensor_arg(0);
  const size_t rank = x->meta.tensor().rank();
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[static_cast<size_t>(normalize_dim(dims[0], rank, "rot90"))],
            order[static_cast<size_t>(normalize_dim(dims[1], rank, "rot90"))]);
  if (k == 0) x = r.op("aten::clone", {x});
  if (k == 1) x = r.op("aten::permute", {r.op("aten::flip", {x, ints({dims[1]})}), ints(order)});
  if (k == 2) x = r.op("aten::flip", {x, ints(dims)});
  if (k == 3) x = r.op("aten::permute", {r.op("aten::flip", {x, ints({dims[0]})}), ints(order)});
  r.replace_with(k % 2 == 1 ? r.op("aten::clone", {x}) : x);
}

// pixel_shuffle(x, r) over the last three dims (C, H, W): view as
// (C/r², r, r, H, W), permute to (C/r², H, r, W, r), view; unshuffle inverts it.
void decompose_pixel_shuffle(Rewriter& r, bool shuffle) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  const int64_t f = r.int_arg(1);
  if (s.size() < 3) r.fail("needs at least 3 dims");
  std::vector<int64_t> lead(s.begin(), s.end() - 3);
  const int64_t c = s[s.size() - 3], h = s[s.size() - 2], w = s.back();
  const int64_t b = static_cast<int64_t>(lead.size());
  std::vector<int64_t> split = lead, order, out = lead;
  for (int64_t d = 0; d < b; ++d) order.push_back(d);
  if (shuffle) {
    if (c % (f * f) != 0) r.fail("channels must divide by the factor squared");
    split.insert(split.end(), {c / (f * f), f, f, h, w});
    for (int64_t d : {0, 3, 1, 4, 2}) order.push_back(b + d);
    out.insert(out.end(), {c / (f * f), h * f, w * f});
  } else {
    if (h % f != 0 || w % f != 0) r.fail("height and width must divide by the factor");
    split.insert(split.end(), {c, h / f, f, w / f, f});
    for (int64_t d : {0, 2, 4, 1, 3}) order.push_back(b + d);
    out.insert(out.end(), {c * f * f, h / f, w / f});
  }
  Node* moved = r.op("aten::permute", {r.op("aten::view", {x, ints(split)}), ints(order)});
  r.replace_with(r.op("aten::view", {r.op("aten::clone", {moved}), ints(out)}));
}

// channel_shuffle(x, groups): (N, g, C/g, ...) with the two group dims swapped.
void decompose_channel_shuffle(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  const int64_t g = r.int_arg(1);
  if (s.size() < 2 || s[1] % g != 0) r.fail("channels must divide by the groups");
  std::vector<int64_t> split = {s[0], g, s[1] / g};
  split.insert(split.end(), s.begin() + 2, s.end());
  std::vector<int64_t> order(split.size());
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[1], order[2]);
  Node* moved = r.op("aten::permute", {r.op("aten::view", {x, ints(split)}), ints(order)});
  r.replace_with(r.op("aten::view", {r.op("aten::clone", {moved}), ints(s)}));
}

// repeat_interleave(self, repeats: int, dim): each element `repeats` times
// in place; without dim, of the flattened tensor.
void decompose_repeat_interleave(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  std::vector<int64_t> s = sizes_of(r, x);
  int64_t dim = 0;
  if (r.arg(2).is_none()) {
    int64_t n = 1;
    for (int64_t v : s) n *= v;
    x = r.op("aten::view", {x, ints({n})});
    s = {n};
  } else {
    dim = normalize_dim(r.int_arg(2), s.size(), "repeat_interleave");
  }
  const int64_t times = r.int_arg(1);
  std::vector<int64_t> expanded = s;
  expanded.insert(expanded.begin() + dim + 1, times);
  std::vector<int64_t> out = s;
  out[static_cast<size_t>(dim)] *= times;
  Node* spread = r.op("aten::expand", {r.op("aten::unsqueeze", {x, dim + 1}), ints(expanded)});
  r.replace_with(r.op("aten::view", {r.op("aten::clone", {spread}), ints(out)}));
}

// take_along_dim(self, indices, dim): gather along dim (broadcast first);
// without dim, of both flattened.
void decompose_take_along_dim(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* index = r.tensor_arg(1);
  if (r.arg(2).is_none()) {
    x = r.op("aten::view", {x, ints({-1})});
    index = r.op("aten::view", {index, ints({-1})});
    r.replace_with(r.op("aten::gather", {x, int64_t{0}, index}));
    return;
  }
  std::vector<int64_t> sx = sizes_of(r, x), si = sizes_of(r, index);
  if (sx.size() != si.size()) r.fail("self and indices need the same number of dims");
  const int64_t dim = normalize_dim(r.int_arg(2), sx.size(), "take_along_dim");
  std::vector<int64_t> bx = sx, bi = si;
  for (size_t d = 0; d < sx.size(); ++d) {
    if (static_cast<int64_t>(d) == dim) continue;
    bx[d] = bi[d] = std::max(sx[d], si[d]);
  }
  if (bx != sx) x = r.op("aten::expand", {x, ints(bx)});
  if (bi != si) index = r.op("aten::expand", {index, ints(bi)});
  r.replace_with(r.op("aten::gather", {x, dim, index}));
}

// one_hot(self, num_classes): self as a column == arange(classes), as int64.
void decompose_one_hot(Rewriter& r) {
  const int64_t classes = r.int_arg(1);
  if (classes < 0) r.fail("one_hot needs num_classes: without it the size depends on the values");
  Node* same = r.op("aten::eq.Tensor", {r.op("aten::unsqueeze", {r.arg(0), int64_t{-1}}), arange(r, classes)});
  r.replace_with(r.op("aten::_to_copy", {same}, {{"dtype", ScalarType::Long}}));
}

// linspace(start, end, steps): from both ends towards the middle, as
// PyTorch's CPU kernel computes it; logspace is base ** linspace.
Node* linspace(Rewriter& r, double start, double end, int64_t steps, ScalarType dtype) {
  const ScalarType wide = dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  Node* i = r.op("aten::arange.start_step", {int64_t{0}, steps}, {{"dtype", wide}});
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  Node* from_start = r.op("aten::add.Scalar", {r.op("aten::mul.Scalar", {i, step}), start});
  Node* from_end = r.op("aten::sub.Tensor", {r.op("aten::full_like", {i, end}),
                                              r.op("aten::mul.Scalar", {r.op("aten::sub.Tensor", {r.op("aten::full_like", {i, static_cast<double>(steps - 1)}), i}), step})});
  Node* first_half = r.op("aten::lt.Scalar", {i, static_cast<double>(steps / 2)});
  return r.op("aten::where.self", {first_half, from_start, from_end});
}

// The same with start or end a 0-D tensor (linspace.Tensor_Tensor, ...).
Node* linspace(Rewriter& r, const Argument& start, const Argument& end, int64_t steps, ScalarType dtype) {
  const ScalarType wide = dtype == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  const auto as_tensor = [&](const Argument& v) {
    return v.is_node() ? r.op("aten::_to_copy", {v}, {{"dtype", wide}}) : r.op("aten::full", {ArgumentList{}, v}, {{"dtype", wide}});
  };
  Node* first = as_tensor(start);
  Node* last = as_tensor(end);
  Node* i = r.op("aten::arange.start_step", {int64_t{0}, steps}, {{"dtype", wide}});
  Node* step = r.op("aten::div.Scalar", {r.op("aten::sub.Tensor", {last, first}), static_cast<double>(std::max<int64_t>(steps - 1, 1))});
  Node* from_start = r.op("aten::add.Tensor", {first, r.op("aten::mul.Tensor", {i, step})});
  Node* back = r.op("aten::sub.Tensor", {r.op("aten::full_like", {i, static_cast<double>(steps - 1)}), i});
  Node* from_end = r.op("aten::sub.Tensor", {last, r.op("aten::mul.Tensor", {back, step})});
  Node* first_half = r.op("aten::lt.Scalar", {i, static_cast<double>(steps / 2)});
  return r.op("aten::where.self", {first_half, from_start, from_end});
}

void decompose_linspace(Rewriter& r, bool log) {
  const ScalarType dtype = r.out().dtype;
  const bool numbers = !r.arg(0).is_node() && !r.arg(1).is_node();
  Node* values = numbers ? linspace(r, r.float_arg(0), r.float_arg(1), r.int_arg(2), dtype)
                         : linspace(r, r.arg(0), r.arg(1), r.int_arg(2), dtype);
  if (log) values = r.op("aten::pow.Scalar", {r.float_arg(3), values});
  r.replace_with(r.op("aten::_to_copy", {values}, {{"dtype", dtype}}));
}

// unbind(self, dim): one select per index.
void decompose_unbind(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  const int64_t dim = normalize_dim(r.int_arg(1), s.size(), "unbind");
  std::vector<Node*> items;
  for (int64_t i = 0; i < s[static_cast<size_t>(dim)]; ++i) items.push_back(r.op("aten::select.int", {x, dim, i}));
  r.replace_with_items(items);
}

// movedim(self, source, destination): the source dims at their
// destinations, the others in their order in the places left.
void decompose_movedim(Rewriter& r, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
  if (from.size() != to.size()) r.fail("movedim takes as many destinations as sources");
  std::vector<int64_t> order(rank, -1);
  std::vector<bool> used(rank, false);
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = normalize_dim(from[i], rank, "movedim"), d = normalize_dim(to[i], rank, "movedim");
    order[static_cast<size_t>(d)] = f;
    used[static_cast<size_t>(f)] = true;
  }
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o >= 0) continue;
    while (used[static_cast<size_t>(next)]) ++next;
    o = next++;
  }
  r.replace_with(r.op("aten::permute", {r.arg(0), ints(order)}));
}

void add_matrices(DecompositionTable& t) {
  t["aten::tril.default"] = [](Rewriter& r) { decompose_triangle(r, true); };
  t["aten::triu.default"] = [](Rewriter& r) { decompose_triangle(r, false); };
  t["aten::eye.default"] = [](Rewriter& r) { r.replace_with(eye(r, r.int_arg(0), r.int_arg(0), r.out().dtype)); };
  t["aten::eye.m"] = [](Rewriter& r) { r.replace_with(eye(r, r.int_arg(0), r.int_arg(1), r.out().dtype)); };
  t["aten::diag_embed.default"] = decompose_diag_embed;
  t["aten::diag.default"] = [](Rewriter& r) { r.replace_with(diag(r, r.tensor_arg(0), r.int_arg(1))); };
  t["aten::diagflat.default"] = [](Rewriter& r) {
    r.replace_with(diag(r, r.op("aten::view", {r.arg(0), ints({-1})}), r.int_arg(1)));
  };
}

void add_arrangements(DecompositionTable& t) {
  t["aten::tile.default"] = decompose_tile;
  t["aten::hstack.default"] = [](Rewriter& r) { decompose_stack_along(r, 1, 1, false); };
  t["aten::vstack.default"] = [](Rewriter& r) { decompose_stack_along(r, 2, 0, false); };
  t["aten::dstack.default"] = [](Rewriter& r) { decompose_stack_along(r, 3, 2, false); };
  t["aten::column_stack.default"] = [](Rewriter& r) { decompose_stack_along(r, 2, 1, true); };
  for (size_t n : {1, 2, 3}) {
    t["aten::atleast_" + std::to_string(n) + "d.Sequence"] = [n](Rewriter& r) {
      std::vector<Node*> items;
      for (Node* x : tensor_list(r, 0)) items.push_back(atleast(r, x, n));
      r.replace_with_items(items);
    };
  }
  t["aten::broadcast_tensors.default"] = [](Rewriter& r) {
    const auto* metas = std::get_if<std::vector<TensorMeta>>(&r.node().meta.val);
    if (metas == nullptr) r.fail("has no list of tensor metas");
    std::vector<Node*> items;
    const std::vector<Node*> tensors = tensor_list(r, 0);
    for (size_t i = 0; i < tensors.size(); ++i) items.push_back(r.op("aten::expand", {tensors[i], r.size_list((*metas)[i].sizes, tensors[i])}));
    r.replace_with_items(items);
  };
  t["aten::meshgrid.default"] = [](Rewriter& r) { decompose_meshgrid(r, "ij"); };
  t["aten::meshgrid.indexing"] = [](Rewriter& r) { decompose_meshgrid(r, r.arg(1).to_string()); };
  t["aten::unbind.int"] = decompose_unbind;
  // x.T: every dim reversed.
  t["aten::numpy_T.default"] = [](Rewriter& r) {
    std::vector<int64_t> order(r.tensor_arg(0)->meta.tensor().rank());
    std::iota(order.rbegin(), order.rend(), 0);
    r.replace_with(r.op("aten::permute", {r.arg(0), ints(order)}));
  };
  t["aten::flipud.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::flip", {r.arg(0), ints({0})})); };
  t["aten::fliplr.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::flip", {r.arg(0), ints({1})})); };
  t["aten::rot90.default"] = decompose_rot90;
  t["aten::movedim.intlist"] = [](Rewriter& r) { decompose_movedim(r, r.ints_arg(1), r.ints_arg(2)); };
  t["aten::movedim.int"] = [](Rewriter& r) { decompose_movedim(r, {r.int_arg(1)}, {r.int_arg(2)}); };
  t["aten::pixel_shuffle.default"] = [](Rewriter& r) { decompose_pixel_shuffle(r, true); };
  t["aten::pixel_unshuffle.default"] = [](Rewriter& r) { decompose_pixel_shuffle(r, false); };
  t["aten::channel_shuffle.default"] = decompose_channel_shuffle;
  t["aten::native_channel_shuffle.default"] = decompose_channel_shuffle;
  t["aten::repeat_interleave.self_int"] = decompose_repeat_interleave;
  t["aten::take_along_dim.default"] = decompose_take_along_dim;
  t["aten::one_hot.default"] = decompose_one_hot;
}

void add_index_and_factories(DecompositionTable& t) {
  t["aten::_unsafe_index.Tensor"] = [](Rewriter& r) { r.replace_with(r.op("aten::index.Tensor", {r.arg(0), r.arg(1)})); };
  t["aten::_unsafe_index_put.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::index_put", {r.arg(0), r.arg(1), r.arg(2), r.arg(3)}));
  };
  // _unsafe_masked_index(self, mask, indices, fill): fill where mask is off.
  t["aten::_unsafe_masked_index.default"] = [](Rewriter& r) {
    Node* taken = r.op("aten::index.Tensor", {r.arg(0), r.arg(2)});
    r.replace_with(r.op("aten::where.self", {r.arg(1), taken, r.op("aten::full_like", {taken, r.arg(3)})}));
  };
  t["aten::_unsafe_masked_index_put_accumulate.default"] = [](Rewriter& r) {
    Node* values = r.tensor_arg(3);
    Node* kept = r.op("aten::where.self", {r.arg(1), values, r.op("aten::full_like", {values, int64_t{0}})});
    r.replace_with(r.op("aten::index_put", {r.arg(0), r.arg(2), kept, true}));
  };
  t["aten::unsafe_split.Tensor"] = t["aten::split.Tensor"];
  t["aten::unsafe_split_with_sizes.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::split_with_sizes_copy", {r.arg(0), r.arg(1), r.arg(2)}));
  };
  for (const char* overload : {"default", "Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor"}) {
    t[std::string("aten::linspace.") + overload] = [](Rewriter& r) { decompose_linspace(r, false); };
    t[std::string("aten::logspace.") + overload] = [](Rewriter& r) { decompose_linspace(r, true); };
  }
  // Unspecified values: zeros, as empty becomes.
  t["aten::empty_like.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::full_like", {r.arg(0), int64_t{0}}, {{"dtype", r.out().dtype}}));
  };
  t["aten::new_empty.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::full", {r.arg(1), int64_t{0}}, {{"dtype", r.out().dtype}}));
  };
  t["aten::new_full.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::full", {r.arg(1), r.arg(2)}, {{"dtype", r.out().dtype}}));
  };
  // fill(self, value: 0-D tensor): value in self's dtype, expanded to self's sizes.
  t["aten::fill.Tensor"] = [](Rewriter& r) {
    Node* self = r.tensor_arg(0);
    Node* value = r.op("aten::_to_copy", {r.arg(1)}, {{"dtype", self->meta.tensor().dtype}});
    r.replace_with(r.op("aten::clone", {r.op("aten::expand", {value, r.size_list(self->meta.tensor().sizes, self)})}));
  };
}

}  // namespace

void add_shape_decompositions(DecompositionTable& t) {
  add_matrices(t);
  add_arrangements(t);
  add_index_and_factories(t);
}

}  // namespace kiln::aot::passes
