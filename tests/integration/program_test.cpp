// Program and MethodMeta on good files: every ExecuTorch-written fixture of
// tests/fixtures/pte and every Kiln-written .pte of the golden fixtures (plain
// and delegated), under both verifications and with all three loaders. The
// answers are checked against what the AOT side wrote (its manifest, its
// reader, its emitted program).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>
#include <tuple>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/pte_reader.h"
#include "aot/emit/to_executorch.h"
#include "runtime/core/test/log_capture.h"
#include "runtime/executor/program.h"
#include "tests/support/program_test_util.h"
#include "runtime/executor/test/recording_loader.h"
#include "runtime/loader/buffer_data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime {
namespace {

using testing::kPteFixtures;

namespace fb = executorch_flatbuffer;
using testing::kAllLoaderKinds;
using testing::LoaderKind;
using testing::LogCapture;
using Verification = Program::Verification;


const nlohmann::json& et_manifest() {
  static const nlohmann::json parsed = nlohmann::json::parse(std::ifstream(kPteFixtures + "manifest.json"));
  return parsed;
}

std::vector<std::string> et_fixture_files() {
  std::vector<std::string> files;
  for (const auto& entry : et_manifest().at("files")) files.push_back(entry.at("file"));
  return files;
}

const nlohmann::json& et_entry(const std::string& file) {
  for (const auto& entry : et_manifest().at("files")) {
    if (entry.at("file") == file) return entry;
  }
  throw std::runtime_error("no manifest entry for " + file);
}

const char* to_string(Verification v) { return v == Verification::Minimal ? "Minimal" : "InternalConsistency"; }

std::vector<int32_t> sizes_of(const TensorInfo& info) { return {info.sizes().begin(), info.sizes().end()}; }

/// The bytes of a Tensor value of `plan`, or 0 when it is not a tensor.
size_t tensor_nbytes(const fb::TensorT& tensor) {
  size_t n = element_size(static_cast<ScalarType>(tensor.scalar_type));
  for (int32_t size : tensor.sizes) n *= static_cast<size_t>(size);
  return n;
}

bool points_into(const void* p, const std::vector<uint8_t>& bytes) {
  const auto* b = static_cast<const uint8_t*>(p);
  return b >= bytes.data() && b < bytes.data() + bytes.size();
}

/// Every constant, mutable initial value and segment the runtime hands out
/// equals what the AOT reader finds in the same bytes.
void expect_data_matches_reader(const Program& program, const std::vector<uint8_t>& bytes, LoaderKind kind) {
  const aot::pte::PteFile file = aot::pte::read_pte(bytes);
  const fb::ExecutionPlanT& plan = *file.program->execution_plan.at(0);
  std::set<uint32_t> constants;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const fb::TensorT* tensor = plan.values[v]->val.AsTensor();
    if (tensor == nullptr || tensor->data_buffer_idx == 0) continue;
    const size_t nbytes = tensor_nbytes(*tensor);
    if (!tensor->allocation_info) {
      constants.insert(tensor->data_buffer_idx);
      Result<const void*> data = program.get_constant_buffer_data(tensor->data_buffer_idx, nbytes);
      ASSERT_TRUE(data.ok()) << "v" << v << ": " << runtime::to_string(data.error());
      const auto expected = file.constant(tensor->data_buffer_idx, nbytes);
      EXPECT_EQ(std::memcmp(*data, expected.data(), nbytes), 0) << "v" << v;
      if (kind == LoaderKind::Buffer) {
        EXPECT_TRUE(points_into(*data, bytes)) << "v" << v << " was copied";
      }
    } else if (tensor->extra_tensor_info) {
      std::vector<uint8_t> initial(nbytes, 0xAB);
      const auto segment_index = file.program->mutable_data_segments.at(0)->segment_index;
      ASSERT_EQ(program.load_mutable_subsegment_into(tensor->extra_tensor_info->mutable_data_segments_idx,
                                                     tensor->data_buffer_idx, nbytes, initial.data()),
                Error::Ok);
      const auto segment = file.segment(segment_index);
      const uint64_t offset =
          file.program->mutable_data_segments.at(0)->offsets.at(tensor->data_buffer_idx);
      EXPECT_EQ(std::memcmp(initial.data(), segment.data() + offset, nbytes), 0) << "v" << v;
    }
  }
  EXPECT_EQ(constants.size() + 1, std::max<size_t>(1, file.program->constant_segment->offsets.size()));
  for (size_t s = 0; s < file.program->segments.size(); ++s) {
    Result<FreeableBuffer> segment = program.load_segment(SegmentInfo{SegmentInfo::Type::Backend, s});
    ASSERT_TRUE(segment.ok()) << "segment " << s;
    const auto expected = file.segment(s);
    ASSERT_EQ(segment->size(), expected.size()) << "segment " << s;
    if (!expected.empty()) {
      EXPECT_EQ(std::memcmp(segment->data(), expected.data(), expected.size()), 0);
    }
  }
}

