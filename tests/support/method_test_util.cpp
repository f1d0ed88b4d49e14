#include "tests/support/method_test_util.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <span>

#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_writer.h"
#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/decompose.h"

namespace kiln::runtime::method_testing {

std::unique_ptr<LoadedProgram> load_program(std::vector<uint8_t> bytes,
                                            Program::Verification verification) {
  auto loaded = std::make_unique<LoadedProgram>();
  loaded->bytes = std::move(bytes);
  loaded->loader = std::make_unique<BufferDataLoader>(loaded->bytes.data(), loaded->bytes.size());
  Result<Program> program = Program::load(loaded->loader.get(), verification);
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

Result<Method> load_method(const LoadedProgram& program, Memory& memory) {
  return Method::load(program.plan(), &*program.program, memory.manager.get());
}

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

aot::ExportedProgram load_fixture(const std::string& fixture, const std::string& file) {
  aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + fixture + "/" + file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  return program;
}

std::vector<HostTensor> npz_tensors(const std::string& path) {
  std::vector<HostTensor> tensors;
  for (auto& [key, tensor] : aot::read_npz(path)) tensors.push_back(tensor);
  return tensors;
}

HostTensor filled(ScalarType dtype, const std::vector<int64_t>& sizes, float value) {
  HostTensor t = HostTensor::zeros(dtype, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == ScalarType::Float) t.data<float>()[i] = value;
    if (dtype == ScalarType::Long) t.data<int64_t>()[i] = static_cast<int64_t>(value);
  }
  return t;
}

std::vector<uint8_t> rewritten(const std::string& file, const std::function<void(fb::ExecutionPlanT&)>& edit) {
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
  edit(*input.program.execution_plan[0]);
  return aot::pte::serialize_pte(input);
}

std::vector<uint8_t> with_renamed_operators(const std::string& file,
                                            const std::vector<std::pair<size_t, std::string>>& renames) {
  return rewritten(file, [&](fb::ExecutionPlanT& plan) {
    for (const auto& [index, name] : renames) {
      auto& op = *plan.operators.at(index);
      op.name = name.substr(0, name.find('.'));
      op.overload = name.find('.') == std::string::npos ? "" : name.substr(name.find('.') + 1);
    }
  });
}

}  // namespace kiln::runtime::method_testing
