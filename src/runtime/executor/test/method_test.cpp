// Method on real programs: every golden fixture lowered by Kiln (both IR
// levels) runs on the runtime with the reference interpreter's and PyTorch's
// results; every ExecuTorch-written .pte of tests/fixtures/pte runs with its
// recorded outputs (buffer state carried from call to call); and each bad
// input (shapes, dtypes, counts, missing kernels, too little memory, an
// unregistered backend) is refused with its error and a log line naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_writer.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/decompose.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/log.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using aot::HostTensor;
using ::testing::HasSubstr;

// ---- helpers ------------------------------------------------------------------

/// Every log line while alive.
class LogCapture {
 public:
  LogCapture() { previous_ = set_log_sink(&LogCapture::sink); lines().clear(); }
  ~LogCapture() { set_log_sink(previous_); }
  std::string text() const {
    std::string all;
    for (const std::string& line : lines()) all += line + "\n";
    return all;
  }
  size_t count_containing(const std::string& needle) const {
    size_t n = 0;
    for (const std::string& line : lines()) n += line.find(needle) != std::string::npos;
    return n;
  }

 private:
  static std::vector<std::string>& lines() {
    static std::vector<std::string> captured;
    return captured;
  }
  static void sink(LogLevel, const char* message) { lines().push_back(message); }
  LogSink previous_;
};

/// A loaded program and the bytes it reads.
struct LoadedProgram {
  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;

  const fb::ExecutionPlan* plan() const { return program->flatbuffer_program()->execution_plan()->Get(0); }
  size_t planned_size(size_t buffer) const { return static_cast<size_t>(plan()->non_const_buffer_sizes()->Get(buffer + 1)); }
  size_t num_planned() const { return plan()->non_const_buffer_sizes()->size() - 1; }
};

std::unique_ptr<LoadedProgram> load_program(std::vector<uint8_t> bytes) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->bytes = std::move(bytes);
  loaded->loader = std::make_unique<BufferDataLoader>(loaded->bytes.data(), loaded->bytes.size());
  Result<Program> program = Program::load(loaded->loader.get(), Program::Verification::InternalConsistency);
  if (!program.ok()) {
    ADD_FAILURE() << "Program::load: " << to_string(program.error());
    return nullptr;
  }
  loaded->program.emplace(std::move(program.get()));
  return loaded;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The caller's memory for one method: a method pool, planned buffers sized
/// as the plan says (or as told), a temp pool.
struct Memory {
  Memory(const LoadedProgram& program, size_t method_bytes = 1 << 20, std::optional<std::vector<size_t>> planned = {})
      : method_pool(method_bytes), temp_pool(1 << 20) {
    std::vector<size_t> sizes = planned.value_or(std::vector<size_t>{});
    if (!planned) {
      for (size_t i = 0; i < program.num_planned(); ++i) sizes.push_back(program.planned_size(i));
    }
    for (size_t size : sizes) buffers.emplace_back(size + 1);  // +1: a 0-byte arena still has an address
    for (size_t i = 0; i < sizes.size(); ++i) spans.emplace_back(buffers[i].data(), sizes[i]);
    method_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(method_pool.size()), method_pool.data());
    temp_allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(temp_pool.size()), temp_pool.data());
    planned_memory = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans.data(), spans.size()));
    manager = std::make_unique<MemoryManager>(method_allocator.get(), planned_memory.get(), temp_allocator.get());
  }
  std::vector<uint8_t> method_pool, temp_pool;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<MemoryAllocator> method_allocator, temp_allocator;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  std::unique_ptr<MemoryManager> manager;
};

Result<Method> load_method(const LoadedProgram& program, Memory& memory) {
  return Method::load(program.plan(), &*program.program, memory.manager.get());
}

/// A runtime tensor over a contiguous copy of a HostTensor.
class InputTensor {
 public:
  explicit InputTensor(const HostTensor& tensor) : host_(tensor.clone()) {
    for (int64_t size : host_.sizes()) sizes_.push_back(static_cast<SizesType>(size));
    for (size_t d = 0; d < sizes_.size(); ++d) dim_order_.push_back(static_cast<DimOrderType>(d));
    strides_.resize(sizes_.size());
    EXPECT_EQ(compute_strides({sizes_.data(), sizes_.size()}, {dim_order_.data(), dim_order_.size()},
                              {strides_.data(), strides_.size()}),
              Error::Ok);
    impl_ = std::make_unique<TensorImpl>(host_.dtype(), static_cast<ssize_t>(sizes_.size()), sizes_.data(),
                                         host_.data(), dim_order_.data(), strides_.data());
  }
  EValue value() const { return EValue(Tensor(impl_.get())); }

