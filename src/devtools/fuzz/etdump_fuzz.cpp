// libFuzzer target for the ETDump reader (`kiln profile --etdump` and `kiln
// compare --etdump` read an ETDump and a debug buffer a user hands them): any
// bytes give a trace or an AotError, never a crash, hang or leak. The input
// is read as the ETDump and, the second time, also as its own debug buffer,
// so that logged tensors point into bytes the fuzzer controls. Built and run
// by `make fuzz`, replayed on its seeds (tests/fixtures/fuzz/seeds/etdp) by
// the sanitizer suite.
#include <cstddef>
#include <cstdint>
#include <span>

#include "aot/ir/error.h"
#include "devtools/etdump_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  for (const bool with_buffer : {false, true}) {
    try {
      const kiln::devtools::TraceRecorder trace =
          kiln::devtools::read_etdump(bytes, "<fuzz>.etdp", with_buffer ? bytes : std::span<const uint8_t>{}, "<fuzz>.bin");
      (void)trace.chrome_trace_json();
    } catch (const kiln::aot::AotError&) {
    }
  }
  return 0;
}
