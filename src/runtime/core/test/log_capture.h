// LogCapture: collects the runtime's log lines while it lives (tests assert
// that an error was explained, and how). The one capture every runtime test
// uses. Not thread-safe; one at a time.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/core/log.h"

namespace kiln::runtime::testing {

class LogCapture {
 public:
  LogCapture() {
    captured().clear();
    previous_ = set_log_sink(&LogCapture::sink);
  }
  ~LogCapture() { set_log_sink(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /// Every line logged at Error level since construction (or clear()).
  std::vector<std::string> errors() const {
    std::vector<std::string> lines;
    for (const auto& [level, line] : captured()) {
      if (level == LogLevel::Error) lines.push_back(line);
    }
    return lines;
  }
  /// Every line of any level, each followed by a newline.
  std::string text() const {
    std::string all;
    for (const auto& entry : captured()) all += entry.second + "\n";
    return all;
  }
  /// True if some error line contains `needle`.
  bool contains(const std::string& needle) const {
    for (const std::string& line : errors()) {
      if (line.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  /// How many lines of any level contain `needle`.
  size_t count_containing(const std::string& needle) const {
    size_t count = 0;
    for (const auto& entry : captured()) count += entry.second.find(needle) != std::string::npos;
    return count;
  }
  void clear() { captured().clear(); }

 private:
  static std::vector<std::pair<LogLevel, std::string>>& captured() {
    static std::vector<std::pair<LogLevel, std::string>> lines;
    return lines;
  }
  static void sink(LogLevel level, const char* message) { captured().emplace_back(level, message); }

  LogSink previous_ = nullptr;
};

}  // namespace kiln::runtime::testing
