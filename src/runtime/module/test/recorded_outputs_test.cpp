// Programs run by Module on recorded inputs, their outputs checked against
// recorded ones. A case is NAME.pte with NAME.inputs.npz (arr_<i>: the
// method's inputs in order) and NAME.expected.npz (output_<i>: the outputs of
// the first call, call<k>_output_<i> those of call k after it, on the same
// inputs). The cases are ExecuTorch's own files (tests/fixtures/pte, their
// outputs from ExecuTorch's runtime) and, when KILN_PTE_CASES_DIR names a
// folder, the cases there: `make test-aarch64` writes every .pt2 fixture's
// case lowered and run by the host's kiln (scripts/lower-fixtures.sh), so
// that the cross build, run under qemu, checks its results against x86's.
// A case of a program that samples has NAME.seed: the generator is seeded
// with it first (runtime/core/random.h), as the host's run was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/random.h"
#include "runtime/module/module.h"
#include "runtime/module/method_session.h"
#include "runtime/npz/npz.h"
#include "runtime/npz/testing/array_mismatch.h"

namespace kiln::runtime::testing {
namespace {

namespace fs = std::filesystem;

struct RecordedCase {
  std::string group;  ///< "executorch" or "lowered"
  std::string path;   ///< the case's path without extension
  std::string name;   ///< a gtest parameter name
};

const char* cases_dir_variable() { return "KILN_PTE_CASES_DIR"; }

std::vector<RecordedCase> cases_in(const std::string& group, const std::string& dir) {
  std::vector<RecordedCase> cases;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    const std::string suffix = ".expected.npz";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string stem = file.substr(0, file.size() - suffix.size());
    std::string name = group + "_" + stem;
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    cases.push_back({group, dir + "/" + stem, name});
  }
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

std::vector<RecordedCase> all_cases() {
  std::vector<RecordedCase> cases = cases_in("executorch", std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte");
  if (const char* dir = std::getenv(cases_dir_variable()); dir != nullptr && *dir != '\0') {
    const std::vector<RecordedCase> lowered = cases_in("lowered", dir);
    cases.insert(cases.end(), lowered.begin(), lowered.end());
  }
  return cases;
}

/// An input tensor over an array's bytes, with its own sizes, dim order and strides.
struct InputTensor {
  explicit InputTensor(NpyArray array) : array(std::move(array)) {
    const size_t dim = this->array.sizes.size();
    sizes.assign(this->array.sizes.begin(), this->array.sizes.end());
    dim_order.resize(dim);
    for (size_t d = 0; d < dim; ++d) dim_order[d] = static_cast<DimOrderType>(d);
    strides.resize(dim);
    ok = compute_strides({sizes.data(), dim}, {dim_order.data(), dim}, {strides.data(), dim}) == Error::Ok;
    impl = std::make_unique<TensorImpl>(this->array.dtype, static_cast<ssize_t>(dim), sizes.data(),
                                        this->array.data.data(), dim_order.data(), strides.data());
  }
  NpyArray array;
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::unique_ptr<TensorImpl> impl;
  bool ok = false;
};

/// Where an output differs from the recorded array; empty if it matches. The
/// host's and the target's float results differ only where their math
/// libraries round differently (expf, tanhf, ...): a few ulps, within the
/// fixtures' rule.
std::string output_mismatch(const EValue& actual, const NpyArray& expected) {
  Result<NpyArray> array = to_array(actual);
  if (!array.ok()) return std::string("is a ") + to_string(actual.tag()) + ", which this test cannot compare";
  // A prim output against its recorded array of one element, whatever its dtype.
  if (actual.isScalar()) {
    if (expected.numel() != 1) return "is a scalar, the recorded array is not";
    return element_matches(array->scalar(0), expected.scalar(0), actual.isDouble(), {1e-5, 1e-5})
               ? ""
               : "is " + std::to_string(array->scalar(0)) + ", recorded " + std::to_string(expected.scalar(0));
  }
  return array_mismatch(*array, expected, {1e-5, 1e-5});
}

class RecordedOutputsTest : public ::testing::TestWithParam<RecordedCase> {};

TEST_P(RecordedOutputsTest, MatchesTheRecordedOutputs) {
  const RecordedCase& c = GetParam();
  Result<std::vector<NamedArray>> inputs = read_npz(c.path + ".inputs.npz");
  ASSERT_TRUE(inputs.ok()) << c.path << ".inputs.npz: " << to_string(inputs.error());
  Result<std::vector<NamedArray>> recorded_outputs = read_npz(c.path + ".expected.npz");
  ASSERT_TRUE(recorded_outputs.ok()) << c.path << ".expected.npz: " << to_string(recorded_outputs.error());
  std::map<std::string, NpyArray> expected;
  for (NamedArray& named : *recorded_outputs) expected.emplace(named.name, std::move(named.array));
  size_t calls = 0;
  while (expected.count((calls == 0 ? std::string("output_") : "call" + std::to_string(calls) + "_output_") + "0")) {
    ++calls;
  }
  ASSERT_GT(calls, 0u) << c.path << ".expected.npz has no output_0";

  if (std::ifstream seed_file(c.path + ".seed"); seed_file) {
    uint64_t seed = 0;
    ASSERT_TRUE(seed_file >> seed) << c.path << ".seed holds no seed";
    runtime::manual_seed(seed);
  }
  Module module(c.path + ".pte");
  Result<MethodMeta> meta = module.method_meta("forward");
  ASSERT_TRUE(meta.ok()) << c.path << ".pte: " << to_string(meta.error());
  ASSERT_EQ(meta->num_inputs(), inputs->size()) << "the method's inputs against the recorded ones";
  std::vector<std::unique_ptr<InputTensor>> tensors;
  std::vector<EValue> values;
  for (size_t i = 0; i < inputs->size(); ++i) {
    Result<Tag> tag = meta->input_tag(i);
    ASSERT_TRUE(tag.ok());
    NpyArray& array = (*inputs)[i].array;
    if (*tag == Tag::Tensor) {
      tensors.push_back(std::make_unique<InputTensor>(std::move(array)));
      ASSERT_TRUE(tensors.back()->ok) << "input " << i << ": cannot lay out its sizes";
      values.emplace_back(Tensor(tensors.back()->impl.get()));
    } else {
      ASSERT_EQ(array.numel(), 1u) << "input " << i << " is a scalar, the recorded array is not";
      const double value = array.scalar(0);
      if (*tag == Tag::Int) {
        values.emplace_back(static_cast<int64_t>(value));
      } else if (*tag == Tag::Double) {
        values.emplace_back(value);
      } else if (*tag == Tag::Bool) {
        values.emplace_back(value != 0.0);
      } else {
        FAIL() << "input " << i << " is a " << to_string(*tag) << ", which this test cannot make";
      }
    }
  }

  for (size_t call = 0; call < calls; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    Result<std::vector<EValue>> outputs = module.forward(values);
    ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
    const std::string prefix = call == 0 ? "output_" : "call" + std::to_string(call) + "_output_";
    size_t recorded = 0;
    while (expected.count(prefix + std::to_string(recorded))) ++recorded;
    ASSERT_EQ(outputs->size(), recorded) << "outputs against the recorded ones";
    for (size_t i = 0; i < recorded; ++i) {
      const std::string mismatch = output_mismatch((*outputs)[i], expected.at(prefix + std::to_string(i)));
      EXPECT_EQ(mismatch, "") << prefix << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RecordedOutputsTest, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return info.param.name; });

// Both sets are there: the ExecuTorch files always, the folder's cases when
// it is named (a folder named but empty is a broken set-up, not a pass).
TEST(RecordedOutputs, HasTheCasesItIsGiven) {
  const std::vector<RecordedCase> cases = all_cases();
  EXPECT_GE(std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.group == "executorch"; }), 8);
  const char* dir = std::getenv(cases_dir_variable());
  if (dir == nullptr || *dir == '\0') return;
  EXPECT_GT(std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.group == "lowered"; }), 0)
      << cases_dir_variable() << "=" << dir << " holds no case (NAME.pte, NAME.inputs.npz, NAME.expected.npz)";
}

}  // namespace
}  // namespace kiln::runtime::testing
