// libFuzzer target for the Kiln trace reader (`kiln profile --trace` reads a
// .kdump a user hands it): any bytes give a trace or an AotError, never a
// crash, hang or leak; a trace read back from what it writes is the same
// trace, and it converts to Chrome's format. Built and run by `make fuzz`,
// replayed on its seeds (tests/fixtures/fuzz/seeds/kdump) by the sanitizer
// suite.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "aot/ir/error.h"
#include "devtools/trace_recorder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const kiln::devtools::TraceRecorder trace = kiln::devtools::TraceRecorder::parse_kiln_trace(text, "<fuzz>.kdump");
    const std::string written = trace.kiln_trace_json();
    const auto again = kiln::devtools::TraceRecorder::parse_kiln_trace(written, "<rewritten>.kdump");
    if (again.kiln_trace_json() != written) std::abort();  // what it writes, it reads back the same
    (void)trace.chrome_trace_json();
  } catch (const kiln::aot::AotError&) {
  }
  return 0;
}
