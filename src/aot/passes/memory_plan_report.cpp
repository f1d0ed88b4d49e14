// What is read off a finished memory plan: its independent check
// (verify_memory_plan, a sweep over the steps keeping the live records in
// offset order), the peak of live bytes, the --print-memory summary and the
// allocations the emitter writes.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <queue>
#include <set>

#include "aot/ir/error.h"
#include "aot/passes/memory_planning.h"

namespace kiln::aot {
namespace {

int64_t first_step(const TensorLifetime& record) {
  return record.whole_run ? std::numeric_limits<int64_t>::min() : record.first_step;
}
int64_t last_step(const TensorLifetime& record) {
  return record.whole_run ? std::numeric_limits<int64_t>::max() : record.last_step;
}

std::string describe(const TensorLifetime& record, const TensorPlacement& placement) {
  std::string steps = record.whole_run ? "the whole run"
                                       : "steps [" + std::to_string(record.first_step) + ", " +
                                             std::to_string(record.last_step) + "]";
  return "'" + record.label + "' (bytes [" + std::to_string(placement.offset) + ", " +
         std::to_string(placement.offset + record.size) + "), " + steps + ")";
}

void check_placement(const TensorLifetime& record, const TensorPlacement& placement, const MemoryPlan& plan) {
  const std::string what = "memory plan: " + describe(record, placement);
  if (static_cast<size_t>(placement.arena) >= plan.arena_sizes.size()) {
    throw AotError(what + " is in arena " + std::to_string(placement.arena) + " but the plan has " +
                   std::to_string(plan.arena_sizes.size()) + " arenas");
  }
  if (placement.offset < 0) throw AotError(what + " is at a negative offset");
  if (placement.offset % plan.alignment != 0) {
    throw AotError(what + " is at an offset that is not a multiple of the alignment " + std::to_string(plan.alignment));
  }
  const int64_t arena_size = plan.arena_sizes[placement.arena];
  if (placement.offset > arena_size || record.size > arena_size - placement.offset) {
    throw AotError(what + " does not fit in arena " + std::to_string(placement.arena) + " of " +
                   std::to_string(arena_size) + " bytes");
  }
}

// Records are taken in order of their first step; those live before it that
// ended are dropped; the live ones never share a byte, so the new one needs
// checking only against its neighbours in offset order.
void check_no_overlap(const std::vector<TensorLifetime>& records, const MemoryPlan& plan, std::vector<size_t> members) {
  std::sort(members.begin(), members.end(),
            [&](size_t a, size_t b) { return first_step(records[a]) < first_step(records[b]); });
  using Ending = std::pair<int64_t, size_t>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> live_until;
  std::set<std::pair<int64_t, size_t>> live_by_offset;
  auto overlap = [&](size_t a, size_t b) {
    throw AotError("memory plan: " + describe(records[a], plan.placements[a]) + " and " +
                   describe(records[b], plan.placements[b]) + " are live at a common step and share bytes in arena " +
                   std::to_string(plan.placements[a].arena));
  };
  for (size_t r : members) {
    while (!live_until.empty() && live_until.top().first < first_step(records[r])) {
      const size_t ended = live_until.top().second;
      live_until.pop();
      live_by_offset.erase({plan.placements[ended].offset, ended});
    }
    const int64_t offset = plan.placements[r].offset;
    auto next = live_by_offset.lower_bound({offset, 0});
    if (next != live_by_offset.end() && next->first < offset + records[r].size) overlap(next->second, r);
    if (next != live_by_offset.begin()) {
      const size_t before = std::prev(next)->second;
      if (plan.placements[before].offset + records[before].size > offset) overlap(before, r);
    }
    live_by_offset.insert({offset, r});
    live_until.push({last_step(records[r]), r});
  }
}

std::string format_percent(int64_t part, int64_t whole) {
  if (whole == 0) return part == 0 ? "100.0%" : "n/a";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

}  // namespace

void verify_memory_plan(const std::vector<TensorLifetime>& records, const MemoryPlan& plan) {
  if (plan.placements.size() != records.size()) {
    throw AotError("memory plan: " + std::to_string(plan.placements.size()) + " placements for " +
                   std::to_string(records.size()) + " records");
  }
  if (plan.alignment < 1) throw AotError("memory plan: alignment " + std::to_string(plan.alignment) + " is not positive");
  std::vector<std::vector<size_t>> members(plan.arena_sizes.size());
  for (size_t r = 0; r < records.size(); ++r) {
    const TensorPlacement& placement = plan.placements[r];
    if (!placement.planned()) continue;
    check_placement(records[r], placement, plan);
    if (records[r].size > 0) members[placement.arena].push_back(r);
  }
  for (const auto& arena_members : members) check_no_overlap(records, plan, arena_members);
}

int64_t peak_live_bytes(const std::vector<TensorLifetime>& records, const MemoryPlan& plan, int arena) {
  int64_t always_live = 0;
  std::vector<std::pair<int64_t, int64_t>> events;  // (step, +size at its first step / -size after its last)
  for (size_t r = 0; r < records.size() && r < plan.placements.size(); ++r) {
    if (plan.placements[r].arena != arena) continue;
    const int64_t size = align_size(records[r].size, plan.alignment);
    if (records[r].whole_run) {
      always_live += size;
      continue;
    }
    events.emplace_back(records[r].first_step, size);
    events.emplace_back(records[r].last_step, -size);
  }
  // At one step, starts (positive) come before ends: both ends of a lifetime count.
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  int64_t live = 0;
  int64_t peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak + always_live;
}

std::string memory_plan_summary(const std::vector<TensorLifetime>& records, const MemoryPlan& plan) {
  size_t planned = 0;
  for (const TensorPlacement& placement : plan.placements) planned += placement.planned() ? 1 : 0;
  std::string text = "memory plan: " + std::string(to_string(plan.algorithm)) + " (alignment " +
                     std::to_string(plan.alignment) + ", " + std::to_string(planned) + " tensors planned, " +
                     std::to_string(records.size() - planned) + " not planned)\n";
  for (size_t a = 0; a < plan.arena_sizes.size(); ++a) {
    const int64_t peak = peak_live_bytes(records, plan, static_cast<int>(a));
    text += "  mem_id " + std::to_string(a + 1) + ": " + std::to_string(plan.arena_sizes[a]) + " bytes, peak live " +
            std::to_string(peak) + " bytes, efficiency " + format_percent(peak, plan.arena_sizes[a]) + "\n";
  }
  text += "  algorithms:";
  for (size_t i = 0; i < plan.tried.size(); ++i) {
    const AlgorithmResult& result = plan.tried[i];
    text += std::string(i == 0 ? " " : ", ") + to_string(result.algorithm) + " " +
            std::to_string(result.total_bytes) + " bytes";
  }
  return text + "\n";
}

const PlannedAllocation* EmitterMemoryPlan::find(const Node* node, int64_t output_index) const {
  auto it = allocations.find({node, output_index});
  return it == allocations.end() ? nullptr : &it->second;
}

EmitterMemoryPlan emitter_allocations(const std::vector<TensorLifetime>& records, const MemoryPlan& plan) {
  if (plan.placements.size() != records.size()) {
    throw AotError("memory plan: " + std::to_string(plan.placements.size()) + " placements for " +
                   std::to_string(records.size()) + " records");
  }
  EmitterMemoryPlan result;
  result.non_const_buffer_sizes.push_back(0);  // index 0 is reserved: mem_id is 1-based
  result.non_const_buffer_sizes.insert(result.non_const_buffer_sizes.end(), plan.arena_sizes.begin(),
                                       plan.arena_sizes.end());
  for (size_t r = 0; r < records.size(); ++r) {
    const TensorPlacement& placement = plan.placements[r];
    if (!placement.planned()) continue;
    if (records[r].node == nullptr) throw AotError("memory plan: planned record '" + records[r].label + "' has no node");
    result.allocations[{records[r].node, records[r].output_index}] =
        PlannedAllocation{static_cast<uint32_t>(placement.arena + 1), static_cast<uint64_t>(placement.offset)};
  }
  return result;
}

}  // namespace kiln::aot
