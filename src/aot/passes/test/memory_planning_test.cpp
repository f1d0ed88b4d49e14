// plan_memory, verify_memory_plan and the plan's readers on hand-written
// lifetime records: every offset and every arena size is asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "aot/ir/error.h"
#include "aot/passes/memory_planning.h"
#include "tests/support/sweep.h"

namespace kiln::aot {
namespace {

using Algorithm = MemoryPlanningAlgorithm;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TensorLifetime record(std::string label, int64_t size, int64_t first, int64_t last) {
  TensorLifetime r;
  r.label = std::move(label);
  r.size = size;
  r.first_step = first;
  r.last_step = last;
  return r;
}

MemoryPlanOptions only(Algorithm algorithm, int64_t alignment = 16) {
  MemoryPlanOptions options;
  options.algorithms = {algorithm};
  options.alignment = alignment;
  return options;
}

// The offsets of a plan, -1 for a record that is not planned.
std::vector<int64_t> offsets(const MemoryPlan& plan) {
  std::vector<int64_t> result;
  for (const TensorPlacement& p : plan.placements) result.push_back(p.planned() ? p.offset : -1);
  return result;
}

MemoryPlan plan_and_verify(const std::vector<TensorLifetime>& records, const MemoryPlanOptions& options) {
  MemoryPlan plan = plan_memory(records, options);
  verify_memory_plan(records, plan);
  return plan;
}

TEST(MemoryPlanGreedyTest, ReusesTheObjectOfADeadTensor) {
  // a dies at step 1; c, born at 2, takes its object; b overlaps both.
  const std::vector<TensorLifetime> records = {record("a", 64, 0, 1), record("b", 64, 1, 2), record("c", 64, 2, 3)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(plan), ElementsAre(0, 64, 0));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(128));
  EXPECT_EQ(plan.algorithm, Algorithm::Greedy);
}

TEST(MemoryPlanGreedyTest, NoReuseWhenLifetimesOverlap) {
  // Largest first: c (48) opens object 0, a (32) and b (16) each need a new one.
  const std::vector<TensorLifetime> records = {record("a", 32, 0, 5), record("b", 16, 0, 5), record("c", 48, 0, 5)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(plan), ElementsAre(48, 80, 0));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(96));
}

TEST(MemoryPlanGreedyTest, PlacesAboveOverlappingAllocationsWhenTheObjectHasRoom) {
  // b reuses a's object at offset 0; c overlaps b only and fits above it.
  const std::vector<TensorLifetime> records = {record("a", 128, 0, 1), record("b", 32, 2, 5), record("c", 32, 3, 4)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(plan), ElementsAre(0, 0, 32));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(128));
}

TEST(MemoryPlanGreedyTest, EqualSizesArePlacedInRecordOrder) {
  // a, b, c all overlap: objects in record order.
  const std::vector<TensorLifetime> records = {record("a", 16, 0, 2), record("b", 16, 1, 2), record("c", 16, 2, 2)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(plan), ElementsAre(0, 16, 32));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(48));
}

TEST(MemoryPlanNaiveTest, BumpsInRecordOrderWithoutReuse) {
  const std::vector<TensorLifetime> records = {record("a", 10, 0, 1), record("b", 20, 2, 3), record("z", 0, 4, 4),
                                               record("c", 5, 5, 6)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::Naive));
  EXPECT_THAT(offsets(plan), ElementsAre(0, 16, 48, 48));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(64));
}

TEST(MemoryPlanBestFitTest, UsesTheSmallestGapAcrossWhatGreedyKeepsInObjects) {
  // Greedy: c opens object 0, a reuses it, b needs object 1 (64 at 96), d fits
  // nowhere in object 0 and takes object 1 while b is dead: 160 bytes.
  // BestFit: b goes right above a, d right above c: 128 bytes.
  const std::vector<TensorLifetime> records = {record("c", 96, 2, 3), record("a", 64, 0, 1), record("b", 64, 0, 1),
                                               record("d", 32, 2, 3)};
  const MemoryPlan greedy = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(greedy), ElementsAre(0, 0, 96, 96));
  EXPECT_THAT(greedy.arena_sizes, ElementsAre(160));
  const MemoryPlan best_fit = plan_and_verify(records, only(Algorithm::BestFit));
  EXPECT_THAT(offsets(best_fit), ElementsAre(0, 0, 64, 96));
  EXPECT_THAT(best_fit.arena_sizes, ElementsAre(128));
}

