// Decompositions of index, sort and selection ops and of the special_*
// functions that are compositions: copy as a cast and expand, sym_numel as
// the product of static sizes, argsort and msort through sort, take,
// index_add and index_fill as index_put, isin as a broadcast compare, the
// pads by mode, fftshift as roll, and the
// dense-tensor flattening helpers.
#include <cmath>
#include <limits>

#include "aot/passes/decompositions.h"

namespace kiln::aot::passes {
namespace {

ScalarType dtype_of(Node* node) { return node->meta.tensor().dtype; }

// copy(self, src): src in self's dtype, broadcast to self's sizes.
void decompose_copy(Rewriter& r) {
  Node* self = r.tensor_arg(0);
  Node* src = r.op("aten::_to_copy", {r.arg(1)}, {{"dtype", dtype_of(self)}});
  r.replace_with(r.op("aten::clone", {r.op("aten::expand", {src, r.size_list(self->meta.tensor().sizes, self)})}));
}

// The index list of index_put that selects `index` along `dim` (None before it).
ArgumentList index_at(Rewriter& r, int64_t dim, Node* index) {
  const size_t rank = std::max<size_t>(r.tensor_arg(0)->meta.tensor().rank(), 1);
  ArgumentList indices(static_cast<size_t>(normalize_dim(dim, rank, "index")), None{});
  if (index->meta.tensor().rank() == 0) index = r.op("aten::unsqueeze", {index, int64_t{0}});
  indices.emplace_back(index);
  return indices;
}

// index_add(self, dim, index, source, alpha): accumulated into the selected rows.
void decompose_index_add(Rewriter& r) {
  Node* source = r.tensor_arg(3);
  if (r.arg(4) != Argument(int64_t{1})) source = r.op("aten::mul.Scalar", {source, r.arg(4)});
  // self[..., index, ...] has source's shape: one index after slices keeps its place.
  r.replace_with(r.op("aten::index_put", {r.arg(0), index_at(r, r.int_arg(1), r.tensor_arg(2)), source, true}));
}

// index_fill(self, dim, index, value): value written at the selected positions.
void decompose_index_fill(Rewriter& r) {
  Node* self = r.tensor_arg(0);
  Node* value = r.arg(3).is_node() ? r.op("aten::_to_copy", {r.arg(3)}, {{"dtype", dtype_of(self)}})
                                   : r.op("aten::full", {ArgumentList{}, r.arg(3)}, {{"dtype", dtype_of(self)}});
  r.replace_with(r.op("aten::index_put", {self, index_at(r, r.int_arg(1), r.tensor_arg(2)), value}));
}

// isin(elements, test_elements): any element of the flattened tests equal.
Node* isin(Rewriter& r, Node* elements, Node* tests, bool invert) {
  Node* flat = r.op("aten::view", {tests, ints({-1})});
  Node* equal = r.op("aten::eq.Tensor", {r.op("aten::unsqueeze", {elements, int64_t{-1}}), flat});
  Node* found = r.op("aten::any.dim", {equal, int64_t{-1}});
  return invert ? r.op("aten::logical_not", {found}) : found;
}

// fftshift / ifftshift(self, dim): roll by half of each dim (rounded down,
// or up for the inverse), every dim when none is named.
void decompose_fftshift(Rewriter& r, bool inverse) {
  Node* x = r.tensor_arg(0);
  const std::vector<int64_t> s = sizes_of(r, x);
  std::vector<int64_t> dims;
  if (r.arg(1).is_none()) {
    for (size_t d = 0; d < s.size(); ++d) dims.push_back(static_cast<int64_t>(d));
  } else {
    dims = r.ints_arg(1);
  }
  std::vector<int64_t> shifts;
  for (int64_t& d : dims) {
    d = normalize_dim(d, s.size(), "fftshift");
    const int64_t n = s[static_cast<size_t>(d)];
    shifts.push_back(inverse ? (n + 1) / 2 : n / 2);
  }
  r.replace_with(r.call("aten::roll", {x, ints(shifts), ints(dims)}, x->meta.tensor()));
}

// _pad_circular(self, pad): for each padded dim from the last, the tail
// joined in front and the head behind.
Node* pad_circular(Rewriter& r, Node* x, const std::vector<int64_t>& pad) {
  for (size_t i = 0; i + 1 < pad.size(); i += 2) {
    const std::vector<int64_t> s = sizes_of(r, x);
    const int64_t dim = static_cast<int64_t>(s.size()) - 1 - static_cast<int64_t>(i / 2);
    const int64_t n = s[static_cast<size_t>(dim)], front = pad[i], back = pad[i + 1];
    if (front < 0 || back < 0 || front > n || back > n) r.fail("circular padding takes pads between 0 and the dim's size");
    ArgumentList parts;
    if (front > 0) parts.emplace_back(r.op("aten::slice.Tensor", {x, dim, n - front, n}));
    parts.emplace_back(x);
    if (back > 0) parts.emplace_back(r.op("aten::slice.Tensor", {x, dim, 0, back}));
    if (parts.size() > 1) x = r.op("aten::cat", {std::move(parts), dim});
  }
  return x;
}

// _pad_enum(self, pad, mode, value): modes numbered constant, reflect,
// replicate, circular, as torch's padding_mode enum.
void decompose_pad_enum(Rewriter& r) {
  const int64_t mode = r.int_arg(2);
  if (mode == 3) {
    r.replace_with(pad_circular(r, r.tensor_arg(0), r.ints_arg(1)));
    return;
  }
  static const char* kModes[] = {"constant", "reflect", "replicate"};
  if (mode < 0 || mode > 2) r.fail("unknown padding mode " + std::to_string(mode));
  r.replace_with(r.call("aten::pad", {r.arg(0), r.arg(1), std::string(kModes[mode]), r.arg(3)}, r.out()));
}

// special_xlog1py(x, y): 0 where x == 0 (unless y is NaN), else x * log1p(y).
Node* xlog1py(Rewriter& r, Node* x, Node* y) {
  Node* product = r.op("aten::mul.Tensor", {x, r.op("aten::log1p", {y})});
  Node* zero = r.op("aten::where.self", {r.op("aten::eq.Scalar", {x, int64_t{0}}), r.op("aten::full_like", {product, 0.0}), product});
  return r.op("aten::where.self", {r.op("aten::isnan", {y}), r.op("aten::full_like", {zero, std::numeric_limits<double>::quiet_NaN()}), zero});
}

// special_entr(x): -x log x for x > 0, 0 at 0, -inf below (NaN stays).
void decompose_entr(Rewriter& r) {
  Node* x = r.tensor_arg(0);
  Node* value = r.op("aten::neg", {r.op("aten::mul.Tensor", {x, r.op("aten::log", {x})})});
  Node* at_zero = r.op("aten::where.self", {r.op("aten::eq.Scalar", {x, int64_t{0}}), r.op("aten::full_like", {value, 0.0}), value});
  Node* below = r.op("aten::lt.Scalar", {x, int64_t{0}});
  r.replace_with(r.op("aten::where.self", {below, r.op("aten::full_like", {value, -std::numeric_limits<double>::infinity()}), at_zero}));
}

Node* as_dtype(Rewriter& r, Node* x, const Argument& dtype) {
  return dtype.is_none() ? x : r.op("aten::_to_copy", {x}, {{"dtype", dtype}});
}

void add_copies_and_sizes(DecompositionTable& t) {
  t["aten::copy.default"] = decompose_copy;
  t["aten::sym_numel.default"] = [](Rewriter& r) {
    const std::optional<int64_t> n = product(r.tensor_arg(0)->meta.tensor().sizes).constant_value();
    if (!n) r.fail("numel of a tensor with symbolic sizes is not supported");
    r.replace_with_literal(*n);
  };
  t["aten::_reshape_alias.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::view", {r.arg(0), r.arg(1)})); };
  t["aten::_dim_arange.default"] = [](Rewriter& r) {
    Node* like = r.tensor_arg(0);
    const int64_t dim = normalize_dim(r.int_arg(1), like->meta.tensor().rank(), "_dim_arange");
    r.replace_with(r.op("aten::arange.start_step", {int64_t{0}, r.sym_int(like->meta.tensor().sizes[static_cast<size_t>(dim)], {like})}));
  };
  t["aten::squeeze_copy.dim"] = [](Rewriter& r) { r.replace_with(r.op("aten::squeeze_copy.dims", {r.arg(0), ArgumentList{r.arg(1)}})); };
  t["aten::squeeze_copy.default"] = [](Rewriter& r) {
    const TensorMeta& meta = r.tensor_arg(0)->meta.tensor();
    ArgumentList dims;
    for (size_t d = 0; d < meta.rank(); ++d) {
      if (meta.sizes[d].constant_value() == 1) dims.emplace_back(static_cast<int64_t>(d));
    }
    r.replace_with(r.op("aten::squeeze_copy.dims", {r.arg(0), dims}));
  };
  t["aten::t_copy.default"] = [](Rewriter& r) {
    const size_t rank = r.tensor_arg(0)->meta.tensor().rank();
    r.replace_with(rank < 2 ? r.op("aten::clone", {r.arg(0)}) : r.op("aten::permute_copy", {r.arg(0), ints({1, 0})}));
  };
  // sum_to_size(self, size): the broadcast dims summed away.
  t["aten::sum_to_size.default"] = [](Rewriter& r) {
    Node* x = r.tensor_arg(0);
    const std::vector<int64_t> s = sizes_of(r, x), want = r.ints_arg(1);
    const size_t lead = s.size() - want.size();
    ArgumentList dims;
    for (size_t d = 0; d < s.size(); ++d) {
      if (d < lead || (want[d - lead] == 1 && s[d] != 1)) dims.emplace_back(static_cast<int64_t>(d));
    }
    if (dims.empty()) {
      r.replace_with(r.op("aten::clone", {x}));
      return;
    }
    r.replace_with(r.op("aten::view", {r.op("aten::sum.dim_IntList", {x, dims, true}), ints(want)}));
  };
  t["aten::resize_as.default"] = [](Rewriter& r) {
    Node* like = r.tensor_arg(1);
    r.replace_with(r.call("aten::resize", {r.arg(0), r.size_list(like->meta.tensor().sizes, like)}, r.out()));
  };
  t["aten::flatten_dense_tensors.default"] = [](Rewriter& r) {
    ArgumentList parts;
    for (const Argument& x : r.arg(0).list()) parts.emplace_back(r.op("aten::view", {x, ints({-1})}));
    r.replace_with(r.op("aten::cat", {std::move(parts), int64_t{0}}));
  };
  t["aten::unflatten_dense_tensors.default"] = [](Rewriter& r) {
    std::vector<Node*> items;
    int64_t offset = 0;
    for (const Argument& like : r.arg(1).list()) {
      const std::vector<int64_t> s = sizes_of(r, like.node());
      int64_t n = 1;
      for (int64_t v : s) n *= v;
      items.push_back(r.op("aten::view", {r.op("aten::slice.Tensor", {r.arg(0), int64_t{0}, offset, offset + n}), ints(s)}));
      offset += n;
    }
    r.replace_with_items(items);
  };
}