// --- ExecuTorch-written files ----------------------------------------------

using EtParam = std::tuple<std::string, Verification, LoaderKind>;
class EtFixtureTest : public ::testing::TestWithParam<EtParam> {};

void expect_tensor_info_matches(const Result<TensorInfo>& info, const nlohmann::json& expected, const std::string& what) {
  ASSERT_TRUE(info.ok()) << what;
  EXPECT_EQ(sizes_of(*info), expected.at("sizes").get<std::vector<int32_t>>()) << what;
  EXPECT_EQ(static_cast<int>(info->scalar_type()), expected.at("scalar_type").get<int>()) << what;
  EXPECT_EQ(static_cast<int>(info->shape_dynamism()), expected.at("shape_dynamism").get<int>()) << what;
  EXPECT_TRUE(info->is_memory_planned()) << what;  // ExecuTorch plans inputs and outputs
  std::vector<uint8_t> identity(info->sizes().size());
  for (size_t d = 0; d < identity.size(); ++d) identity[d] = static_cast<uint8_t>(d);
  EXPECT_EQ(std::vector<uint8_t>(info->dim_order().begin(), info->dim_order().end()), identity) << what;
  size_t nbytes = element_size(info->scalar_type());
  for (int32_t size : info->sizes()) nbytes *= static_cast<size_t>(size);
  EXPECT_EQ(info->nbytes(), nbytes) << what;
}

TEST_P(EtFixtureTest, LoadsAndAnswersAsTheManifestSays) {
  const auto& [file, verification, kind] = GetParam();
  const nlohmann::json& entry = et_entry(file);
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + file);
  std::unique_ptr<DataLoader> loader = testing::make_loader(kind, bytes);
  ASSERT_NE(loader, nullptr);
  LogCapture log;
  Result<Program> program = Program::load(loader.get(), verification);
  ASSERT_TRUE(program.ok()) << runtime::to_string(program.error()) << "\n" << log.text();
  EXPECT_TRUE(log.errors().empty()) << log.text();

  ASSERT_EQ(program->num_methods(), 1u);
  ASSERT_TRUE(program->get_method_name(0).ok());
  EXPECT_STREQ(*program->get_method_name(0), entry.at("method").get<std::string>().c_str());
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_STREQ(meta->name(), "forward");
  ASSERT_EQ(meta->num_inputs(), entry.at("inputs").size());
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    ASSERT_TRUE(meta->input_tag(i).ok());
    EXPECT_EQ(*meta->input_tag(i), Tag::Tensor);
    expect_tensor_info_matches(meta->input_tensor_meta(i), entry.at("inputs")[i], "input " + std::to_string(i));
  }
  ASSERT_EQ(meta->num_outputs(), entry.at("outputs").size());
  for (size_t i = 0; i < meta->num_outputs(); ++i) {
    ASSERT_TRUE(meta->output_tag(i).ok());
    EXPECT_EQ(*meta->output_tag(i), Tag::Tensor);
    expect_tensor_info_matches(meta->output_tensor_meta(i), entry.at("outputs")[i], "output " + std::to_string(i));
  }
  const auto planned = entry.at("memory_planned_buffer_sizes").get<std::vector<int64_t>>();
  ASSERT_EQ(meta->num_memory_planned_buffers(), planned.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    ASSERT_TRUE(meta->memory_planned_buffer_size(i).ok());
    EXPECT_EQ(*meta->memory_planned_buffer_size(i), planned[i]);
  }
  EXPECT_EQ(meta->num_instructions(), entry.at("num_instructions").get<size_t>());
  // The operator table as ExecuTorch's own reader listed it (tools/fixtures).
  const auto operators = entry.at("operators").get<std::vector<std::string>>();
  ASSERT_EQ(meta->num_operators(), operators.size());
  for (size_t i = 0; i < operators.size(); ++i) {
    char name[128];
    ASSERT_EQ(meta->operator_name(i, name, sizeof name), Error::Ok) << i;
    EXPECT_EQ(std::string(name), operators[i]);
  }
  char name[128];
  EXPECT_EQ(meta->operator_name(operators.size(), name, sizeof name), Error::InvalidArgument);
  if (!operators.empty()) {
    char small[4];
    EXPECT_EQ(meta->operator_name(0, small, sizeof small), Error::InvalidArgument);
    EXPECT_STREQ(small, "");
  }
  EXPECT_EQ(meta->num_backends(), 0u);
  EXPECT_FALSE(meta->uses_backend("DemoBackend"));
  EXPECT_EQ(program->get_num_keys(), 0u);
  expect_data_matches_reader(*program, bytes, kind);
}

