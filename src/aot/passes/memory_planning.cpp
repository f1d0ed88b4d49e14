// plan_memory: runs each configured algorithm (see memory_planning.h) on each
// arena's records and keeps the smallest plan. All but Naive find the placed
// records that overlap the one they place through LifetimeIndex, a segment
// tree over the distinct steps.
#include "aot/passes/memory_planning.h"

#include <algorithm>
#include <limits>

#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

// A planned record as the algorithms see it: its aligned size and its
// lifetime as indices into the arena's sorted distinct steps.
struct Item {
  size_t record = 0;
  int64_t size = 0;
  int lo = 0;
  int hi = 0;
  int64_t steps = 1;  // how many steps it lives (whole run: all of them)
};

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) throw AotError(std::string("memory plan: ") + what + " overflows int64");
  return sum;
}

// The ranges [lo, hi] of inserted ids; finds those that meet a query range.
// Each id is stored at the O(log n) nodes that cover its range exactly, and a
// node counts what its subtree holds so that empty subtrees are skipped: a
// query costs O(log n) per id found.
class LifetimeIndex {
 public:
  LifetimeIndex(int num_points, size_t num_ids) : seen_(num_ids, 0) {
    while (leaves_ < num_points) leaves_ *= 2;
    nodes_.resize(2 * static_cast<size_t>(leaves_));
  }

  void insert(int id, int lo, int hi) { insert(1, 0, leaves_ - 1, id, lo, hi); }

  /// Replaces `out` with every inserted id whose range meets [lo, hi].
  void find_overlapping(int lo, int hi, std::vector<int>& out) {
    out.clear();
    ++stamp_;
    collect(1, 0, leaves_ - 1, lo, hi, out);
  }

 private:
  void insert(int node, int l, int r, int id, int lo, int hi) {
    ++nodes_[node].count;
    if (lo <= l && r <= hi) {
      nodes_[node].ids.push_back(id);
      return;
    }
    const int mid = l + (r - l) / 2;
    if (lo <= mid) insert(2 * node, l, mid, id, lo, hi);
    if (hi > mid) insert(2 * node + 1, mid + 1, r, id, lo, hi);
  }

  void collect(int node, int l, int r, int lo, int hi, std::vector<int>& out) {
    if (nodes_[node].count == 0 || r < lo || l > hi) return;
    for (int id : nodes_[node].ids) {
      if (seen_[id] == stamp_) continue;  // stored at several nodes of this query
      seen_[id] = stamp_;
      out.push_back(id);
    }
    if (l == r) return;
    const int mid = l + (r - l) / 2;
    collect(2 * node, l, mid, lo, hi, out);
    collect(2 * node + 1, mid + 1, r, lo, hi, out);
  }

  struct TreeNode {
    int count = 0;         // ids inserted at or below this node
    std::vector<int> ids;  // ids whose range covers this node's and not its parent's
  };
  int leaves_ = 1;
  std::vector<TreeNode> nodes_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
};

// Items of one arena, ready for the algorithms: lifetimes compressed, and
// the order Greedy and BestFit place them in.
struct ArenaItems {
  std::vector<Item> items;   // in record order
  std::vector<int> by_size;  // indices into items, largest first, ties in record order
  std::vector<int> by_area;  // indices into items, largest size * steps first, ties in record order
  int num_points = 1;
};

