// libFuzzer target for the debug record reader (`kiln profile` and `kiln
// compare` read a .kdbg a user hands them): any bytes give a record or an
// AotError, never a crash, hang or leak; a record read back from what it
// writes is the same record. Built and run by `make fuzz`, replayed on its
// seeds (tests/fixtures/fuzz/seeds/kdbg) by the sanitizer suite.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "aot/ir/error.h"
#include "devtools/debug_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kiln::devtools::DebugRecord record;
  try {
    record = kiln::devtools::parse_debug_record(text, "<fuzz>.kdbg");
  } catch (const kiln::aot::AotError&) {
    return 0;
  }
  const std::string written = kiln::devtools::to_json(record);
  const std::string again = kiln::devtools::to_json(kiln::devtools::parse_debug_record(written, "<rewritten>.kdbg"));
  if (again != written) std::abort();  // what it writes, it reads back the same
  for (const auto& [index, handles] : record.instructions) (void)kiln::devtools::describe_group(record, handles);
  return 0;
}
