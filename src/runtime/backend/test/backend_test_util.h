// Helpers for the backend registry tests: a backend that does nothing, and a
// log sink that keeps the last error line.
#pragma once

#include <string>

#include "runtime/backend/backend_interface.h"
#include "runtime/core/log.h"

namespace kiln::runtime::testing {

/// A backend whose entry points all succeed and do nothing.
class NoopBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, Span<const CompileSpec>) const override {
    return static_cast<DelegateHandle*>(nullptr);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override { return Error::Ok; }
};

/// Captures log lines while alive (restores the previous sink after).
class LogCapture {
 public:
  LogCapture() : previous_(set_log_sink(&LogCapture::sink)) { text().clear(); }
  ~LogCapture() { set_log_sink(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  /// Every line logged since construction, one per line.
  const std::string& lines() const { return text(); }

 private:
  static std::string& text() {
    static std::string captured;
    return captured;
  }
  static void sink(LogLevel, const char* message) { text() += std::string(message) + "\n"; }

  LogSink previous_;
};

}  // namespace kiln::runtime::testing
