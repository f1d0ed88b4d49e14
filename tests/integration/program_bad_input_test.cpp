// Program::load on bad input: truncated files, wrong identifiers, bad
// extended headers, and programs corrupted one field at a time (unpacked with
// the flatbuffers object API, changed, packed again around the original
// segments). Each is refused with a specific Error and a log line that names
// what was wrong; nothing aborts or reads out of bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <string>

#include "aot/emit/pte_reader.h"
#include "runtime/core/test/log_capture.h"
#include "runtime/executor/program.h"
#include "runtime/executor/pte_header.h"
#include "tests/support/program_test_util.h"
#include "runtime/loader/buffer_data_loader.h"
#include "schema/program_generated.h"

namespace kiln::runtime {
namespace {

using testing::kPteFixtures;

namespace fb = executorch_flatbuffer;
using testing::LoaderKind;
using testing::LogCapture;
using Verification = Program::Verification;

const char* const kEtFiles[] = {"add.pte", "linear.pte", "small_conv_net.pte", "buffer_mutation.pte",
                                "buffer_init.pte", "input_mutation.pte", "two_outputs.pte", "dynamic_batch.pte"};

std::vector<uint8_t> fixture(const std::string& name) { return testing::read_file_bytes(kPteFixtures + name); }

/// What loading `bytes` gave: the error (Ok if it loaded) and the log.
struct Outcome {
  Error error;
  std::string log;
};

Outcome load(const std::vector<uint8_t>& bytes, Verification verification = Verification::InternalConsistency,
             LoaderKind kind = LoaderKind::Buffer) {
  std::unique_ptr<DataLoader> loader = testing::make_loader(kind, bytes);
  LogCapture log;
  Result<Program> program = Program::load(loader.get(), verification);
  return {program.ok() ? Error::Ok : program.error(), log.text()};
}

#define EXPECT_REFUSED(outcome, expected_error, message)                                              \
  do {                                                                                                \
    const Outcome& o_ = (outcome);                                                                    \
    EXPECT_EQ(o_.error, Error::expected_error) << "got " << runtime::to_string(o_.error) << "\n" << o_.log; \
    EXPECT_NE(o_.log.find(message), std::string::npos) << "log lacks \"" << message << "\":\n" << o_.log; \
  } while (0)

// --- truncation ---------------------------------------------------------------

bool has_header(const std::vector<uint8_t>& bytes) { return std::memcmp(bytes.data() + 8, "eh00", 4) == 0; }

/// Every 1 KiB cut, and the cuts around the header's boundaries.
std::vector<size_t> cuts_of(const std::vector<uint8_t>& bytes) {
  std::vector<size_t> cuts = {0, 7, 8, 63, 64, bytes.size() - 1};
  for (size_t cut = 1024; cut < bytes.size(); cut += 1024) cuts.push_back(cut);
  pte::ExtendedHeader header;
  if (pte::parse_header(bytes.data(), bytes.size(), &header) == pte::HeaderStatus::Present) {
    for (uint64_t at : {header.program_size - 1, header.program_size, header.segment_base_offset,
                        header.segment_base_offset + 1}) {
      if (at < bytes.size()) cuts.push_back(static_cast<size_t>(at));
    }
  }
  return cuts;
}

class TruncatedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TruncatedTest, EveryCutIsRefused) {
  const std::vector<uint8_t> bytes = fixture(GetParam());
  for (size_t cut : cuts_of(bytes)) {
    SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(bytes.size()));
    const std::vector<uint8_t> cut_bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    const Outcome full = load(cut_bytes);
    EXPECT_EQ(full.error, Error::InvalidProgram) << full.log;
    EXPECT_FALSE(full.log.empty());
    if (cut < pte::kNumHeadBytes) {
      EXPECT_NE(full.log.find("too short for a .pte program"), std::string::npos) << full.log;
    } else if (has_header(bytes)) {
      EXPECT_NE(full.log.find("truncated?"), std::string::npos) << full.log;
      // The header gives the cut away before the flatbuffer is read, so even
      // minimal verification and every loader refuse it.
      for (LoaderKind kind : testing::kAllLoaderKinds) {
        const Outcome minimal = load(cut_bytes, Verification::Minimal, kind);
        EXPECT_EQ(minimal.error, Error::InvalidProgram) << testing::to_string(kind) << "\n" << minimal.log;
      }
    } else {
      // A file without a header is its flatbuffer: the verifier finds the cut.
      EXPECT_NE(full.log.find("fails verification"), std::string::npos) << full.log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EtFiles, TruncatedTest, ::testing::ValuesIn(kEtFiles), [](const auto& info) {
  std::string name = info.param;
  return name.substr(0, name.find('.'));
});

TEST(TruncatedKilnFiles, EveryCutIsRefused) {
  std::vector<std::vector<uint8_t>> files = {testing::demo_program_with_named_data()};
  for (const auto& [fixture, file] : testing::fixture_program_files()) {
    files.push_back(testing::kiln_program(fixture, file, false).buffer);
  }
  for (const std::vector<uint8_t>& bytes : files) {
    for (size_t cut : cuts_of(bytes)) {
      const Outcome outcome = load(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
      EXPECT_EQ(outcome.error, Error::InvalidProgram) << "cut at " << cut << " of " << bytes.size() << "\n" << outcome.log;
    }
  }
}

// --- identifier, header, root ---------------------------------------------------

TEST(BadHead, WrongIdentifier) {
  std::vector<uint8_t> bytes = fixture("linear.pte");
  std::memcpy(bytes.data() + 4, "XY12", 4);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram, "not a .pte file");
  std::memcpy(bytes.data() + 4, "ET13", 4);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), NotSupported, "'ET13' is a .pte version this runtime does not read");
}

