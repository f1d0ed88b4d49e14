#include "devtools/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>


namespace kiln::devtools {

namespace {

struct Logged {
  uint64_t start_ns = 0;
  std::vector<int64_t> handles;
  const aot::HostTensor* output = nullptr;
  std::string where;
};

std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// The elements as doubles; a complex tensor's as its parts, so that its SNR
// and errors are over the real and imaginary parts alike.
std::vector<double> values_of(const aot::HostTensor& tensor) {
  return runtime::is_complex_type(tensor.dtype()) ? tensor.view_as_real().to_doubles() : tensor.to_doubles();
}

void measure(const aot::HostTensor& actual, const aot::HostTensor& expected, CompareRow& row) {
  const std::vector<double> a = values_of(actual), e = values_of(expected);
  row.numel = static_cast<size_t>(expected.numel());
  double signal = 0, noise = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const bool both_nan = std::isnan(a[i]) && std::isnan(e[i]);
    const bool same_inf = std::isinf(a[i]) && a[i] == e[i];
    const double error = both_nan || same_inf ? 0.0 : std::fabs(a[i] - e[i]);
    row.max_abs_error = std::isnan(error) ? error : std::max(row.max_abs_error, error);
    if (std::isfinite(e[i])) {
      row.max_abs_reference = std::max(row.max_abs_reference, std::fabs(e[i]));
      signal += e[i] * e[i];
    }
    noise += error * error;
  }
  if (std::isnan(noise)) {
    row.snr_db = -std::numeric_limits<double>::infinity();
  } else if (noise == 0) {
    row.snr_db = std::numeric_limits<double>::infinity();
  } else {
    row.snr_db = signal == 0 ? -std::numeric_limits<double>::infinity() : 10 * std::log10(signal / noise);
  }
}

// An integer tensor on a grid as the floats it stands for, scale * (q - zero_point).
aot::HostTensor on_grid(const aot::HostTensor& tensor, const ReferenceOutput& grid) {
  if (grid.scale <= 0 || runtime::is_floating_type(tensor.dtype())) return tensor;
  aot::HostTensor result = aot::HostTensor::zeros(aot::ScalarType::Double, tensor.sizes());
  const std::vector<double> q = tensor.to_doubles();
  for (size_t i = 0; i < q.size(); ++i) {
    result.data<double>()[i] = grid.scale * (q[i] - static_cast<double>(grid.zero_point));
  }
  return result;
}

}  // namespace

Comparison compare_outputs(const DebugRecord& record, const TraceRecorder& run,
                           const std::map<int64_t, ReferenceOutput>& reference) {
  // What the run logged, in time order (first run only), latest per group kept.
  std::vector<Logged> logged;
  for (const TraceRecorder::Instruction& e : run.instructions()) {
    if (e.run != 0 || e.delegate >= 0 || !e.output.defined()) continue;
    const auto handles = record.instructions.find(e.instruction);
    if (handles == record.instructions.end() || handles->second.empty()) continue;
    logged.push_back({e.start_ns, handles->second, &e.output, "portable"});
  }
  for (const TraceRecorder::DelegateEvent& e : run.delegate_events()) {
    if (e.run != 0 || !e.output.defined()) continue;
    const auto delegate = record.delegates.find(e.instruction);
    if (delegate == record.delegates.end()) continue;
    const auto handles = delegate->second.identifiers.find(e.debug_id);
    if (handles == delegate->second.identifiers.end() || handles->second.empty()) continue;
    logged.push_back({e.start_ns, handles->second, &e.output, delegate->second.backend_id});
  }
  std::stable_sort(logged.begin(), logged.end(), [](const Logged& a, const Logged& b) { return a.start_ns < b.start_ns; });
  std::map<std::vector<int64_t>, const Logged*> last;
  for (Logged& entry : logged) {
    std::sort(entry.handles.begin(), entry.handles.end());
    last[entry.handles] = &entry;
  }

  Comparison comparison;
  for (const auto& [handles, entry] : last) {
    CompareRow row;
    row.handles = handles;
    row.where = entry->where;
    const ReferenceOutput* expected = nullptr;
    for (int64_t handle : handles) {
      const auto it = reference.find(handle);
      if (it != reference.end() && (expected == nullptr || it->second.order > expected->order)) expected = &it->second;
    }
    const SourceGroup group = describe_group(record, handles);
    row.label = group.names;
    row.ops = group.ops;
    row.module = group.module;
    const aot::HostTensor& actual = *entry->output;
    if (expected == nullptr || !expected->value.defined()) {
      row.note = "no reference tensor for it";
    } else {
      row.order = expected->order;
      if (actual.numel() != expected->value.numel()) {
        row.note = "sizes differ: " + sizes_text(actual.sizes()) + " logged, " + sizes_text(expected->value.sizes()) +
                   " in the reference";
      } else {
        measure(on_grid(actual, *expected), on_grid(expected->value, *expected), row);
        if (expected->scale > 0) row.max_error_quanta = row.max_abs_error / expected->scale;
      }
    }
    comparison.rows.push_back(std::move(row));
  }
  std::stable_sort(comparison.rows.begin(), comparison.rows.end(), [](const CompareRow& a, const CompareRow& b) {
    if (a.note.empty() != b.note.empty()) return a.note.empty();
    if (a.snr_db != b.snr_db) return a.snr_db < b.snr_db;
    return a.max_abs_error > b.max_abs_error;
  });
  return comparison;
}

