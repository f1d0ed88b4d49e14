#include "aot/emit/pte_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>

#include <fcntl.h>
#include <unistd.h>

#include "aot/ir/error.h"

namespace kiln::aot::pte {

namespace fb = executorch_flatbuffer;

namespace {

// One segment's bytes and where it must start.
struct Segment {
  std::vector<Bytes> parts;  // concatenated, each at its offset
  std::vector<uint64_t> part_offsets;
  uint64_t size = 0;
  uint64_t alignment = 1;
};

// Concatenates `blobs[1..]`, each starting at a multiple of `alignment`;
// offsets[0] is the placeholder's 0.
// A blob this large starts on a cache line whatever the alignment asked:
// kernels stream large weights in whole-line vector loads (Kiln's packed
// linear weights ran about 10% faster so aligned).
constexpr uint64_t kLineAlignedBytes = uint64_t{1} << 12;
constexpr uint64_t kCacheLine = 64;

Segment pack_subsegments(const std::vector<Bytes>& blobs, uint64_t alignment, std::vector<uint64_t>& offsets) {
  Segment segment;
  offsets.assign(1, 0);
  for (size_t i = 1; i < blobs.size(); ++i) {
    const uint64_t blob_alignment = blobs[i].size() >= kLineAlignedBytes ? std::max(alignment, kCacheLine) : alignment;
    const uint64_t at = align_up(segment.size, blob_alignment);
    offsets.push_back(at);
    segment.parts.push_back(blobs[i]);
    segment.part_offsets.push_back(at);
    segment.size = at + blobs[i].size();
  }
  return segment;
}

Segment single(Bytes data, uint64_t alignment) {
  Segment segment;
  segment.parts.push_back(data);
  segment.part_offsets.push_back(0);
  segment.size = data.size();
  segment.alignment = alignment;
  return segment;
}

bool same_bytes(Bytes a, Bytes b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// The flatbuffer of `program`, with inline vectors aligned as asked: the
// generated Pack would align them as the schema's force_align says (16).
std::vector<uint8_t> build_flatbuffer(const fb::ProgramT& program, const std::vector<Bytes>& inline_delegates,
                                      uint64_t delegate_alignment) {
  flatbuffers::FlatBufferBuilder builder(1 << 16);
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans;
  for (const auto& plan : program.execution_plan) plans.push_back(fb::ExecutionPlan::Pack(builder, plan.get()));
  std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> delegates;
  for (Bytes blob : inline_delegates) {
    // PreAlign, not ForceVectorAlignment, which caps alignments at 32.
    builder.PreAlign(blob.size(), delegate_alignment);
    auto data = builder.CreateVector(blob.data(), blob.size());
    delegates.push_back(fb::CreateBackendDelegateInlineData(builder, data));
  }
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments;
  for (const auto& segment : program.segments) segments.push_back(fb::DataSegment::Pack(builder, segment.get()));
  std::vector<flatbuffers::Offset<fb::SubsegmentOffsets>> mutable_segments;
  for (const auto& offsets : program.mutable_data_segments) {
    mutable_segments.push_back(fb::SubsegmentOffsets::Pack(builder, offsets.get()));
  }
  std::vector<flatbuffers::Offset<fb::NamedData>> named;
  for (const auto& entry : program.named_data) named.push_back(fb::NamedData::Pack(builder, entry.get()));
  auto constant_segment =
      program.constant_segment ? fb::SubsegmentOffsets::Pack(builder, program.constant_segment.get()) : 0;
  auto root = fb::CreateProgram(builder, program.version, builder.CreateVector(plans),
                                builder.CreateVector(std::vector<flatbuffers::Offset<fb::Buffer>>{}),
                                builder.CreateVector(delegates), builder.CreateVector(segments), constant_segment,
                                builder.CreateVector(mutable_segments), builder.CreateVector(named));
  builder.Finish(root, kFileIdentifier);
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

// Splices the extended header in after the identifier and fixes the root offset.
std::vector<uint8_t> insert_header(std::vector<uint8_t> flatbuffer, uint64_t padded_length,
                                   uint64_t segment_alignment, uint64_t segment_data_size) {
  ExtendedHeader header;
  header.program_size = flatbuffer.size() + padded_length;
  header.segment_base_offset = align_up(header.program_size, segment_alignment);
  header.segment_data_size = segment_data_size;
  std::vector<uint8_t> encoded = encode_header(header);
  encoded.resize(padded_length, 0);
  uint32_t root = 0;
  std::memcpy(&root, flatbuffer.data(), 4);  // little-endian hosts only, as flatbuffers itself
  root += static_cast<uint32_t>(padded_length);
  std::memcpy(flatbuffer.data(), &root, 4);
  flatbuffer.insert(flatbuffer.begin() + kHeaderOffset, encoded.begin(), encoded.end());
  return flatbuffer;
}

}  // namespace

std::vector<uint8_t> serialize_pte(const PteProgram& input, const SerializeOptions& options) {
  check_power_of_two(options.segment_alignment, "the segment alignment");
  check_power_of_two(options.constant_tensor_alignment, "the constant tensor alignment");
  check_power_of_two(options.delegate_alignment, "the delegate alignment");
  if (input.constant_data.empty()) throw AotError("constant data must start with the reserved empty entry");

  fb::ProgramT program(input.program);
  program.constant_buffer.clear();
  program.segments.clear();
  program.mutable_data_segments.clear();
  program.named_data.clear();
  std::vector<Segment> segments;

  auto add_segment = [&](Segment segment) {
    segments.push_back(std::move(segment));
    return static_cast<uint32_t>(segments.size() - 1);
  };

  program.constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
  Segment constants = pack_subsegments(input.constant_data, options.constant_tensor_alignment,
                                       program.constant_segment->offsets);
  constants.alignment = options.constant_tensor_alignment;
  program.constant_segment->segment_index = add_segment(std::move(constants));

  if (input.mutable_data.size() > 1) {
    auto offsets = std::make_unique<fb::SubsegmentOffsetsT>();
    Segment mutables = pack_subsegments(input.mutable_data, 1, offsets->offsets);
    offsets->segment_index = add_segment(std::move(mutables));
    program.mutable_data_segments.push_back(std::move(offsets));
  }

  // Delegate blobs: identical ones share one segment (or one inline entry).
  std::vector<Bytes> inline_delegates;
  std::vector<std::pair<Bytes, uint32_t>> seen_segments;
  std::vector<std::pair<Bytes, uint32_t>> seen_inline;
  for (auto& plan : program.execution_plan) {
    for (auto& delegate : plan->delegates) {
      if (!delegate->processed || delegate->processed->location != fb::DataLocation::INLINE) continue;
      const uint32_t index = delegate->processed->index;
      if (index >= input.delegate_data.size()) {
        throw AotError("delegate '" + delegate->id + "' refers to blob " + std::to_string(index) + " of " +
                       std::to_string(input.delegate_data.size()));
      }
      Bytes blob = input.delegate_data[index];
      const bool to_segment = options.extract_delegate_segments && !blob.empty();
      auto& seen = to_segment ? seen_segments : seen_inline;
      uint32_t target = 0;
      auto found = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return same_bytes(s.first, blob); });
      if (found != seen.end()) {
        target = found->second;
      } else if (to_segment) {
        target = add_segment(single(blob, 1));
        seen.emplace_back(blob, target);
      } else {
        target = static_cast<uint32_t>(inline_delegates.size());
        inline_delegates.push_back(blob);
        seen.emplace_back(blob, target);
      }
      delegate->processed->location = to_segment ? fb::DataLocation::SEGMENT : fb::DataLocation::INLINE;
      delegate->processed->index = target;
    }
  }

