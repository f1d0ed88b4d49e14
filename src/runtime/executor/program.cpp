// Program::load: the head (identifier and extended header), the flatbuffer,
// its verification, then the constant segment. Later loads (delegate blobs,
// named data, initial values of mutable buffers) go through the same loader,
// each range checked against the segment table first.
#include "runtime/executor/program.h"

#include <cinttypes>
#include <cstring>

#include "runtime/core/log.h"
#include "runtime/executor/flatbuffer_values.h"
#include "runtime/executor/program_validation.h"
#include "runtime/executor/pte_header.h"
#include "schema/program_generated.h"

namespace kiln::runtime {

namespace fb = executorch_flatbuffer;

namespace {

/// Where the flatbuffer and the segments are in the file.
struct FileLayout {
  size_t file_size = 0;
  size_t program_size = 0;
  size_t segment_base_offset = 0;
  size_t segment_data_size = 0;
  bool has_header = false;

  /// Segments can be located only through a header that gives their base.
  bool has_segments() const { return has_header && segment_base_offset != 0; }
};

Error check_identifier(const uint8_t* head) {
  switch (pte::check_identifier(head)) {
    case pte::IdentifierStatus::Compatible: return Error::Ok;
    case pte::IdentifierStatus::Incompatible:
      KILN_LOG(Error, "Program: file identifier '%.4s' is a .pte version this runtime does not read (expected '%s')",
               reinterpret_cast<const char*>(head + pte::kIdentifierOffset), pte::kFileIdentifier);
      return Error::NotSupported;
    case pte::IdentifierStatus::NotPresent: break;
  }
  KILN_LOG(Error, "Program: not a .pte file: bytes 4..7 are %02x %02x %02x %02x, expected the identifier '%s'",
           head[4], head[5], head[6], head[7], pte::kFileIdentifier);
  return Error::InvalidProgram;
}

/// Checks the extended header's numbers against the file they describe.
Error check_header(const pte::ExtendedHeader& header, size_t file_size) {
  const uint64_t min_program_size = pte::kHeaderOffset + header.length;
  if (header.program_size < min_program_size || header.program_size > file_size) {
    KILN_LOG(Error,
             "Program: extended header: program_size %" PRIu64 " is outside [%" PRIu64
             ", %zu] (the file is %zu bytes: truncated?)",
             header.program_size, min_program_size, file_size, file_size);
    return Error::InvalidProgram;
  }
  const bool has_segments = header.segment_base_offset != 0 || header.segment_data_size != 0;
  if (has_segments && header.segment_base_offset < header.program_size) {
    KILN_LOG(Error, "Program: extended header: segment_base_offset %" PRIu64 " is inside the flatbuffer (program_size %" PRIu64 ")",
             header.segment_base_offset, header.program_size);
    return Error::InvalidProgram;
  }
  // ExecuTorch files before 1.0 write segment_data_size 0: only their segments' own ranges are checked.
  if (header.segment_data_size != 0 &&
      (header.segment_base_offset > file_size || header.segment_data_size > file_size - header.segment_base_offset)) {
    KILN_LOG(Error,
             "Program: extended header: segment data [%" PRIu64 ", +%" PRIu64 ") ends past the %zu-byte file (truncated?)",
             header.segment_base_offset, header.segment_data_size, file_size);
    return Error::InvalidProgram;
  }
  return Error::Ok;
}

/// Reads the identifier and the extended header from the file's first bytes.
Result<FileLayout> read_layout(const DataLoader& loader) {
  KILN_ASSIGN_OR_RETURN(const size_t file_size, loader.size());
  if (file_size < pte::kNumHeadBytes) {
    KILN_LOG(Error, "Program: the data is %zu bytes, too short for a .pte program (at least %zu)", file_size,
             pte::kNumHeadBytes);
    return Error::InvalidProgram;
  }
  KILN_ASSIGN_OR_RETURN(FreeableBuffer head, loader.load(0, pte::kNumHeadBytes, SegmentInfo{SegmentInfo::Type::Program}));
  if (head.size() < pte::kNumHeadBytes || head.data() == nullptr) {
    KILN_LOG(Error, "Program: the loader returned %zu bytes for the %zu-byte head", head.size(), pte::kNumHeadBytes);
    return Error::AccessFailed;
  }
  const auto* head_bytes = static_cast<const uint8_t*>(head.data());
  KILN_TRY(check_identifier(head_bytes));

  FileLayout layout;
  layout.file_size = file_size;
  layout.program_size = file_size;
  pte::ExtendedHeader header;
  switch (pte::parse_header(head_bytes, head.size(), &header)) {
    case pte::HeaderStatus::NotPresent: return layout;
    case pte::HeaderStatus::ShortData: return Error::Internal;  // head.size() was checked above
    case pte::HeaderStatus::BadLength:
      KILN_LOG(Error, "Program: extended header length %" PRIu32 " is below the minimum %" PRIu32, header.length,
               pte::kMinHeaderLength);
      return Error::InvalidProgram;
    case pte::HeaderStatus::Present: break;
  }
  KILN_TRY(check_header(header, file_size));
  layout.has_header = true;
  layout.program_size = static_cast<size_t>(header.program_size);
  layout.segment_base_offset = static_cast<size_t>(header.segment_base_offset);
  layout.segment_data_size = static_cast<size_t>(header.segment_data_size);
  return layout;
}

/// The flatbuffer's root table offset (and the vtable offset it starts with)
/// must lie inside the flatbuffer.
Error check_root_offset(const uint8_t* data, size_t program_size) {
  const uint64_t root = pte::read_le(data, 4);
  if (root < pte::kHeaderOffset || root > program_size - sizeof(uint32_t) || root % sizeof(uint32_t) != 0) {
    KILN_LOG(Error, "Program: the flatbuffer's root offset %" PRIu64 " is outside its %zu bytes", root, program_size);
    return Error::InvalidProgram;
  }
  return Error::Ok;
}

Error verify_flatbuffer(const uint8_t* data, size_t program_size) {
  if (program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    KILN_LOG(Error, "Program: the %zu-byte flatbuffer is larger than a flatbuffer can be", program_size);
    return Error::InvalidProgram;
  }
  flatbuffers::Verifier verifier(data, program_size, flatbuffers::Verifier::Options{});
  if (!fb::VerifyProgramBuffer(verifier)) {
    KILN_LOG(Error,
             "Program: the flatbuffer fails verification: a table, vector or string lies outside its %zu bytes, "
             "is misaligned, or nests too deep",
             program_size);
    return Error::InvalidProgram;
  }
  return Error::Ok;
}

bool is_aligned(const void* data, size_t alignment) {
  return reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

}  // namespace

Program::Program(DataLoader* loader, FreeableBuffer program_data, const fb::Program* program, size_t segment_base_offset,
                 bool has_segments)
    : loader_(loader),
      program_data_(std::move(program_data)),
      program_(program),
      segment_base_offset_(segment_base_offset),
      has_segments_(has_segments) {}

Program::Program(Program&& other) noexcept
    : loader_(other.loader_),
      program_data_(std::move(other.program_data_)),
      program_(other.program_),
      segment_base_offset_(other.segment_base_offset_),
      has_segments_(other.has_segments_),
      constant_segment_data_(std::move(other.constant_segment_data_)),
      has_constant_segment_(other.has_constant_segment_) {
  other.program_ = nullptr;
}

Program::~Program() = default;

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  if (loader == nullptr) {
    KILN_LOG(Error, "Program::load: no data loader");
    return Error::InvalidArgument;
  }
  KILN_ASSIGN_OR_RETURN(const FileLayout layout, read_layout(*loader));
  KILN_ASSIGN_OR_RETURN(FreeableBuffer program_data,
                        loader->load(0, layout.program_size, SegmentInfo{SegmentInfo::Type::Program}));
  if (program_data.size() < layout.program_size || program_data.data() == nullptr) {
    KILN_LOG(Error, "Program: the loader returned %zu bytes for the %zu-byte flatbuffer", program_data.size(),
             layout.program_size);
    return Error::AccessFailed;
  }
  if (!is_aligned(program_data.data(), pte::kSchemaMaxAlignment)) {
    KILN_LOG(Error, "Program: the program's bytes at %p are not aligned to %zu", program_data.data(),
             pte::kSchemaMaxAlignment);
    return Error::InvalidArgument;
  }
  const auto* data = static_cast<const uint8_t*>(program_data.data());
  KILN_TRY(check_root_offset(data, layout.program_size));
  if (verification == Verification::InternalConsistency) {
    KILN_TRY(verify_flatbuffer(data, layout.program_size));
    const ProgramLayout checked{layout.file_size, layout.has_segments() ? layout.segment_base_offset : 0,
                                layout.segment_data_size};
    KILN_TRY(validate_program(fb::GetProgram(data), checked));
  }
  Program program(loader, std::move(program_data), fb::GetProgram(data), layout.segment_base_offset,
                  layout.has_segments());
  KILN_TRY(program.load_constant_segment());
  if (verification == Verification::InternalConsistency) KILN_TRY(validate_bool_constants(program));
  return Result<Program>(std::move(program));
}

Error Program::load_constant_segment() {
  const fb::SubsegmentOffsets* constants = program_->constant_segment();
  // One offset is the reserved placeholder alone: no constants, nothing to load.
  if (constants == nullptr || constants->offsets() == nullptr || constants->offsets()->size() <= 1) return Error::Ok;
  KILN_ASSIGN_OR_RETURN(
      constant_segment_data_,
      load_segment(SegmentInfo{SegmentInfo::Type::Constant, static_cast<size_t>(constants->segment_index())}));
  has_constant_segment_ = true;
  return Error::Ok;
}

size_t Program::num_methods() const {
  return size_of(program_->execution_plan());
}

Result<const char*> Program::get_method_name(size_t index) const {
  if (index >= num_methods()) {
    KILN_LOG(Error, "Program: method index %zu is out of range (the program has %zu methods)", index, num_methods());
    return Error::InvalidArgument;
  }
  const fb::ExecutionPlan* plan = at(program_->execution_plan(), index);
  if (plan == nullptr || plan->name() == nullptr) {
    KILN_LOG(Error, "Program: execution_plan[%zu] has no name", index);
    return Error::InvalidProgram;
  }
  return plan->name()->c_str();
}

Result<const fb::ExecutionPlan*> Program::find_plan(const char* method_name) const {
  if (method_name == nullptr) {
    KILN_LOG(Error, "Program: no method name given");
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < num_methods(); ++i) {
    const fb::ExecutionPlan* plan = at(program_->execution_plan(), i);
    if (plan != nullptr && plan->name() != nullptr && std::strcmp(plan->name()->c_str(), method_name) == 0) return plan;
  }
  KILN_LOG(Error, "Program: no method named '%s' (the program has %zu methods)", method_name, num_methods());
  return Error::NotFound;
}

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  KILN_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, find_plan(method_name));
  const char* missing = plan->non_const_buffer_sizes() == nullptr ? "non_const_buffer_sizes"
                        : plan->inputs() == nullptr               ? "inputs"
                        : plan->outputs() == nullptr              ? "outputs"
                                                                  : nullptr;
  if (missing != nullptr) {
    KILN_LOG(Error, "Program: method '%s' has no %s", method_name, missing);
    return Error::InvalidProgram;
  }
  return MethodMeta(plan);
}