void set_header_field(std::vector<uint8_t>& bytes, size_t field_offset, uint64_t value, size_t width = 8) {
  pte::write_le(bytes.data() + pte::kHeaderOffset + field_offset, value, width);
}

TEST(BadHead, ExtendedHeaderFields) {
  const std::vector<uint8_t> good = fixture("linear.pte");  // program_size 1464, base 1536, 144 bytes of segments
  auto with = [&](size_t field, uint64_t value, size_t width = 8) {
    std::vector<uint8_t> bytes = good;
    set_header_field(bytes, field, value, width);
    return load(bytes, Verification::Minimal);
  };
  using pte::kHeaderLengthField, pte::kHeaderProgramSizeField, pte::kHeaderSegmentBaseOffsetField,
      pte::kHeaderSegmentDataSizeField;
  EXPECT_REFUSED(with(kHeaderLengthField, 16, 4), InvalidProgram, "extended header length 16 is below the minimum 24");
  EXPECT_REFUSED(with(kHeaderProgramSizeField, good.size() + 1), InvalidProgram, "program_size 1681 is outside");
  EXPECT_REFUSED(with(kHeaderProgramSizeField, 20), InvalidProgram, "program_size 20 is outside");
  EXPECT_REFUSED(with(kHeaderProgramSizeField, UINT64_MAX), InvalidProgram, "program_size 18446744073709551615 is outside");
  EXPECT_REFUSED(with(kHeaderSegmentBaseOffsetField, 1000), InvalidProgram, "segment_base_offset 1000 is inside the flatbuffer");
  EXPECT_REFUSED(with(kHeaderSegmentDataSizeField, 145), InvalidProgram, "segment data [1536, +145) ends past the 1680-byte file");
  EXPECT_REFUSED(with(kHeaderSegmentBaseOffsetField, UINT64_MAX - 10), InvalidProgram, "ends past the 1680-byte file");
  // The length may be larger than written (a newer header), and 24 (before segment_data_size).
  EXPECT_EQ(with(kHeaderLengthField, 40, 4).error, Error::Ok);
  EXPECT_EQ(with(kHeaderLengthField, 24, 4).error, Error::Ok);
}