INSTANTIATE_TEST_SUITE_P(EtFiles, EtFixtureTest,
                         ::testing::Combine(::testing::ValuesIn(et_fixture_files()),
                                            ::testing::Values(Verification::Minimal, Verification::InternalConsistency),
                                            ::testing::ValuesIn(kAllLoaderKinds)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param);
                           name = name.substr(0, name.find('.')) + "_" + to_string(std::get<1>(info.param)) + "_" +
                                  testing::to_string(std::get<2>(info.param));
                           return name;
                         });

TEST(EtFixtures, BufferInitHoldsItsInitialValue) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "buffer_init.pte");
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader, Verification::InternalConsistency);
  ASSERT_TRUE(program.ok());
  float initial = 0;
  ASSERT_EQ(program->load_mutable_subsegment_into(0, 1, sizeof initial, &initial), Error::Ok);
  EXPECT_NE(initial, 0.0f);
}

TEST(EtFixtures, AddHasNoExtendedHeaderAndNoConstants) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "add.pte");
  ASSERT_NE(std::memcmp(bytes.data() + 8, "eh00", 4), 0);
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader, Verification::InternalConsistency);
  ASSERT_TRUE(program.ok());
  LogCapture log;
  Result<const void*> constant = program->get_constant_buffer_data(1, 4);
  EXPECT_EQ(constant.error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("constant 1 is out of range")) << log.text();
  // Its one empty segment loads as nothing.
  Result<FreeableBuffer> segment = program->load_segment(SegmentInfo{SegmentInfo::Type::Constant, 0});
  ASSERT_TRUE(segment.ok());
  EXPECT_EQ(segment->size(), 0u);
}

// --- Kiln-written files -----------------------------------------------------

enum class Delegation { None, Whole };

struct KilnParam {
  std::string fixture;
  std::string file;
  Delegation delegation;
  Verification verification;
  LoaderKind loader;
};

void PrintTo(const KilnParam& p, std::ostream* out) { *out << p.fixture << "/" << p.file; }

std::vector<KilnParam> kiln_params() {
  std::vector<KilnParam> params;
  for (const auto& [fixture, file] : testing::fixture_program_files()) {
    for (Delegation d : {Delegation::None, Delegation::Whole}) {
      for (Verification v : {Verification::Minimal, Verification::InternalConsistency}) {
        for (LoaderKind k : kAllLoaderKinds) params.push_back({fixture, file, d, v, k});
      }
    }
  }
  return params;
}

const aot::ExecutorchProgram& kiln_program(const std::string& fixture, const std::string& file, Delegation d) {
  return testing::kiln_program(fixture, file, d == Delegation::Whole);
}

class KilnProgramFixtureTest : public ::testing::TestWithParam<KilnParam> {};

