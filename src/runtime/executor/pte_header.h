// The .pte container around the flatbuffer, as ExecuTorch writes and reads it:
// the file identifier, the optional `eh00` extended header that says where
// the segments are, and the alignment defaults. Shared by the runtime's
// Program and the AOT writer and reader, so both read the same facts.
//
// Layout: [root offset u32][ "ET12" ][ extended header, padded ][ rest of the
// flatbuffer ][ zeros up to segment_base_offset ][ segments ... ]. The header
// is present only when the file has segment data; a file without it is the
// bare flatbuffer and has no segment bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::runtime::pte {

inline constexpr char kFileIdentifier[] = "ET12";
inline constexpr size_t kIdentifierOffset = 4;    ///< after the u32 root offset
inline constexpr size_t kHeaderOffset = 8;        ///< after the root offset and the identifier
inline constexpr char kHeaderMagic[] = "eh00";
inline constexpr uint32_t kHeaderLength = 32;     ///< what is written; readers accept >= 24
inline constexpr uint32_t kMinHeaderLength = 24;  ///< magic, length, program_size, segment_base_offset
inline constexpr size_t kNumHeadBytes = 64;       ///< bytes a reader needs to probe a file

inline constexpr size_t kDefaultSegmentAlignment = 128;
inline constexpr size_t kDefaultConstantTensorAlignment = 16;
inline constexpr size_t kDefaultDelegateAlignment = 16;
/// The largest force_align in the schema: the inserted header is padded to
/// (a multiple of) it so that force-aligned vectors stay aligned. The
/// runtime also wants the flatbuffer to start at this alignment.
inline constexpr size_t kSchemaMaxAlignment = 16;

/// The extended header's fields (all little-endian on the wire).
struct ExtendedHeader {
  uint64_t program_size = 0;         ///< bytes of the flatbuffer region, header included
  uint64_t segment_base_offset = 0;  ///< file offset of the first segment
  uint64_t segment_data_size = 0;    ///< bytes of all segments with padding (0 in old files)
  uint32_t length = kHeaderLength;   ///< the header's length field as read

  bool operator==(const ExtendedHeader& o) const {
    return program_size == o.program_size && segment_base_offset == o.segment_base_offset &&
           segment_data_size == o.segment_data_size && length == o.length;
  }
  bool operator!=(const ExtendedHeader& o) const { return !(*this == o); }
};

/// The `bytes`-byte little-endian unsigned integer at `data`.
inline uint64_t read_le(const uint8_t* data, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(data[i]) << (8 * i);
  return value;
}

/// Writes the low `bytes` bytes of `value` at `out`, little-endian.
inline void write_le(uint8_t* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

/// Writes the header's kHeaderLength bytes at `out` (the length field is
/// always written as kHeaderLength).
inline void encode_header(const ExtendedHeader& header, uint8_t* out) {
  std::memcpy(out, kHeaderMagic, 4);
  write_le(out + 4, kHeaderLength, 4);
  write_le(out + 8, header.program_size, 8);
  write_le(out + 16, header.segment_base_offset, 8);
  write_le(out + 24, header.segment_data_size, 8);
}

enum class HeaderStatus : uint8_t {
  Present,     ///< parsed into the output
  NotPresent,  ///< no magic: the file is the bare flatbuffer, without segments
  ShortData,   ///< fewer than kNumHeadBytes bytes given
  BadLength,   ///< the magic is there but the length is below kMinHeaderLength
};

/// Reads the extended header from the first `size` bytes of a file.
inline HeaderStatus parse_header(const uint8_t* data, size_t size, ExtendedHeader* out) {
  if (size < kNumHeadBytes) return HeaderStatus::ShortData;
  const uint8_t* header = data + kHeaderOffset;
  if (std::memcmp(header, kHeaderMagic, 4) != 0) return HeaderStatus::NotPresent;
  ExtendedHeader parsed;
  parsed.length = static_cast<uint32_t>(read_le(header + 4, 4));
  if (parsed.length < kMinHeaderLength) {
    *out = parsed;
    return HeaderStatus::BadLength;
  }
  parsed.program_size = read_le(header + 8, 8);
  parsed.segment_base_offset = read_le(header + 16, 8);
  if (parsed.length >= kHeaderLength) parsed.segment_data_size = read_le(header + 24, 8);
  *out = parsed;
  return HeaderStatus::Present;
}

enum class IdentifierStatus : uint8_t {
  Compatible,    ///< "ET12"
  Incompatible,  ///< "ET" and another version
  NotPresent,    ///< not a .pte file
};

/// Looks at bytes 4..7 of a file of at least 8 bytes.
inline IdentifierStatus check_identifier(const uint8_t* data) {
  const uint8_t* id = data + kIdentifierOffset;
  if (std::memcmp(id, kFileIdentifier, 4) == 0) return IdentifierStatus::Compatible;
  if (id[0] == 'E' && id[1] == 'T') return IdentifierStatus::Incompatible;
  return IdentifierStatus::NotPresent;
}

}  // namespace kiln::runtime::pte