TEST(BadHead, HeaderOfAnOldFileWithoutSegmentDataSize) {
  // segment_data_size 0 (ExecuTorch before 1.0): the segments' own ranges are still checked.
  std::vector<uint8_t> bytes = fixture("linear.pte");
  set_header_field(bytes, pte::kHeaderSegmentDataSizeField, 0);
  EXPECT_EQ(load(bytes).error, Error::Ok);
  bytes.resize(bytes.size() - 1);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram, "segment 0 [1536, +144) ends past the 1679-byte file");
  EXPECT_REFUSED(load(bytes), InvalidProgram, "segments[0] [0, 144) from segment base 1536 ends past the 1679-byte file");
}

TEST(BadHead, SegmentsWithoutASegmentBase) {
  std::vector<uint8_t> bytes = fixture("linear.pte");
  set_header_field(bytes, pte::kHeaderSegmentBaseOffsetField, 0);
  set_header_field(bytes, pte::kHeaderSegmentDataSizeField, 0);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram,
                 "segment 0 has 144 bytes but the file has no segment base");
  EXPECT_REFUSED(load(bytes), InvalidProgram, "segments[0] has 144 bytes but the file has no segment base");
}

TEST(BadHead, RootOffsetOutsideTheFlatbuffer) {
  std::vector<uint8_t> bytes = fixture("add.pte");
  pte::write_le(bytes.data(), bytes.size() + 100, 4);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram, "root offset 1172 is outside its 1072 bytes");
  pte::write_le(bytes.data(), 2, 4);
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram, "root offset 2 is outside");
}

TEST(BadHead, GarbledTablesFailTheVerifier) {
  std::vector<uint8_t> bytes = fixture("add.pte");
  const uint32_t root = static_cast<uint32_t>(pte::read_le(bytes.data(), 4));
  pte::write_le(bytes.data() + root, 0x7FFFFFF0u, 4);  // the root table's vtable offset
  EXPECT_REFUSED(load(bytes), InvalidProgram, "the flatbuffer fails verification");
}

// --- corrupted programs -----------------------------------------------------------

std::vector<uint8_t> corrupt(const std::vector<uint8_t>& bytes, const std::function<void(fb::ProgramT&)>& mutate) {
  return testing::repack(bytes, mutate);
}

fb::ExecutionPlanT& plan_of(fb::ProgramT& program) { return *program.execution_plan.at(0); }

/// The index of the first value of `plan` for which `pick` holds.
size_t find_value(fb::ExecutionPlanT& plan, const std::function<bool(const fb::EValueT&)>& pick) {
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (pick(*plan.values[v])) return v;
  }
  ADD_FAILURE() << "no such value";
  return 0;
}

fb::TensorT& tensor_at(fb::ExecutionPlanT& plan, size_t v) { return *plan.values.at(v)->val.AsTensor(); }

size_t planned_tensor(fb::ExecutionPlanT& plan) {
  return find_value(plan, [](const fb::EValueT& v) { return v.val.AsTensor() && v.val.AsTensor()->allocation_info; });
}
size_t constant_tensor(fb::ExecutionPlanT& plan) {
  return find_value(plan, [](const fb::EValueT& v) {
    return v.val.AsTensor() && !v.val.AsTensor()->allocation_info && v.val.AsTensor()->data_buffer_idx > 0;
  });
}
fb::KernelCallT& first_kernel_call(fb::ExecutionPlanT& plan) {
  for (auto& instruction : plan.chains.at(0)->instructions) {
    if (auto* call = instruction->instr_args.AsKernelCall()) return *call;
  }
  throw std::runtime_error("no kernel call");
}