ArenaItems arena_items(const std::vector<TensorLifetime>& records, const std::vector<size_t>& members,
                       int64_t alignment) {
  ArenaItems arena;
  std::vector<int64_t> steps;
  for (size_t r : members) {
    if (records[r].whole_run) continue;
    steps.push_back(records[r].first_step);
    steps.push_back(records[r].last_step);
  }
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  arena.num_points = std::max<int>(1, static_cast<int>(steps.size()));
  auto point = [&](int64_t step) {
    return static_cast<int>(std::lower_bound(steps.begin(), steps.end(), step) - steps.begin());
  };
  for (size_t r : members) {
    const TensorLifetime& record = records[r];
    Item item{r, align_size(record.size, alignment), 0, arena.num_points - 1};
    if (record.whole_run) {
      item.steps = steps.empty() ? 1 : steps.back() - steps.front() + 1;
    } else {
      item.lo = point(record.first_step);
      item.hi = point(record.last_step);
      item.steps = record.last_step - record.first_step + 1;
    }
    arena.items.push_back(item);
  }
  arena.by_size.resize(arena.items.size());
  for (size_t i = 0; i < arena.by_size.size(); ++i) arena.by_size[i] = static_cast<int>(i);
  arena.by_area = arena.by_size;
  std::stable_sort(arena.by_size.begin(), arena.by_size.end(),
                   [&](int a, int b) { return arena.items[a].size > arena.items[b].size; });
  auto area = [&](int i) { return static_cast<__int128>(arena.items[i].size) * arena.items[i].steps; };
  std::stable_sort(arena.by_area.begin(), arena.by_area.end(), [&](int a, int b) { return area(a) > area(b); });
  return arena;
}

// ExecuTorch's shared objects: each is as large as its first (largest)
// allocation and holds later ones at offsets inside it.
class SharedObjects {
 public:
  explicit SharedObjects(size_t num_items) : object_of_(num_items, -1), offset_in_object_(num_items, 0) {}

  /// Places item `i` given the placed items that overlap it in time: at
  /// offset 0 of the first object none of them is in; else above them in the
  /// first object where it fits; else in a new object.
  void place(int i, const ArenaItems& arena, const std::vector<int>& overlapping) {
    const std::vector<int>& busy = busy_objects(arena, overlapping);
    int free_object = 0;  // the first object missing from `busy` (which is sorted)
    while (static_cast<size_t>(free_object) < busy.size() && busy[free_object] == free_object) ++free_object;
    if (static_cast<size_t>(free_object) < size_.size()) return assign(i, free_object, 0);
    const int64_t size = arena.items[i].size;
    for (int object : busy) {
      if (top_[object] > 0 && top_[object] + size <= size_[object]) return assign(i, object, top_[object]);
    }
    size_.push_back(size);
    top_.push_back(0);
    stamp_of_.push_back(0);
    assign(i, static_cast<int>(size_.size()) - 1, 0);
  }

  /// Lays the objects out back to back; returns the arena size.
  int64_t lay_out(std::vector<int64_t>& offsets) const {
    std::vector<int64_t> object_offset(size_.size(), 0);
    int64_t total = 0;
    for (size_t object = 0; object < size_.size(); ++object) {
      object_offset[object] = total;
      total = checked_add(total, size_[object], "the arena size");
    }
    for (size_t i = 0; i < object_of_.size(); ++i) offsets[i] = object_offset[object_of_[i]] + offset_in_object_[i];
    return total;
  }

 private:
  // The objects holding an overlapping item, sorted, each with top_ set to
  // the highest end of those items in it.
  const std::vector<int>& busy_objects(const ArenaItems& arena, const std::vector<int>& overlapping) {
    ++stamp_;
    busy_.clear();
    for (int other : overlapping) {
      const int object = object_of_[other];
      const int64_t end = offset_in_object_[other] + arena.items[other].size;
      if (stamp_of_[object] != stamp_) {
        stamp_of_[object] = stamp_;
        top_[object] = end;
        busy_.push_back(object);
      } else {
        top_[object] = std::max(top_[object], end);
      }
    }
    std::sort(busy_.begin(), busy_.end());
    return busy_;
  }

  void assign(int i, int object, int64_t offset) {
    object_of_[i] = object;
    offset_in_object_[i] = offset;
  }