 private:
  HostTensor host_;
  std::vector<SizesType> sizes_;
  std::vector<DimOrderType> dim_order_;
  std::vector<StridesType> strides_;
  std::unique_ptr<TensorImpl> impl_;
};

HostTensor to_host(const Tensor& tensor) {
  std::vector<int64_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
  HostTensor host = HostTensor::zeros(tensor.scalar_type(), sizes);
  if (tensor.nbytes() > 0) std::memcpy(host.data(), tensor.const_data_ptr(), tensor.nbytes());
  return host;
}

std::vector<HostTensor> tensors_of(const std::vector<aot::Value>& values) {
  std::vector<HostTensor> tensors;
  for (const aot::Value& value : values) tensors.push_back(std::get<HostTensor>(value));
  return tensors;
}

/// Sets `inputs`, executes and returns every output (ASSERTs inside: check
/// HasFatalFailure after).
std::vector<HostTensor> run(Method& method, const std::vector<HostTensor>& inputs) {
  std::vector<std::unique_ptr<InputTensor>> owned;
  EXPECT_EQ(method.inputs_size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    owned.push_back(std::make_unique<InputTensor>(inputs[i]));
    EXPECT_EQ(method.set_input(owned.back()->value(), i), Error::Ok) << "input " << i;
  }
  EXPECT_EQ(method.execute(), Error::Ok);
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& output = method.get_output(i);
    EXPECT_TRUE(output.isTensor()) << "output " << i;
    if (output.isTensor()) outputs.push_back(to_host(output.toTensor()));
  }
  return outputs;
}

void expect_matches(const HostTensor& actual, const HostTensor& expected, const std::string& what) {
  aot::testing::expect_close(actual, expected, what);
}

// ---- Kiln's .pte of every golden fixture ------------------------------------------

struct FixtureProgram {
  std::string fixture;
  std::string file;
  std::vector<std::string> cases;
};

void PrintTo(const FixtureProgram& p, std::ostream* out) { *out << p.fixture << "/" << p.file; }

std::vector<FixtureProgram> fixture_programs() {
  std::vector<FixtureProgram> result;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) {
      result.push_back({fixture.at("name"), file, aot::testing::manifest_cases(fixture)});
    }
  }
  return result;
}

aot::ExportedProgram load_fixture(const std::string& fixture, const std::string& file) {
  aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + fixture + "/" + file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  return program;
}

/// The bytes of each mutable buffer the plan names, read from planned memory.
std::map<std::string, HostTensor> planned_buffers(const LoadedProgram& program, const Memory& memory) {
  std::map<std::string, HostTensor> buffers;
  const auto* values = program.plan()->values();
  for (size_t i = 0; i < values->size(); ++i) {
    const fb::Tensor* tensor = values->Get(i)->val_as_Tensor();
    if (tensor == nullptr || tensor->extra_tensor_info() == nullptr || tensor->allocation_info() == nullptr ||
        tensor->extra_tensor_info()->fully_qualified_name() == nullptr) {
      continue;
    }
    std::vector<int64_t> sizes(tensor->sizes()->begin(), tensor->sizes()->end());
    HostTensor host = HostTensor::zeros(static_cast<ScalarType>(tensor->scalar_type()), sizes);
    const auto* info = tensor->allocation_info();
    std::memcpy(host.data(), memory.buffers.at(info->memory_id() - 1).data() + info->memory_offset_low(), host.nbytes());
    buffers[tensor->extra_tensor_info()->fully_qualified_name()->str()] = host;
  }
  return buffers;
}

class KilnFixtureTest : public ::testing::TestWithParam<FixtureProgram> {};