TEST(MemoryPlanBestFitTest, PrefersTheSmallestGapThatFits) {
  // When f is placed (step 5), b and d are dead: below it lie a gap of 64
  // (b's bytes) and a gap of 32 (d's); f takes the 32, first fit would take the 64.
  const std::vector<TensorLifetime> records = {record("a", 64, 0, 9), record("b", 64, 0, 1), record("c", 64, 0, 9),
                                               record("d", 32, 0, 1), record("e", 32, 0, 9), record("f", 32, 5, 5)};
  const MemoryPlan plan = plan_and_verify(records, only(Algorithm::BestFit));
  EXPECT_THAT(offsets(plan), ElementsAre(0, 64, 128, 192, 224, 192));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(256));
  const MemoryPlan first_fit = plan_and_verify(records, only(Algorithm::FirstFit));
  EXPECT_THAT(offsets(first_fit), ElementsAre(0, 64, 128, 192, 224, 64));
  EXPECT_THAT(first_fit.arena_sizes, ElementsAre(256));
}

TEST(MemoryPlanBestFitTest, ByAreaSettlesLongLivedTensorsFirst) {
  // By size: b, a, c, d; c (live 0..2) lands above b and a, and d above c: 208.
  // By area (size * steps): c, b, a, d; c at 0, b and a above it, d above a: 176.
  const std::vector<TensorLifetime> records = {record("a", 64, 2, 2), record("b", 96, 0, 0), record("c", 64, 0, 2),
                                               record("d", 48, 2, 2)};
  const MemoryPlan by_size = plan_and_verify(records, only(Algorithm::BestFit));
  EXPECT_THAT(offsets(by_size), ElementsAre(0, 0, 96, 160));
  EXPECT_THAT(by_size.arena_sizes, ElementsAre(208));
  const MemoryPlan by_area = plan_and_verify(records, only(Algorithm::BestFitByArea));
  EXPECT_THAT(offsets(by_area), ElementsAre(64, 64, 0, 128));
  EXPECT_THAT(by_area.arena_sizes, ElementsAre(176));
  const MemoryPlan suite = plan_and_verify(records, MemoryPlanOptions{});
  EXPECT_EQ(suite.algorithm, Algorithm::BestFitByArea);
  EXPECT_THAT(offsets(suite), ElementsAre(64, 64, 0, 128));
}

TEST(MemoryPlanTest, KeepsTheSmallestPlanAndReportsEveryAlgorithm) {
  const std::vector<TensorLifetime> records = {record("c", 96, 2, 3), record("a", 64, 0, 1), record("b", 64, 0, 1),
                                               record("d", 32, 2, 3)};
  const MemoryPlan plan = plan_and_verify(records, MemoryPlanOptions{});
  EXPECT_EQ(plan.algorithm, Algorithm::BestFit);
  EXPECT_THAT(offsets(plan), ElementsAre(0, 0, 64, 96));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(128));
  ASSERT_EQ(plan.tried.size(), 5u);
  const std::pair<Algorithm, int64_t> expected[] = {{Algorithm::Greedy, 160},
                                                    {Algorithm::BestFit, 128},
                                                    {Algorithm::FirstFit, 128},
                                                    {Algorithm::BestFitByArea, 128},
                                                    {Algorithm::Naive, 256}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(plan.tried[i].algorithm, expected[i].first);
    EXPECT_EQ(plan.tried[i].total_bytes, expected[i].second) << to_string(expected[i].first);
    EXPECT_THAT(plan.tried[i].arena_sizes, ElementsAre(expected[i].second));
  }
}

