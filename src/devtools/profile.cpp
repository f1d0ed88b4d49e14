#include "devtools/profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace kiln::devtools {

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double ms(uint64_t start_ns, uint64_t end_ns) { return end_ns > start_ns ? static_cast<double>(end_ns - start_ns) / 1e6 : 0.0; }

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// Appends `item` unless it is already there (keeps first-seen order).
void add_unique(std::vector<std::string>& items, const std::string& item) {
  if (!item.empty() && std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

std::string cut_module(const std::string& path, size_t depth) {
  if (path.empty()) return "(top level)";
  size_t end = 0;
  for (size_t level = 0; level < depth; ++level) {
    end = path.find('.', end == 0 && level == 0 ? 0 : end + 1);
    if (end == std::string::npos) return path;
  }
  return path.substr(0, end);
}

struct Accumulator {
  ProfileRow row;
  std::vector<double> per_run;
  size_t events = 0;
  std::vector<std::string> where;
  std::string module_key;
};

class Attribution {
 public:
  Attribution(const DebugRecord& record, size_t runs, size_t depth) : record_(record), runs_(runs), depth_(depth) {}

  void add_handles(const std::vector<int64_t>& unsorted, size_t run, double time, const std::string& where) {
    std::vector<int64_t> handles = unsorted;
    std::sort(handles.begin(), handles.end());
    handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
    std::string key = "h";
    for (int64_t handle : handles) key += ":" + std::to_string(handle);
    Accumulator& acc = row(key);
    if (acc.row.label.empty()) {
      const SourceGroup group = describe_group(record_, handles);
      acc.row.handles = handles;
      acc.row.label = group.names;
      acc.row.ops = group.ops;
      acc.row.module = group.module;
      acc.module_key = cut_module(group.module, depth_);
    }
    add(acc, run, time, where);
  }

  void add_other(const std::string& key, const std::string& label, const std::string& op, size_t run, double time,
                 const std::string& where) {
    Accumulator& acc = row(key);
    if (acc.row.label.empty()) {
      acc.row.label = label;
      acc.row.ops = op;
      acc.module_key = "(no source op)";
    }
    add(acc, run, time, where);
  }

  std::map<std::string, Accumulator>& rows() { return rows_; }

 private:
  Accumulator& row(const std::string& key) {
    Accumulator& acc = rows_[key];
    if (acc.per_run.empty()) acc.per_run.assign(runs_, 0.0);
    return acc;
  }
  void add(Accumulator& acc, size_t run, double time, const std::string& where) {
    acc.per_run[run] += time;
    ++acc.events;
    add_unique(acc.where, where);
  }

  const DebugRecord& record_;
  size_t runs_;
  size_t depth_;
  std::map<std::string, Accumulator> rows_;
};

}  // namespace

Profile attribute(const DebugRecord& record, const TraceRecorder& trace, size_t module_depth) {
  size_t runs = std::max<size_t>(trace.runs(), 1);
  for (const auto& e : trace.instructions()) runs = std::max(runs, e.run + 1);
  for (const auto& e : trace.delegate_events()) runs = std::max(runs, e.run + 1);
  Attribution attribution(record, runs, std::max<size_t>(module_depth, 1));

  // Backend events, and the time they cover inside each delegate call.
  std::map<std::pair<size_t, size_t>, double> inside;  // (run, instruction) -> ms
  std::set<std::pair<size_t, size_t>> traced_calls;
  for (const TraceRecorder::DelegateEvent& e : trace.delegate_events()) {
    const double time = ms(e.start_ns, e.end_ns);
    inside[{e.run, e.instruction}] += time;
    traced_calls.insert({e.run, e.instruction});
    const auto delegate = record.delegates.find(e.instruction);
    const std::vector<int64_t>* handles = nullptr;
    if (delegate != record.delegates.end()) {
      const auto mapped = delegate->second.identifiers.find(e.debug_id);
      if (mapped != delegate->second.identifiers.end()) handles = &mapped->second;
    }
    const std::string backend = delegate != record.delegates.end() ? delegate->second.backend_id : "delegate";
    if (handles != nullptr && !handles->empty()) {
      attribution.add_handles(*handles, e.run, time, backend);
    } else {
      attribution.add_other("unmapped:" + std::to_string(e.instruction) + ":" + e.debug_id,
                            "identifier " + e.debug_id + " of instruction " + std::to_string(e.instruction) +
                                " (not in the debug record)",
                            "", e.run, time, backend);
    }
  }

  std::map<size_t, std::vector<double>> delegate_runs;  // delegate index -> ms per run
  std::map<size_t, std::string> delegate_backend;
  std::vector<double> run_totals(runs, 0.0);
  for (const TraceRecorder::Instruction& e : trace.instructions()) {
    const double time = ms(e.start_ns, e.end_ns);
    run_totals[e.run] += time;
    const auto handles = record.instructions.find(e.instruction);
    const bool has_handles = handles != record.instructions.end() && !handles->second.empty();
    if (e.delegate < 0) {
      if (has_handles) {
        attribution.add_handles(handles->second, e.run, time, "portable");
      } else {
        attribution.add_other("op:" + e.name, "(no source op) " + e.name, short_op_name(e.name), e.run, time,
                              "portable");
      }
      continue;
    }
    const auto index = static_cast<size_t>(e.delegate);
    auto& per_run = delegate_runs[index];
    if (per_run.empty()) per_run.assign(runs, 0.0);
    per_run[e.run] += time;
    // The record names the backend (an ETDump's delegate call is "DELEGATE_CALL").
    const auto delegate = record.delegates.find(e.instruction);
    const std::string& backend = delegate != record.delegates.end() ? delegate->second.backend_id : e.name;
    delegate_backend[index] = backend;
    if (traced_calls.count({e.run, e.instruction}) == 0 && has_handles) {
      // The backend logged nothing: the whole call goes to every op it took.
      attribution.add_handles(handles->second, e.run, time, backend);
    } else {
      const double outside = std::max(0.0, time - inside[{e.run, e.instruction}]);
      attribution.add_other("delegate:" + std::to_string(index),
                            "delegate " + std::to_string(index) + " (" + backend + "): outside its ops", "", e.run,
                            outside, backend);
    }
  }

  Profile profile;
  profile.runs = runs;
  profile.median_run_ms = median(run_totals);
  double grand_total = 0;
  for (double total : run_totals) grand_total += total;
  std::map<std::string, std::vector<double>> module_runs;
  for (auto& [key, acc] : attribution.rows()) {
    ProfileRow row = acc.row;
    row.calls = static_cast<double>(acc.events) / static_cast<double>(runs);
    row.median_ms = median(acc.per_run);
    for (double time : acc.per_run) row.total_ms += time;
    row.share = grand_total > 0 ? row.total_ms / grand_total : 0;
    row.where = join(acc.where, ", ");
    auto& module = module_runs[acc.module_key];
    if (module.empty()) module.assign(runs, 0.0);
    for (size_t r = 0; r < runs; ++r) module[r] += acc.per_run[r];
    profile.rows.push_back(std::move(row));
  }
  std::stable_sort(profile.rows.begin(), profile.rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.handles < b.handles;
  });
  auto totals = [&](const std::string& name, const std::vector<double>& per_run) {
    double total = 0;
    for (double time : per_run) total += time;
    return ProfileTotal{name, median(per_run), grand_total > 0 ? total / grand_total : 0};
  };
  for (const auto& [index, per_run] : delegate_runs) {
    profile.delegates.push_back(totals("delegate " + std::to_string(index) + " (" + delegate_backend[index] + ")", per_run));
  }
  for (const auto& [name, per_run] : module_runs) profile.modules.push_back(totals(name, per_run));
  std::stable_sort(profile.modules.begin(), profile.modules.end(),
                   [](const ProfileTotal& a, const ProfileTotal& b) { return a.share > b.share; });
  return profile;
}

