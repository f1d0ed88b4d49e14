// Why Kiln refuses an op: by design, or until it has a kernel ("no kernel
// yet"). Rules over the op's name family or its schema, each with the reason
// `kiln ops` and lowering print. The first rule that matches names the op; an
// op no rule matches is a gap, not a refusal.
#include <algorithm>
#include <array>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "aot/passes/op_support.h"

namespace kiln::aot {
namespace {

// "linalg_lu_factor_ex" -> {"linalg", "lu", "factor", "ex"}: families are
// matched on whole words, so that "det" is no part of "detach".
std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : name) {
    if (c == '_') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

bool has_word(const std::vector<std::string>& words, const std::set<std::string_view>& family) {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return family.count(w) > 0; });
}

bool has_part(std::string_view name, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return name.find(p) != std::string_view::npos; });
}

// The op's name without namespace and overload: "linalg_solve" for "aten::linalg_solve.out".
std::string_view bare_name(std::string_view qualified) {
  const size_t colons = qualified.find("::");
  if (colons != std::string_view::npos) qualified.remove_prefix(colons + 2);
  return qualified.substr(0, qualified.find('.'));
}

struct Family {
  const char* reason;
  bool (*matches)(std::string_view name, const std::vector<std::string>& words);
};

// In order: the first family that matches gives the reason.
const std::array<Family, 15>& families() {
  static const std::array<Family, 15> table = {{
      // Autograd state, optimizer steps, mixed-precision scaling, fake quantization, losses.
      {"not for inference: training only",
       [](std::string_view name, const std::vector<std::string>& words) {
         return has_part(name, {"_foreach_", "_fused_adam", "_fused_sgd", "_amp_", "retain", "requires_grad", "_fw_primal",
                                "_make_dual", "_unpack_dual", "fake_quant", "_loss", "sobol"}) ||
                name.ends_with("loss") || has_word(words, {"leaf", "version", "data", "nr", "grad", "gradients"});
       }},
      {"no kernel: a test op of torch's own",
       [](std::string_view name, const std::vector<std::string>&) { return name.starts_with("_test_"); }},
      {"no kernel: another device's or library's op",
       [](std::string_view, const std::vector<std::string>& words) {
         return has_word(words, {"cudnn", "miopen", "mkldnn", "cufft", "xla", "nnpack", "fbgemm", "vulkan", "mps",
                                 "cuda", "mkl", "cslt", "cutlass", "prepack", "prepacked", "hip", "ipu", "hpu", "saturate"});
       }},
      // ZeroTensor (_efficientzerotensor) is such a layout too; _rowwise_prune makes a sparse embedding.
      {"no kernel: a sparse, nested or quantized tensor layout Kiln has no tensors of",
       [](std::string_view name, const std::vector<std::string>& words) {
         static const std::set<std::string_view> accessors = {"indices",     "_indices",    "crow_indices", "col_indices",
                                                              "ccol_indices", "row_indices", "values",       "_values"};
         return has_part(name, {"sparse", "nested", "to_dense", "coalesce", "quantized", "quantize_per", "qparams", "int_repr",
                                "dequantize", "to_padded_tensor", "prune", "zerotensor"}) ||
                accessors.count(name) > 0 || name.starts_with("q_") ||
                has_word(words, {"smm", "sspaddmm", "bsr", "bsc", "csr", "csc", "coo"});
       }},
      {"no kernel: a dtype Kiln has no tensors of (ComplexHalf)",
       [](std::string_view name, const std::vector<std::string>&) { return name == "chalf"; }},
      {"no kernel: a functorch transform's op, which export traces through",
       [](std::string_view name, const std::vector<std::string>&) {
         return has_part(name, {"batch_dim", "_vmap", "_unwrap_functional", "_wrap_functional"});
       }},
      {"no kernel: a LAPACK-class factorization",
       [](std::string_view name, const std::vector<std::string>& words) {
         return has_word(words, {"det", "slogdet", "logdet", "inverse", "inv", "pinv", "pinverse", "tensorinv", "cholesky",
                                 "lu", "svd", "svdvals", "qr", "eig", "eigh", "eigvals", "eigvalsh", "solve", "tensorsolve",
                                 "lstsq", "householder", "ormqr", "orgqr", "geqrf", "ldl", "cond", "rank", "lobpcg",
                                 "nuclear", "errors"}) ||
                has_part(name, {"matrix_exp"});
       }},
      {"no kernel: a complex-to-complex or Hermitian FFT (Kiln's FFTs are real)",
       [](std::string_view name, const std::vector<std::string>&) {
         return name.starts_with("fft_") && !has_part(name, {"rfft", "shift", "freq"});
       }},
      {"no kernel: a recurrent network layer (Kiln has no RNN kernels)",
       [](std::string_view, const std::vector<std::string>& words) {
         return has_word(words, {"lstm", "gru", "rnn", "packed", "sequence"});
       }},
      {"no kernel: a device or allocator query or cache control torch answers at export",
       [](std::string_view name, const std::vector<std::string>&) {
         return has_part(name, {"plan_cache", "_available", "get_device", "is_distributed", "is_inference", "_has_compatible",
                                "_debug_has", "_to_cpu", "_propagate"});
       }},
      // torch.onnx.operators' shape_as_tensor and reshape_from_tensor_shape.
      {"no kernel: ONNX tracing's helpers that hold sizes in tensors, which torch.export cannot trace",
       [](std::string_view name, const std::vector<std::string>&) {
         return name == "_shape_as_tensor" || name == "_reshape_from_tensor";
       }},
      {"no kernel yet: antialiased resampling (interpolate with antialias=True)",
       [](std::string_view, const std::vector<std::string>& words) { return has_word(words, {"aa"}); }},
      {"no kernel yet: a 3-D transposed convolution",
       [](std::string_view, const std::vector<std::string>& words) { return has_word(words, {"transpose3d"}); }},
      // The special functions that are compositions of erf, erfc and lgamma
      // decompose; these need kernels of their own.
      {"no kernel yet: a special function (digamma, polygamma, erfinv, the incomplete gammas, Bessel functions, "
       "orthogonal polynomials, ...)",
       [](std::string_view name, const std::vector<std::string>& words) {
         return name.starts_with("special_") || has_word(words, {"digamma", "polygamma", "erfinv", "i0", "igamma", "igammac"});
       }},
      {"no kernel yet: a statistics or combinatorics routine (histograms, gradient, combinations, cartesian_prod)",
       [](std::string_view, const std::vector<std::string>& words) {
         return has_word(words, {"histc", "histogram", "histogramdd", "gradient", "combinations", "cartesian"});
       }},
  }};
  return table;
}