  std::vector<std::pair<Bytes, uint32_t>> seen_named;
  for (const NamedBlob& blob : input.named_data) {
    check_power_of_two(blob.alignment, "a named data blob's alignment");
    auto found = std::find_if(seen_named.begin(), seen_named.end(),
                              [&](const auto& s) { return same_bytes(s.first, blob.data); });
    uint32_t index = found != seen_named.end() ? found->second : add_segment(single(blob.data, blob.alignment));
    if (found == seen_named.end()) seen_named.emplace_back(blob.data, index);
    auto entry = std::make_unique<fb::NamedDataT>();
    entry->key = blob.key;
    entry->segment_index = index;
    program.named_data.push_back(std::move(entry));
  }

  // Offsets relative to the segment base.
  uint64_t end = 0;
  bool has_data = false;
  for (const Segment& segment : segments) {
    const uint64_t at = align_up(end, std::lcm(options.segment_alignment, segment.alignment));
    program.segments.push_back(std::make_unique<fb::DataSegmentT>());
    program.segments.back()->offset = at;
    program.segments.back()->size = segment.size;
    end = at + segment.size;
    has_data = has_data || segment.size > 0;
  }

  std::vector<uint8_t> flatbuffer = build_flatbuffer(program, inline_delegates, options.delegate_alignment);
  if (!has_data) return flatbuffer;  // no segment data: no header, as ExecuTorch writes it

  const uint64_t padded = align_up(kHeaderLength, std::max<uint64_t>(kSchemaMaxAlignment, options.delegate_alignment));
  std::vector<uint8_t> file = insert_header(std::move(flatbuffer), padded, options.segment_alignment, end);
  const uint64_t base = align_up(file.size(), options.segment_alignment);
  file.resize(base + end, 0);
  for (size_t s = 0; s < segments.size(); ++s) {
    const uint64_t at = base + program.segments[s]->offset;
    for (size_t p = 0; p < segments[s].parts.size(); ++p) {
      Bytes part = segments[s].parts[p];
      if (!part.empty()) std::memcpy(file.data() + at + segments[s].part_offsets[p], part.data(), part.size());
    }
  }
  return file;
}

void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw AotError("cannot write '" + path + "': " + std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      throw AotError("cannot write '" + path + "': " + reason);
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw AotError("cannot write '" + path + "': " + reason);
  }
}

}  // namespace kiln::aot::pte
