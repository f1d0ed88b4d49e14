// libFuzzer target for the .npz/.npy reader, the untrusted input of
// `kiln run --inputs`: any bytes must either give arrays or raise AotError —
// never crash, hang, leak or read outside the input. Bytes that start like an
// .npy array go to parse_npy directly (the fuzzer reaches the header parser
// without first building a zip); everything else is read as an .npz file from
// an in-memory file, as `kiln run` reads one from disk. Built and run by
// `make fuzz` (clang, ASan + UBSan), seeded with the fixtures' .npz files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aot/import/fuzz/memfd_file.h"
#include "aot/import/npz.h"
#include "aot/ir/error.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

// Reads every element, as `kiln run` does when it copies an input.
void touch(const kiln::aot::HostTensor& tensor) {
  check(tensor.nbytes() == static_cast<size_t>(tensor.numel()) * kiln::runtime::element_size(tensor.dtype()));
  const auto* bytes = static_cast<const uint8_t*>(tensor.data());
  volatile unsigned sum = 0;
  for (size_t i = 0; i < tensor.nbytes(); ++i) sum = sum + bytes[i];
}

void parse_one_npy(const uint8_t* data, size_t size) {
  // An exactly-sized heap copy, so AddressSanitizer sees a read past the end.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size]);
  std::memcpy(copy.get(), data, size);
  try {
    touch(kiln::aot::parse_npy(copy.get(), size, "<fuzz>.npy"));
  } catch (const kiln::aot::AotError&) {
  }
}

void read_as_npz(const uint8_t* data, size_t size) {
  const kiln::fuzz::MemfdFile file("kiln-fuzz.npz", data, size);
  if (!file.ok()) return;
  try {
    const std::vector<std::pair<std::string, kiln::aot::HostTensor>> arrays = kiln::aot::read_npz(file.path());
    check(!arrays.empty());
    for (const auto& [name, tensor] : arrays) touch(tensor);
  } catch (const kiln::aot::AotError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0) {
    parse_one_npy(data, size);
  } else {
    read_as_npz(data, size);
  }
  return 0;
}