// ---- constants and segments ----

Result<const void*> Program::get_constant_buffer_data(size_t buffer_index, size_t nbytes) const {
  if (has_constant_segment_) {
    const auto* offsets = program_->constant_segment()->offsets();
    if (buffer_index >= offsets->size()) {
      KILN_LOG(Error, "Program: constant %zu is out of range (constant_segment.offsets has %" PRIu32 " entries)",
               buffer_index, offsets->size());
      return Error::InvalidArgument;
    }
    const uint64_t offset = at(offsets, buffer_index);
    const size_t segment_size = constant_segment_data_.size();
    if (offset > segment_size || nbytes > segment_size - offset) {
      KILN_LOG(Error, "Program: constant %zu: %zu bytes at offset %" PRIu64 " run past the %zu-byte constant segment",
               buffer_index, nbytes, offset, segment_size);
      return Error::InvalidArgument;
    }
    return static_cast<const void*>(static_cast<const uint8_t*>(constant_segment_data_.data()) + offset);
  }
  const auto* buffers = program_->constant_buffer();
  const size_t count = size_of(buffers);
  if (buffer_index >= count) {
    KILN_LOG(Error, "Program: constant %zu is out of range (the program has %zu inline constant buffers and no constant segment)",
             buffer_index, count);
    return Error::InvalidArgument;
  }
  const fb::Buffer* buffer = at(buffers, buffer_index);
  const auto* storage = buffer == nullptr ? nullptr : buffer->storage();
  const size_t size = size_of(storage);
  if (nbytes > size) {
    KILN_LOG(Error, "Program: constant %zu: %zu bytes asked, the inline constant buffer has %zu", buffer_index, nbytes,
             size);
    return Error::InvalidArgument;
  }
  return static_cast<const void*>(storage == nullptr ? nullptr : storage->data());
}