/// Loads the corrupted program: Minimal trusts it, InternalConsistency must
/// refuse it with InvalidProgram and `message`.
void expect_only_full_verification_refuses(const std::vector<uint8_t>& bytes, const std::string& message) {
  EXPECT_EQ(load(bytes, Verification::Minimal).error, Error::Ok);
  EXPECT_REFUSED(load(bytes), InvalidProgram, message);
}

class CorruptedTest : public ::testing::Test {
 protected:
  const std::vector<uint8_t> conv_ = fixture("small_conv_net.pte");
};

TEST_F(CorruptedTest, RepackingWithoutAChangeStillLoads) {
  for (const char* name : kEtFiles) {
    const std::vector<uint8_t> bytes = corrupt(fixture(name), [](fb::ProgramT&) {});
    for (LoaderKind kind : testing::kAllLoaderKinds) EXPECT_EQ(load(bytes, Verification::InternalConsistency, kind).error, Error::Ok) << name;
  }
  EXPECT_EQ(load(corrupt(testing::demo_program_with_named_data(), [](fb::ProgramT&) {})).error, Error::Ok);
}

TEST_F(CorruptedTest, SegmentPastTheEndOfTheFile) {
  const auto bytes = corrupt(conv_, [](fb::ProgramT& p) { p.segments[0]->offset = 4096; });
  EXPECT_REFUSED(load(bytes, Verification::Minimal), InvalidProgram, "segment 0 [");  // the constant segment load
  EXPECT_REFUSED(load(bytes), InvalidProgram, "segments[0] [4096, 6808) ends past the header's segment_data_size 2712");
  const auto overflowing = corrupt(conv_, [](fb::ProgramT& p) { p.segments[0]->offset = UINT64_MAX - 4; });
  EXPECT_REFUSED(load(overflowing), InvalidProgram, "segments[0]: offset 18446744073709551611 + size 2712 overflows");
  EXPECT_REFUSED(load(overflowing, Verification::Minimal), InvalidProgram, "overflows the file offsets");
}

TEST_F(CorruptedTest, ConstantOffsetPastTheSegment) {
  EXPECT_REFUSED(load(corrupt(conv_, [](fb::ProgramT& p) { p.constant_segment->offsets[2] = 100000; })),
                 InvalidProgram, "constant_segment.offsets[2] = 100000 is past the end of its 2712-byte segment 0");
  // In the segment, but the tensor's bytes run past its end.
  EXPECT_REFUSED(load(corrupt(conv_, [](fb::ProgramT& p) { p.constant_segment->offsets[2] = 2700; })),
                 InvalidProgram, "runs past the 2712-byte constant segment");
  EXPECT_REFUSED(load(corrupt(conv_, [](fb::ProgramT& p) { p.constant_segment->segment_index = 3; })), InvalidProgram,
                 "constant_segment.segment_index 3 is out of range");
  EXPECT_REFUSED(load(corrupt(conv_, [](fb::ProgramT& p) { p.constant_segment->segment_index = 3; }), Verification::Minimal),
                 InvalidProgram, "segment 3 is out of range");
}

TEST_F(CorruptedTest, ConstantIndexOutOfRange) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), constant_tensor(plan_of(p))).data_buffer_idx = 8;
  }), "data_buffer_idx 8 is out of range (constant_segment has 8 offsets)");
}

TEST_F(CorruptedTest, ValueIndicesOutOfRange) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { plan_of(p).inputs[0] = 9999; }),
                                        "execution_plan[0].inputs[0] = 9999 is not a value index");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { plan_of(p).outputs[0] = -1; }),
                                        "execution_plan[0].outputs[0] = -1 is not a value index");
  expect_only_full_verification_refuses(
      corrupt(conv_, [](fb::ProgramT& p) { first_kernel_call(plan_of(p)).args[1] = 9999; }),
      "chains[0].instructions[0]: arg 1 = 9999 is not a value index");
}

