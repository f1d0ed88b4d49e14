// Every op torch.export's training IR can carry (src/aot/ir/op_table/training_ir_ops.txt,
// generated from torch by tools/ops/generate_training_ir_ops.py) runs on the
// portable kernels — a kernel, a view's copy, a decomposition or a graph
// assert lowering drops — or is refused by a named rule (refusal_reason).
// An op with none of these fails here, before a model calling it fails in
// `kiln run` (lift_fresh_copy, detach and index_copy once did, one by one).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "aot/interpreter/kernel_call.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/op_support.h"

namespace kiln::aot {
namespace {

struct ListedOp {
  std::string name;    // "aten::lift_fresh_copy.default"
  std::string source;  // "decomposition", "core" or "export"
};

// The lines of src/aot/ir/op_table/`name` but comments, as whitespace-separated fields.
std::vector<std::vector<std::string>> op_table_lines(const std::string& name) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/src/aot/ir/op_table/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file) << "cannot read " << path;
  std::vector<std::vector<std::string>> lines;
  std::string line;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream stream(line);
    std::vector<std::string> fields;
    for (std::string field; stream >> field;) fields.push_back(field);
    lines.push_back(fields);
  }
  return lines;
}

std::vector<ListedOp> training_ir_ops() {
  std::vector<ListedOp> ops;
  for (const auto& fields : op_table_lines("training_ir_ops.txt")) ops.push_back({fields.at(0), fields.at(1)});
  return ops;
}

// The functional op an out overload ("aten::addcdiv.out") is the out variant of.
const OpSchema* functional_of_out(const std::string& out) {
  for (const OpSchema& schema : all_op_schemas()) {
    if (!schema.is_out_variant() && schema.out_variant == out) return &schema;
  }
  return nullptr;
}

// The schema `name` runs as: its own, or for an out overload its functional op's.
const OpSchema* schema_of(const std::string& name) {
  const OpSchema* schema = find_op_schema(name);
  if (schema != nullptr && schema->is_out_variant()) {
    if (const OpSchema* functional = functional_of_out(name)) return functional;
  }
  return schema;
}

// How `name` fares: "runs", a refusal reason, or "" for a gap.
std::string verdict(const std::string& name) {
  const OpSchema* schema = schema_of(name);
  if (schema == nullptr) return refusal_reason(name);
  if (op_support(*schema, interpreter_has_kernel) != OpSupport::kNone) return "runs";
  return refusal_reason(*schema);
}

TEST(TrainingIrOps, TheListHoldsTheDecompositionKeysAndWhatExportLeaves) {
  std::map<std::string, std::string> source;
  for (const ListedOp& op : training_ir_ops()) source[op.name] = op.source;
  EXPECT_GT(source.size(), 1000u);
  for (const char* name : {"aten::lift_fresh_copy.default", "aten::_assert_tensor_metadata.default",
                           "aten::_assert_scalar.default", "aten::sym_constrain_range_for_size.default"}) {
    EXPECT_EQ(source[name], "export") << name;
  }
  EXPECT_EQ(source["aten::alias.default"], "core");
  EXPECT_EQ(source["aten::addcmul.default"], "decomposition");
  EXPECT_EQ(source["quantized::linear_unpack.default"], "decomposition");
}

// The rule of the list: every op runs or is refused by a rule that names its
// reason. There is no list of exceptions: a torch upgrade that adds an op
// fails here until it has a kernel, a decomposition or a refusal.
TEST(TrainingIrOps, EveryOpRunsOrIsRefusedByName) {
  std::string gaps;
  for (const ListedOp& op : training_ir_ops()) {
    if (verdict(op.name).empty()) gaps += "\n  " + op.name;
  }
  EXPECT_TRUE(gaps.empty()) << "these ops neither run nor are refused by a rule; give each a kernel or a "
                            << "decomposition, or a refusal rule with a real reason (op_refusals.cpp):" << gaps;
}

