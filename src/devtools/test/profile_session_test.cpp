// The devtools' run-side calls over a lowered program on a RuntimeSession:
// a debug record matched to the .pte's bytes, profile_session (warm-up,
// traced runs, attribution) and first_divergence on a comparison.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <set>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"
#include "aot/passes/debug_handles.h"
#include "devtools/debug_record_for.h"
#include "devtools/divergence.h"
#include "devtools/profile_session.h"
#include "devtools/trace_recorder.h"
#include "models/conv_relu_tan.h"

namespace kiln::devtools {
namespace {

using ::testing::HasSubstr;
using aot::testing::error_of;

// conv, relu, conv, relu, tan with DemoBackend (which takes the elementwise
// ops), its record, and a session on its .pte.
struct ProfiledProgram {
  std::vector<uint8_t> pte;
  DebugRecord record;
  std::unique_ptr<RuntimeSession> session;
};

std::unique_ptr<ProfiledProgram> profiled_conv_relu_tan() {
  aot::ExportedProgram source = models::conv_relu_tan({1, 4, 4, 0});
  aot::generate_debug_handles(source);
  const aot::ExportedProgram delegated = aot::to_backend(source, aot::CapabilityPartitioner("DemoBackend"));
  aot::ExecutorchProgram program = aot::to_executorch(delegated);
  auto lowered = std::make_unique<ProfiledProgram>();
  lowered->pte = std::move(program.buffer);
  lowered->record = make_debug_record(source_nodes(source), program.emitted, lowered->pte);
  lowered->session = RuntimeSession::from_bytes(lowered->pte.data(), lowered->pte.size(), "conv_relu_tan.pte");
  return lowered;
}

std::string write_temp_file(const std::string& name, const void* data, size_t size) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

TEST(DebugRecordFor, TakesTheRecordOfTheseBytesOnly) {
  const auto lowered = profiled_conv_relu_tan();
  const std::string json = to_json(lowered->record);
  EXPECT_EQ(parse_debug_record_for(json, "m.kdbg", lowered->pte, "m.pte").program, lowered->record.program);
  std::vector<uint8_t> other = lowered->pte;
  other.push_back(0);
  EXPECT_THAT(error_of([&] { parse_debug_record_for(json, "m.kdbg", other, "other.pte"); }),
              HasSubstr("the debug record was written for another program: other.pte has " +
                        std::to_string(other.size()) + " bytes"));
  EXPECT_THAT(error_of([&] { parse_debug_record_for("{", "m.kdbg", lowered->pte, "m.pte"); }), HasSubstr("m.kdbg"));
}

TEST(DebugRecordFor, ReadsBothFiles) {
  const auto lowered = profiled_conv_relu_tan();
  const std::string json = to_json(lowered->record);
  const std::string record = write_temp_file("profile_session_test.kdbg", json.data(), json.size());
  const std::string pte = write_temp_file("profile_session_test.pte", lowered->pte.data(), lowered->pte.size());
  EXPECT_EQ(read_debug_record_for(record, pte).nodes.size(), lowered->record.nodes.size());
  EXPECT_THAT(error_of([&] { read_debug_record_for(record, pte + ".absent"); }),
              HasSubstr("cannot open the program " + pte + ".absent"));
  EXPECT_THAT(error_of([&] { read_debug_record_for(pte, pte); }), HasSubstr("is not a debug record"));
  std::remove(record.c_str());
  std::remove(pte.c_str());
}

TEST(ProfileSession, AttributesEveryTracedRunToTheSourceOps) {
  const auto lowered = profiled_conv_relu_tan();
  lowered->session->set_inputs({models::conv_relu_tan_input({1, 4, 4, 0})});
  const Profile profile = profile_session(*lowered->session, lowered->record, /*iterations=*/3, /*warmup=*/1);
  EXPECT_EQ(profile.runs, 3u);  // the warm-up is not traced
  double shares = 0;
  std::set<int64_t> handles;
  bool outside = false;
  for (const ProfileRow& row : profile.rows) {
    shares += row.share;
    handles.insert(row.handles.begin(), row.handles.end());
    outside |= row.label.find("outside its ops") != std::string::npos;
    EXPECT_GT(row.calls, 0.0) << row.label;
    EXPECT_GE(row.total_ms, row.median_ms) << row.label;
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_EQ(handles, (std::set<int64_t>{1, 2, 3, 4, 5}));  // every source op has its row
  EXPECT_TRUE(outside);
  ASSERT_FALSE(profile.delegates.empty());
  EXPECT_THAT(profile.delegates[0].name, HasSubstr("DemoBackend"));
  EXPECT_GT(profile.median_run_ms, 0.0);
}

TEST(ProfileSession, LeavesTheSessionUntracedAndRefusesBadCounts) {
  const auto lowered = profiled_conv_relu_tan();
  lowered->session->set_inputs_from("");
  EXPECT_THAT(error_of([&] { profile_session(*lowered->session, lowered->record, 0, 0); }),
              HasSubstr("at least 1 iteration, got 0"));
  EXPECT_THAT(error_of([&] { profile_session(*lowered->session, lowered->record, 1, -1); }),
              HasSubstr("cannot be negative"));
  DebugRecord other_method = lowered->record;
  other_method.method = "decode";
  EXPECT_THAT(error_of([&] { profile_session(*lowered->session, other_method, 1, 0); }),
              HasSubstr("the debug record describes the method 'decode', but the session runs 'forward'"));
  TraceRecorder trace;
  {
    ScopedEventTracer traced(*lowered->session, trace);
    lowered->session->execute();
  }
  const size_t events = trace.instructions().size();
  EXPECT_GT(events, 0u);
  lowered->session->execute();
  EXPECT_EQ(trace.instructions().size(), events);  // the tracer was turned off
  (void)profile_session(*lowered->session, lowered->record, 1, 0);
  lowered->session->execute();  // nor does the profile leave its tracer behind
}

CompareRow compare_row(const std::string& label, size_t order, double snr_db, const std::string& note = "") {
  CompareRow row;
  row.label = label;
  row.order = order;
  row.snr_db = snr_db;
  row.note = note;
  return row;
}

TEST(FirstDivergence, IsTheEarliestComparedOpBelowTheThreshold) {
  Comparison comparison;
  comparison.rows = {compare_row("late", 9, 10), compare_row("early", 3, 40), compare_row("unlogged", 1, 0, "no output logged"),
                     compare_row("exact", 0, INFINITY)};
  ASSERT_NE(first_divergence(comparison, 60), nullptr);
  EXPECT_EQ(first_divergence(comparison, 60)->label, "early");
  EXPECT_EQ(first_divergence(comparison, 20)->label, "late");
  EXPECT_EQ(first_divergence(comparison, 5), nullptr);
  EXPECT_EQ(first_divergence(Comparison{}, 60), nullptr);
}

}  // namespace
}  // namespace kiln::devtools