TEST_F(CorruptedTest, OperatorIndexOutOfRange) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { first_kernel_call(plan_of(p)).op_index = 42; }),
                                        "op_index 42 is out of range");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { plan_of(p).operators[0]->name.clear(); }),
                                        "execution_plan[0].operators[0] has no name");  // packed as no string
}

TEST_F(CorruptedTest, ListItemsOfTheWrongKind) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    fb::ExecutionPlanT& plan = plan_of(p);
    const size_t list = find_value(plan, [](const fb::EValueT& v) { return v.val.AsIntList() != nullptr; });
    plan.values[list]->val.AsIntList()->items[0] = static_cast<int64_t>(planned_tensor(plan));
  }), "IntList item 0");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    fb::ExecutionPlanT& plan = plan_of(p);
    fb::TensorListT list;
    list.items = {static_cast<int32_t>(planned_tensor(plan)), 0};
    list.items[1] = static_cast<int32_t>(find_value(plan, [](const fb::EValueT& v) { return v.val.AsInt() != nullptr; }));
    plan.values.emplace_back(new fb::EValueT);
    plan.values.back()->val.Set(std::move(list));
  }), "TensorList item 1");
}

// FlatBuffers does not align an empty vector (nothing is read from it): empty
// IntLists and DoubleLists, wherever they land, load (GPT-2's program has one).
TEST_F(CorruptedTest, EmptyListsNeedNoAlignment) {
  const std::vector<uint8_t> bytes = corrupt(conv_, [](fb::ProgramT& p) {
    fb::ExecutionPlanT& plan = plan_of(p);
    for (int i = 0; i < 4; ++i) {
      plan.values.emplace_back(new fb::EValueT);
      plan.values.back()->val.Set(fb::IntListT{});
      plan.values.emplace_back(new fb::EValueT);
      plan.values.back()->val.Set(fb::DoubleListT{});
      plan.values.emplace_back(new fb::EValueT);
      fb::BoolT flag;
      flag.bool_val = true;
      plan.values.back()->val.Set(std::move(flag));
    }
  });
  // At least one empty list sits off an 8-byte boundary, or this proves nothing.
  bool misaligned = false;
  for (const fb::EValue* value : *fb::GetProgram(bytes.data())->execution_plan()->Get(0)->values()) {
    const void* items = value->val_type() == fb::KernelTypes::IntList
                            ? static_cast<const void*>(value->val_as_IntList()->items()->data())
                        : value->val_type() == fb::KernelTypes::DoubleList
                            ? static_cast<const void*>(value->val_as_DoubleList()->items()->data())
                            : nullptr;
    if (items != nullptr && reinterpret_cast<uintptr_t>(items) % 8 != 0) misaligned = true;
  }
  ASSERT_TRUE(misaligned);
  EXPECT_EQ(load(bytes).error, Error::Ok);
}

TEST_F(CorruptedTest, TensorSizes) {
  const auto with_sizes = [&](std::vector<int32_t> sizes, std::vector<uint8_t> dim_order) {
    return corrupt(conv_, [&](fb::ProgramT& p) {
      fb::TensorT& tensor = tensor_at(plan_of(p), planned_tensor(plan_of(p)));
      tensor.sizes = sizes;
      tensor.dim_order = dim_order;
    });
  };
  expect_only_full_verification_refuses(with_sizes({INT32_MAX, INT32_MAX, INT32_MAX}, {0, 1, 2}), "byte count overflows");
  expect_only_full_verification_refuses(with_sizes({2, -3}, {0, 1}), "sizes[1] is negative (-3)");
  expect_only_full_verification_refuses(with_sizes({2, 3}, {0, 0}), "dim_order is not a permutation of its 2 dims (entry 1 is 0)");
  expect_only_full_verification_refuses(with_sizes({2, 3}, {0, 2}), "dim_order is not a permutation");
  expect_only_full_verification_refuses(with_sizes({2, 3}, {0}), "has 2 sizes but 1 dim_order entries");
}