  std::vector<int> object_of_;            // per item
  std::vector<int64_t> offset_in_object_;  // per item
  std::vector<int64_t> size_;             // per object
  std::vector<int64_t> top_;              // per object, valid where stamp_of_ == stamp_
  std::vector<uint32_t> stamp_of_;        // per object
  uint32_t stamp_ = 0;
  std::vector<int> busy_;
};

// ExecuTorch's greedy, in order of size. Returns the arena size; `offsets`
// is indexed like arena.items.
int64_t plan_greedy(const ArenaItems& arena, std::vector<int64_t>& offsets) {
  SharedObjects objects(arena.items.size());
  LifetimeIndex index(arena.num_points, arena.items.size());
  std::vector<int> overlapping;
  for (int i : arena.by_size) {
    const Item& item = arena.items[i];
    index.find_overlapping(item.lo, item.hi, overlapping);
    objects.place(i, arena, overlapping);
    index.insert(i, item.lo, item.hi);
  }
  return objects.lay_out(offsets);
}

// ExecuTorch's naive: one after another, in record order.
int64_t plan_naive(const ArenaItems& arena, std::vector<int64_t>& offsets) {
  int64_t total = 0;
  for (size_t i = 0; i < arena.items.size(); ++i) {
    offsets[i] = total;
    total = checked_add(total, arena.items[i].size, "the arena size");
  }
  return total;
}

// Places the items in `order`, each in a gap between the placed items that
// overlap it in time (by `rule`), or above the highest of them.
enum class GapRule { Smallest, Lowest };

int64_t plan_in_gaps(const ArenaItems& arena, const std::vector<int>& order, GapRule rule,
                     std::vector<int64_t>& offsets) {
  LifetimeIndex index(arena.num_points, arena.items.size());
  std::vector<int> overlapping;
  std::vector<std::pair<int64_t, int64_t>> taken;  // (offset, end) of overlapping items
  int64_t total = 0;
  for (int i : order) {
    const Item& item = arena.items[i];
    if (item.size == 0) {
      offsets[i] = 0;  // shares no byte with anything
      continue;
    }
    index.find_overlapping(item.lo, item.hi, overlapping);
    taken.clear();
    for (int other : overlapping) taken.emplace_back(offsets[other], offsets[other] + arena.items[other].size);
    std::sort(taken.begin(), taken.end());
    int64_t end_so_far = 0;
    int64_t chosen = -1;
    int64_t chosen_gap = std::numeric_limits<int64_t>::max();
    for (const auto& [offset, end] : taken) {
      const int64_t gap = offset - end_so_far;
      if (gap >= item.size && gap < chosen_gap) {
        chosen = end_so_far;
        chosen_gap = gap;
        if (rule == GapRule::Lowest) break;
      }
      end_so_far = std::max(end_so_far, end);
    }
    offsets[i] = chosen >= 0 ? chosen : end_so_far;
    total = std::max(total, checked_add(offsets[i], item.size, "the arena size"));
    index.insert(i, item.lo, item.hi);
  }
  return total;
}

int64_t plan_arena(MemoryPlanningAlgorithm algorithm, const ArenaItems& arena, std::vector<int64_t>& offsets) {
  offsets.assign(arena.items.size(), 0);
  switch (algorithm) {
    case MemoryPlanningAlgorithm::Greedy: return plan_greedy(arena, offsets);
    case MemoryPlanningAlgorithm::Naive: return plan_naive(arena, offsets);
    case MemoryPlanningAlgorithm::BestFit: return plan_in_gaps(arena, arena.by_size, GapRule::Smallest, offsets);
    case MemoryPlanningAlgorithm::FirstFit: return plan_in_gaps(arena, arena.by_size, GapRule::Lowest, offsets);
    case MemoryPlanningAlgorithm::BestFitByArea:
      return plan_in_gaps(arena, arena.by_area, GapRule::Smallest, offsets);
  }
  throw AotError("memory plan: unknown algorithm");
}

