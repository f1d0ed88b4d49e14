// Facts of the .pte container around the flatbuffer: the file identifier, the
// `eh00` extended header that says where the segments are, and the alignment
// defaults, as ExecuTorch writes and reads them.
//
// Layout: [root offset u32][ "ET12" ][ extended header, padded ][ rest of the
// flatbuffer ][ zeros up to segment_base_offset ][ segments ... ]. The header
// is present only when the file has segment data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kiln::aot::pte {

inline constexpr char kFileIdentifier[] = "ET12";
inline constexpr size_t kHeaderOffset = 8;        ///< after the root offset and the identifier
inline constexpr char kHeaderMagic[] = "eh00";
inline constexpr uint32_t kHeaderLength = 32;     ///< what is written; readers accept >= 24
inline constexpr uint32_t kMinHeaderLength = 24;  ///< magic, length, program_size, segment_base_offset
inline constexpr size_t kNumHeadBytes = 64;       ///< bytes a reader needs to probe a file

inline constexpr size_t kDefaultSegmentAlignment = 128;
inline constexpr size_t kDefaultConstantTensorAlignment = 16;
inline constexpr size_t kDefaultDelegateAlignment = 16;
/// The largest force_align in the schema: the inserted header is padded to
/// (a multiple of) it so that force-aligned vectors stay aligned.
inline constexpr size_t kSchemaMaxAlignment = 16;

/// The extended header's fields (all little-endian on the wire).
struct ExtendedHeader {
  uint64_t program_size = 0;         ///< bytes of the flatbuffer region, header included
  uint64_t segment_base_offset = 0;  ///< file offset of the first segment
  uint64_t segment_data_size = 0;    ///< bytes of all segments with padding (0 in old files)
  uint32_t length = kHeaderLength;   ///< the header's length field as read

  bool operator==(const ExtendedHeader&) const = default;
};

/// The header's bytes as written (kHeaderLength of them).
std::vector<uint8_t> encode_header(const ExtendedHeader& header);

/// Reads the header at kHeaderOffset. Returns nullopt when the magic is not
/// there (a file without segments); throws AotError if the data is shorter
/// than kNumHeadBytes or the header's length is below kMinHeaderLength.
std::optional<ExtendedHeader> parse_header(std::span<const uint8_t> file);

/// `value` rounded up to a multiple of `alignment` (a power of two, or any
/// positive number); throws AotError if the result overflows.
uint64_t align_up(uint64_t value, uint64_t alignment);
/// Throws AotError naming `what` unless `alignment` is a power of two.
void check_power_of_two(uint64_t alignment, const char* what);

}  // namespace kiln::aot::pte
