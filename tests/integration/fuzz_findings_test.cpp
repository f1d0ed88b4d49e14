// The .pte inputs pte_fuzz found (tests/fixtures/fuzz), each run the way the
// fuzz target runs it (Program::load with InternalConsistency, the first
// method's Method::load, inputs of ones, execute): each is now refused at a
// named step with a log line saying why. The sanitizer suite runs this test
// too, so a finding that comes back shows there as it did under the fuzzer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "runtime/executor/test/method_loader.h"
#include "tests/support/program_test_util.h"

namespace kiln::runtime {
namespace {

using ::testing::HasSubstr;
using testing::MethodLoader;

struct Finding {
  const char* file;
  bool refused_by_program_load;  // else by Method::load
  const char* message;
};

const Finding kFindings[] = {
    // The moved tensor (v54, [1536, 3328)) is squeeze_copy's input at
    // instruction 15, and first max_pool's indices, inside its out [0, 3584).
    {"pte_copy_out_overlaps_input.pte", false,
     "instruction 14 (aten::max_pool2d_with_indices.out): value 53 (bytes [0, 3584) of planned buffer 1) and value 54 "
     "(bytes [1536, 3328)) overlap in part"},
    // embedding's out over its indices.
    {"pte_embedding_out_overlaps_indices.pte", false,
     "instruction 2 (aten::embedding.out): value 16 (bytes [384, 608) of planned buffer 1) and value 12 (bytes "
     "[448, 504)) overlap in part"},
    {"pte_float_planned_at_offset_58.pte", true,
     "execution_plan[0].values[10]: planned tensor offset 58 in buffer 1 is not a multiple of its element size 4"},
    {"pte_misaligned_uint64_vector.pte", true, "mutable_data_segments[0].offsets (uint64) is not 8-byte aligned"},
};

class FuzzFindingTest : public ::testing::TestWithParam<Finding> {};

TEST_P(FuzzFindingTest, IsRefusedWithItsReason) {
  const Finding& finding = GetParam();
  MethodLoader loaded(testing::read_file_bytes(std::string(KILN_SOURCE_DIR "/tests/fixtures/fuzz/") + finding.file));
  if (finding.refused_by_program_load) {
    EXPECT_EQ(loaded.program_error(), Error::InvalidProgram) << loaded.log();
  } else {
    ASSERT_EQ(loaded.program_error(), Error::Ok) << loaded.log();
    EXPECT_EQ(loaded.method_error(), Error::InvalidProgram) << loaded.log();
  }
  EXPECT_THAT(loaded.log(), HasSubstr(finding.message));
}

INSTANTIATE_TEST_SUITE_P(SavedInputs, FuzzFindingTest, ::testing::ValuesIn(kFindings), [](const auto& info) {
  std::string name = info.param.file;
  return name.substr(4, name.find('.') - 4);  // without "pte_" and ".pte"
});

}  // namespace
}  // namespace kiln::runtime