Result<Program::FileRange> Program::segment_range(size_t segment_index) const {
  const auto* segments = program_->segments();
  const size_t count = size_of(segments);
  if (segment_index >= count) {
    KILN_LOG(Error, "Program: segment %zu is out of range (the program has %zu segments)", segment_index, count);
    return Error::InvalidProgram;
  }
  const fb::DataSegment* segment = at(segments, segment_index);
  if (segment == nullptr) {
    KILN_LOG(Error, "Program: segment %zu is missing from the segment table", segment_index);
    return Error::InvalidProgram;
  }
  if (segment->size() == 0) return FileRange{0, 0};
  if (!has_segments_) {
    KILN_LOG(Error, "Program: segment %zu has %" PRIu64 " bytes but the file has no segment base (extended header) to locate it",
             segment_index, segment->size());
    return Error::InvalidProgram;
  }
  uint64_t start = 0;
  uint64_t end = 0;
  if (__builtin_add_overflow(static_cast<uint64_t>(segment_base_offset_), segment->offset(), &start) ||
      __builtin_add_overflow(start, segment->size(), &end) || end > static_cast<uint64_t>(SIZE_MAX)) {
    KILN_LOG(Error, "Program: segment %zu (offset %" PRIu64 ", %" PRIu64 " bytes) overflows the file offsets",
             segment_index, segment->offset(), segment->size());
    return Error::InvalidProgram;
  }
  return FileRange{static_cast<size_t>(start), static_cast<size_t>(segment->size())};
}