TEST(MemoryPlanTest, ATieGoesToTheAlgorithmListedFirst) {
  // Everything overlaps: greedy and naive both need 48 bytes.
  const std::vector<TensorLifetime> records = {record("a", 16, 0, 2), record("b", 32, 0, 2)};
  MemoryPlanOptions options;
  options.algorithms = {Algorithm::Naive, Algorithm::Greedy};
  const MemoryPlan plan = plan_and_verify(records, options);
  EXPECT_EQ(plan.algorithm, Algorithm::Naive);
  EXPECT_THAT(offsets(plan), ElementsAre(0, 16));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(48));
}

TEST(MemoryPlanTest, AlignsSizesAndOffsets) {
  const std::vector<TensorLifetime> records = {record("a", 1, 0, 1), record("b", 100, 0, 1), record("c", 17, 2, 2)};
  // Default 16: b 112 at 0, a 16 at 112; c reuses b's object.
  const MemoryPlan sixteen = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(sixteen), ElementsAre(112, 0, 0));
  EXPECT_THAT(sixteen.arena_sizes, ElementsAre(128));
  EXPECT_EQ(sixteen.alignment, 16);
  const MemoryPlan sixty_four = plan_and_verify(records, only(Algorithm::Greedy, 64));
  EXPECT_THAT(offsets(sixty_four), ElementsAre(128, 0, 0));
  EXPECT_THAT(sixty_four.arena_sizes, ElementsAre(192));
  const MemoryPlan one = plan_and_verify(records, only(Algorithm::Naive, 1));
  EXPECT_THAT(offsets(one), ElementsAre(0, 1, 101));
  EXPECT_THAT(one.arena_sizes, ElementsAre(118));
  EXPECT_EQ(align_size(0, 16), 0);
  EXPECT_EQ(align_size(17, 16), 32);
  EXPECT_THROW(align_size(INT64_MAX - 3, 16), AotError);
}

TEST(MemoryPlanTest, PlansInputsAndOutputsOnlyIfAsked) {
  std::vector<TensorLifetime> records = {record("x", 64, 0, 1), record("t", 32, 1, 2), record("y", 16, 2, 3)};
  records[0].graph_input = true;
  records[2].graph_output = true;
  const MemoryPlan all = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(all), ElementsAre(0, 64, 0));
  EXPECT_THAT(all.arena_sizes, ElementsAre(96));
  MemoryPlanOptions no_io = only(Algorithm::Greedy);
  no_io.plan_inputs = false;
  no_io.plan_outputs = false;
  const MemoryPlan none = plan_and_verify(records, no_io);
  EXPECT_THAT(offsets(none), ElementsAre(-1, 0, -1));
  EXPECT_THAT(none.arena_sizes, ElementsAre(32));
  MemoryPlanOptions outputs_only = only(Algorithm::Greedy);
  outputs_only.plan_inputs = false;
  EXPECT_THAT(offsets(plan_and_verify(records, outputs_only)), ElementsAre(-1, 0, 32));
}

TEST(MemoryPlanTest, AMutableBufferLivesTheWholeRun) {
  // The buffer's steps say 0..0, but it is live across calls: a must not share it.
  std::vector<TensorLifetime> records = {record("buffer", 64, 0, 0), record("a", 64, 5, 6)};
  records[0].whole_run = true;
  for (Algorithm algorithm : {Algorithm::Greedy, Algorithm::BestFit, Algorithm::FirstFit, Algorithm::BestFitByArea}) {
    const MemoryPlan plan = plan_and_verify(records, only(algorithm));
    EXPECT_THAT(offsets(plan), ElementsAre(0, 64)) << to_string(algorithm);
    EXPECT_THAT(plan.arena_sizes, ElementsAre(128)) << to_string(algorithm);
  }
  records[0].whole_run = false;
  EXPECT_THAT(offsets(plan_and_verify(records, only(Algorithm::Greedy))), ElementsAre(0, 0));
}