TEST_F(CorruptedTest, UnknownDtype) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), planned_tensor(plan_of(p))).scalar_type = static_cast<fb::ScalarType>(99);
  }), "scalar_type 99 is not a dtype this runtime knows");
}

TEST_F(CorruptedTest, PlannedTensorOutsideItsBuffer) {
  // small_conv_net plans 3456 bytes in buffer 1.
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), planned_tensor(plan_of(p))).allocation_info->memory_offset_low = 3450;
  }), "at offset 3450 lies outside planned buffer 1 (3456 bytes)");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), planned_tensor(plan_of(p))).allocation_info->memory_offset_high = 1;
  }), "at offset 4294969216 lies outside planned buffer 1");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), planned_tensor(plan_of(p))).allocation_info->memory_id = 2;
  }), "memory_id 2 is not a planned buffer (ids 1..1; 0 is reserved)");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { plan_of(p).non_const_buffer_sizes[1] = 100; }),
                                        "lies outside planned buffer 1 (100 bytes)");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { plan_of(p).non_const_buffer_sizes[1] = -1; }),
                                        "non_const_buffer_sizes[1] is negative (-1)");
}

TEST_F(CorruptedTest, MisalignedData) {
  // small_conv_net's constant 2 is a float tensor at offset 656 of the segment.
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) { p.constant_segment->offsets[2] = 658; }),
                                        "constant 2 at offset 658 of its segment (file offset 4626) is not aligned to its "
                                        "element size 4");
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    tensor_at(plan_of(p), planned_tensor(plan_of(p))).allocation_info->memory_offset_low = 2;
  }), "planned tensor offset 2 in buffer 1 is not a multiple of its element size 4");
}

TEST_F(CorruptedTest, BoolConstantsHoldOnlyZeroOrOne) {
  // Value 8 (num_batches_tracked, Long[] constant 7) holds 8 zero bytes;
  // value 1 (Float[6] constant 2) holds float bytes (a6 0b a7 bd ...).
  const auto as_bool = [&](size_t v, std::vector<int32_t> sizes) {
    return corrupt(conv_, [&](fb::ProgramT& p) {
      fb::TensorT& tensor = tensor_at(plan_of(p), v);
      tensor.scalar_type = fb::ScalarType::BOOL;
      tensor.sizes = sizes;
      tensor.dim_order = {0};
    });
  };
  for (LoaderKind kind : testing::kAllLoaderKinds) {
    EXPECT_EQ(load(as_bool(8, {8}), Verification::InternalConsistency, kind).error, Error::Ok) << testing::to_string(kind);
    EXPECT_REFUSED(load(as_bool(1, {6}), Verification::InternalConsistency, kind), InvalidProgram,
                   "execution_plan[0].values[1]: Bool constant 2 holds 166 at element 0 (not 0 or 1)");
  }
  EXPECT_EQ(load(as_bool(1, {6}), Verification::Minimal).error, Error::Ok);  // Minimal trusts the file
}

TEST_F(CorruptedTest, BoolListItemsHoldOnlyZeroOrOne) {
  // The object API packs bools as 0/1: the list is packed with a marker
  // pattern, which is then found in the bytes and given a 2.
  const std::vector<bool> marker = {true, false, true, true, false, false, true, false, true, true, true, false, true};
  std::vector<uint8_t> bytes = corrupt(conv_, [&](fb::ProgramT& p) {
    fb::BoolListT list;
    list.items = marker;
    plan_of(p).values.emplace_back(new fb::EValueT);
    plan_of(p).values.back()->val.Set(std::move(list));
  });
  EXPECT_EQ(load(bytes).error, Error::Ok);
  std::vector<uint8_t> pattern = {static_cast<uint8_t>(marker.size()), 0, 0, 0};
  for (bool item : marker) pattern.push_back(item ? 1 : 0);
  const auto found = std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end());
  ASSERT_NE(found, bytes.end());
  found[4 + 2] = 2;
  EXPECT_REFUSED(load(bytes), InvalidProgram, "execution_plan[0].values[56]: BoolList item 2 is 2, not 0 or 1");
}