void check_record(const TensorLifetime& record, size_t index) {
  const std::string what = "memory plan: record " + std::to_string(index) + " ('" + record.label + "')";
  if (record.size < 0) throw AotError(what + " has negative size " + std::to_string(record.size));
  if (record.arena < 0) throw AotError(what + " has negative arena " + std::to_string(record.arena));
  if (!record.whole_run && record.last_step < record.first_step) {
    throw AotError(what + " ends (step " + std::to_string(record.last_step) + ") before it starts (step " +
                   std::to_string(record.first_step) + ")");
  }
}

void check_options(const MemoryPlanOptions& options) {
  if (options.alignment < 1) throw AotError("memory plan: alignment must be at least 1, not " + std::to_string(options.alignment));
  if (options.algorithms.empty()) throw AotError("memory plan: no algorithm to run");
  if (options.arena_padding < 0) throw AotError("memory plan: negative arena padding");
}

}  // namespace

const char* to_string(MemoryPlanningAlgorithm algorithm) {
  switch (algorithm) {
    case MemoryPlanningAlgorithm::Greedy: return "greedy";
    case MemoryPlanningAlgorithm::Naive: return "naive";
    case MemoryPlanningAlgorithm::BestFit: return "best_fit";
    case MemoryPlanningAlgorithm::FirstFit: return "first_fit";
    case MemoryPlanningAlgorithm::BestFitByArea: return "best_fit_by_area";
  }
  return "unknown";
}

int64_t MemoryPlan::total_bytes() const {
  int64_t total = 0;
  for (int64_t size : arena_sizes) total = checked_add(total, size, "the total size");
  return total;
}

int64_t align_size(int64_t size, int64_t alignment) {
  const int64_t rounded = checked_add(size, alignment - 1, "an aligned size");
  return rounded / alignment * alignment;
}

bool is_planned(const TensorLifetime& record, const MemoryPlanOptions& options) {
  if (record.constant) return false;
  if (record.graph_input && !options.plan_inputs) return false;
  if (record.graph_output && !options.plan_outputs) return false;
  return true;
}

MemoryPlan plan_memory(const std::vector<TensorLifetime>& records, const MemoryPlanOptions& options) {
  check_options(options);
  std::vector<std::vector<size_t>> members(1);
  for (size_t r = 0; r < records.size(); ++r) {
    check_record(records[r], r);
    if (!is_planned(records[r], options)) continue;
    const size_t arena = static_cast<size_t>(records[r].arena);
    if (arena >= members.size()) members.resize(arena + 1);
    members[arena].push_back(r);
  }
  std::vector<ArenaItems> arenas;
  for (const auto& arena_members : members) arenas.push_back(arena_items(records, arena_members, options.alignment));

  MemoryPlan best;
  bool have_best = false;
  std::vector<int64_t> offsets;
  for (MemoryPlanningAlgorithm algorithm : options.algorithms) {
    MemoryPlan plan;
    plan.alignment = options.alignment;
    plan.algorithm = algorithm;
    plan.placements.assign(records.size(), TensorPlacement{});
    for (size_t a = 0; a < arenas.size(); ++a) {
      const int64_t size = plan_arena(algorithm, arenas[a], offsets);
      plan.arena_sizes.push_back(checked_add(size, options.arena_padding, "the arena size"));
      for (size_t i = 0; i < arenas[a].items.size(); ++i) {
        plan.placements[arenas[a].items[i].record] = TensorPlacement{static_cast<int>(a), offsets[i]};
      }
    }
    AlgorithmResult result{algorithm, plan.arena_sizes, plan.total_bytes()};
    best.tried.push_back(result);
    if (!have_best || result.total_bytes < best.total_bytes()) {
      std::vector<AlgorithmResult> tried = std::move(best.tried);
      best = std::move(plan);
      best.tried = std::move(tried);
      have_best = true;
    }
  }
  return best;
}

}  // namespace kiln::aot
