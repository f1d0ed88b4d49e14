// libFuzzer target for the .pt2 reader: any bytes, read as a .pt2 file, must
// either load or raise AotError — never crash, hang or leak. Build and run
// with `make fuzz` (clang, ASan + UBSan); the seed corpus is the fixtures.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An anonymous in-memory file, so the reader maps it as it maps real ones.
  const int fd = memfd_create("kiln-fuzz.pt2", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    kiln::aot::ExportedProgram program = kiln::aot::load_pt2(path);
    (void)program.to_string();
  } catch (const kiln::aot::AotError&) {
  }
  close(fd);
  return 0;
}
