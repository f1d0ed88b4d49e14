#include "runtime/module/logged_errors.h"

#include <cstdio>
#include <mutex>
#include <vector>

#include "runtime/core/log.h"

namespace kiln::runtime {

namespace {

thread_local std::vector<std::string> t_lines;
thread_local int t_capturing = 0;

/// The sink before this one was installed: lines not captured go there.
LogSink g_previous_sink = nullptr;

void capture(LogLevel level, const char* message) {
  if (level == LogLevel::Error && t_capturing > 0) {
    if (t_lines.size() < 64) t_lines.emplace_back(message);
  } else if ((level == LogLevel::Info && t_capturing > 0) || g_previous_sink == nullptr) {
    std::fprintf(stderr, "kiln runtime: %s\n", message);
  } else {
    g_previous_sink(level, message);
  }
}

}  // namespace

LoggedErrors::LoggedErrors() {
  // Installed once: swapping the sink per call would race with other threads.
  static std::once_flag installed;
  std::call_once(installed, [] { g_previous_sink = set_log_sink(capture); });
  if (t_capturing++ == 0) t_lines.clear();
}

LoggedErrors::~LoggedErrors() { --t_capturing; }

std::string LoggedErrors::message(const std::string& what, Error error) {
  std::string text = what.empty() ? "" : what + ": " + to_string(error);
  if (!t_lines.empty()) text += (text.empty() ? "" : ": ") + t_lines.back();
  if (text.empty()) text = to_string(error);
  for (size_t i = 0; i + 1 < t_lines.size(); ++i) text += "\n    " + t_lines[i];
  t_lines.clear();
  return text;
}

void LoggedErrors::clear() { t_lines.clear(); }

}  // namespace kiln::runtime