void expect_tensor_info_is(const Result<TensorInfo>& info, const fb::TensorT& tensor, const std::string& what) {
  ASSERT_TRUE(info.ok()) << what;
  EXPECT_EQ(sizes_of(*info), tensor.sizes) << what;
  EXPECT_EQ(std::vector<uint8_t>(info->dim_order().begin(), info->dim_order().end()), tensor.dim_order) << what;
  EXPECT_EQ(static_cast<int>(info->scalar_type()), static_cast<int>(tensor.scalar_type)) << what;
  EXPECT_EQ(static_cast<int>(info->shape_dynamism()), static_cast<int>(tensor.shape_dynamism)) << what;
  EXPECT_EQ(info->is_memory_planned(), tensor.allocation_info != nullptr) << what;
  EXPECT_EQ(info->nbytes(), tensor_nbytes(tensor)) << what;
}

TEST_P(KilnProgramFixtureTest, LoadsAndAnswersAsTheEmitterWrote) {
  const KilnParam& p = GetParam();
  const aot::ExecutorchProgram& written = kiln_program(p.fixture, p.file, p.delegation);
  const fb::ExecutionPlanT& plan = *written.emitted.program.program.execution_plan.at(0);
  std::unique_ptr<DataLoader> loader = testing::make_loader(p.loader, written.buffer);
  ASSERT_NE(loader, nullptr);
  LogCapture log;
  Result<Program> program = Program::load(loader.get(), p.verification);
  ASSERT_TRUE(program.ok()) << runtime::to_string(program.error()) << "\n" << log.text();

  Result<MethodMeta> meta = program->method_meta(plan.name.c_str());
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->num_inputs(), plan.inputs.size());
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const auto& value = plan.values.at(static_cast<size_t>(plan.inputs[i]))->val;
    ASSERT_TRUE(meta->input_tag(i).ok());
    if (const fb::TensorT* tensor = value.AsTensor()) {
      EXPECT_EQ(*meta->input_tag(i), Tag::Tensor);
      expect_tensor_info_is(meta->input_tensor_meta(i), *tensor, "input " + std::to_string(i));
    } else {
      EXPECT_NE(*meta->input_tag(i), Tag::Tensor);
      EXPECT_EQ(meta->input_tensor_meta(i).error(), Error::InvalidArgument);
    }
  }
  ASSERT_EQ(meta->num_outputs(), plan.outputs.size());
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    const auto& value = plan.values.at(static_cast<size_t>(plan.outputs[i]))->val;
    if (const fb::TensorT* tensor = value.AsTensor()) {
      expect_tensor_info_is(meta->output_tensor_meta(i), *tensor, "output " + std::to_string(i));
    }
  }
  ASSERT_EQ(meta->num_memory_planned_buffers() + 1, plan.non_const_buffer_sizes.size());
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    EXPECT_EQ(*meta->memory_planned_buffer_size(i), plan.non_const_buffer_sizes[i + 1]);
  }
  EXPECT_EQ(*meta->memory_planned_buffer_size(0), written.memory_plan.total_bytes());
  size_t instructions = 0;
  for (const auto& chain : plan.chains) instructions += chain->instructions.size();
  EXPECT_EQ(meta->num_instructions(), instructions);
  if (p.delegation == Delegation::Whole) {
    ASSERT_EQ(meta->num_backends(), 1u);
    EXPECT_STREQ(*meta->get_backend_name(0), aot::testing::kAllOps);
    EXPECT_TRUE(meta->uses_backend(aot::testing::kAllOps));
  } else {
    EXPECT_EQ(meta->num_backends(), 0u);
  }
  EXPECT_FALSE(meta->uses_backend("NoSuchBackend"));
  expect_data_matches_reader(*program, written.buffer, p.loader);
  EXPECT_TRUE(log.errors().empty()) << log.text();
}

INSTANTIATE_TEST_SUITE_P(KilnFiles, KilnProgramFixtureTest, ::testing::ValuesIn(kiln_params()), [](const auto& info) {
  const KilnParam& p = info.param;
  std::string name = p.fixture + "_" + p.file + (p.delegation == Delegation::Whole ? "_whole_" : "_") +
                     to_string(p.verification) + "_" + testing::to_string(p.loader);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
});