TEST(MemoryPlanTest, ConstantsAreNeverPlanned) {
  std::vector<TensorLifetime> records = {record("weight", 1024, 0, 3), record("a", 16, 1, 2)};
  records[0].constant = true;
  const MemoryPlan plan = plan_and_verify(records, MemoryPlanOptions{});
  EXPECT_THAT(offsets(plan), ElementsAre(-1, 0));
  EXPECT_THAT(plan.arena_sizes, ElementsAre(16));
  EXPECT_FALSE(is_planned(records[0], MemoryPlanOptions{}));
}

TEST(MemoryPlanTest, ZeroSizeTensorsTakeNoBytes) {
  const std::vector<TensorLifetime> records = {record("a", 64, 0, 3), record("z", 0, 1, 2), record("w", 0, 1, 2)};
  // Greedy puts z above a in a's object (ExecuTorch does too), at the end of the arena.
  const MemoryPlan greedy = plan_and_verify(records, only(Algorithm::Greedy));
  EXPECT_THAT(offsets(greedy), ElementsAre(0, 64, 64));
  EXPECT_THAT(greedy.arena_sizes, ElementsAre(64));
  const MemoryPlan best_fit = plan_and_verify(records, only(Algorithm::BestFit));
  EXPECT_THAT(offsets(best_fit), ElementsAre(0, 0, 0));
  EXPECT_THAT(best_fit.arena_sizes, ElementsAre(64));
  const MemoryPlan only_zero = plan_and_verify({record("z", 0, 0, 0)}, MemoryPlanOptions{});
  EXPECT_THAT(offsets(only_zero), ElementsAre(0));
  EXPECT_THAT(only_zero.arena_sizes, ElementsAre(0));
}

TEST(MemoryPlanTest, NoRecordsGiveOneEmptyArena) {
  const MemoryPlan plan = plan_and_verify({}, MemoryPlanOptions{});
  EXPECT_THAT(plan.arena_sizes, ElementsAre(0));
  EXPECT_THAT(emitter_allocations({}, plan).non_const_buffer_sizes, ElementsAre(0, 0));
}

TEST(MemoryPlanTest, PlansEachArenaOnItsOwnAndPadsThem) {
  std::vector<TensorLifetime> records = {record("a", 16, 0, 1), record("b", 32, 0, 1), record("c", 16, 2, 3)};
  records[1].arena = 1;
  MemoryPlanOptions options = only(Algorithm::Greedy);
  options.arena_padding = 64;
  const MemoryPlan plan = plan_and_verify(records, options);
  EXPECT_THAT(offsets(plan), ElementsAre(0, 0, 0));
  EXPECT_EQ(plan.placements[1].arena, 1);
  EXPECT_THAT(plan.arena_sizes, ElementsAre(80, 96));
  EXPECT_EQ(plan.total_bytes(), 176);
}

