// The event tracer end to end: the seed's conv-relu-tan model delegated to
// DemoBackend (its elementwise ops) or OneDnnBackend (conv + relu fused),
// lowered to a .pte and run with a TraceRecorder: one event per kernel and
// delegate call, the backend's events under exactly the identifiers the
// debug record holds (its preprocess's debug-handle map), and a Chrome trace
// that parses with an event for each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/to_executorch.h"
#include "aot/passes/debug_handles.h"
#include "devtools/debug_record.h"
#include "devtools/trace_recorder.h"
#include "models/conv_relu_tan.h"
#include "tests/support/method_test_util.h"
#include "schema/program_generated.h"

namespace kiln::devtools {
namespace {

namespace fb = executorch_flatbuffer;

struct TracedRun {
  aot::ExportedProgram source = models::conv_relu_tan({1, 4, 4, 0});  // numbered, as imported
  std::optional<aot::ExecutorchProgram> lowered;
  TraceRecorder recorder;
};

// Lowers the seed model with `backend` taking what it can, runs it once traced.
void run_traced(const std::string& backend, TracedRun* run) {
  aot::generate_debug_handles(run->source);
  aot::ExportedProgram program = run->source.copy_of_verified();
  run->lowered.emplace(aot::to_executorch(aot::to_backend(program, aot::CapabilityPartitioner(backend))));
  auto loaded = runtime::method_testing::load_program(run->lowered->buffer);
  runtime::method_testing::Memory memory(*loaded);
  runtime::Result<runtime::Method> method = runtime::method_testing::load_method(*loaded, memory);
  ASSERT_TRUE(method.ok());
  method->set_event_tracer(&run->recorder);
  const aot::HostTensor input = aot::HostTensor::zeros(aot::ScalarType::Float, {1, 3, 4, 4});
  runtime::method_testing::run(*method, {input});
}

class TraceRecorderTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceRecorderTest, OneEventPerCallAndTheBackendsIdentifiersAsMapped) {
  TracedRun run;
  run_traced(GetParam(), &run);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const fb::ProgramT& program = run.lowered->emitted.program.program;
  size_t calls = 0, delegate_calls = 0;
  for (const auto& instruction : program.execution_plan.at(0)->chains.at(0)->instructions) {
    const auto kind = instruction->instr_args.type;
    if (kind == fb::InstructionArguments::KernelCall || kind == fb::InstructionArguments::DelegateCall) ++calls;
    if (kind == fb::InstructionArguments::DelegateCall) ++delegate_calls;
  }
  ASSERT_GT(delegate_calls, 0u);
  ASSERT_EQ(run.recorder.instructions().size(), calls);
  size_t logged_delegate_calls = 0;
  for (const TraceRecorder::Instruction& event : run.recorder.instructions()) {
    EXPECT_LE(event.start_ns, event.end_ns);
    if (event.delegate >= 0) {
      EXPECT_EQ(event.name, GetParam());
      ++logged_delegate_calls;
    } else {
      EXPECT_THAT(event.name, ::testing::StartsWith("aten::"));
    }
  }
  EXPECT_EQ(logged_delegate_calls, delegate_calls);

  // instruction index:identifier, as the debug record holds them.
  const DebugRecord record = parse_debug_record(
      to_json(make_debug_record(source_nodes(run.source), run.lowered->emitted, run.lowered->buffer)), "record");
  std::set<std::string> mapped, logged;
  for (const auto& [instruction, delegate] : record.delegates) {
    EXPECT_EQ(delegate.backend_id, GetParam());
    for (const auto& [identifier, handles] : delegate.identifiers) {
      mapped.insert(std::to_string(instruction) + ":" + identifier);
    }
  }
  for (const TraceRecorder::DelegateEvent& event : run.recorder.delegate_events()) {
    logged.insert(std::to_string(event.instruction) + ":" + event.debug_id);
  }
  EXPECT_FALSE(logged.empty());
  EXPECT_EQ(logged, mapped);
}

TEST_P(TraceRecorderTest, WritesAChromeTraceWithAnEventForEachCallAndBackendOp) {
  TracedRun run;
  run_traced(GetParam(), &run);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const nlohmann::json trace = nlohmann::json::parse(run.recorder.chrome_trace_json());
  size_t complete = 0, delegate_tracks = 0;
  for (const nlohmann::json& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X") {
      ++complete;
      EXPECT_GE(event.at("dur").get<double>(), 0.0);
    } else if (event.at("ph") == "M" && event.at("tid").get<int>() > 0) {
      ++delegate_tracks;
    }
  }
  EXPECT_EQ(complete, run.recorder.instructions().size() + run.recorder.delegate_events().size());
  EXPECT_GE(delegate_tracks, 1u);
}

// Every backend of these that the binary links (OneDnnBackend when it is built).
INSTANTIATE_TEST_SUITE_P(Backends, TraceRecorderTest, ::testing::ValuesIn(aot::testing::linked_backends({"DemoBackend", "OneDnnBackend"})));

}  // namespace
}  // namespace kiln::devtools