TEST_P(KilnFixtureTest, RunsWithTheInterpretersAndPyTorchsResults) {
  const FixtureProgram& p = GetParam();
  const aot::ExecutorchProgram lowered = aot::to_executorch(load_fixture(p.fixture, p.file));
  const auto loaded = load_program(lowered.buffer);
  ASSERT_NE(loaded, nullptr);
  Memory memory(*loaded);
  Result<Method> method = load_method(*loaded, memory);
  ASSERT_TRUE(method.ok()) << to_string(method.error());

  aot::ExportedProgram reference = load_fixture(p.fixture, p.file);  // its state advances with the cases
  const auto* plan_inputs = loaded->plan()->inputs();
  const auto* plan_outputs = loaded->plan()->outputs();
  size_t compared = 0;
  for (const std::string& name : p.cases) {
    SCOPED_TRACE(p.fixture + "/" + p.file + " " + name);
    const aot::testing::CaseResult expected_run = aot::testing::run_case(reference, p.fixture, name);
    const std::map<std::string, HostTensor> expected = aot::testing::read_case_expected(p.fixture, name);
    const std::vector<HostTensor> outputs = run(*method, tensors_of(aot::testing::read_case_inputs(p.fixture, name)));
    ASSERT_FALSE(::testing::Test::HasFailure());
    // The plan lists mutated user inputs first, then the user outputs.
    ASSERT_GE(outputs.size(), expected_run.outputs.size());
    const size_t first_user = outputs.size() - expected_run.outputs.size();
    for (size_t i = 0; i < expected_run.outputs.size(); ++i, ++compared) {
      expect_matches(outputs[first_user + i], expected_run.outputs[i], "output " + std::to_string(i) + " vs interpreter");
      expect_matches(outputs[first_user + i], expected.at("output_" + std::to_string(i)),
                     "output " + std::to_string(i) + " vs PyTorch");
    }
    for (size_t o = 0; o < first_user; ++o) {
      for (size_t i = 0; i < plan_inputs->size(); ++i) {
        if (plan_inputs->Get(i) != plan_outputs->Get(o)) continue;
        expect_matches(outputs[o], expected.at("input_" + std::to_string(i)), "input " + std::to_string(i) + " after");
      }
    }
    for (const auto& [fqn, tensor] : planned_buffers(*loaded, memory)) {
      const auto it = expected.find("buffer:" + fqn);
      if (it != expected.end()) expect_matches(tensor, it->second, "buffer " + fqn);
    }
  }
  EXPECT_GT(compared, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, KilnFixtureTest, ::testing::ValuesIn(fixture_programs()), [](const auto& info) {
  std::string name = info.param.fixture + "_" + info.param.file;
  for (char& ch : name) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

// ---- ExecuTorch's .pte files --------------------------------------------------------

const std::string kPteDir = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

nlohmann::json pte_manifest() {
  std::ifstream in(kPteDir + "manifest.json");
  return nlohmann::json::parse(in);
}

std::vector<HostTensor> npz_tensors(const std::string& path) {
  std::vector<HostTensor> tensors;
  for (auto& [key, tensor] : aot::read_npz(path)) tensors.push_back(tensor);
  return tensors;
}

TEST(ExecutorchFiles, RunWithTheirRecordedOutputs) {
  const nlohmann::json files = pte_manifest()["files"];
  ASSERT_GE(files.size(), 8u);
  for (const nlohmann::json& entry : files) {
    const std::string file = entry["file"];
    SCOPED_TRACE(file);
    const auto loaded = load_program(read_bytes(kPteDir + file));
    ASSERT_NE(loaded, nullptr);
    Memory memory(*loaded);
    Result<Method> method = load_method(*loaded, memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error());
    const std::vector<HostTensor> inputs = npz_tensors(kPteDir + entry["inputs_npz"].get<std::string>());
    std::map<std::string, HostTensor> expected;
    for (auto& [key, tensor] : aot::read_npz(kPteDir + entry["expected_npz"].get<std::string>())) expected[key] = tensor;
    for (int call = 0; call < entry["calls"].get<int>(); ++call) {
      const std::vector<HostTensor> outputs = run(*method, inputs);
      ASSERT_FALSE(::testing::Test::HasFailure());
      const std::string prefix = call == 0 ? "output_" : "call" + std::to_string(call) + "_output_";
      ASSERT_EQ(outputs.size(), entry["output_value_indices"].size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        expect_matches(outputs[i], expected.at(prefix + std::to_string(i)), prefix + std::to_string(i));
      }
    }
  }
}

struct ExecutorchFile {
  explicit ExecutorchFile(const std::string& name, size_t method_bytes = 1 << 20)
      : program(load_program(read_bytes(kPteDir + name))) {
    if (program == nullptr) return;
    memory = std::make_unique<Memory>(*program, method_bytes);
    Result<Method> loaded = load_method(*program, *memory);
    EXPECT_TRUE(loaded.ok()) << name << ": " << to_string(loaded.error());
    if (loaded.ok()) method.emplace(std::move(loaded.get()));
  }
  std::unique_ptr<LoadedProgram> program;
  std::unique_ptr<Memory> memory;
  std::optional<Method> method;
};

HostTensor filled(ScalarType dtype, const std::vector<int64_t>& sizes, float value) {
  HostTensor t = HostTensor::zeros(dtype, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == ScalarType::Float) t.data<float>()[i] = value;
    if (dtype == ScalarType::Long) t.data<int64_t>()[i] = static_cast<int64_t>(value);
  }
  return t;
}

TEST(MethodState, BufferMutationPersistsAcrossExecutes) {
  // count starts at 5 (its initial value is in the file); out = (x + count) * 2; count += 1.
  ExecutorchFile file("buffer_init.pte");
  ASSERT_TRUE(file.method);
  const std::vector<HostTensor> x = npz_tensors(kPteDir + "buffer_init.inputs.npz");
  std::map<std::string, HostTensor> expected;
  for (auto& [key, tensor] : aot::read_npz(kPteDir + "buffer_init.expected.npz")) expected[key] = tensor;
  const std::vector<HostTensor> first = run(*file.method, x);
  const std::vector<HostTensor> second = run(*file.method, x);
  ASSERT_FALSE(::testing::Test::HasFailure());
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].to_doubles(), second[0].to_doubles());  // the state carried over
  expect_matches(first[0], expected.at("output_0"), "first call");
  expect_matches(second[0], expected.at("call1_output_0"), "second call");
}

