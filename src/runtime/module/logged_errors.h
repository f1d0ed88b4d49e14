// LoggedErrors: the Error lines the runtime logs on the calling thread while
// one lives, so that a tool or a binding can turn a failed call's Error into
// a message that says what the runtime saw (every Error the runtime returns
// is explained by the lines logged on the way: runtime/core/log.h).
//
// The sink is installed once for the process and is per thread: sessions on
// two threads (the Python package releases the GIL) keep their own lines.
// Info lines go to stderr while a capture is open; lines of threads without
// a capture go to the sink installed before.
#pragma once

#include <string>

#include "runtime/core/error.h"

namespace kiln::runtime {

class LoggedErrors {
 public:
  /// Opens a capture on this thread (captures nest; the first clears the lines).
  LoggedErrors();
  ~LoggedErrors();
  LoggedErrors(const LoggedErrors&) = delete;
  LoggedErrors& operator=(const LoggedErrors&) = delete;

  /// "<what>: <Error name>: <the last line logged>", followed by the lines
  /// logged before it, one per line; the lines are cleared. With `what`
  /// empty: the lines alone (the last first), for errors whose lines say it all.
  static std::string message(const std::string& what, Error error);
  /// Forgets the lines logged so far on this thread.
  static void clear();
};

}  // namespace kiln::runtime