TEST_F(CorruptedTest, JumpOutsideTheChain) {
  expect_only_full_verification_refuses(corrupt(conv_, [](fb::ProgramT& p) {
    fb::JumpFalseCallT jump;
    jump.cond_value_index = 0;
    jump.destination_instruction = 6;
    plan_of(p).chains[0]->instructions[0]->instr_args.Set(std::move(jump));
  }), "destination_instruction 6 is outside the chain's 6 instructions");
}

TEST_F(CorruptedTest, MutableInitialValueOutOfRange) {
  const std::vector<uint8_t> init = fixture("buffer_init.pte");
  const auto with_index = [&](uint32_t data_buffer_idx) {
    return corrupt(init, [&](fb::ProgramT& p) {
      fb::ExecutionPlanT& plan = plan_of(p);
      const size_t v = find_value(plan, [](const fb::EValueT& e) {
        return e.val.AsTensor() && e.val.AsTensor()->allocation_info && e.val.AsTensor()->data_buffer_idx > 0;
      });
      tensor_at(plan, v).data_buffer_idx = data_buffer_idx;
    });
  };
  expect_only_full_verification_refuses(with_index(2), "data_buffer_idx 2 is out of range of mutable_data_segments[0].offsets (2)");
  expect_only_full_verification_refuses(corrupt(init, [](fb::ProgramT& p) { p.mutable_data_segments[0]->offsets[1] = 2; }),
                                        "initial value (4 bytes at offset 2) runs past its 4-byte segment");
  EXPECT_REFUSED(load(corrupt(init, [](fb::ProgramT& p) { p.mutable_data_segments[0]->segment_index = 7; })),
                 InvalidProgram, "mutable_data_segments[0].segment_index 7 is out of range");
}

// --- delegates and named data -------------------------------------------------------

class CorruptedDelegateTest : public ::testing::Test {
 protected:
  const std::vector<uint8_t> demo_ = testing::demo_program_with_named_data();
};

TEST_F(CorruptedDelegateTest, DelegateIndexOutOfRange) {
  expect_only_full_verification_refuses(corrupt(demo_, [](fb::ProgramT& p) {
    for (auto& instruction : plan_of(p).chains[0]->instructions) {
      if (auto* call = instruction->instr_args.AsDelegateCall()) call->delegate_index = 1;
    }
  }), "delegate_index 1 is out of range (1 delegates)");
}

TEST_F(CorruptedDelegateTest, DelegateDataReferenceOutOfRange) {
  expect_only_full_verification_refuses(corrupt(demo_, [](fb::ProgramT& p) { plan_of(p).delegates[0]->processed->index = 9; }),
                                        "delegates[0] ('DemoBackend'): processed index 9 is out of range");
  expect_only_full_verification_refuses(corrupt(demo_, [](fb::ProgramT& p) {
    plan_of(p).delegates[0]->processed->location = fb::DataLocation::INLINE;
  }), "is out of range (0 backend_delegate_data entries)");
}

TEST_F(CorruptedDelegateTest, NamedDataSegmentOutOfRange) {
  const auto bytes = corrupt(demo_, [](fb::ProgramT& p) { p.named_data[0]->segment_index = 99; });
  EXPECT_REFUSED(load(bytes), InvalidProgram, "named_data[0] ('w'): segment_index 99 is out of range");
  // Minimal trusts the table; the lookup still refuses to load it.
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader, Verification::Minimal);
  ASSERT_TRUE(program.ok());
  LogCapture log;
  EXPECT_EQ(program->get_data("w").error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("segment 99 is out of range")) << log.text();
}

// --- random damage ----------------------------------------------------------------

