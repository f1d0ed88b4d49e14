// The devtools over real lowerings: the debug record (written, read back,
// tied to its .pte), the profile's attribution (the seed's delegate mapping:
// a fused conv+relu against both handles, tan's three backend ops summed into
// it; a decomposed op's kernels summed into its source op), the Kiln trace
// format, and compare finding an error injected into a backend.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"
#include "aot/ir/memory_ops.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/debug_handles.h"
#include "aot/passes/decompose.h"
#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/demo_blob.h"
#include "backends/demo/runtime/demo_backend_runtime.h"
#include "devtools/compare.h"
#include "devtools/debug_record.h"
#include "devtools/profile.h"
#include "devtools/trace_recorder.h"
#include "models/conv_relu_tan.h"
#include "tests/support/method_test_util.h"

namespace kiln::devtools {
namespace {

using ::testing::ElementsAre;

// A program lowered with its record, as `kiln lower --debug-record` makes them.
struct Lowered {
  aot::ExportedProgram source;  // handles numbered, before any pass
  std::optional<aot::ExecutorchProgram> program;
  DebugRecord record;
};

Lowered lower(aot::ExportedProgram source, const std::string& backend) {
  Lowered lowered{std::move(source), {}, {}};
  aot::generate_debug_handles(lowered.source);
  aot::ExportedProgram program = lowered.source.copy_of_verified();
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  if (!backend.empty()) program = aot::to_backend(program, aot::CapabilityPartitioner(backend));
  lowered.program.emplace(aot::to_executorch(program));
  lowered.record = make_debug_record(source_nodes(lowered.source), lowered.program->emitted, lowered.program->buffer);
  return lowered;
}

// Runs the lowered program once, traced.
void run_traced(const Lowered& lowered, const std::vector<aot::HostTensor>& inputs, TraceRecorder* recorder) {
  auto loaded = runtime::method_testing::load_program(lowered.program->buffer);
  runtime::method_testing::Memory memory(*loaded);
  runtime::Result<runtime::Method> method = runtime::method_testing::load_method(*loaded, memory);
  ASSERT_TRUE(method.ok());
  method->set_event_tracer(recorder);
  runtime::method_testing::run(*method, inputs);
  recorder->end_run();
}

const ProfileRow* row_with_handles(const Profile& profile, const std::vector<int64_t>& handles) {
  for (const ProfileRow& row : profile.rows) {
    if (row.handles == handles) return &row;
  }
  return nullptr;
}

int64_t handle_of(const DebugRecord& record, const std::string& op) {
  for (const auto& [handle, node] : record.nodes) {
    if (node.op == op) return handle;
  }
  return -1;
}

// ------------------------------------------------------------ debug record

TEST(DebugRecordTest, ReadsBackWhatItWrites) {
  const Lowered lowered = lower(models::conv_relu_tan({1, 4, 4, 0}), "DemoBackend");
  const DebugRecord& record = lowered.record;
  ASSERT_EQ(record.nodes.size(), 5u);  // conv, relu, conv, relu, tan
  EXPECT_FALSE(record.delegates.empty());
  const DebugRecord back = parse_debug_record(to_json(record), "record");
  EXPECT_EQ(back.method, record.method);
  EXPECT_EQ(back.program, record.program);
  EXPECT_EQ(back.program.bytes, lowered.program->buffer.size());
  EXPECT_EQ(back.instructions, record.instructions);
  ASSERT_EQ(back.delegates.size(), record.delegates.size());
  for (const auto& [index, delegate] : record.delegates) {
    EXPECT_EQ(back.delegates.at(index).backend_id, delegate.backend_id);
    EXPECT_EQ(back.delegates.at(index).identifiers, delegate.identifiers);
  }
  for (const auto& [handle, node] : record.nodes) {
    const SourceNode& read = back.nodes.at(handle);
    EXPECT_EQ(read.name, node.name);
    EXPECT_EQ(read.op, node.op);
    EXPECT_EQ(read.module_stack, node.module_stack);
    EXPECT_EQ(read.stack_trace, node.stack_trace);
  }
}

TEST(DebugRecordTest, MapsEachDelegateCallToTheOpsInsideItOnly) {
  const Lowered lowered = lower(models::conv_relu_tan({1, 4, 4, 0}), "DemoBackend");
  for (const auto& [instruction, delegate] : lowered.record.delegates) {
    std::set<int64_t> inside;
    for (const auto& [identifier, handles] : delegate.identifiers) inside.insert(handles.begin(), handles.end());
    const auto& mapped = lowered.record.instructions.at(instruction);
    EXPECT_EQ(std::set<int64_t>(mapped.begin(), mapped.end()), inside) << "instruction " << instruction;
  }
}

TEST(DebugRecordTest, RefusesAnotherProgramAndMalformedFiles) {
  const Lowered lowered = lower(models::conv_relu_tan({1, 4, 4, 0}), "DemoBackend");
  EXPECT_NO_THROW(lowered.record.check_matches(lowered.program->buffer, "m.pte"));
  std::vector<uint8_t> other = lowered.program->buffer;
  other[other.size() / 2] ^= 1;
  EXPECT_THROW(lowered.record.check_matches(other, "m.pte"), aot::AotError);
  EXPECT_THROW(parse_debug_record("{", "r.kdbg"), aot::AotError);
  EXPECT_THROW(parse_debug_record(R"({"format": "kiln-trace"})", "r.kdbg"), aot::AotError);
  EXPECT_THROW(parse_debug_record(R"({"format": "kiln-debug-record", "version": 99})", "r.kdbg"), aot::AotError);
  EXPECT_THROW(parse_debug_record(R"({"format": "kiln-debug-record", "version": 1, "method": 3})", "r.kdbg"),
               aot::AotError);
  EXPECT_THROW(parse_debug_record(R"({"format": "kiln-debug-record", "version": 1, "method": "forward",
                                      "program": {"bytes": 3, "fnv1a64": "not hex"}})", "r.kdbg"),
               aot::AotError);
}

// ---------------------------------------------------------------- profile

// The seed's mapping: BackendWithDelegateMappingDemo fuses each conv + relu
// into one backend op (one identifier, two handles) and splits tan into sin,
// cos and div (three identifiers, tan's handle). Its blob is the seed's
// string, which no runtime runs, so the events are those a runtime would log
// for it: one per identifier, at known times.
TEST(ProfileTest, SeedMappingChargesAFusedOpToAllItsHandlesAndSumsTansPieces) {
  const Lowered lowered = lower(models::conv_relu_tan({1, 4, 4, 0}), "BackendWithDelegateMappingDemo");
  const DebugRecord& record = lowered.record;
  ASSERT_EQ(record.delegates.size(), 1u);
  const auto& [call, delegate] = *record.delegates.begin();
  const int64_t conv = handle_of(record, "aten::convolution.default");
  const int64_t tan = handle_of(record, "aten::tan.default");

  TraceRecorder trace;
  constexpr uint64_t kMs = 1000000;
  uint64_t clock = 0;
  std::map<std::vector<int64_t>, uint64_t> expected_ns;
  for (int run = 0; run < 3; ++run) {
    const uint64_t call_start = clock;
    for (const auto& [identifier, handles] : delegate.identifiers) {
      runtime::DelegateEvent event;
      event.instruction = call;
      event.debug_id = std::stoll(identifier);
      event.start_ns = clock;
      event.end_ns = clock += (handles.size() == 2 ? 4 : 1) * kMs;  // a fused op 4 ms, tan's pieces 1 ms each
      trace.log_delegate_event(event);
      if (run == 0) expected_ns[handles] += event.end_ns - event.start_ns;
    }
    runtime::InstructionEvent event;
    event.instruction = call;
    event.name = "BackendWithDelegateMappingDemo";
    event.delegate = 0;
    event.start_ns = call_start;
    event.end_ns = clock += kMs / 2;  // half a millisecond outside the backend's ops
    trace.log_instruction(event);
    trace.end_run();
  }

  const Profile profile = attribute(record, trace);
  EXPECT_EQ(profile.runs, 3u);
  const ProfileRow* fused = row_with_handles(profile, {conv, conv + 1});  // the relu follows its conv
  ASSERT_NE(fused, nullptr) << format_profile(profile, 0);
  EXPECT_EQ(fused->label, "convolution + relu");
  EXPECT_DOUBLE_EQ(fused->median_ms, 4.0);
  const ProfileRow* tan_row = row_with_handles(profile, {tan});
  ASSERT_NE(tan_row, nullptr);
  EXPECT_EQ(tan_row->label, "tan");
  EXPECT_DOUBLE_EQ(tan_row->median_ms, 3.0);  // sin + cos + div
  EXPECT_DOUBLE_EQ(tan_row->calls, 3.0);
  EXPECT_EQ(tan_row->where, "BackendWithDelegateMappingDemo");
  double rows_ms = 0;
  for (const ProfileRow& row : profile.rows) rows_ms += row.median_ms;
  EXPECT_DOUBLE_EQ(rows_ms, profile.median_run_ms);  // nothing counted twice, nothing lost
  EXPECT_DOUBLE_EQ(profile.median_run_ms, 4 + 4 + 3 + 0.5);
  EXPECT_EQ(profile.rows.front().handles.size(), 2u);  // most time first
  ASSERT_EQ(profile.delegates.size(), 1u);
  EXPECT_DOUBLE_EQ(profile.delegates[0].median_ms, 11.5);
}

TEST(ProfileTest, ADecomposedOpsKernelsSumIntoItsSourceOp) {
  // encoder_block's training IR: layer_norm, linear, sdpa... each decomposed.
  const Lowered lowered = lower(aot::load_pt2(aot::testing::kFixtures + "encoder_block/model.pt2"), "");
  std::map<std::vector<int64_t>, size_t> instructions_per_group;
  for (const auto& [instruction, handles] : lowered.record.instructions) ++instructions_per_group[handles];
  const auto inputs = runtime::method_testing::npz_tensors(aot::testing::kFixtures + "encoder_block/case0.inputs.npz");
  TraceRecorder trace;
  run_traced(lowered, inputs, &trace);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const Profile profile = attribute(lowered.record, trace);
  const int64_t attention = handle_of(lowered.record, "aten::scaled_dot_product_attention.default");
  ASSERT_GE(attention, 0);
  const ProfileRow* row = row_with_handles(profile, {attention});
  ASSERT_NE(row, nullptr) << format_profile(profile, 0);
  EXPECT_EQ(row->ops, "scaled_dot_product_attention");
  EXPECT_GT(row->calls, 3.0);  // its pieces (matmuls, softmax, ...), one row
  size_t with_handles = 0;
  for (const ProfileRow& r : profile.rows) {
    if (r.handles.empty()) continue;
    ++with_handles;
    // Every kernel call of the group, and nothing else, is in the row.
    EXPECT_EQ(r.calls, static_cast<double>(instructions_per_group[r.handles])) << r.label;
  }
  EXPECT_EQ(with_handles, instructions_per_group.size());
}

TEST(TraceFileTest, AKilnTraceReadsBackAsItWasRecorded) {
  const Lowered lowered = lower(models::conv_relu_tan({1, 4, 4, 0}), "DemoBackend");
  TraceRecorder trace;
  const aot::HostTensor input = aot::HostTensor::zeros(aot::ScalarType::Float, {1, 3, 4, 4});
  for (int i = 0; i < 2; ++i) run_traced(lowered, {input}, &trace);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_FALSE(TraceRecorder::parse_kiln_trace(trace.kiln_trace_json(), "t.kdump").program().known());
  trace.set_program(program_id(lowered.program->buffer));
  const TraceRecorder back = TraceRecorder::parse_kiln_trace(trace.kiln_trace_json(), "t.kdump");
  EXPECT_EQ(back.program(), lowered.record.program);
  EXPECT_EQ(back.runs(), 2u);
  ASSERT_EQ(back.instructions().size(), trace.instructions().size());
  ASSERT_EQ(back.delegate_events().size(), trace.delegate_events().size());
  for (size_t i = 0; i < trace.instructions().size(); ++i) {
    const auto &a = trace.instructions()[i], &b = back.instructions()[i];
    EXPECT_EQ(std::tie(a.run, a.chain, a.instruction, a.name, a.delegate, a.start_ns, a.end_ns),
              std::tie(b.run, b.chain, b.instruction, b.name, b.delegate, b.start_ns, b.end_ns));
  }
  for (size_t i = 0; i < trace.delegate_events().size(); ++i) {
    const auto &a = trace.delegate_events()[i], &b = back.delegate_events()[i];
    EXPECT_EQ(std::tie(a.run, a.instruction, a.delegate, a.debug_id, a.start_ns, a.end_ns),
              std::tie(b.run, b.instruction, b.delegate, b.debug_id, b.start_ns, b.end_ns));
  }
  EXPECT_THROW(TraceRecorder::parse_kiln_trace(R"({"format": "kiln-debug-record"})", "t"), aot::AotError);
  EXPECT_THROW(TraceRecorder::parse_kiln_trace(R"({"format": "kiln-trace", "version": 1, "runs": 1,
                                                   "instructions": [[0, 0]], "delegate_events": []})", "t"),
               aot::AotError);
}

