#include "aot/emit/pte_reader.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "aot/ir/error.h"

namespace kiln::aot::pte {

namespace fb = executorch_flatbuffer;

namespace {

void check_range(uint64_t offset, uint64_t size, uint64_t limit, const std::string& what) {
  if (offset > limit || size > limit - offset) {
    throw AotError(what + " (bytes " + std::to_string(offset) + ".." + std::to_string(offset) + "+" +
                   std::to_string(size) + ") lies outside the file's " + std::to_string(limit) + " bytes");
  }
}

}  // namespace

bool looks_like_pte(std::span<const uint8_t> head) {
  return head.size() >= 8 && head[4] == 'E' && head[5] == 'T';
}

std::span<const uint8_t> PteFile::segment(size_t index) const {
  if (index >= program->segments.size()) {
    throw AotError("segment " + std::to_string(index) + " does not exist (the file has " +
                   std::to_string(program->segments.size()) + ")");
  }
  const auto& segment = *program->segments[index];
  const uint64_t base = header ? header->segment_base_offset : 0;
  return std::span<const uint8_t>(bytes).subspan(base + segment.offset, segment.size);
}

std::span<const uint8_t> PteFile::constant(size_t data_buffer_idx, size_t nbytes) const {
  if (data_buffer_idx == 0) return {};
  if (!program->constant_segment) {
    if (data_buffer_idx >= program->constant_buffer.size()) throw AotError("constant buffer index out of range");
    const auto& storage = program->constant_buffer[data_buffer_idx]->storage;
    if (storage.size() < nbytes) throw AotError("constant buffer is smaller than its tensor");
    return std::span<const uint8_t>(storage.data(), nbytes);
  }
  const auto& offsets = program->constant_segment->offsets;
  if (data_buffer_idx >= offsets.size()) {
    throw AotError("constant " + std::to_string(data_buffer_idx) + " is out of range (the constant segment has " +
                   std::to_string(offsets.size()) + " entries)");
  }
  auto data = segment(program->constant_segment->segment_index);
  check_range(offsets[data_buffer_idx], nbytes, data.size(), "constant " + std::to_string(data_buffer_idx));
  return data.subspan(offsets[data_buffer_idx], nbytes);
}

PteFile read_pte(std::vector<uint8_t> bytes) {
  PteFile file;
  file.bytes = std::move(bytes);
  const std::span<const uint8_t> all(file.bytes);
  if (all.size() < 8 || std::memcmp(all.data() + 4, kFileIdentifier, 4) != 0) {
    const std::string found = all.size() >= 8 ? std::string(reinterpret_cast<const char*>(all.data() + 4), 4) : "";
    if (all.size() >= 8 && looks_like_pte(all)) {
      throw AotError("the file is a .pte of another format version ('" + found + "'); Kiln reads '" +
                     kFileIdentifier + "'");
    }
    throw AotError("not a .pte file: no '" + std::string(kFileIdentifier) + "' identifier at byte 4");
  }
  file.header = parse_header(all);
  uint64_t program_size = all.size();
  if (file.header) {
    program_size = file.header->program_size;
    check_range(0, program_size, all.size(), "the program (extended header's program_size)");
    if (file.header->segment_base_offset < program_size) {
      throw AotError("the segment base offset " + std::to_string(file.header->segment_base_offset) +
                     " lies inside the program's " + std::to_string(program_size) + " bytes");
    }
  }
  flatbuffers::Verifier verifier(all.data(), static_cast<size_t>(program_size));
  if (!fb::VerifyProgramBuffer(verifier)) throw AotError("the program's flatbuffer fails verification (corrupt or truncated file)");
  file.program.reset(fb::GetProgram(all.data())->UnPack());
  const uint64_t base = file.header ? file.header->segment_base_offset : all.size();
  for (size_t i = 0; i < file.program->segments.size(); ++i) {
    const auto& segment = *file.program->segments[i];
    check_range(segment.offset, segment.size, all.size() - std::min<uint64_t>(base, all.size()),
                "segment " + std::to_string(i));
  }
  return file;
}

PteFile read_pte_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw AotError("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return read_pte(std::move(bytes));
  } catch (const AotError& error) {
    throw AotError("'" + path + "': " + error.what());
  }
}

}  // namespace kiln::aot::pte