TEST(MemoryPlanTest, RejectsBadRecordsAndOptions) {
  EXPECT_THAT([] { plan_memory({record("neg", -1, 0, 0)}); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'neg') has negative size")));
  EXPECT_THAT([] { plan_memory({record("back", 16, 3, 2)}); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'back') ends (step 2) before it starts (step 3)")));
  EXPECT_THAT([] { plan_memory({}, only(Algorithm::Greedy, 0)); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("alignment must be at least 1")));
  MemoryPlanOptions none;
  none.algorithms.clear();
  EXPECT_THROW(plan_memory({}, none), AotError);
}

// A plan written by hand, to feed the verifier.
MemoryPlan hand_plan(std::vector<int64_t> arena_sizes, std::vector<TensorPlacement> placements) {
  MemoryPlan plan;
  plan.arena_sizes = std::move(arena_sizes);
  plan.placements = std::move(placements);
  return plan;
}

TEST(MemoryPlanVerifyTest, CatchesOverlapOutOfArenaAndMisalignment) {
  const std::vector<TensorLifetime> records = {record("a", 32, 0, 2), record("b", 32, 2, 4), record("c", 32, 3, 4)};
  EXPECT_NO_THROW(verify_memory_plan(records, hand_plan({64}, {{0, 0}, {0, 32}, {0, 0}})));
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({64}, {{0, 0}, {0, 16}, {0, 32}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr(
                  "'a' (bytes [0, 32), steps [0, 2]) and 'b' (bytes [16, 48), steps [2, 4]) are live at a common step")));
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({64}, {{0, 0}, {0, 32}, {0, 48}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'c' (bytes [48, 80), steps [3, 4]) does not fit in arena 0 of 64 bytes")));
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({96}, {{0, 0}, {0, 40}, {0, 0}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'b' (bytes [40, 72), steps [2, 4]) is at an offset that is not a multiple of the alignment 16")));
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({64}, {{0, 0}, {1, 0}, {0, 0}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("is in arena 1 but the plan has 1 arenas")));
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({64}, {{0, -16}, {0, 32}, {0, 0}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'a' (bytes [-16, 16), steps [0, 2]) is at a negative offset")));
  EXPECT_THROW(verify_memory_plan(records, hand_plan({64}, {{0, 0}})), AotError);
}

TEST(MemoryPlanVerifyTest, WholeRunRecordsOverlapEverythingAndZeroSizeNothing) {
  std::vector<TensorLifetime> records = {record("buffer", 32, 0, 0), record("a", 32, 7, 9), record("z", 0, 7, 9)};
  records[0].whole_run = true;
  EXPECT_THAT([&] { verify_memory_plan(records, hand_plan({64}, {{0, 0}, {0, 0}, {0, 0}})); },
              ::testing::ThrowsMessage<AotError>(HasSubstr("'buffer' (bytes [0, 32), the whole run) and 'a'")));
  EXPECT_NO_THROW(verify_memory_plan(records, hand_plan({64}, {{0, 0}, {0, 32}, {0, 16}})));
  // Separate arenas never clash.
  EXPECT_NO_THROW(verify_memory_plan(records, hand_plan({32, 32}, {{0, 0}, {1, 0}, {-1, 0}})));
}

TEST(MemoryPlanReportTest, PeakLiveBytesAndSummary) {
  const std::vector<TensorLifetime> records = {record("c", 96, 2, 3), record("a", 64, 0, 1), record("b", 64, 0, 1),
                                               record("d", 32, 2, 3)};
  const MemoryPlan plan = plan_memory(records);
  EXPECT_EQ(peak_live_bytes(records, plan, 0), 128);
  EXPECT_EQ(memory_plan_summary(records, plan),
            "memory plan: best_fit (alignment 16, 4 tensors planned, 0 not planned)\n"
            "  mem_id 1: 128 bytes, peak live 128 bytes, efficiency 100.0%\n"
            "  algorithms: greedy 160 bytes, best_fit 128 bytes, first_fit 128 bytes, best_fit_by_area 128 bytes, "
            "naive 256 bytes\n");
  const MemoryPlan greedy = plan_memory(records, only(Algorithm::Greedy));
  EXPECT_THAT(memory_plan_summary(records, greedy), HasSubstr("mem_id 1: 160 bytes, peak live 128 bytes, efficiency 80.0%"));
}

TEST(MemoryPlanReportTest, PeakCountsBothEndsOfALifetimeAndWholeRunRecords) {
  std::vector<TensorLifetime> records = {record("a", 16, 0, 2), record("b", 16, 2, 3), record("c", 16, 3, 3),
                                         record("buffer", 48, 9, 9)};
  records[3].whole_run = true;
  const MemoryPlan plan = plan_memory(records);
  EXPECT_EQ(peak_live_bytes(records, plan, 0), 32 + 48);
}

TEST(MemoryPlanReportTest, SummaryListsEveryArenaByMemIdAndCountsUnplannedRecords) {
  std::vector<TensorLifetime> records = {record("a", 16, 0, 1), record("b", 32, 0, 1), record("c", 16, 1, 2),
                                         record("x", 64, 0, 2)};
  records[1].arena = 1;
  records[3].graph_input = true;
  MemoryPlanOptions options;
  options.algorithms = {Algorithm::Naive, Algorithm::Greedy};
  options.plan_inputs = false;
  const MemoryPlan plan = plan_memory(records, options);
  EXPECT_EQ(memory_plan_summary(records, plan),
            "memory plan: naive (alignment 16, 3 tensors planned, 1 not planned)\n"
            "  mem_id 1: 32 bytes, peak live 32 bytes, efficiency 100.0%\n"
            "  mem_id 2: 32 bytes, peak live 32 bytes, efficiency 100.0%\n"
            "  algorithms: naive 64 bytes, greedy 64 bytes\n");
}

TEST(MemoryPlanEmitterTest, MemoryIdsAreOneBasedAndBufferZeroIsReserved) {
  std::vector<TensorLifetime> records = {record("a", 16, 0, 1), record("b", 32, 0, 1), record("x", 16, 0, 1)};
  int anchors[3] = {};  // stand-ins for nodes: only compared, never read
  records[0].node = reinterpret_cast<const Node*>(&anchors[0]);
  records[1].node = reinterpret_cast<const Node*>(&anchors[1]);
  records[1].arena = 1;
  records[2].node = reinterpret_cast<const Node*>(&anchors[2]);
  records[2].graph_input = true;
  MemoryPlanOptions options = only(Algorithm::Greedy);
  options.plan_inputs = false;
  const MemoryPlan plan = plan_memory(records, options);
  const EmitterMemoryPlan emitted = emitter_allocations(records, plan);
  EXPECT_THAT(emitted.non_const_buffer_sizes, ElementsAre(0, 16, 32));
  ASSERT_NE(emitted.find(records[0].node), nullptr);
  EXPECT_EQ(*emitted.find(records[0].node), (PlannedAllocation{1, 0}));
  EXPECT_EQ(*emitted.find(records[1].node), (PlannedAllocation{2, 0}));
  EXPECT_EQ(emitted.find(records[2].node), nullptr);
  EXPECT_EQ(emitted.find(records[0].node, 0), nullptr);
  records[0].node = nullptr;
  EXPECT_THROW(emitter_allocations(records, plan), AotError);
}

// 10^5 records (sampled under the sanitizers): mostly short lifetimes of mixed
// sizes, some long-lived ones (inputs, outputs), some whole-run buffers. Every
// algorithm's plan passes the verifier and none is smaller than the peak of
// live bytes.
TEST(MemoryPlanTest, LargeRandomProgramsPlanCorrectly) {
  std::mt19937_64 random(42);
  const auto steps = static_cast<int64_t>(kiln::testing::sweep_count(100000));
  std::vector<TensorLifetime> records;
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t span = random() % 64 == 0 ? static_cast<int64_t>(random() % 2000) : static_cast<int64_t>(random() % 6);
    TensorLifetime r = record("t" + std::to_string(i), static_cast<int64_t>(random() % 4096) * 4, i,
                              std::min(steps - 1, i + span));
    r.whole_run = random() % 20000 == 0;
    records.push_back(std::move(r));
  }
  const MemoryPlan plan = plan_memory(records);
  ASSERT_EQ(plan.tried.size(), 5u);
  const int64_t peak = peak_live_bytes(records, plan, 0);
  for (const AlgorithmResult& tried : plan.tried) {
    const MemoryPlan each = plan_memory(records, only(tried.algorithm));
    EXPECT_NO_THROW(verify_memory_plan(records, each)) << to_string(tried.algorithm);
    EXPECT_EQ(each.total_bytes(), tried.total_bytes);
    EXPECT_GE(tried.total_bytes, peak);
    EXPECT_GE(tried.total_bytes, plan.total_bytes());
  }
  EXPECT_LE(plan.total_bytes(), plan.tried[0].total_bytes);  // never worse than ExecuTorch's greedy
}

}  // namespace
}  // namespace kiln::aot