// ---------------------------------------------------------------- compare

// DemoBackend with one fault: its tan computes cos.
class FaultyDemoBackend final : public backends::demo::DemoBackend {
 public:
  static constexpr const char* kId = "FaultyDemoBackend";
  std::string id() const override { return kId; }
  aot::PreprocessResult preprocess(const aot::ExportedProgram& program,
                                   const std::vector<aot::CompileSpec>& specs) const override {
    aot::PreprocessResult result = DemoBackend::preprocess(program, specs);
    std::vector<uint8_t>& blob = result.processed_bytes;
    auto u32 = [&](size_t offset) {
      uint32_t value;
      std::memcpy(&value, blob.data() + offset, 4);
      return value;
    };
    const uint32_t num_values = u32(12), num_constants = u32(20), num_instructions = u32(24);
    EXPECT_EQ(num_constants, 0u) << "the fault is placed for a blob without constants";
    const size_t first = backends::demo::kHeaderSize + 4 * size_t{num_values};
    for (uint32_t i = 0; i < num_instructions; ++i) {
      const size_t at = first + i * backends::demo::kInstructionSize;
      if (u32(at) != static_cast<uint32_t>(backends::demo::OpCode::kTan)) continue;
      const auto cos = static_cast<uint32_t>(backends::demo::OpCode::kCos);
      std::memcpy(blob.data() + at, &cos, 4);
    }
    // Sealed again, so that the runtime takes the fault for the blob's own.
    const uint32_t sum = backends::demo::DemoProgram::checksum(blob.data() + 12, blob.size() - 12);
    std::memcpy(blob.data() + 8, &sum, 4);
    return result;
  }
};

