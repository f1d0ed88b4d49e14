// The oneDNN delegate's blob: a 16-byte header, then a flatbuffer of
// onednn_graph.fbs. Shared by the backend's preprocess and its runtime half:
// C++17, no exceptions, no allocation, header-only.
//
// Header (little-endian u32 each):
//   magic             "KODN"
//   version           kBlobVersion; a runtime reads kOldestBlobVersion to
//                     kBlobVersion and refuses any other
//   flatbuffer_offset from the blob's start (16, or more for alignment)
//   flatbuffer_size   bytes; offset + size <= blob size
//
// Weights are not in the blob: constants name their bytes in the program's
// named data (Value.constant_key), deduplicated by content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::backends::onednn {

inline constexpr char kBlobMagic[4] = {'K', 'O', 'D', 'N'};
/// 2: constants may be packed (onednn_graph.fbs PackedLayout), which a
/// runtime of version 1 would misread; a version-1 blob has none.
/// 3: operations may be Pointwise programs, which a runtime of version 2
/// does not know; older blobs have none.
inline constexpr uint32_t kBlobVersion = 3;
inline constexpr uint32_t kOldestBlobVersion = 1;
inline constexpr size_t kBlobHeaderSize = 16;
/// Where the flatbuffer must start in memory (its int64 vectors).
inline constexpr size_t kFlatbufferAlignment = 8;
/// The backend id partitioners name and the runtime registers.
inline constexpr const char* kBackendId = "OneDnnBackend";

struct BlobHeader {
  uint32_t version = 0;
  uint32_t flatbuffer_offset = 0;
  uint32_t flatbuffer_size = 0;
};

enum class BlobHeaderStatus { kOk, kTooSmall, kBadMagic, kBadVersion, kBadExtent, kMisaligned };

inline uint32_t read_u32_le(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

inline void write_u32_le(uint8_t* p, uint32_t value) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

/// Reads and checks the header of a `size`-byte blob; `header` is filled
/// whenever the magic matched (so a caller can name a wrong version).
inline BlobHeaderStatus parse_blob_header(const void* data, size_t size, BlobHeader* header) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (data == nullptr || size < kBlobHeaderSize) return BlobHeaderStatus::kTooSmall;
  if (std::memcmp(bytes, kBlobMagic, sizeof kBlobMagic) != 0) return BlobHeaderStatus::kBadMagic;
  header->version = read_u32_le(bytes + 4);
  header->flatbuffer_offset = read_u32_le(bytes + 8);
  header->flatbuffer_size = read_u32_le(bytes + 12);
  if (header->version < kOldestBlobVersion || header->version > kBlobVersion) return BlobHeaderStatus::kBadVersion;
  const uint64_t end = uint64_t{header->flatbuffer_offset} + header->flatbuffer_size;
  if (header->flatbuffer_offset < kBlobHeaderSize || end > size) return BlobHeaderStatus::kBadExtent;
  // The flatbuffer's verifier checks alignment relative to the flatbuffer's
  // start: that start must itself lie on the widest scalar's boundary.
  if ((reinterpret_cast<uintptr_t>(bytes) + header->flatbuffer_offset) % kFlatbufferAlignment != 0) {
    return BlobHeaderStatus::kMisaligned;
  }
  return BlobHeaderStatus::kOk;
}

/// Writes a header for a flatbuffer of `flatbuffer_size` bytes placed at
/// kBlobHeaderSize into `out` (kBlobHeaderSize bytes).
inline void write_blob_header(uint8_t* out, uint32_t flatbuffer_size) {
  std::memcpy(out, kBlobMagic, sizeof kBlobMagic);
  write_u32_le(out + 4, kBlobVersion);
  write_u32_le(out + 8, static_cast<uint32_t>(kBlobHeaderSize));
  write_u32_le(out + 12, flatbuffer_size);
}

}  // namespace kiln::backends::onednn
