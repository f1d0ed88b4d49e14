// Selective build: this binary's kernels are registered by
// kiln_selected_kernels (cmake/KilnSelectiveBuild.cmake) from the op list of
// two ExecuTorch-written programs, tests/fixtures/pte/selective_build.ops
// (`kiln ops --used small_conv_net.pte copy_and_clone.pte`; kiln_ops_used_test
// checks the tool still writes it). The registry holds exactly the listed
// kernels, portable and prim; those programs (and linear.pte, whose two ops
// are among them) run with ExecuTorch's outputs; a program calling a kernel
// the list left out fails to load, naming each such op as left out of the
// build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "aot/import/npz.h"
#include "runtime/core/test/log_capture.h"
#include "runtime/kernel/operator_registry.h"
#include "runtime/module/module.h"
#include "tests/support/host_tensors.h"

namespace kiln::runtime {
namespace {

using aot::HostTensor;
using testing::LogCapture;
using testing::OwnedTensor;

const std::string kPte = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

std::vector<std::string> listed_ops() {
  std::ifstream file(kPte + "selective_build.ops");
  std::vector<std::string> ops;
  for (std::string line; std::getline(file, line);) {
    if (!line.empty()) ops.push_back(line);
  }
  return ops;
}

TEST(SelectiveBuild, RegistersExactlyTheListedKernels) {
  const std::vector<std::string> listed = listed_ops();
  ASSERT_EQ(listed.size(), 12u) << "the list changed: update this test with it";
  std::set<std::string> registered;
  for (const Kernel& kernel : get_registered_kernels()) registered.insert(kernel.name);
  EXPECT_EQ(registered, std::set<std::string>(listed.begin(), listed.end()));
  // The list takes from both libraries: portable kernels and prim ones.
  EXPECT_TRUE(registry_has_op_function("aten::convolution.out"));
  EXPECT_TRUE(registry_has_op_function("aten::copy_"));
  EXPECT_TRUE(registry_has_op_function("dim_order_ops::_clone_dim_order.out"));
  EXPECT_FALSE(registry_has_op_function("aten::sub.out"));
  EXPECT_FALSE(registry_has_op_function("executorch_prim::add.Scalar"));
  EXPECT_TRUE(is_left_out_kernel("aten::sub.out"));
  EXPECT_TRUE(is_left_out_kernel("executorch_prim::add.Scalar"));
  EXPECT_FALSE(is_left_out_kernel("aten::convolution.out"));
}

// Runs `name`.pte on its fixture inputs and compares every output with
// ExecuTorch's, to within the float error ExecuTorch's own runtime showed.
void expect_runs_with_expected_outputs(const std::string& name) {
  SCOPED_TRACE(name);
  const auto inputs = aot::read_npz(kPte + name + ".inputs.npz");
  const auto expected = aot::read_npz(kPte + name + ".expected.npz");
  std::vector<std::unique_ptr<OwnedTensor>> owned;
  std::vector<EValue> values;
  for (const auto& [key, tensor] : inputs) {
    owned.push_back(std::make_unique<OwnedTensor>(tensor));
    values.push_back(owned.back()->value());
  }
  Module module(kPte + name + ".pte");
  LogCapture log;
  Result<std::vector<EValue>> outputs = module.forward(values);
  ASSERT_TRUE(outputs.ok()) << to_string(outputs.error()) << "\n" << log.text();
  ASSERT_EQ(outputs->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const HostTensor actual = testing::to_host((*outputs)[i], "output " + std::to_string(i));
    const HostTensor& want = expected[i].second;
    ASSERT_EQ(actual.sizes(), want.sizes()) << "output " << i;
    ASSERT_EQ(actual.dtype(), ScalarType::Float);
    const float* a = actual.data<float>();
    const float* b = want.data<float>();
    for (int64_t j = 0; j < want.numel(); ++j) {
      EXPECT_NEAR(a[j], b[j], 1e-5 * std::max(1.0f, std::fabs(b[j]))) << "output " << i << " element " << j;
    }
  }
}

TEST(SelectiveBuild, RunsTheProgramsOfItsList) {
  expect_runs_with_expected_outputs("small_conv_net");
  expect_runs_with_expected_outputs("copy_and_clone");
}

TEST(SelectiveBuild, RunsAProgramWhoseOpsAreAllListed) { expect_runs_with_expected_outputs("linear"); }

// buffer_mutation.pte calls add, mul and copy_ (listed) and mean and sub
// (left out): loading names both as left out, and the instructions calling
// them.
TEST(SelectiveBuild, RefusesAProgramCallingAKernelLeftOut) {
  Module module(kPte + "buffer_mutation.pte");
  LogCapture log;
  EXPECT_EQ(module.load_method("forward"), Error::OperatorMissing);
  for (const char* op : {"aten::mean.out", "aten::sub.out"}) {
    EXPECT_TRUE(log.contains(std::string("no kernel registered for '") + op +
                             "': selective build left it out of this runtime"))
        << op << "\n" << log.text();
    EXPECT_TRUE(log.contains(std::string("calls '") + op + "', which has no kernel")) << op << "\n" << log.text();
  }
  EXPECT_FALSE(log.contains("'aten::add.out'")) << log.text();
}

}  // namespace
}  // namespace kiln::runtime
