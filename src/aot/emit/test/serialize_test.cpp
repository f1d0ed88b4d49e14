// Serialization of .pte files: the header, segment layout and alignment, and
// round trips (write -> read -> equal) with and without segments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "aot/emit/pte_reader.h"
#include "aot/emit/pte_text.h"
#include "aot/emit/pte_writer.h"
#include "aot/ir/error.h"

namespace kiln::aot::pte {
namespace {

namespace fb = executorch_flatbuffer;
using ::testing::HasSubstr;

std::unique_ptr<fb::EValueT> int_value(int64_t v) {
  auto value = std::make_unique<fb::EValueT>();
  fb::IntT i;
  i.int_val = v;
  value->val.Set(std::move(i));
  return value;
}

std::unique_ptr<fb::EValueT> tensor_value(std::vector<int32_t> sizes, uint32_t data_buffer_idx, bool planned,
                                          uint64_t offset = 0) {
  auto value = std::make_unique<fb::EValueT>();
  fb::TensorT tensor;
  tensor.scalar_type = fb::ScalarType::FLOAT;
  tensor.sizes = sizes;
  for (size_t d = 0; d < sizes.size(); ++d) tensor.dim_order.push_back(static_cast<uint8_t>(d));
  tensor.data_buffer_idx = data_buffer_idx;
  if (planned) {
    tensor.allocation_info = std::make_unique<fb::AllocationDetailsT>();
    tensor.allocation_info->memory_id = 1;
    tensor.allocation_info->memory_offset_low = static_cast<uint32_t>(offset);
    tensor.allocation_info->memory_offset_high = static_cast<uint32_t>(offset >> 32);
  }
  value->val.Set(std::move(tensor));
  return value;
}

// A plan computing v2 = add(v0, v1) with one constant (v1) and one delegate.
struct Sample {
  std::vector<uint8_t> weights = std::vector<uint8_t>(12, 7);
  std::vector<uint8_t> more_weights = std::vector<uint8_t>(5, 9);
  std::vector<uint8_t> blob = {1, 2, 3, 4, 5};
  PteProgram program;