// --- named data -------------------------------------------------------------

class NamedDataTest : public ::testing::TestWithParam<LoaderKind> {};

TEST_P(NamedDataTest, GivesTheDelegateWeightsByKey) {
  const std::vector<uint8_t> bytes = testing::demo_program_with_named_data();
  std::unique_ptr<DataLoader> loader = testing::make_loader(GetParam(), bytes);
  Result<Program> program = Program::load(loader.get(), Verification::InternalConsistency);
  ASSERT_TRUE(program.ok());
  const NamedDataMap& map = *program;
  ASSERT_EQ(map.get_num_keys(), 1u);
  ASSERT_TRUE(map.get_key(0).ok());
  EXPECT_STREQ(*map.get_key(0), "w");
  Result<FreeableBuffer> data = map.get_data("w");
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->size(), 6 * sizeof(float));
  const auto* w = static_cast<const float*>(data->data());
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(w[i], -1.0f + 0.4f * static_cast<float>(i)) << i;
  if (GetParam() == LoaderKind::Buffer) {
    EXPECT_TRUE(points_into(data->data(), bytes)) << "named data was copied";
  }
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_TRUE(meta->uses_backend("DemoBackend"));

  LogCapture log;
  EXPECT_EQ(map.get_data("v").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("no named data with key 'v'")) << log.text();
  EXPECT_EQ(map.get_key(1).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("named data key 1 is out of range")) << log.text();
}

INSTANTIATE_TEST_SUITE_P(Loaders, NamedDataTest, ::testing::ValuesIn(kAllLoaderKinds),
                         [](const auto& info) { return std::string(testing::to_string(info.param)); });

// --- the deprecated inline constant buffers ------------------------------------

// A program whose constants are in Program.constant_buffer (as ExecuTorch
// wrote them before the constant segment): linear.pte with its two
// constants moved inline and the constant segment emptied.
TEST(InlineConstants, AreServedFromTheFlatbuffer) {
  const std::vector<uint8_t> original = testing::read_file_bytes(kPteFixtures + "linear.pte");
  const aot::pte::PteFile file = aot::pte::read_pte(original);
  const std::vector<uint8_t> bytes = testing::repack(original, [&](fb::ProgramT& p) {
    p.constant_buffer.clear();
    p.constant_buffer.emplace_back(new fb::BufferT);
    for (uint32_t index : {1u, 2u}) {
      const auto data = file.constant(index, index == 1 ? 128 : 16);
      p.constant_buffer.emplace_back(new fb::BufferT);
      p.constant_buffer.back()->storage.assign(data.begin(), data.end());
    }
    p.constant_segment->offsets = {0};
  });
  for (LoaderKind kind : kAllLoaderKinds) {
    std::unique_ptr<DataLoader> loader = testing::make_loader(kind, bytes);
    Result<Program> program = Program::load(loader.get(), Verification::InternalConsistency);
    ASSERT_TRUE(program.ok()) << testing::to_string(kind);
    for (uint32_t index : {1u, 2u}) {
      const size_t nbytes = index == 1 ? 128 : 16;
      Result<const void*> data = program->get_constant_buffer_data(index, nbytes);
      ASSERT_TRUE(data.ok());
      EXPECT_EQ(std::memcmp(*data, file.constant(index, nbytes).data(), nbytes), 0) << index;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(*data) % 16, 0u) << "storage is force_align 16";
    }
    LogCapture log;
    EXPECT_EQ(program->get_constant_buffer_data(2, 17).error(), Error::InvalidArgument);
    EXPECT_TRUE(log.contains("constant 2: 17 bytes asked, the inline constant buffer has 16")) << log.text();
    EXPECT_EQ(program->get_constant_buffer_data(3, 1).error(), Error::InvalidArgument);
    EXPECT_TRUE(log.contains("constant 3 is out of range (the program has 3 inline constant buffers")) << log.text();
  }
}

// --- what Program asks of its loader ---------------------------------------------

