// Program: a loaded .pte — the header, the flatbuffer, the constant segment —
// from which methods are loaded. Immutable after load, so one Program may
// serve many Methods on many threads.
//
// Program::load checks everything a Method will trust. Minimal verification
// checks the header, the identifier and that the root offset is inside the
// flatbuffer. InternalConsistency adds the flatbuffer verifier and Kiln's
// consistency checks (program_validation.h): every index in range, every size
// and byte count free of overflow, segments and constant offsets inside the
// file, alignment (of tensors and of 8-byte vector elements), Bool constants
// holding only 0 or 1. Under Minimal the runtime trusts the file: a misaligned
// 8-byte vector is read as it is (a misaligned load: harmless on x86, a fault
// on strict-alignment CPUs). Use InternalConsistency for a file you did not write.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"
#include "runtime/core/error.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/executor/method_meta.h"

namespace executorch_flatbuffer {
struct Program;
struct ExecutionPlan;
}

namespace kiln::runtime {

class Method;
class MemoryManager;

class Program final : public NamedDataMap {
 public:
  enum class Verification : uint8_t {
    Minimal,              ///< header, identifier, root offset
    InternalConsistency,  ///< plus the flatbuffer verifier and every index and size
  };

  /// Loads the program through `loader`, which must outlive the Program.
  /// @retval InvalidProgram the bytes are not a valid program (the log says
  ///   what: bad identifier, truncated, index out of range, ...).
  /// @retval NotSupported a version or feature this runtime does not read
  ///   (an "ET" identifier other than "ET12").
  /// @retval InvalidArgument no loader, or the flatbuffer's bytes as loaded
  ///   are not 16-byte aligned (pte::kSchemaMaxAlignment).
  /// A loader's own error (AccessFailed, MemoryAllocationFailed) is returned
  /// as it is.
  [[nodiscard]] static Result<Program> load(DataLoader* loader, Verification verification = Verification::Minimal);

  Program(Program&&) noexcept;
  Program& operator=(Program&&) = delete;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() override;

  size_t num_methods() const;
  /// InvalidArgument when `index` is out of range.
  [[nodiscard]] Result<const char*> get_method_name(size_t index) const;
  /// NotFound if the program has no method of that name.
  [[nodiscard]] Result<MethodMeta> method_meta(const char* method_name) const;
  /// Loads a method into `memory_manager`'s memory (see Method::load).
  [[nodiscard]] Result<Method> load_method(const char* method_name, MemoryManager* memory_manager) const;

  // NamedDataMap: the program's named data (delegate weights), zero-copy
  // when the loader maps or holds the file.
  [[nodiscard]] Result<FreeableBuffer> get_data(const char* key) const override;
  size_t get_num_keys() const override;
  [[nodiscard]] Result<const char*> get_key(size_t index) const override;

  // ---- for Method::load ----

  /// The verified flatbuffer.
  const executorch_flatbuffer::Program* flatbuffer_program() const { return program_; }
  /// The `nbytes` bytes of constant `buffer_index` (a tensor's
  /// data_buffer_idx), from the constant segment or the inline constant
  /// buffers. InvalidArgument if the index or the size is out of range.
  [[nodiscard]] Result<const void*> get_constant_buffer_data(size_t buffer_index, size_t nbytes) const;
  /// Loads segment `segment_index` (a delegate blob or named data).
  [[nodiscard]] Result<FreeableBuffer> load_segment(const SegmentInfo& info) const;
  /// Copies the initial value of a mutable buffer (mutable_data_segments
  /// entry `mutable_data_segments_index`, offset index `offset_index`) into
  /// `buffer` of `size` bytes.
  [[nodiscard]] Error load_mutable_subsegment_into(size_t mutable_data_segments_index, size_t offset_index,
                                                   size_t size, void* buffer) const;

 private:
  /// A range of the file: a segment's bytes.
  struct FileRange {
    size_t offset;
    size_t size;
  };

  Program(DataLoader* loader, FreeableBuffer program_data, const executorch_flatbuffer::Program* program,
          size_t segment_base_offset, bool has_segments);

  [[nodiscard]] Error load_constant_segment();
  [[nodiscard]] Result<const executorch_flatbuffer::ExecutionPlan*> find_plan(const char* method_name) const;
  /// Where segment `segment_index` is in the file (checked against the
  /// segment table and for overflow; not yet against the file's size).
  [[nodiscard]] Result<FileRange> segment_range(size_t segment_index) const;

  DataLoader* loader_;
  FreeableBuffer program_data_;
  const executorch_flatbuffer::Program* program_;
  size_t segment_base_offset_;
  bool has_segments_;  ///< the file has an extended header, so segments can be located
  FreeableBuffer constant_segment_data_;
  bool has_constant_segment_ = false;  ///< constants come from the segment, not constant_buffer
};

}  // namespace kiln::runtime