const aot::BackendRegistration faulty_registration(std::make_unique<FaultyDemoBackend>());
backends::demo::DemoBackendRuntime faulty_runtime;
[[maybe_unused]] const runtime::Error faulty_registered =
    runtime::register_backend({FaultyDemoBackend::kId, &faulty_runtime});

// The reference interpreter's result for each handle, as kiln compare takes it.
std::map<int64_t, ReferenceOutput> reference_outputs(aot::ExportedProgram program, const aot::HostTensor& input) {
  std::map<int64_t, ReferenceOutput> reference;
  size_t order = 0;
  aot::call_program(program, aot::PyTree::tuple({aot::PyTree::make_leaf(input)}), aot::PyTree::dict({}),
                    [&](const aot::Node& node, const std::vector<aot::Value>& values) {
                      ++order;
                      if (!node.meta.debug_handle || node.target() == aot::kMemoryAlloc || values.empty()) return;
                      if (const auto* tensor = std::get_if<aot::HostTensor>(&values.front())) {
                        reference[*node.meta.debug_handle] = {order, tensor->clone()};
                      }
                    });
  return reference;
}

Comparison compare_lowering(const std::string& backend) {
  const models::ConvReLUTanOptions options{1, 8, 8, 0};
  const Lowered lowered = lower(models::conv_relu_tan(options), backend);
  const aot::HostTensor input = models::conv_relu_tan_input(options);
  TraceRecorder run(/*keep_outputs=*/true);
  run_traced(lowered, {input}, &run);
  return compare_outputs(lowered.record, run, reference_outputs(lowered.source.copy_of_verified(), input));
}