// Ops whose results hold no tensor and no data-dependent scalar: properties
// of a tensor's dtype, layout or sizes, which torch.export evaluates while it
// traces (a program never calls them; sym_size and friends have kernels).
bool is_tracing_query(const OpSchema& schema) {
  if (schema.returns.empty()) return false;
  return std::all_of(schema.returns.begin(), schema.returns.end(), [](const SchemaReturn& r) {
    using K = SchemaType::Kind;
    return r.type.kind == K::Bool || r.type.kind == K::Int || r.type.kind == K::ScalarType || r.type.kind == K::Float ||
           r.type.kind == K::Layout || r.type.kind == K::Device || r.type.kind == K::String;
  });
}

// Ops whose output sizes, or scalar result, come from a tensor's values:
// nonzero's other forms, item, unique, bincount, repeat_interleave by a
// tensor of repeats. Export gives each an unbacked size and runtime asserts
// on it, which Kiln's importer and lowering do not carry yet.
bool reads_sizes_from_values(const OpSchema& schema) {
  static const std::set<std::string_view> names = {
      "argwhere", "nonzero_numpy", "masked_select", "bincount", "_unique", "_unique2", "unique_consecutive",
      "unique_dim", "unique_dim_consecutive", "item", "_local_scalar_dense"};
  const std::string qualified = schema.qualified_name();
  const std::string_view name = bare_name(qualified);
  if (names.count(name) > 0) return true;
  const auto is_tensor = [](const SchemaArgument& a) { return a.type.kind == SchemaType::Kind::Tensor; };
  // where(condition): the indices of its true elements.
  if (name == "where") return schema.arguments.size() == 1;
  if (name != "repeat_interleave") return false;
  return std::any_of(schema.arguments.begin(), schema.arguments.end(),
                     [&](const SchemaArgument& a) { return a.name == "repeats" && is_tensor(a); });
}

// Namespaces the op table does not hold.
std::string namespace_reason(std::string_view qualified) {
  const std::string_view ns = qualified.substr(0, qualified.find("::"));
  if (ns == "quantized" || ns == "sparse") return "no kernel: a sparse, nested or quantized tensor layout Kiln has no tensors of";
  if (ns == "mkldnn") return "no kernel: another device's or library's op";
  if (ns == "_test") return "no kernel: a test op of torch's own";
  if (ns == "inductor" || ns == "_native_aot") return "no kernel: a compiler's own op (torch's Inductor and native AOT)";
  return "";
}

// The reason by the op's name alone: its namespace or its name family.
std::string name_reason(std::string_view qualified) {
  if (std::string reason = namespace_reason(qualified); !reason.empty()) return reason;
  const std::string_view name = bare_name(qualified);
  const std::vector<std::string> words = words_of(name);
  for (const Family& family : families()) {
    if (family.matches(name, words)) return family.reason;
  }
  return "";
}

}  // namespace

std::string refusal_reason(const OpSchema& schema) {
  if (is_training_only(schema)) return "not for inference: training only";
  if (is_random(schema)) {
    const bool takes_generator = std::any_of(schema.arguments.begin(), schema.arguments.end(), [](const SchemaArgument& a) {
      return a.type.kind == SchemaType::Kind::Generator;
    });
    if (takes_generator && schema.overload == "generator") {
      return "no kernel: an overload taking a torch.Generator; Kiln draws from its one generator (kiln run --seed), "
             "as the overload without one";
    }
    return "no kernel yet: a random distribution Kiln does not sample yet (rand, randn, their _like forms, uniform, "
           "normal, bernoulli, randint and randperm run)";
  }
  const std::string qualified = schema.qualified_name();
  if (const OpSchema* target = alias_target(schema)) return refusal_reason(*target);
  if (std::string reason = name_reason(qualified); !reason.empty()) return reason;
  if (reads_sizes_from_values(schema)) {
    return "no data-dependent sizes yet: a size or scalar read from a tensor's values (nonzero's forms, item, unique, "
           "repeat_interleave by a tensor), which Kiln's importer and lowering do not carry yet";
  }
  if (is_tracing_query(schema)) return "no kernel: a query of tensor properties torch.export evaluates while tracing";
  return "";
}

std::string refusal_reason(const std::string& qualified_name) {
  if (const OpSchema* schema = find_op_schema(qualified_name)) return refusal_reason(*schema);
  return name_reason(qualified_name);
}

}  // namespace kiln::aot
