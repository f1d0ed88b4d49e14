// Kiln's .pte reader against files that ExecuTorch wrote
// (tests/fixtures/pte, made by tools/fixtures/generate_pte.py): every fact
// the manifest records is what the reader finds, and a file read and written
// again by Kiln reads back equal.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_text.h"
#include "aot/emit/pte_writer.h"

namespace kiln::aot::pte {
namespace {

namespace fb = executorch_flatbuffer;
using nlohmann::json;

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/pte/";

json manifest() {
  std::ifstream in(kDir + "manifest.json");
  return json::parse(in);
}

const fb::TensorT& tensor_at(const fb::ExecutionPlanT& plan, int32_t index) {
  const auto* tensor = plan.values.at(static_cast<size_t>(index))->val.AsTensor();
  if (tensor == nullptr) throw std::runtime_error("value " + std::to_string(index) + " is not a tensor");
  return *tensor;
}

void expect_tensors(const fb::ExecutionPlanT& plan, const std::vector<int32_t>& indices, const json& expected,
                    const std::string& what) {
  ASSERT_EQ(indices.size(), expected.size()) << what;
  for (size_t i = 0; i < indices.size(); ++i) {
    const fb::TensorT& tensor = tensor_at(plan, indices[i]);
    EXPECT_EQ(static_cast<int>(tensor.scalar_type), expected[i]["scalar_type"].get<int>()) << what << " " << i;
    EXPECT_EQ(tensor.sizes, expected[i]["sizes"].get<std::vector<int32_t>>()) << what << " " << i;
    EXPECT_EQ(static_cast<int>(tensor.shape_dynamism), expected[i]["shape_dynamism"].get<int>()) << what << " " << i;
  }
}

TEST(ExecutorchFiles, ReaderFindsWhatTheManifestRecords) {
  const json files = manifest()["files"];
  ASSERT_GE(files.size(), 8u);
  for (const json& entry : files) {
    const std::string name = entry["file"];
    SCOPED_TRACE(name);
    const PteFile file = read_pte_file(kDir + name);
    EXPECT_EQ(file.bytes.size(), entry["file_size"].get<size_t>());
    EXPECT_EQ(file.header.has_value(), entry["header"]["extended"].get<bool>());
    if (file.header) {
      EXPECT_EQ(file.header->program_size, entry["header"]["program_size"].get<uint64_t>());
      EXPECT_EQ(file.header->segment_base_offset, entry["header"]["segment_base_offset"].get<uint64_t>());
      EXPECT_EQ(file.header->segment_data_size, entry["header"]["segment_data_size"].get<uint64_t>());
    }
    const fb::ProgramT& program = *file.program;
    EXPECT_EQ(program.version, entry["program_version"].get<uint32_t>());
    ASSERT_EQ(program.segments.size(), entry["segments"].size());
    for (size_t i = 0; i < program.segments.size(); ++i) {
      EXPECT_EQ(program.segments[i]->offset, entry["segments"][i][0].get<uint64_t>());
      EXPECT_EQ(program.segments[i]->size, entry["segments"][i][1].get<uint64_t>());
    }
    ASSERT_TRUE(program.constant_segment);
    EXPECT_EQ(program.constant_segment->segment_index, entry["constant_segment"]["segment_index"].get<uint32_t>());
    EXPECT_EQ(program.constant_segment->offsets, entry["constant_segment"]["offsets"].get<std::vector<uint64_t>>());
    EXPECT_EQ(program.mutable_data_segments.size(), entry["mutable_data_segments"].size());

    ASSERT_EQ(program.execution_plan.size(), 1u);
    const fb::ExecutionPlanT& plan = *program.execution_plan[0];
    EXPECT_EQ(plan.name, entry["method"].get<std::string>());
    EXPECT_EQ(plan.values.size(), entry["num_values"].get<size_t>());
    EXPECT_EQ(plan.inputs, entry["input_value_indices"].get<std::vector<int32_t>>());
    EXPECT_EQ(plan.outputs, entry["output_value_indices"].get<std::vector<int32_t>>());
    expect_tensors(plan, plan.inputs, entry["inputs"], "input");
    expect_tensors(plan, plan.outputs, entry["outputs"], "output");
    EXPECT_EQ(plan.non_const_buffer_sizes, entry["non_const_buffer_sizes"].get<std::vector<int64_t>>());
    ASSERT_EQ(plan.chains.size(), entry["num_chains"].get<size_t>());
    EXPECT_EQ(plan.chains[0]->instructions.size(), entry["num_instructions"].get<size_t>());
    std::vector<std::string> operators;
    for (const auto& op : plan.operators) operators.push_back(op->name + (op->overload.empty() ? "" : "." + op->overload));
    EXPECT_EQ(operators, entry["operators"].get<std::vector<std::string>>());
    EXPECT_EQ(plan.delegates.size(), entry["num_delegates"].get<size_t>());
    // Every constant a tensor names lies inside the constant segment.
    for (const auto& value : plan.values) {
      const auto* tensor = value->val.AsTensor();
      if (tensor == nullptr || tensor->data_buffer_idx == 0 || tensor->allocation_info) continue;
      EXPECT_NO_THROW(file.constant(tensor->data_buffer_idx, 1));
    }
    EXPECT_THAT(describe_pte(file), ::testing::HasSubstr("method 'forward'"));
  }
}

// Read ExecuTorch's file, give its program and data to Kiln's serializer,
// read the result: the same program and the same constant bytes.
TEST(ExecutorchFiles, RewrittenByKilnReadsBackEqual) {
  const json files = manifest()["files"];
  for (const json& entry : files) {
    const std::string name = entry["file"];
    SCOPED_TRACE(name);
    const PteFile original = read_pte_file(kDir + name);
    PteProgram input;
    input.program = *original.program;
    const auto& offsets = original.program->constant_segment->offsets;
    const auto constants = original.segment(original.program->constant_segment->segment_index);
    for (size_t i = 1; i < offsets.size(); ++i) {
      const size_t end = i + 1 < offsets.size() ? offsets[i + 1] : constants.size();
      input.constant_data.push_back(constants.subspan(offsets[i], end - offsets[i]));
    }
    for (const auto& mutables : original.program->mutable_data_segments) {
      const auto data = original.segment(mutables->segment_index);
      input.mutable_data.push_back({});
      for (size_t i = 1; i < mutables->offsets.size(); ++i) {
        const size_t end = i + 1 < mutables->offsets.size() ? mutables->offsets[i + 1] : data.size();
        input.mutable_data.push_back(data.subspan(mutables->offsets[i], end - mutables->offsets[i]));
      }
    }
    const PteFile rewritten = read_pte(serialize_pte(input));
    EXPECT_EQ(rewritten.header.has_value(), original.header.has_value());
    EXPECT_TRUE(*rewritten.program->execution_plan[0] == *original.program->execution_plan[0]);
    EXPECT_EQ(rewritten.program->constant_segment->offsets, offsets);
    ASSERT_EQ(rewritten.program->segments.size(), original.program->segments.size());
    for (size_t s = 0; s < original.program->segments.size(); ++s) {
      const auto a = original.segment(s);
      const auto b = rewritten.segment(s);
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "segment " << s;
    }
  }
}

}  // namespace
}  // namespace kiln::aot::pte
