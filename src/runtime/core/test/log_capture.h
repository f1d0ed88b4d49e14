// LogCapture: collects the runtime's log lines while it lives (tests assert
// that an error was explained, and how). Not thread-safe; one at a time.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/log.h"

namespace kiln::runtime::testing {

class LogCapture {
 public:
  LogCapture() {
    lines().clear();
    previous_ = set_log_sink(&LogCapture::sink);
  }
  ~LogCapture() { set_log_sink(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /// Every line logged at Error level since construction (or clear()).
  const std::vector<std::string>& errors() const { return lines(); }
  /// All error lines joined with newlines, for assertion messages.
  std::string text() const {
    std::string all;
    for (const std::string& line : lines()) all += line + "\n";
    return all;
  }
  /// True if some error line contains `needle`.
  bool contains(const std::string& needle) const {
    for (const std::string& line : lines()) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  void clear() { lines().clear(); }

 private:
  static std::vector<std::string>& lines() {
    static std::vector<std::string> captured;
    return captured;
  }
  static void sink(LogLevel level, const char* message) {
    if (level == LogLevel::Error) lines().emplace_back(message);
  }

  LogSink previous_ = nullptr;
};

}  // namespace kiln::runtime::testing