namespace {

std::string snr_text(double snr) {
  if (std::isinf(snr)) return snr > 0 ? "exact" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", snr);
  return text;
}


}  // namespace

std::string format_comparison(const Comparison& comparison, size_t top, double threshold_db) {
  std::string out;
  char line[1024];
  size_t compared = 0;
  for (const CompareRow& row : comparison.rows) compared += row.note.empty() ? 1 : 0;
  std::snprintf(line, sizeof line, "%zu source op group%s compared, worst first (SNR in dB; max |error|):\n\n", compared,
                compared == 1 ? "" : "s");
  out += line;
  const size_t shown = top == 0 ? comparison.rows.size() : std::min(top, comparison.rows.size());
  std::snprintf(line, sizeof line, "%8s %12s %7s %12s  %-32s %-24s %-14s %s\n", "SNR dB", "max |error|", "quanta",
                "max |ref|", "source op", "module", "ran on", "op(s)");
  out += line;
  for (size_t i = 0; i < shown; ++i) {
    const CompareRow& row = comparison.rows[i];
    if (!row.note.empty()) {
      std::snprintf(line, sizeof line, "%8s %12s %7s %12s  %-32s %-24s %-14s %s: %s\n", "-", "-", "-", "-",
                    shorten_list(row.label, 32).c_str(), shorten_list(row.module, 24).c_str(), row.where.c_str(),
                    row.ops.c_str(), row.note.c_str());
    } else {
      char quanta[32] = "-";
      if (row.max_error_quanta >= 0) std::snprintf(quanta, sizeof quanta, "%.3g", row.max_error_quanta);
      std::snprintf(line, sizeof line, "%8s %12.4g %7s %12.4g  %-32s %-24s %-14s %s\n", snr_text(row.snr_db).c_str(),
                    row.max_abs_error, quanta, row.max_abs_reference, shorten_list(row.label, 32).c_str(),
                    shorten_list(row.module, 24).c_str(), row.where.c_str(), row.ops.c_str());
    }
    out += line;
  }
  if (shown < comparison.rows.size()) {
    std::snprintf(line, sizeof line, "  (%zu more rows; --top 0 shows all)\n", comparison.rows.size() - shown);
    out += line;
  }
  const CompareRow* first = nullptr;
  for (const CompareRow& row : comparison.rows) {
    if (row.note.empty() && row.snr_db < threshold_db && (first == nullptr || row.order < first->order)) first = &row;
  }
  if (first == nullptr) {
    std::snprintf(line, sizeof line, "\nEvery compared op is above %.1f dB.\n", threshold_db);
  } else {
    std::snprintf(line, sizeof line, "\nFirst op in program order below %.1f dB: %s (%s, handle%s %s, on %s): %s dB, max |error| %.4g\n",
                  threshold_db, first->label.c_str(), first->ops.c_str(), first->handles.size() == 1 ? "" : "s",
                  [&] {
                    std::string text;
                    for (int64_t h : first->handles) text += (text.empty() ? "" : ",") + std::to_string(h);
                    return text;
                  }().c_str(),
                  first->where.c_str(), snr_text(first->snr_db).c_str(), first->max_abs_error);
  }
  out += line;
  return out;
}

}  // namespace kiln::devtools
