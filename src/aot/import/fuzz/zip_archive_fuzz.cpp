// libFuzzer harness: ZipArchive on arbitrary bytes must give an archive whose
// every entry lies inside the input, or an AotError; never a crash or a read
// outside the input. The input is copied to an exactly-sized heap block so
// that AddressSanitizer sees any such read.
//
// Build from the repository root (one command), then run for a minute:
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Isrc
//     src/aot/import/fuzz/zip_archive_fuzz.cpp src/aot/import/zip_archive.cpp
//     src/aot/import/mapped_file.cpp src/aot/ir/host_tensor.cpp
//     src/runtime/core/scalar_type.cpp -lminizip -o zip_archive_fuzz
//   ./zip_archive_fuzz -max_total_time=60 corpus/ tests/fixtures/*/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "aot/import/zip_archive.h"
#include "aot/ir/error.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kiln::aot::AotError;
  using kiln::aot::ZipArchive;
  auto bytes = std::make_shared<std::vector<std::byte>>(size);
  if (size > 0) std::memcpy(bytes->data(), data, size);
  try {
    const ZipArchive archive = ZipArchive::from_memory(*bytes, bytes, "<fuzz>");
    const std::byte* begin = bytes->data();
    const std::byte* end = begin + bytes->size();
    for (const std::string& name : archive.entries()) {
      check(archive.contains(name));
      try {
        const auto entry = archive.data(name);
        check(entry.data() >= begin && entry.data() <= end && entry.size() <= static_cast<size_t>(end - entry.data()));
        check(archive.data_offset(name) == static_cast<uint64_t>(entry.data() - begin));
        check(archive.read_text(name).size() == entry.size());
        const auto storage = archive.storage(name);
        check(storage->data == entry.data() && storage->nbytes == entry.size() && storage->owner == bytes);
        // Touch every byte, as a weight copy would.
        volatile unsigned sum = 0;
        for (std::byte b : entry) sum = sum + static_cast<unsigned>(b);
      } catch (const AotError&) {
      }
    }
    try {
      archive.data("no such entry");
      check(archive.contains("no such entry"));
    } catch (const AotError&) {
    }
  } catch (const AotError&) {
  }
  return 0;
}