void add_selections(DecompositionTable& t) {
  t["aten::argsort.default"] = [](Rewriter& r) {
    r.replace_with(r.getitem(r.op("aten::sort", {r.arg(0), r.arg(1), r.arg(2)}), 1));
  };
  // Kiln's sort is stable: ties keep their order either way.
  t["aten::argsort.stable"] = [](Rewriter& r) {
    r.replace_with(r.getitem(r.op("aten::sort", {r.arg(0), r.arg(2), r.arg(3)}), 1));
  };
  t["aten::msort.default"] = [](Rewriter& r) { r.replace_with(r.getitem(r.op("aten::sort", {r.arg(0), int64_t{0}}), 0)); };
  t["aten::take.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::index.Tensor", {r.op("aten::view", {r.arg(0), ints({-1})}), ArgumentList{r.arg(1)}}));
  };
  t["aten::index_add.default"] = decompose_index_add;
  t["aten::index_fill.int_Scalar"] = decompose_index_fill;
  t["aten::index_fill.int_Tensor"] = decompose_index_fill;
  t["aten::isin.Tensor_Tensor"] = [](Rewriter& r) { r.replace_with(isin(r, r.tensor_arg(0), r.tensor_arg(1), r.bool_arg(3))); };
  t["aten::isin.Tensor_Scalar"] = [](Rewriter& r) {
    Node* equal = r.op("aten::eq.Scalar", {r.arg(0), r.arg(1)});
    r.replace_with(r.bool_arg(3) ? r.op("aten::logical_not", {equal}) : equal);
  };
  t["aten::isin.Scalar_Tensor"] = [](Rewriter& r) {
    Node* tests = r.tensor_arg(1);
    Node* element = r.op("aten::full", {ArgumentList{}, r.arg(0)}, {{"dtype", dtype_of(tests)}});
    r.replace_with(isin(r, element, tests, r.bool_arg(3)));
  };
  t["aten::fft_fftshift.default"] = [](Rewriter& r) { decompose_fftshift(r, false); };
  t["aten::fft_ifftshift.default"] = [](Rewriter& r) { decompose_fftshift(r, true); };
  t["aten::_pad_circular.default"] = [](Rewriter& r) { r.replace_with(pad_circular(r, r.tensor_arg(0), r.ints_arg(1))); };
  t["aten::_pad_enum.default"] = decompose_pad_enum;
}

