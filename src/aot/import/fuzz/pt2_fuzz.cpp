// libFuzzer target for the .pt2 reader: any bytes, read as a .pt2 file, must
// either load or raise AotError — never crash, hang or leak. Build and run
// with `make fuzz` (clang, ASan + UBSan); the seed corpus is the fixtures.
#include <cstddef>
#include <cstdint>

#include "aot/import/fuzz/memfd_file.h"
#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const kiln::fuzz::MemfdFile file("kiln-fuzz.pt2", data, size);
  if (!file.ok()) return 0;
  try {
    kiln::aot::ExportedProgram program = kiln::aot::load_pt2(file.path());
    (void)program.to_string();
  } catch (const kiln::aot::AotError&) {
  }
  return 0;
}