namespace {

std::string clip(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string handles_text(const std::vector<int64_t>& handles) {
  std::string text;
  for (int64_t handle : handles) text += (text.empty() ? "" : ",") + std::to_string(handle);
  return text.empty() ? "-" : text;
}

}  // namespace

std::string format_profile(const Profile& profile, size_t top) {
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line,
                "%zu run%s: %.3f ms per run (median of the calls' time; each row is the median over runs of its "
                "time in a run)\n\n",
                profile.runs, profile.runs == 1 ? "" : "s", profile.median_run_ms);
  out += line;
  const size_t shown = top == 0 ? profile.rows.size() : std::min(top, profile.rows.size());
  // The ops last and whole: a fused group reads by them.
  // A row of no source op says what it is in full.
  auto label = [](const ProfileRow& row) { return row.handles.empty() ? row.label : shorten_list(row.label, 40); };
  size_t label_width = 9, module_width = 6, where_width = 6;
  for (size_t i = 0; i < shown; ++i) {
    label_width = std::max(label_width, label(profile.rows[i]).size());
    module_width = std::max(module_width, std::min<size_t>(profile.rows[i].module.size(), 32));
    where_width = std::max(where_width, profile.rows[i].where.size());
  }
  const int lw = static_cast<int>(label_width), mw = static_cast<int>(module_width), ww = static_cast<int>(where_width);
  std::snprintf(line, sizeof line, "%6s %10s %6s  %-9s %-*s  %-*s  %-*s  %s\n", "share", "median ms", "calls",
                "handles", lw, "source op", mw, "module", ww, "ran on", "op(s)");
  out += line;
  for (size_t i = 0; i < shown; ++i) {
    const ProfileRow& row = profile.rows[i];
    std::snprintf(line, sizeof line, "%5.1f%% %10.3f %6.4g  %-9s %-*s  %-*s  %-*s  %s\n", 100 * row.share,
                  row.median_ms, row.calls, clip(handles_text(row.handles), 9).c_str(), lw,
                  label(row).c_str(), mw, clip(row.module, module_width).c_str(), ww,
                  row.where.c_str(), row.ops.c_str());
    out += line;
  }
  if (shown < profile.rows.size()) {
    std::snprintf(line, sizeof line, "  (%zu more rows; --top 0 shows all)\n", profile.rows.size() - shown);
    out += line;
  }
  if (!profile.delegates.empty()) {
    out += "\nPer delegate call (the whole call, its backend's ops and the rest):\n";
    for (const ProfileTotal& total : profile.delegates) {
      std::snprintf(line, sizeof line, "  %-40s %10.3f ms %6.1f%%\n", total.name.c_str(), total.median_ms,
                    100 * total.share);
      out += line;
    }
  }
  out += "\nPer module:\n";
  for (const ProfileTotal& total : profile.modules) {
    std::snprintf(line, sizeof line, "  %-40s %10.3f ms %6.1f%%\n", clip(total.name, 40).c_str(), total.median_ms,
                  100 * total.share);
    out += line;
  }
  return out;
}

}  // namespace kiln::devtools