TEST(TrainingIrOps, RefusalsNameTheirReason) {
  constexpr const char* kStatistics =
      "no kernel yet: a statistics or combinatorics routine (histograms, gradient, combinations, cartesian_prod)";
  const std::map<std::string, std::string> expected = {
      {"aten::convolution_backward.default", "not for inference: training only"},
      {"aten::_fused_adam.default", "not for inference: training only"},
      {"aten::linalg_svd.default", "no kernel: a LAPACK-class factorization"},
      {"aten::det.default", "no kernel: a LAPACK-class factorization"},  // an alias of linalg_det
      {"aten::cudnn_batch_norm.default", "no kernel: another device's or library's op"},
      {"aten::to_sparse.default", "no kernel: a sparse, nested or quantized tensor layout Kiln has no tensors of"},
      {"quantized::linear_unpack.default", "no kernel: a sparse, nested or quantized tensor layout Kiln has no tensors of"},
      {"mkldnn::_is_mkldnn_bf16_supported.default", "no kernel: another device's or library's op"},
      {"_test::cat.default", "no kernel: a test op of torch's own"},
      {"aten::is_floating_point.default", "no kernel: a query of tensor properties torch.export evaluates while tracing"},
      {"aten::result_type.Tensor", "no kernel: a query of tensor properties torch.export evaluates while tracing"},
      {"aten::fft_fft.default", "no kernel: a complex-to-complex or Hermitian FFT (Kiln's FFTs are real)"},
      {"aten::rnn_tanh.input", "no kernel: a recurrent network layer (Kiln has no RNN kernels)"},
      {"aten::_shape_as_tensor.default",
       "no kernel: ONNX tracing's helpers that hold sizes in tensors, which torch.export cannot trace"},
      {"aten::_upsample_lanczos2d_aa.vec", "no kernel yet: antialiased resampling (interpolate with antialias=True)"},
      {"aten::conv_transpose3d.input", "no kernel yet: a 3-D transposed convolution"},
      {"aten::gradient.tensorarray", kStatistics},
      {"aten::histogramdd.int_bins", kStatistics},
      {"aten::combinations.default", kStatistics},
  };
  for (const auto& [name, reason] : expected) EXPECT_EQ(verdict(name), reason) << name;
  const std::string special = "no kernel yet: a special function (digamma, polygamma, erfinv, the incomplete gammas, "
                              "Bessel functions, orthogonal polynomials, ...)";
  for (const char* name : {"aten::special_psi.default", "aten::special_polygamma.default", "aten::special_gammaincc.default",
                           "aten::special_i0.default"}) {
    EXPECT_EQ(verdict(name), special) << name;
  }
  const std::string data_dependent = "no data-dependent sizes yet: a size or scalar read from a tensor's values (nonzero's "
                                     "forms, item, unique, repeat_interleave by a tensor), which Kiln's importer and "
                                     "lowering do not carry yet";
  for (const char* name : {"aten::argwhere.default", "aten::where.default", "aten::nonzero_numpy.default", "aten::item.default",
                           "aten::repeat_interleave.self_Tensor"}) {
    EXPECT_EQ(verdict(name), data_dependent) << name;
  }
  // The same names with sizes known before the run: where(condition, self, other), repeats as an int.
  EXPECT_EQ(refusal_reason(get_op_schema("aten::where.self")), "");
  EXPECT_EQ(refusal_reason(get_op_schema("aten::repeat_interleave.self_int")), "");
  // Words, not substrings: detach is no determinant, max_pool2d_with_indices no sparse accessor.
  EXPECT_EQ(refusal_reason(get_op_schema("aten::detach.default")), "");
  EXPECT_EQ(refusal_reason(get_op_schema("aten::max_pool2d_with_indices.default")), "");
}

TEST(TrainingIrOps, AnAliasRunsAsItsOpOrIsRefusedAsItIs) {
  EXPECT_EQ(op_support(get_op_schema("aten::arccos.default"), interpreter_has_kernel), OpSupport::kDecomposition);
  EXPECT_EQ(op_support(get_op_schema("aten::special_expit.default"), interpreter_has_kernel), OpSupport::kDecomposition);
  EXPECT_EQ(op_support(get_op_schema("aten::special_erfc.default"), interpreter_has_kernel), OpSupport::kDecomposition);
  EXPECT_EQ(op_support(get_op_schema("aten::special_multigammaln.default"), interpreter_has_kernel), OpSupport::kDecomposition);
  EXPECT_EQ(op_support(get_op_schema("aten::det.default"), interpreter_has_kernel), OpSupport::kNone);
}

// The counts of the report: how the list's ops run, and why the others are refused.
TEST(TrainingIrOps, CountsByVerdict) {
  std::map<std::string, size_t> counts;
  for (const ListedOp& op : training_ir_ops()) {
    std::string how = verdict(op.name);
    if (how == "runs") {
      constexpr const char* kHow[] = {"runs: a kernel", "runs: a view's copy", "runs: a decomposition",
                                      "runs: a graph assert lowering drops", ""};
      how = kHow[static_cast<int>(op_support(*schema_of(op.name), interpreter_has_kernel))];
    }
    ++counts[how.empty() ? "(gap)" : how];
  }
  for (const auto& [reason, count] : counts) std::cout << "  " << count << "  " << reason << "\n";
  EXPECT_GT(counts["runs: a kernel"] + counts["runs: a decomposition"], 500u);
}

}  // namespace
}  // namespace kiln::aot