void add_special(DecompositionTable& t) {
  t["aten::exp2.default"] = [](Rewriter& r) { r.replace_with(r.op("aten::pow.Scalar", {2.0, r.arg(0)})); };
  t["aten::special_xlog1py.default"] = [](Rewriter& r) { r.replace_with(xlog1py(r, r.tensor_arg(0), r.tensor_arg(1))); };
  t["aten::special_xlog1py.other_scalar"] = [](Rewriter& r) {
    r.replace_with(xlog1py(r, r.tensor_arg(0), r.op("aten::full_like", {r.arg(0), r.arg(1)}, {{"dtype", r.out().dtype}})));
  };
  t["aten::special_xlog1py.self_scalar"] = [](Rewriter& r) {
    r.replace_with(xlog1py(r, r.op("aten::full_like", {r.arg(1), r.arg(0)}, {{"dtype", r.out().dtype}}), r.tensor_arg(1)));
  };
  t["aten::special_xlogy.default"] = [](Rewriter& r) {
    r.replace_with(r.call("aten::xlogy.Tensor", {r.arg(0), r.arg(1)}, r.out()));
  };
  t["aten::special_xlogy.other_scalar"] = [](Rewriter& r) {
    r.replace_with(r.call("aten::xlogy.Scalar_Other", {r.arg(0), r.arg(1)}, r.out()));
  };
  t["aten::special_xlogy.self_scalar"] = [](Rewriter& r) {
    r.replace_with(r.call("aten::xlogy.Scalar_Self", {r.arg(0), r.arg(1)}, r.out()));
  };
  t["aten::xlogy.Scalar_Self"] = [](Rewriter& r) {
    Node* self = r.op("aten::full_like", {r.arg(1), r.arg(0)}, {{"dtype", r.out().dtype}});
    r.replace_with(r.call("aten::xlogy.Tensor", {self, r.arg(1)}, r.out()));
  };
  t["aten::special_entr.default"] = decompose_entr;
  // round(x, decimals) = round(x * 10^d) / 10^d, half to even as round.
  t["aten::special_round.default"] = [](Rewriter& r) {
    const int64_t decimals = r.int_arg(1);
    if (decimals == 0) {
      r.replace_with(r.op("aten::round", {r.arg(0)}));
      return;
    }
    const double scale = std::pow(10.0, static_cast<double>(decimals));
    r.replace_with(r.op("aten::div.Scalar", {r.op("aten::round", {r.op("aten::mul.Scalar", {r.arg(0), scale})}), scale}));
  };
  t["aten::special_softmax.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::_softmax", {as_dtype(r, r.tensor_arg(0), r.arg(2)), r.arg(1), false}));
  };
  t["aten::special_log_softmax.default"] = [](Rewriter& r) {
    r.replace_with(r.op("aten::_log_softmax", {as_dtype(r, r.tensor_arg(0), r.arg(2)), r.arg(1), false}));
  };
}

}  // namespace

void add_index_decompositions(DecompositionTable& t) {
  add_copies_and_sizes(t);
  add_selections(t);
  add_special(t);
}

}  // namespace kiln::aot::passes