Result<FreeableBuffer> Program::load_segment(const SegmentInfo& info) const {
  KILN_ASSIGN_OR_RETURN(const FileRange range, segment_range(info.segment_index));
  if (range.size == 0) return FreeableBuffer(nullptr, 0, nullptr);
  KILN_ASSIGN_OR_RETURN(const size_t file_size, loader_->size());
  if (range.offset > file_size || range.size > file_size - range.offset) {
    KILN_LOG(Error, "Program: segment %zu [%zu, +%zu) ends past the %zu-byte file (truncated?)", info.segment_index,
             range.offset, range.size, file_size);
    return Error::InvalidProgram;
  }
  KILN_ASSIGN_OR_RETURN(FreeableBuffer buffer, loader_->load(range.offset, range.size, info));
  if (buffer.size() < range.size) {
    KILN_LOG(Error, "Program: the loader returned %zu bytes for the %zu of segment %zu", buffer.size(), range.size,
             info.segment_index);
    return Error::AccessFailed;
  }
  return Result<FreeableBuffer>(std::move(buffer));
}

Error Program::load_mutable_subsegment_into(size_t mutable_data_segments_index, size_t offset_index, size_t size,
                                            void* buffer) const {
  const auto* subsegments = program_->mutable_data_segments();
  const size_t count = size_of(subsegments);
  if (mutable_data_segments_index >= count) {
    KILN_LOG(Error, "Program: mutable_data_segments[%zu] is out of range (the program has %zu)",
             mutable_data_segments_index, count);
    return Error::InvalidArgument;
  }
  const fb::SubsegmentOffsets* subsegment =
      at(subsegments, mutable_data_segments_index);
  const auto* offsets = subsegment == nullptr ? nullptr : subsegment->offsets();
  const size_t num_offsets = size_of(offsets);
  if (offset_index >= num_offsets) {
    KILN_LOG(Error, "Program: mutable_data_segments[%zu].offsets[%zu] is out of range (it has %zu)",
             mutable_data_segments_index, offset_index, num_offsets);
    return Error::InvalidArgument;
  }
  const size_t segment_index = subsegment->segment_index();
  KILN_ASSIGN_OR_RETURN(const FileRange range, segment_range(segment_index));
  const uint64_t offset = at(offsets, offset_index);
  if (offset > range.size || size > range.size - offset) {
    KILN_LOG(Error,
             "Program: mutable_data_segments[%zu].offsets[%zu]: %zu bytes at offset %" PRIu64
             " run past the %zu-byte segment %zu",
             mutable_data_segments_index, offset_index, size, offset, range.size, segment_index);
    return Error::InvalidArgument;
  }
  if (size == 0) return Error::Ok;
  return loader_->load_into(range.offset + static_cast<size_t>(offset), size,
                            SegmentInfo{SegmentInfo::Type::Mutable, segment_index}, buffer);
}

// ---- named data ----

size_t Program::get_num_keys() const {
  return size_of(program_->named_data());
}

Result<const char*> Program::get_key(size_t index) const {
  if (index >= get_num_keys()) {
    KILN_LOG(Error, "Program: named data key %zu is out of range (the program has %zu)", index, get_num_keys());
    return Error::InvalidArgument;
  }
  const fb::NamedData* entry = at(program_->named_data(), index);
  if (entry == nullptr || entry->key() == nullptr) {
    KILN_LOG(Error, "Program: named_data[%zu] has no key", index);
    return Error::InvalidProgram;
  }
  return entry->key()->c_str();
}

Result<FreeableBuffer> Program::get_data(const char* key) const {
  if (key == nullptr) {
    KILN_LOG(Error, "Program: no named data key given");
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < get_num_keys(); ++i) {
    const fb::NamedData* entry = at(program_->named_data(), i);
    if (entry == nullptr || entry->key() == nullptr || std::strcmp(entry->key()->c_str(), key) != 0) continue;
    return load_segment(SegmentInfo{SegmentInfo::Type::External, entry->segment_index()});
  }
  KILN_LOG(Error, "Program: no named data with key '%s' (the program has %zu keys)", key, get_num_keys());
  return Error::NotFound;
}

}  // namespace kiln::runtime