  explicit Sample(bool with_delegate = true) {
    auto plan = std::make_unique<fb::ExecutionPlanT>();
    plan->name = "forward";
    plan->values.push_back(tensor_value({3}, 0, true, 0));
    plan->values.push_back(tensor_value({3}, 1, false));
    plan->values.push_back(tensor_value({3}, 0, true, 16));
    plan->values.push_back(int_value(1));
    plan->values.push_back(tensor_value({5}, 2, false));
    plan->inputs = {0};
    plan->outputs = {2};
    auto op = std::make_unique<fb::OperatorT>();
    op->name = "aten::add";
    op->overload = "out";
    plan->operators.push_back(std::move(op));
    auto chain = std::make_unique<fb::ChainT>();
    auto instruction = std::make_unique<fb::InstructionT>();
    fb::KernelCallT call;
    call.op_index = 0;
    call.args = {0, 1, 3, 2, 2};
    instruction->instr_args.Set(std::move(call));
    chain->instructions.push_back(std::move(instruction));
    plan->chains.push_back(std::move(chain));
    plan->non_const_buffer_sizes = {0, 32};
    if (with_delegate) {
      auto delegate = std::make_unique<fb::BackendDelegateT>();
      delegate->id = "DemoBackend";
      delegate->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
      delegate->processed->location = fb::DataLocation::INLINE;
      delegate->processed->index = 0;
      plan->delegates.push_back(std::move(delegate));
      program.delegate_data.push_back(blob);
    }
    program.program.execution_plan.push_back(std::move(plan));
    program.constant_data.push_back(weights);
    program.constant_data.push_back(more_weights);
  }
};

uint32_t read_u32(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

TEST(Serialize, HeaderIsSplicedAfterTheIdentifier) {
  Sample sample;
  const std::vector<uint8_t> bytes = serialize_pte(sample.program);
  EXPECT_EQ(std::string(bytes.begin() + 4, bytes.begin() + 8), "ET12");
  EXPECT_EQ(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");
  EXPECT_EQ(read_u32(bytes, 12), 32u);
  const auto header = parse_header(bytes);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->segment_base_offset % 128, 0u);
  EXPECT_GE(header->segment_base_offset, header->program_size);
  EXPECT_EQ(bytes.size(), header->segment_base_offset + header->segment_data_size);
}

TEST(Serialize, RoundTripWithSegments) {
  Sample sample;
  PteFile file = read_pte(serialize_pte(sample.program));
  const auto& program = *file.program;
  ASSERT_EQ(program.execution_plan.size(), 1u);
  // The constant segment first, then the delegate's segment.
  ASSERT_EQ(program.segments.size(), 2u);
  ASSERT_TRUE(program.constant_segment);
  EXPECT_EQ(program.constant_segment->segment_index, 0u);
  EXPECT_THAT(program.constant_segment->offsets, ::testing::ElementsAre(0u, 0u, 16u));  // 12 bytes padded to 16
  EXPECT_EQ(program.segments[0]->size, 21u);  // 16 + 5: no padding after the last
  auto weights = file.constant(1, 12);
  EXPECT_EQ(std::vector<uint8_t>(weights.begin(), weights.end()), sample.weights);
  auto more = file.constant(2, 5);
  EXPECT_EQ(std::vector<uint8_t>(more.begin(), more.end()), sample.more_weights);
  const auto& delegate = *program.execution_plan[0]->delegates[0];
  EXPECT_EQ(delegate.processed->location, fb::DataLocation::SEGMENT);
  EXPECT_EQ(delegate.processed->index, 1u);
  EXPECT_EQ(program.segments[1]->offset % 128, 0u);
  auto blob = file.segment(1);
  EXPECT_EQ(std::vector<uint8_t>(blob.begin(), blob.end()), sample.blob);
  // Everything but the moved data is what was written.
  fb::ProgramT expected(sample.program.program);
  expected.execution_plan[0]->delegates[0]->processed->location = fb::DataLocation::SEGMENT;
  expected.execution_plan[0]->delegates[0]->processed->index = 1;
  EXPECT_TRUE(*expected.execution_plan[0] == *program.execution_plan[0]);
}

TEST(Serialize, RoundTripWithoutSegmentsHasNoHeader) {
  Sample sample(/*with_delegate=*/false);
  sample.program.constant_data.resize(1);  // only the placeholder
  sample.program.program.execution_plan[0]->values.pop_back();
  const std::vector<uint8_t> bytes = serialize_pte(sample.program);
  EXPECT_NE(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");
  PteFile file = read_pte(bytes);
  EXPECT_FALSE(file.header.has_value());
  ASSERT_TRUE(file.program->constant_segment);
  EXPECT_THAT(file.program->constant_segment->offsets, ::testing::ElementsAre(0u));
  EXPECT_TRUE(*file.program->execution_plan[0] == *sample.program.program.execution_plan[0]);
}

TEST(Serialize, InlineDelegateDataKeepsItsAlignment) {
  for (uint64_t alignment : {16u, 64u, 1024u}) {
    Sample sample;
    SerializeOptions options;
    options.extract_delegate_segments = false;
    options.delegate_alignment = alignment;
    const std::vector<uint8_t> bytes = serialize_pte(sample.program, options);
    PteFile file = read_pte(bytes);
    ASSERT_EQ(file.program->backend_delegate_data.size(), 1u);
    EXPECT_EQ(file.program->backend_delegate_data[0]->data, sample.blob);
    const auto* root = fb::GetProgram(file.bytes.data());
    const uint8_t* data = root->backend_delegate_data()->Get(0)->data()->data();
    EXPECT_EQ(static_cast<size_t>(data - file.bytes.data()) % alignment, 0u) << "alignment " << alignment;
  }
}

TEST(Serialize, ConstantAndSegmentAlignmentOptions) {
  for (uint64_t constant_alignment : {16u, 128u}) {
    for (uint64_t segment_alignment : {128u, 4096u}) {
      Sample sample;
      SerializeOptions options;
      options.constant_tensor_alignment = constant_alignment;
      options.segment_alignment = segment_alignment;
      PteFile file = read_pte(serialize_pte(sample.program, options));
      EXPECT_THAT(file.program->constant_segment->offsets, ::testing::ElementsAre(0u, 0u, constant_alignment));
      EXPECT_EQ(file.header->segment_base_offset % segment_alignment, 0u);
      for (const auto& segment : file.program->segments) EXPECT_EQ(segment->offset % segment_alignment, 0u);
      auto more = file.constant(2, 5);
      EXPECT_EQ(std::vector<uint8_t>(more.begin(), more.end()), sample.more_weights);
    }
  }
}

TEST(Serialize, IdenticalDelegateBlobsShareASegment) {
  Sample sample;
  auto& plan = *sample.program.program.execution_plan[0];
  auto second = std::make_unique<fb::BackendDelegateT>(*plan.delegates[0]);
  second->processed->index = 1;
  plan.delegates.push_back(std::move(second));
  std::vector<uint8_t> same_blob = sample.blob;
  sample.program.delegate_data.push_back(same_blob);
  PteFile file = read_pte(serialize_pte(sample.program));
  EXPECT_EQ(file.program->segments.size(), 2u);
  EXPECT_EQ(file.program->execution_plan[0]->delegates[1]->processed->index, 1u);
}

TEST(Serialize, NamedDataGetsSegmentsWithTheirAlignment) {
  Sample sample;
  std::vector<uint8_t> table(100, 3);
  sample.program.named_data.push_back({"weights.table", table, 256});
  sample.program.named_data.push_back({"same.table", table, 256});
  PteFile file = read_pte(serialize_pte(sample.program));
  ASSERT_EQ(file.program->named_data.size(), 2u);
  EXPECT_EQ(file.program->named_data[0]->segment_index, file.program->named_data[1]->segment_index);
  const size_t index = file.program->named_data[0]->segment_index;
  EXPECT_EQ(file.program->segments[index]->offset % 256, 0u);
  auto data = file.segment(index);
  EXPECT_EQ(std::vector<uint8_t>(data.begin(), data.end()), table);
}

TEST(Serialize, RejectsAlignmentsThatAreNotPowersOfTwo) {
  Sample sample;
  SerializeOptions options;
  options.constant_tensor_alignment = 24;
  try {
    serialize_pte(sample.program, options);
    FAIL() << "expected an error";
  } catch (const AotError& error) {
    EXPECT_THAT(error.what(), HasSubstr("constant tensor alignment must be a power of two, got 24"));
  }
}

TEST(Read, RejectsBadFiles) {
  Sample sample;
  const std::vector<uint8_t> good = serialize_pte(sample.program);
  auto message = [](std::vector<uint8_t> bytes) {
    try {
      read_pte(std::move(bytes));
    } catch (const AotError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message({1, 2, 3}), HasSubstr("not a .pte file"));
  std::vector<uint8_t> other_version = good;
  other_version[6] = '9';
  EXPECT_THAT(message(other_version), HasSubstr("another format version ('ET92')"));
  std::vector<uint8_t> bad_header = good;
  bad_header[12] = 8;  // header length below the minimum
  EXPECT_THAT(message(bad_header), HasSubstr("extended header's length is 8"));
  std::vector<uint8_t> truncated(good.begin(), good.end() - 3);
  EXPECT_THAT(message(truncated), HasSubstr("lies outside the file"));
  // Every prefix is refused with an error, never a crash.
  for (size_t size = 0; size < good.size(); size += 7) {
    EXPECT_NE(message(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<ptrdiff_t>(size))), "no error")
        << "prefix of " << size << " bytes";
  }
}

TEST(Write, LeavesNoPartialFileOnFailure) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kiln_emit_write_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<uint8_t> bytes(100, 1);
  EXPECT_THROW(write_file_atomically((dir / "missing" / "x.pte").string(), bytes), AotError);
  write_file_atomically((dir / "x.pte").string(), bytes);
  EXPECT_EQ(std::filesystem::file_size(dir / "x.pte"), 100u);
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);  // no temporary left behind
  std::filesystem::remove_all(dir);
}

TEST(Text, DescribesPlansInstructionsAndSegments) {
  Sample sample;
  const std::string text = describe_pte(read_pte(serialize_pte(sample.program)));
  EXPECT_THAT(text, HasSubstr("method 'forward': 5 values, 1 inputs, 1 outputs"));
  EXPECT_THAT(text, HasSubstr("v1: tensor Float[3] constant[1]"));
  EXPECT_THAT(text, HasSubstr("v2: tensor Float[3] planned(arena 1 @ 16)"));
  EXPECT_THAT(text, HasSubstr("0: aten::add.out [v0, v1, v3, v2, v2]"));
  EXPECT_THAT(text, HasSubstr("#0 'DemoBackend', blob 5 bytes in segment 1"));
  EXPECT_THAT(text, HasSubstr("arena 1 = 32 bytes"));
}

}  // namespace
}  // namespace kiln::aot::pte