TEST(CompareTest, FindsTheOpWhoseNumbersABackendChanged) {
  const Comparison faulty = compare_lowering(FaultyDemoBackend::kId);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  ASSERT_FALSE(faulty.rows.empty());
  const CompareRow& worst = faulty.rows.front();
  EXPECT_EQ(worst.label, "tan");
  EXPECT_EQ(worst.where, FaultyDemoBackend::kId);
  EXPECT_LT(worst.snr_db, 20.0);
  EXPECT_GT(worst.max_abs_error, 0.01);
  EXPECT_THAT(format_comparison(faulty, 0, 60), ::testing::HasSubstr("First op in program order below 60.0 dB: tan"));
  for (size_t i = 1; i < faulty.rows.size(); ++i) {
    EXPECT_TRUE(faulty.rows[i].note.empty()) << faulty.rows[i].label << ": " << faulty.rows[i].note;
    EXPECT_GT(faulty.rows[i].snr_db, 100.0) << faulty.rows[i].label;  // everything before tan is right
  }
}

class CorrectBackendTest : public ::testing::TestWithParam<std::string> {};

// Every source op is compared (alone, or in the group its backend fused) and
// matches: DemoBackend logs each instruction's result, OneDnnBackend each
// fused operation's, reordered out of its blocked layout.
TEST_P(CorrectBackendTest, MatchesTheReferenceAtEveryOp) {
  const Comparison comparison = compare_lowering(GetParam());
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  std::set<int64_t> covered;
  bool backend_rows = false;
  for (const CompareRow& row : comparison.rows) {
    EXPECT_TRUE(row.note.empty()) << row.label << ": " << row.note;
    EXPECT_GT(row.snr_db, 100.0) << row.label;
    covered.insert(row.handles.begin(), row.handles.end());
    backend_rows |= row.where == GetParam();
  }
  EXPECT_TRUE(backend_rows);
  EXPECT_EQ(covered, (std::set<int64_t>{1, 2, 3, 4, 5}));  // conv, relu, conv, relu, tan
  EXPECT_THAT(format_comparison(comparison, 0, 60), ::testing::HasSubstr("Every compared op is above 60.0 dB"));
}

// Every backend of these that the binary links (OneDnnBackend when it is built).
INSTANTIATE_TEST_SUITE_P(Backends, CorrectBackendTest, ::testing::ValuesIn(aot::testing::linked_backends({"DemoBackend", "OneDnnBackend"})));

}  // namespace
}  // namespace kiln::devtools