/// Reads everything a Method would read from an accepted program: method
/// names, every input and output's meta, planned buffer sizes, and each
/// tensor's constant or initial value. Returns how many reads succeeded.
size_t read_everything(const Program& program) {
  size_t reads = 0;
  for (size_t m = 0; m < program.num_methods(); ++m) {
    Result<const char*> name = program.get_method_name(m);
    if (!name.ok()) continue;
    Result<MethodMeta> meta = program.method_meta(*name);
    if (!meta.ok()) continue;
    for (size_t i = 0; i < meta->num_inputs(); ++i) reads += meta->input_tensor_meta(i).ok();
    for (size_t i = 0; i < meta->num_outputs(); ++i) reads += meta->output_tensor_meta(i).ok();
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) reads += meta->memory_planned_buffer_size(i).ok();
    reads += meta->num_backends() + meta->num_instructions();
    for (size_t i = 0; i < meta->num_operators(); ++i) {
      char op[64];
      reads += meta->operator_name(i, op, sizeof op) == Error::Ok;
    }
  }
  const fb::ExecutionPlan* plan = program.flatbuffer_program()->execution_plan()->Get(0);
  for (const fb::EValue* value : *plan->values()) {
    const fb::Tensor* tensor = value->val_as_Tensor();
    if (tensor == nullptr || tensor->data_buffer_idx() == 0) continue;
    size_t nbytes = element_size(static_cast<ScalarType>(tensor->scalar_type()));
    for (int32_t size : *tensor->sizes()) nbytes *= static_cast<size_t>(size);
    if (tensor->allocation_info() == nullptr) {
      reads += program.get_constant_buffer_data(tensor->data_buffer_idx(), nbytes).ok();
    } else {
      std::vector<uint8_t> initial(nbytes);
      reads += program.load_mutable_subsegment_into(0, tensor->data_buffer_idx(), nbytes, initial.data()) == Error::Ok;
    }
  }
  for (size_t k = 0; k < program.get_num_keys(); ++k) {
    Result<const char*> key = program.get_key(k);
    if (key.ok()) reads += program.get_data(*key).ok();
  }
  return reads;
}

// Flips a few bytes of each file at a time (a fixed sequence, so a failure
// repeats): full verification either refuses the result with a logged error
// or accepts a program that can be read through without a fault. The
// sanitizer and valgrind runs of this test are what catch a stray read.
TEST(RandomDamage, IsRefusedOrReadsSafely) {
  std::vector<std::vector<uint8_t>> files;
  for (const char* name : kEtFiles) files.push_back(fixture(name));
  files.push_back(testing::demo_program_with_named_data());
  uint64_t state = 0x9E3779B97F4A7C15u;
  const auto next = [&state] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return static_cast<uint32_t>(state >> 33);
  };
  size_t refused = 0;
  size_t accepted = 0;
  for (const std::vector<uint8_t>& original : files) {
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> bytes = original;
      const uint32_t flips = 1 + next() % 4;
      for (uint32_t f = 0; f < flips; ++f) bytes[next() % bytes.size()] ^= static_cast<uint8_t>(1 + next() % 255);
      BufferDataLoader loader(bytes.data(), bytes.size());
      LogCapture log;
      Result<Program> program = Program::load(&loader, Verification::InternalConsistency);
      if (!program.ok()) {
        ++refused;
        EXPECT_FALSE(log.errors().empty()) << "refused with " << runtime::to_string(program.error()) << " but no log line";
        continue;
      }
      ++accepted;
      read_everything(*program);
    }
  }
  RecordProperty("refused", static_cast<int>(refused));
  RecordProperty("accepted", static_cast<int>(accepted));
  // Both outcomes occur (damage in constant bytes or padding is harmless).
  EXPECT_GT(refused, 0u);
  EXPECT_GT(accepted, 0u);
}

}  // namespace
}  // namespace kiln::runtime