TEST(ProgramLoader, AsksForEachPieceWithItsSegmentInfo) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "buffer_init.pte");
  testing::RecordingLoader loader(bytes);
  Result<Program> program = Program::load(&loader, Verification::InternalConsistency);
  ASSERT_TRUE(program.ok());
  // The head, the flatbuffer, the constant segment (segment 0).
  EXPECT_EQ(loader.requests, (std::vector<std::string>{"load Program 0", "load Program 0", "load Constant 0"}));
  float initial = 0;
  ASSERT_EQ(program->load_mutable_subsegment_into(0, 1, sizeof initial, &initial), Error::Ok);
  EXPECT_EQ(loader.requests.back(), "load_into Mutable 1");

  const std::vector<uint8_t> demo = testing::demo_program_with_named_data();
  testing::RecordingLoader demo_loader(demo);
  Result<Program> demo_program = Program::load(&demo_loader);
  ASSERT_TRUE(demo_program.ok());
  ASSERT_TRUE(demo_program->get_data("w").ok());
  EXPECT_THAT(demo_loader.requests.back(), ::testing::StartsWith("load External "));
}

TEST(ProgramLoader, ALoaderFailureIsReturnedAsItIs) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "linear.pte");
  for (size_t fail_after = 0; fail_after < 3; ++fail_after) {
    testing::RecordingLoader loader(bytes);
    loader.fail_after = fail_after;
    EXPECT_EQ(Program::load(&loader).error(), Error::AccessFailed) << "failing after " << fail_after << " loads";
  }
  testing::RecordingLoader loader(bytes);
  loader.fail_after = 3;
  EXPECT_TRUE(Program::load(&loader).ok());
}

// --- lookups out of range -----------------------------------------------------

TEST(ProgramLookups, NameTheIndexOrNameThatIsOutOfRange) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "linear.pte");
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  LogCapture log;
  EXPECT_EQ(program->get_method_name(1).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("method index 1 is out of range")) << log.text();
  EXPECT_EQ(program->method_meta("backward").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("no method named 'backward'")) << log.text();
  // linear's constants: offsets [0, 0, 128] in a 144-byte segment.
  EXPECT_TRUE(program->get_constant_buffer_data(2, 16).ok());
  EXPECT_EQ(program->get_constant_buffer_data(2, 17).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("constant 2: 17 bytes at offset 128 run past the 144-byte constant segment")) << log.text();
  EXPECT_EQ(program->get_constant_buffer_data(3, 0).error(), Error::InvalidArgument);
  EXPECT_EQ(program->load_segment(SegmentInfo{SegmentInfo::Type::Backend, 1}).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("segment 1 is out of range")) << log.text();
  float f = 0;
  EXPECT_EQ(program->load_mutable_subsegment_into(0, 0, 4, &f), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("mutable_data_segments[0] is out of range")) << log.text();

  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->input_tag(1).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->output_tensor_meta(1).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->memory_planned_buffer_size(1).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("planned buffer 1 is out of range")) << log.text();
  EXPECT_EQ(meta->get_backend_name(0).error(), Error::InvalidArgument);
}

TEST(ProgramLoad, NeedsALoader) {
  LogCapture log;
  EXPECT_EQ(Program::load(nullptr).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("no data loader")) << log.text();
}

TEST(ProgramLoad, RefusesUnalignedProgramBytes) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "add.pte");
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  BufferDataLoader loader(shifted.data() + 1, bytes.size());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("are not aligned to 16")) << log.text();
}

TEST(ProgramLoad, ProgramMovesWithItsData) {
  const std::vector<uint8_t> bytes = testing::read_file_bytes(kPteFixtures + "linear.pte");
  std::unique_ptr<DataLoader> loader = testing::make_loader(LoaderKind::File, bytes);
  Result<Program> loaded = Program::load(loader.get());
  ASSERT_TRUE(loaded.ok());
  Program moved(std::move(*loaded));
  EXPECT_EQ(moved.num_methods(), 1u);
  EXPECT_TRUE(moved.get_constant_buffer_data(2, 16).ok());
}

}  // namespace
}  // namespace kiln::runtime
