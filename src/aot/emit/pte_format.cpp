#include "aot/emit/pte_format.h"

#include <cstring>
#include <string>

#include "aot/ir/error.h"

namespace kiln::aot::pte {

namespace {

void put_le(std::vector<uint8_t>& out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t get_le(std::span<const uint8_t> in, size_t at, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(in[at + i]) << (8 * i);
  return value;
}

}  // namespace

std::vector<uint8_t> encode_header(const ExtendedHeader& header) {
  std::vector<uint8_t> out(kHeaderMagic, kHeaderMagic + 4);
  put_le(out, kHeaderLength, 4);
  put_le(out, header.program_size, 8);
  put_le(out, header.segment_base_offset, 8);
  put_le(out, header.segment_data_size, 8);
  return out;
}

std::optional<ExtendedHeader> parse_header(std::span<const uint8_t> file) {
  if (file.size() < kNumHeadBytes) {
    throw AotError("the file is " + std::to_string(file.size()) + " bytes, too short for a .pte program (at least " +
                   std::to_string(kNumHeadBytes) + ")");
  }
  if (std::memcmp(file.data() + kHeaderOffset, kHeaderMagic, 4) != 0) return std::nullopt;
  ExtendedHeader header;
  header.length = static_cast<uint32_t>(get_le(file, kHeaderOffset + 4, 4));
  if (header.length < kMinHeaderLength) {
    throw AotError("the extended header's length is " + std::to_string(header.length) + ", less than " +
                   std::to_string(kMinHeaderLength));
  }
  header.program_size = get_le(file, kHeaderOffset + 8, 8);
  header.segment_base_offset = get_le(file, kHeaderOffset + 16, 8);
  if (header.length >= kHeaderLength) header.segment_data_size = get_le(file, kHeaderOffset + 24, 8);
  return header;
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
