// Reading a .pte file on the AOT side: the identifier, the extended header,
// the flatbuffer (verified, then unpacked into the object API) and the
// segments, each checked to lie inside the file. Serves `kiln inspect` and
// the round-trip tests; the runtime has its own zero-copy reader.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aot/emit/pte_format.h"
#include "schema/program_generated.h"

namespace kiln::aot::pte {

struct PteFile {
  std::vector<uint8_t> bytes;
  std::optional<ExtendedHeader> header;
  std::unique_ptr<executorch_flatbuffer::ProgramT> program;

  /// The bytes of segment `index`.
  std::span<const uint8_t> segment(size_t index) const;
  /// The bytes of constant `data_buffer_idx` (empty for the placeholder 0);
  /// `nbytes` is the tensor's size, which the file does not record per entry.
  std::span<const uint8_t> constant(size_t data_buffer_idx, size_t nbytes) const;
};

/// Parses `bytes` as a .pte file. Throws AotError naming what is wrong: too
/// short, a wrong identifier, a flatbuffer that fails verification, a
/// header or segment that points outside the file.
PteFile read_pte(std::vector<uint8_t> bytes);
/// read_pte of the file at `path` (an unreadable file is an AotError naming it).
PteFile read_pte_file(const std::string& path);

/// True if `head` (at least 8 bytes) looks like a .pte file of any version ("ET??").
bool looks_like_pte(std::span<const uint8_t> head);

}  // namespace kiln::aot::pte
