// MethodSession on ExecuTorch's .pte fixtures: inputs from an .npz or ones,
// checked against MethodMeta with a line that names the input; outputs as
// arrays; and LoggedErrors' messages.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/test/log_capture.h"
#include "runtime/module/logged_errors.h"
#include "runtime/module/method_session.h"

namespace kiln::runtime {
namespace {

using testing::LogCapture;

const std::string kPte = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

std::unique_ptr<MethodSession> load(const std::string& file, const std::string& method = "") {
  Result<std::shared_ptr<LoadedProgram>> program = LoadedProgram::from_file(kPte + file);
  if (!program.ok()) return nullptr;
  Result<std::unique_ptr<MethodSession>> session = MethodSession::load(*program, method);
  return session.ok() ? std::move(session.get()) : nullptr;
}

NpyArray floats(std::vector<int64_t> sizes, float value) {
  NpyArray array = ones_array(ScalarType::Float, std::move(sizes));
  for (size_t i = 0; i < array.numel(); ++i) std::memcpy(array.data.data() + i * 4, &value, 4);
  return array;
}

/// Output `index` of the last execute as an array.
NpyArray output(MethodSession& session, size_t index) {
  Result<NpyArray> array = to_array(session.method().get_output(index));
  return array.ok() ? std::move(array.get()) : NpyArray{};
}

TEST(MethodSession, RunsOnTheInputsOfAnNpzAndGivesTheRecordedOutputs) {
  for (const char* name : {"add", "linear", "small_conv_net", "two_outputs"}) {
    SCOPED_TRACE(name);
    std::unique_ptr<MethodSession> session = load(std::string(name) + ".pte");
    ASSERT_NE(session, nullptr);
    ASSERT_EQ(session->set_inputs_from_npz(kPte + name + ".inputs.npz"), Error::Ok);
    ASSERT_TRUE(session->execute().ok());
    Result<std::vector<NamedArray>> expected = read_npz(kPte + name + ".expected.npz");
    ASSERT_TRUE(expected.ok());
    ASSERT_EQ(session->method().outputs_size(), expected->size());
    for (size_t i = 0; i < expected->size(); ++i) {
      const NpyArray got = output(*session, i);
      const NpyArray& want = (*expected)[i].array;
      ASSERT_EQ(got.sizes, want.sizes);
      for (size_t k = 0; k < want.scalar_count(); ++k) EXPECT_NEAR(got.scalar(k), want.scalar(k), 1e-5) << k;
    }
  }
}

TEST(MethodSession, OnesAreThePlannedShapes) {
  std::unique_ptr<MethodSession> session = load("add.pte");
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->method_name(), "forward");
  ASSERT_EQ(session->set_ones(), Error::Ok);
  ASSERT_TRUE(session->execute().ok());
  const NpyArray sum = output(*session, 0);
  EXPECT_EQ(sum.sizes, (std::vector<int64_t>{2, 3}));
  for (size_t i = 0; i < sum.numel(); ++i) EXPECT_EQ(sum.scalar(i), 2.0);
}

TEST(MethodSession, ADynamicInputRunsAtItsOwnSize) {
  std::unique_ptr<MethodSession> session = load("dynamic_batch.pte");
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->set_inputs({floats({3, 4}, 1.0f)}), Error::Ok);
  ASSERT_TRUE(session->execute().ok());
  EXPECT_EQ(output(*session, 0).sizes[0], 3);
}

TEST(MethodSession, EachBadInputIsNamed) {
  std::unique_ptr<MethodSession> session = load("linear.pte");
  ASSERT_NE(session, nullptr);
  LogCapture log;
  EXPECT_EQ(session->set_inputs({floats({2, 8}, 1), floats({2, 8}, 1)}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("2 inputs given, but the method takes 1")) << log.text();
  EXPECT_EQ(session->set_inputs({ones_array(ScalarType::Long, {2, 8})}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("input 0 must be f32 (f32[2, 8]), got i64 (i64[2, 8])")) << log.text();
  EXPECT_EQ(session->set_inputs({floats({16}, 1)}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("input 0 must have 2 dimensions (f32[2, 8]), got 1 (f32[16])")) << log.text();
  EXPECT_EQ(session->set_inputs({floats({2, 3}, 1)}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("input 0 dim 1 must be 8 (f32[2, 8]), got 3 (f32[2, 3])")) << log.text();
  EXPECT_EQ(session->set_inputs_from_npz(kPte + "add.inputs.npz"), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("add.inputs.npz holds 2 arrays, but the program takes 1 inputs")) << log.text();
  EXPECT_EQ(session->set_inputs_from_npz(kPte + "missing.npz"), Error::AccessFailed);
  EXPECT_TRUE(log.contains("missing.npz: cannot open")) << log.text();

  std::unique_ptr<MethodSession> dynamic = load("dynamic_batch.pte");
  ASSERT_NE(dynamic, nullptr);
  EXPECT_EQ(dynamic->set_inputs({floats({2, 16}, 1)}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("input 0 dim 1 must be at most 4 (f32[8, 4] are the planned upper bounds), got 16 (f32[2, 16])"))
      << log.text();
}

TEST(MethodSession, ABadProgramOrMethodIsNamed) {
  LogCapture log;
  EXPECT_FALSE(LoadedProgram::from_file(kPte + "nonexistent.pte").ok());
  EXPECT_TRUE(log.contains("nonexistent.pte: cannot open")) << log.text();
  Result<std::shared_ptr<LoadedProgram>> program = LoadedProgram::from_file(kPte + "constant_methods.pte");
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(MethodSession::load(*program, "backward").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("constant_methods.pte has no method 'backward' (it has: ")) << log.text();
}

TEST(MethodSession, AConstantMethodRunsWithoutInputs) {
  std::unique_ptr<MethodSession> session = load("constant_methods.pte", "get_name");
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->set_ones(), Error::Ok);
  ASSERT_TRUE(session->execute().ok());
  ASSERT_TRUE(session->method().get_output(0).isString());
  LogCapture log;
  EXPECT_EQ(to_array(session->method().get_output(0)).error(), Error::NotSupported);
  EXPECT_TRUE(log.contains("a String has no array form")) << log.text();
}

TEST(LoggedErrors, AMessageIsWhatTheErrorAndTheLinesLogged) {
  LoggedErrors capture;
  KILN_LOG(Error, "first reason");
  KILN_LOG(Error, "last reason");
  EXPECT_EQ(LoggedErrors::message("cannot load", Error::InvalidProgram),
            "cannot load: InvalidProgram: last reason\n    first reason");
  KILN_LOG(Error, "input 0 must be f32");
  EXPECT_EQ(LoggedErrors::message("", Error::InvalidArgument), "input 0 must be f32");
  EXPECT_EQ(LoggedErrors::message("execute", Error::Internal), "execute: Internal");
}

}  // namespace
}  // namespace kiln::runtime
