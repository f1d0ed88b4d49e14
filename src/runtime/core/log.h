// Logging: every error the runtime returns is explained by one log line.
//
// Messages are formatted into a fixed stack buffer (no allocation) and passed
// to a sink, stderr by default. Tests and apps may install their own sink.
#pragma once

#include <cstdarg>

namespace kiln::runtime {

enum class LogLevel { Debug, Info, Error };

/// Receives one formatted, null-terminated line (without a trailing newline).
using LogSink = void (*)(LogLevel level, const char* message);

/// Installs `sink` (null restores the default stderr sink); returns the old one.
LogSink set_log_sink(LogSink sink);

/// Formats and sends one message; lines longer than 512 bytes are cut.
void log_message(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace kiln::runtime

#define KILN_LOG(level, ...) ::kiln::runtime::log_message(::kiln::runtime::LogLevel::level, __VA_ARGS__)

/// Unless `cond` holds, log the message at Error level and return `error`.
#define KILN_CHECK_OR_LOG_RETURN(cond, error, ...) \
  do {                                             \
    if (!(cond)) {                                 \
      KILN_LOG(Error, __VA_ARGS__);                \
      return ::kiln::runtime::Error::error;        \
    }                                              \
  } while (0)
