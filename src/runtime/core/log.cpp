#include "runtime/core/log.h"

#include <cstdio>

namespace kiln::runtime {

namespace {

void stderr_sink(LogLevel level, const char* message) {
  const char* prefix = level == LogLevel::Error ? "error" : level == LogLevel::Info ? "info" : "debug";
  std::fprintf(stderr, "kiln runtime %s: %s\n", prefix, message);
}

LogSink current_sink = stderr_sink;

}  // namespace

LogSink set_log_sink(LogSink sink) {
  LogSink previous = current_sink;
  current_sink = sink == nullptr ? stderr_sink : sink;
  return previous;
}

void log_message(LogLevel level, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  current_sink(level, line);
}

}  // namespace kiln::runtime
