// An ETDump written by the runtime's EtdumpRecorder and read back on the
// host (read_etdump): the same events, outputs and attribution as a run
// recorded here with a TraceRecorder; another program's ETDump refused by
// name; a truncated, foreign or malformed file refused with a clear error.
#include "devtools/etdump_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <tuple>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/debug_handles.h"
#include "devtools/profile.h"
#include "devtools/profile_session.h"
#include "devtools/runtime_session.h"
#include "models/conv_relu_tan.h"
#include "runtime/devtools/etdump_recorder.h"

namespace kiln::devtools {
namespace {

using ::testing::HasSubstr;
using aot::testing::error_of;

// conv, relu, conv, relu, tan with DemoBackend (the elementwise ops, each
// logged under its identifier with its output), its record and a session.
struct Traced {
  std::vector<uint8_t> pte;
  DebugRecord record;
  std::unique_ptr<RuntimeSession> session;
};

std::unique_ptr<Traced> traced_conv_relu_tan() {
  aot::ExportedProgram source = models::conv_relu_tan({1, 4, 4, 0});
  aot::generate_debug_handles(source);
  const aot::ExportedProgram delegated = aot::to_backend(source, aot::CapabilityPartitioner("DemoBackend"));
  aot::ExecutorchProgram program = aot::to_executorch(delegated);
  auto traced = std::make_unique<Traced>();
  traced->pte = std::move(program.buffer);
  traced->record = make_debug_record(source_nodes(source), program.emitted, traced->pte);
  traced->session = RuntimeSession::from_bytes(traced->pte.data(), traced->pte.size(), "conv_relu_tan.pte");
  traced->session->set_inputs_from("");
  return traced;
}

struct EtdumpRun {
  std::vector<uint8_t> etdump;
  std::vector<uint8_t> debug_buffer;
};

EtdumpRun record_etdump(Traced& traced, int runs, bool outputs, const std::vector<uint8_t>& tagged_pte) {
  runtime::EtdumpRecorder recorder(outputs);
  recorder.set_program_tag(runtime::program_tag(tagged_pte.data(), tagged_pte.size()));
  {
    ScopedEventTracer on(*traced.session, recorder);
    for (int i = 0; i < runs; ++i) traced.session->execute();
  }
  return {recorder.etdump(), recorder.debug_buffer()};
}

TraceRecorder record_live(Traced& traced, int runs) {
  TraceRecorder trace(/*keep_outputs=*/true);
  ScopedEventTracer on(*traced.session, trace);
  for (int i = 0; i < runs; ++i) {
    traced.session->execute();
    trace.end_run();
  }
  return trace;
}

TEST(ReadEtdump, GivesTheEventsAndOutputsARunRecordedHereHas) {
  const auto traced = traced_conv_relu_tan();
  const TraceRecorder live = record_live(*traced, 2);
  const EtdumpRun run = record_etdump(*traced, 2, true, traced->pte);
  const TraceRecorder read = read_etdump(run.etdump, "run.etdp", run.debug_buffer, "run.bin");

  EXPECT_EQ(read.runs(), 2u);
  EXPECT_EQ(read.program(), traced->record.program);
  EXPECT_EQ(read.method(), "forward");
  ASSERT_EQ(read.instructions().size(), live.instructions().size());
  bool saw_delegate_call = false;
  for (size_t i = 0; i < live.instructions().size(); ++i) {
    const auto& want = live.instructions()[i];
    const auto& got = read.instructions()[i];
    EXPECT_EQ(std::tie(got.run, got.chain, got.instruction, got.delegate),
              std::tie(want.run, want.chain, want.instruction, want.delegate));
    EXPECT_EQ(got.name, want.delegate >= 0 ? "DELEGATE_CALL" : want.name);
    EXPECT_LE(got.start_ns, got.end_ns);
    saw_delegate_call = saw_delegate_call || want.delegate >= 0;
    ASSERT_EQ(got.output.defined(), want.output.defined()) << want.name;
    if (want.output.defined()) {
      EXPECT_EQ(got.output.sizes(), want.output.sizes());
      EXPECT_EQ(got.output.to_doubles(), want.output.to_doubles()) << want.name;
    }
  }
  EXPECT_TRUE(saw_delegate_call);
  ASSERT_EQ(read.delegate_events().size(), live.delegate_events().size());
  ASSERT_FALSE(live.delegate_events().empty());
  for (size_t i = 0; i < live.delegate_events().size(); ++i) {
    const auto& want = live.delegate_events()[i];
    const auto& got = read.delegate_events()[i];
    EXPECT_EQ(std::tie(got.run, got.instruction, got.delegate, got.debug_id),
              std::tie(want.run, want.instruction, want.delegate, want.debug_id));
    ASSERT_EQ(got.output.defined(), want.output.defined()) << want.debug_id;
    if (want.output.defined()) {
      EXPECT_EQ(got.output.to_doubles(), want.output.to_doubles()) << want.debug_id;
    }
  }
}

TEST(ReadEtdump, IsAttributedAsTheLiveRunIs) {
  const auto traced = traced_conv_relu_tan();
  const Profile live = attribute(traced->record, record_live(*traced, 3));
  const EtdumpRun run = record_etdump(*traced, 3, false, traced->pte);
  const Profile read = attribute(traced->record, read_etdump(run.etdump, "run.etdp"));
  EXPECT_EQ(read.runs, 3u);
  const auto rows = [](const Profile& profile) {
    std::set<std::tuple<std::vector<int64_t>, std::string, std::string, double>> rows;
    for (const ProfileRow& row : profile.rows) rows.emplace(row.handles, row.label, row.where, row.calls);
    return rows;
  };
  EXPECT_EQ(rows(read), rows(live));
  ASSERT_EQ(read.delegates.size(), live.delegates.size());
  EXPECT_EQ(read.delegates[0].name, live.delegates[0].name);
  EXPECT_THAT(read.delegates[0].name, HasSubstr("DemoBackend"));
  EXPECT_THAT(format_profile(read, 0), HasSubstr("3 runs"));
}

TEST(ReadEtdump, WithoutTheDebugBufferTheOutputsAreLeftOut) {
  const auto traced = traced_conv_relu_tan();
  const EtdumpRun run = record_etdump(*traced, 1, true, traced->pte);
  const TraceRecorder read = read_etdump(run.etdump, "run.etdp");
  ASSERT_FALSE(read.instructions().empty());
  for (const auto& e : read.instructions()) EXPECT_FALSE(e.output.defined());
}

TEST(CheckTraceMatches, RefusesAnotherProgramsEtdumpNamingBoth) {
  const auto traced = traced_conv_relu_tan();
  std::vector<uint8_t> other = traced->pte;
  other.push_back(0);
  const EtdumpRun mine = record_etdump(*traced, 1, false, traced->pte);
  EXPECT_NO_THROW(check_trace_matches(read_etdump(mine.etdump, "mine.etdp"), "mine.etdp", traced->record, "m.kdbg"));
  const EtdumpRun theirs = record_etdump(*traced, 1, false, other);
  const std::string error = error_of(
      [&] { check_trace_matches(read_etdump(theirs.etdump, "other.etdp"), "other.etdp", traced->record, "m.kdbg"); });
  EXPECT_THAT(error, HasSubstr("other.etdp was recorded from another program than the debug record m.kdbg describes"));
  EXPECT_THAT(error, HasSubstr(std::to_string(other.size()) + " bytes"));
  EXPECT_THAT(error, HasSubstr(std::to_string(traced->pte.size()) + " bytes"));

  DebugRecord decode = traced->record;
  decode.method = "decode";
  EXPECT_THAT(error_of([&] { check_trace_matches(read_etdump(mine.etdump, "mine.etdp"), "mine.etdp", decode, "d"); }),
              HasSubstr("recorded from the method 'forward', but the debug record d describes 'decode'"));
}

TEST(CheckTraceMatches, AnUnnamedEtdumpMustHaveTheRecordsDelegateCalls) {
  const auto traced = traced_conv_relu_tan();
  runtime::EtdumpRecorder recorder;  // no program tag, as ExecuTorch's runtime writes
  {
    ScopedEventTracer on(*traced->session, recorder);
    traced->session->execute();
  }
  const TraceRecorder read = read_etdump(recorder.etdump(), "et.etdp");
  EXPECT_FALSE(read.program().known());
  EXPECT_NO_THROW(check_trace_matches(read, "et.etdp", traced->record, "m.kdbg"));
  DebugRecord portable = traced->record;
  portable.delegates.clear();
  EXPECT_THAT(error_of([&] { check_trace_matches(read, "et.etdp", portable, "p.kdbg"); }),
              HasSubstr("et.etdp names no program"));
}

TEST(ReadEtdump, RefusesATruncatedForeignOrMalformedFile) {
  const auto traced = traced_conv_relu_tan();
  const EtdumpRun run = record_etdump(*traced, 1, true, traced->pte);
  std::vector<uint8_t> truncated(run.etdump.begin(), run.etdump.end() - 9);
  EXPECT_THAT(error_of([&] { read_etdump(truncated, "cut.etdp"); }),
              HasSubstr("cut.etdp is truncated: its size prefix says " + std::to_string(run.etdump.size()) +
                        " bytes, the file holds " + std::to_string(truncated.size())));
  EXPECT_THAT(error_of([&] { read_etdump(traced->pte, "model.pte"); }),
              HasSubstr("model.pte is not an ETDump: identifier '"));
  const std::vector<uint8_t> tiny = {1, 2, 3};
  EXPECT_THAT(error_of([&] { read_etdump(tiny, "tiny"); }), HasSubstr("tiny is not an ETDump: 3 bytes, too short"));
  std::vector<uint8_t> unprefixed(run.etdump.begin() + 4, run.etdump.end());
  EXPECT_THAT(error_of([&] { read_etdump(unprefixed, "bare"); }), HasSubstr("without its size prefix"));
  std::vector<uint8_t> broken = run.etdump;
  const uint32_t far = 0x7ffffff0u;
  std::memcpy(broken.data() + 4, &far, 4);  // the root table's offset, past the end
  EXPECT_THAT(error_of([&] { read_etdump(broken, "broken"); }), HasSubstr("broken is a malformed ETDump"));
  const std::vector<uint8_t> short_buffer(run.debug_buffer.begin(), run.debug_buffer.begin() + 8);
  EXPECT_THAT(error_of([&] { read_etdump(run.etdump, "run.etdp", short_buffer, "short.bin"); }),
              HasSubstr("short.bin: a logged tensor reaches past the debug buffer"));
  EXPECT_THAT(error_of([&] { read_etdump_file(::testing::TempDir() + "absent.etdp"); }),
              HasSubstr("cannot open the ETDump"));
}

}  // namespace
}  // namespace kiln::devtools
