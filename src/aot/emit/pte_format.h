// The .pte container on the AOT side: the extended header as bytes and the
// alignment helpers, throwing AotError. The facts themselves (identifier,
// `eh00` header layout, alignment defaults) live in the runtime's header.
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

#include "runtime/executor/pte_header.h"

namespace kiln::aot::pte {

// The container's facts are the runtime's (runtime/executor/pte_header.h),
// so that the writer and the runtime cannot drift apart.
using runtime::pte::ExtendedHeader;
using runtime::pte::kDefaultConstantTensorAlignment;
using runtime::pte::kDefaultDelegateAlignment;
using runtime::pte::kDefaultSegmentAlignment;
using runtime::pte::kFileIdentifier;
using runtime::pte::kHeaderLength;
using runtime::pte::kHeaderMagic;
using runtime::pte::kHeaderOffset;
using runtime::pte::kMinHeaderLength;
using runtime::pte::kNumHeadBytes;
using runtime::pte::kSchemaMaxAlignment;

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
