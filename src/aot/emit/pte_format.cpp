#include "aot/emit/pte_format.h"

#include <string>

#include "aot/ir/error.h"

namespace kiln::aot::pte {

std::vector<uint8_t> encode_header(const ExtendedHeader& header) {
  std::vector<uint8_t> out(kHeaderLength);
  runtime::pte::encode_header(header, out.data());
  return out;
}

std::optional<ExtendedHeader> parse_header(std::span<const uint8_t> file) {
  ExtendedHeader header;
  switch (runtime::pte::parse_header(file.data(), file.size(), &header)) {
    case runtime::pte::HeaderStatus::Present: return header;
    case runtime::pte::HeaderStatus::NotPresent: return std::nullopt;
    case runtime::pte::HeaderStatus::ShortData:
      throw AotError("the file is " + std::to_string(file.size()) + " bytes, too short for a .pte program (at least " +
                     std::to_string(kNumHeadBytes) + ")");
    case runtime::pte::HeaderStatus::BadLength: break;
  }
  throw AotError("the extended header's length is " + std::to_string(header.length) + ", less than " +
                 std::to_string(kMinHeaderLength));
}

uint64_t align_up(uint64_t value, uint64_t alignment) {
  if (alignment == 0) throw AotError("alignment must be positive");
  const uint64_t remainder = value % alignment;
  if (remainder == 0) return value;
  const uint64_t pad = alignment - remainder;
  if (value > UINT64_MAX - pad) throw AotError("offset " + std::to_string(value) + " overflows when aligned");
  return value + pad;
}

void check_power_of_two(uint64_t alignment, const char* what) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw AotError(std::string(what) + " must be a power of two, got " + std::to_string(alignment));
  }
}

}  // namespace kiln::aot::pte
