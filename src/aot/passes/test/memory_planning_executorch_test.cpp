// plan_memory on the lifetimes ExecuTorch computed for two torchvision models
// (memory_planning_data/, written by dump_et_lifetimes.py): Greedy gives
// exactly ExecuTorch's arena, and the suite reaches the peak of live bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "aot/passes/memory_planning.h"

namespace kiln::aot {
namespace {

struct ExecuTorchLifetimes {
  std::vector<TensorLifetime> records;
  MemoryPlan plan;  // ExecuTorch's own placements
};

ExecuTorchLifetimes read_lifetimes(const std::string& model) {
  const std::string path = std::string(KILN_SOURCE_DIR) + "/src/aot/passes/test/memory_planning_data/" + model + ".lifetimes";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  ExecuTorchLifetimes result;
  result.plan.arena_sizes = {0};
  std::string line;
  while (std::getline(in, line)) {
    const std::string sizes_tag = "# non_const_buffer_sizes [0, ";
    if (line.rfind(sizes_tag, 0) == 0) result.plan.arena_sizes = {std::stoll(line.substr(sizes_tag.size()))};
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    TensorLifetime record;
    int64_t offset = 0;
    fields >> record.size >> record.first_step >> record.last_step >> offset;
    record.label = model + ":" + std::to_string(result.records.size());
    result.records.push_back(record);
    result.plan.placements.push_back({0, offset});
  }
  return result;
}

void expect_plans(const std::string& model, int64_t executorch_bytes, int64_t kiln_bytes) {
  SCOPED_TRACE(model);
  const ExecuTorchLifetimes lifetimes = read_lifetimes(model);
  ASSERT_FALSE(lifetimes.records.empty());
  EXPECT_EQ(lifetimes.plan.arena_sizes[0], executorch_bytes);
  EXPECT_NO_THROW(verify_memory_plan(lifetimes.records, lifetimes.plan));  // ExecuTorch's plan is sound

  MemoryPlanOptions greedy_only;
  greedy_only.algorithms = {MemoryPlanningAlgorithm::Greedy};
  EXPECT_EQ(plan_memory(lifetimes.records, greedy_only).total_bytes(), executorch_bytes);

  const MemoryPlan plan = plan_memory(lifetimes.records);
  verify_memory_plan(lifetimes.records, plan);
  EXPECT_EQ(plan.total_bytes(), kiln_bytes);
  EXPECT_EQ(peak_live_bytes(lifetimes.records, plan, 0), kiln_bytes);  // nothing smaller exists
}

TEST(MemoryPlanExecuTorchTest, GreedyMatchesExecuTorchAndTheSuiteReachesThePeak) {
  expect_plans("mobilenet_v3_small", 4898816, 4104096);  // 16% smaller than ExecuTorch
  expect_plans("resnet18", 6422528, 6422528);            // ExecuTorch already at the peak
}

}  // namespace
}  // namespace kiln::aot