// ---- dynamic shapes and bad inputs ------------------------------------------------

TEST(MethodInputs, DynamicBatchWithinBoundsResizesTheOutput) {
  ExecutorchFile file("dynamic_batch.pte");  // x: [batch <= 8, 4] -> [batch, 3]
  ASSERT_TRUE(file.method);
  for (int64_t batch : {3, 8, 1}) {
    const std::vector<HostTensor> outputs = run(*file.method, {filled(ScalarType::Float, {batch, 4}, 1.0f)});
    ASSERT_FALSE(::testing::Test::HasFailure());
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].sizes(), (std::vector<int64_t>{batch, 3}));
  }
}

TEST(MethodInputs, DynamicBatchAboveItsBoundIsRefused) {
  ExecutorchFile file("dynamic_batch.pte");
  ASSERT_TRUE(file.method);
  LogCapture log;
  InputTensor too_big(filled(ScalarType::Float, {9, 4}, 1.0f));
  EXPECT_EQ(file.method->set_input(too_big.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have sizes up to [8, 4], got [9, 4]"));
  InputTensor wide(filled(ScalarType::Float, {2, 5}, 1.0f));  // the feature dim is static
  EXPECT_EQ(file.method->set_input(wide.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("got [2, 5]"));
}

TEST(MethodInputs, WrongDtypeShapeRankOrCountIsNamed) {
  ExecutorchFile file("add.pte");  // two float [2, 3] inputs
  ASSERT_TRUE(file.method);
  LogCapture log;
  InputTensor longs(filled(ScalarType::Long, {2, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(longs.value(), 1), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 1 must have dtype Float, got Long"));
  InputTensor shape(filled(ScalarType::Float, {3, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(shape.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have sizes [2, 3], got [3, 3]"));
  InputTensor rank(filled(ScalarType::Float, {2, 3, 1}, 1.0f));
  EXPECT_EQ(file.method->set_input(rank.value(), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must have 2 dims, got 3"));
  EXPECT_EQ(file.method->set_input(EValue(int64_t{1}), 0), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 0 must be a Tensor, got Int"));
  InputTensor good(filled(ScalarType::Float, {2, 3}, 1.0f));
  EXPECT_EQ(file.method->set_input(good.value(), 2), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("input 2 is out of range (the method has 2 inputs)"));
  const EValue one[] = {good.value()};
  EXPECT_EQ(file.method->set_inputs(one), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("1 inputs given, the method takes 2"));
}

TEST(MethodInputs, ExecuteBeforeEveryInputIsSetIsInvalidState) {
  ExecutorchFile file("add.pte");
  ASSERT_TRUE(file.method);
  LogCapture log;
  EXPECT_EQ(file.method->execute(), Error::InvalidState);
  EXPECT_THAT(log.text(), HasSubstr("input 0 was never set"));
  InputTensor x(filled(ScalarType::Float, {2, 3}, 1.0f));
  ASSERT_EQ(file.method->set_input(x.value(), 0), Error::Ok);
  EXPECT_EQ(file.method->execute(), Error::InvalidState);
  EXPECT_THAT(log.text(), HasSubstr("input 1 was never set"));
  ASSERT_EQ(file.method->set_input(x.value(), 1), Error::Ok);
  EXPECT_EQ(file.method->execute(), Error::Ok);
  EXPECT_EQ(to_host(file.method->get_output(0).toTensor()).to_doubles(), std::vector<double>(6, 2.0));
}

// ---- memory ---------------------------------------------------------------------

TEST(MethodMemory, TooSmallAMethodAllocatorIsMemoryAllocationFailed) {
  const auto program = load_program(read_bytes(kPteDir + "small_conv_net.pte"));
  ASSERT_NE(program, nullptr);
  size_t needed = 0;
  {
    Memory memory(*program);
    ASSERT_TRUE(load_method(*program, memory).ok());
    needed = memory.method_allocator->used_size();
  }
  ASSERT_GT(needed, 0u);
  for (size_t size = 0; size < needed; size += needed / 13 + 1) {
    LogCapture log;
    Memory memory(*program, size);
    Result<Method> method = load_method(*program, memory);
    EXPECT_EQ(method.error(), Error::MemoryAllocationFailed) << size;
    EXPECT_THAT(log.text(), HasSubstr("the method allocator is full")) << size;
  }
  Memory exact(*program, needed);
  EXPECT_TRUE(load_method(*program, exact).ok());
}

TEST(MethodMemory, TooFewOrTooSmallPlannedBuffersAreInvalidArgument) {
  const auto program = load_program(read_bytes(kPteDir + "small_conv_net.pte"));  // one 3456-byte arena
  ASSERT_NE(program, nullptr);
  {
    LogCapture log;
    Memory none(*program, 1 << 20, std::vector<size_t>{});
    EXPECT_EQ(load_method(*program, none).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("the plan needs 1 planned buffers, the caller gave 0"));
  }
  {
    LogCapture log;
    Memory small(*program, 1 << 20, std::vector<size_t>{3455});
    EXPECT_EQ(load_method(*program, small).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("planned buffer 0 is 3455 bytes, the plan needs 3456"));
  }
  {
    std::vector<uint8_t> pool(1 << 20);
    MemoryAllocator allocator(static_cast<uint32_t>(pool.size()), pool.data());
    MemoryManager no_planned(&allocator);
    LogCapture log;
    EXPECT_EQ(Method::load(program->plan(), &*program->program, &no_planned).error(), Error::InvalidArgument);
    EXPECT_THAT(log.text(), HasSubstr("caller gave 0"));
  }
}

// ---- kernels --------------------------------------------------------------------

/// `file` from tests/fixtures/pte with operator `index` renamed, re-serialized.
std::vector<uint8_t> with_renamed_operators(const std::string& file,
                                            const std::vector<std::pair<size_t, std::string>>& renames) {
  aot::pte::PteFile original = aot::pte::read_pte_file(kPteDir + file);
  const std::vector<uint64_t> offsets = original.program->constant_segment->offsets;
  const auto constants = offsets.size() > 1 ? original.segment(original.program->constant_segment->segment_index)
                                            : std::span<const uint8_t>();
  aot::pte::PteProgram input;
  input.program = std::move(*original.program);
  for (size_t i = 1; i < offsets.size(); ++i) {
    const size_t end = i + 1 < offsets.size() ? offsets[i + 1] : constants.size();
    input.constant_data.push_back(constants.subspan(offsets[i], end - offsets[i]));
  }
  for (const auto& [index, name] : renames) {
    auto& op = *input.program.execution_plan[0]->operators.at(index);
    op.name = name.substr(0, name.find('.'));
    op.overload = name.find('.') == std::string::npos ? "" : name.substr(name.find('.') + 1);
  }
  return aot::pte::serialize_pte(input);
}

TEST(MethodKernels, EveryMissingKernelIsLoggedBeforeOperatorMissing) {
  // small_conv_net: convolution, batch norm, relu, max pool, permute_copy, addmm.
  const auto program = load_program(
      with_renamed_operators("small_conv_net.pte", {{0, "test::no_conv.out"}, {2, "test::no_relu.out"}}));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::OperatorMissing);
  EXPECT_THAT(log.text(), HasSubstr("no kernel registered for 'test::no_conv.out' (key v1/6;0,1,2,3|6;0,1,2,3|"));
  EXPECT_THAT(log.text(), HasSubstr("no kernel registered for 'test::no_relu.out' (key v1/6;0,1,2,3|6;0,1,2,3|6;0,1,2,3)"));
  EXPECT_THAT(log.text(), HasSubstr("2 kernel calls have no registered kernel"));
}

// Fills out (args[3] of an add.out-shaped call) with a marker.
template <int kMarker>
void fill_out(KernelRuntimeContext&, Span<EValue*> args) {
  const Tensor out = args[3]->toTensor();
  for (ssize_t i = 0; i < out.numel(); ++i) out.mutable_data_ptr<float>()[i] = kMarker;
}

TEST(MethodKernels, AnExactKernelKeyBeatsTheFallback) {
  // add.out's tensors: self, other, out, and the return slot (out again).
  const Kernel kernels[] = {{"test::keyed_add.out", fill_out<-1>},
                            {"test::keyed_add.out", fill_out<42>, "v1/6;0,1|6;0,1|6;0,1|6;0,1"},
                            {"test::long_keyed_add.out", fill_out<7>, "v1/4;0,1|4;0,1|4;0,1|4;0,1"},
                            {"test::long_keyed_add.out", fill_out<-7>}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const std::vector<HostTensor> x = {filled(ScalarType::Float, {2, 3}, 1.0f), filled(ScalarType::Float, {2, 3}, 1.0f)};
  for (const auto& [op, marker] : std::vector<std::pair<std::string, double>>{{"test::keyed_add.out", 42},
                                                                             {"test::long_keyed_add.out", -7}}) {
    const auto program = load_program(with_renamed_operators("add.pte", {{0, op}}));
    ASSERT_NE(program, nullptr);
    Memory memory(*program);
    Result<Method> method = load_method(*program, memory);
    ASSERT_TRUE(method.ok());
    const std::vector<HostTensor> outputs = run(*method, x);
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].to_doubles(), std::vector<double>(6, marker)) << op;
  }
}

void failing_kernel(KernelRuntimeContext& context, Span<EValue*>) {
  context.fail(Error::InvalidArgument, "test::failing.out: 'self' is unlucky");
}

TEST(MethodKernels, AKernelFailureNamesTheInstructionAndOperator) {
  const Kernel kernels[] = {{"test::failing.out", failing_kernel}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const auto program = load_program(with_renamed_operators("linear.pte", {{1, "test::failing.out"}}));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  Result<Method> method = load_method(*program, memory);
  ASSERT_TRUE(method.ok());
  InputTensor x(filled(ScalarType::Float, {2, 8}, 1.0f));
  ASSERT_EQ(method->set_input(x.value(), 0), Error::Ok);
  LogCapture log;
  EXPECT_EQ(method->execute(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("instruction 1 (test::failing.out) failed: test::failing.out: 'self' is unlucky"));
}

// ---- delegates ------------------------------------------------------------------

/// A runtime backend for the test backends' blobs: counts init, execute and
/// destroy; refuses the init numbered `refuse_init` (1-based; 0 never).
class CountingBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec>) const override {
    ++inits;
    if (inits == refuse_init) return Error::DelegateInvalidCompatibility;
    EXPECT_GT(processed->size(), 0u);
    EXPECT_STREQ(context.get_method_name(), "forward");
    int* handle = context.get_runtime_allocator()->allocateInstance<int>();
    if (handle == nullptr) return Error::DelegateMemoryAllocationFailed;
    *handle = inits;
    return static_cast<DelegateHandle*>(handle);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*> args) const override {
    ++executes;
    EXPECT_GT(args.size(), 0u);
    return Error::Ok;
  }
  void destroy(DelegateHandle* handle) const override {
    ++destroys;
    EXPECT_NE(handle, nullptr);
  }
  mutable int inits = 0, executes = 0, destroys = 0;
  int refuse_init = 0;
};

/// The counting backend registered under `name` (once per name).
CountingBackend& counting_backend(const char* name) {
  static std::map<std::string, std::unique_ptr<CountingBackend>> backends;
  auto& backend = backends[name];
  if (backend == nullptr) {
    backend = std::make_unique<CountingBackend>();
    EXPECT_EQ(register_backend({name, backend.get()}), Error::Ok);
  }
  return *backend;
}

/// mlp lowered with `partitioner`; each delegate's backend id replaced by
/// `backend_id` if it is not empty.
std::vector<uint8_t> delegated_mlp(const aot::Partitioner& partitioner, const std::string& backend_id = "") {
  const aot::ExportedProgram program = aot::to_backend(load_fixture("mlp", "model.core.pt2"), partitioner);
  aot::ExecutorchProgram lowered = aot::to_executorch(program);
  if (backend_id.empty()) return lowered.buffer;
  for (auto& delegate : lowered.emitted.program.program.execution_plan[0]->delegates) delegate->id = backend_id;
  return aot::pte::serialize_pte(lowered.emitted.program);
}

void set_inputs_of_ones(const LoadedProgram& program, Method& method, std::vector<std::unique_ptr<InputTensor>>& owned) {
  const auto* plan = program.plan();
  for (size_t i = 0; i < method.inputs_size(); ++i) {
    const fb::Tensor* t = plan->values()->Get(plan->inputs()->Get(i))->val_as_Tensor();
    ASSERT_NE(t, nullptr);
    const std::vector<int64_t> sizes(t->sizes()->begin(), t->sizes()->end());
    owned.push_back(std::make_unique<InputTensor>(filled(static_cast<ScalarType>(t->scalar_type()), sizes, 1.0f)));
    ASSERT_EQ(method.set_input(owned.back()->value(), i), Error::Ok);
  }
}

TEST(MethodDelegates, AnUnregisteredBackendIsNotFoundAndNamed) {
  const auto program = load_program(delegated_mlp(aot::AllNodePartitioner(aot::testing::kAllOps), "NoSuchBackend"));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("delegate 0: backend 'NoSuchBackend' is not registered"));
}

TEST(MethodDelegates, ADelegateCallRunsItsBackend) {
  CountingBackend& backend = counting_backend(aot::testing::kAllOps);
  const auto program = load_program(delegated_mlp(aot::AllNodePartitioner(aot::testing::kAllOps)));
  ASSERT_NE(program, nullptr);
  backend = CountingBackend();
  {
    Memory memory(*program);
    Result<Method> method = load_method(*program, memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error());
    EXPECT_EQ(backend.inits, 1);
    std::vector<std::unique_ptr<InputTensor>> inputs;
    set_inputs_of_ones(*program, *method, inputs);
    EXPECT_EQ(method->execute(), Error::Ok);
    EXPECT_EQ(method->execute(), Error::Ok);
    EXPECT_EQ(backend.executes, 2);
    EXPECT_EQ(backend.destroys, 0);
  }
  EXPECT_EQ(backend.destroys, 1);
}

TEST(MethodDelegates, EachIsInitialisedOnceAndDestroyedWithTheMethod) {
  CountingBackend& backend = counting_backend(aot::testing::kEveryOther);
  const auto program = load_program(delegated_mlp(aot::CapabilityPartitioner(aot::testing::kEveryOther)));
  ASSERT_NE(program, nullptr);
  const size_t delegates = program->plan()->delegates()->size();
  ASSERT_GE(delegates, 2u);
  backend = CountingBackend();
  {
    Memory memory(*program);
    Result<Method> method = load_method(*program, memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error());
    EXPECT_EQ(backend.inits, static_cast<int>(delegates));
    Method moved(std::move(method.get()));  // the handles move with the method, destroyed once
    EXPECT_EQ(backend.destroys, 0);
  }
  EXPECT_EQ(backend.destroys, static_cast<int>(delegates));
}

TEST(MethodDelegates, AFailedLoadDestroysWhatWasInitialised) {
  CountingBackend& backend = counting_backend(aot::testing::kEveryOther);
  const auto program = load_program(delegated_mlp(aot::CapabilityPartitioner(aot::testing::kEveryOther)));
  ASSERT_NE(program, nullptr);
  backend = CountingBackend();
  backend.refuse_init = 2;
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(backend.inits, 2);
  EXPECT_EQ(backend.destroys, 1);
  EXPECT_THAT(log.text(), HasSubstr("delegate 1: backend 'EveryOtherBackend' refused its blob"));
}

}  // namespace
}  // namespace kiln::runtime
