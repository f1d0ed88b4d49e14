// The consistency checks Program::load runs under InternalConsistency
// verification, after the flatbuffer verifier: what a Method will index or
// size without checking again.
//
// - every value, operator, delegate, chain, input and output index in range;
// - every tensor: a known dtype, sizes >= 0, a dim order that is a
//   permutation of its rank, a byte count that does not overflow, and data
//   that exists (a constant buffer index in range, an allocation inside a
//   declared planned buffer, or neither for a caller-provided tensor), and
//   constant or planned data at a multiple of the element size;
// - every 8-byte-element vector (constant and mutable segment offsets,
//   non_const_buffer_sizes, IntList and DoubleList items) 8-byte aligned,
//   which the flatbuffer verifier does not check;
// - BoolList items and Bool constants holding only 0 or 1;
// - list items pointing at values of the right kind;
// - segments inside the file, the constant segment's offsets inside it,
//   delegate data references in range, named data pointing at a segment.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

namespace executorch_flatbuffer {
struct Program;
}

namespace kiln::runtime {

class Program;

struct ProgramLayout {
  size_t file_size;            ///< bytes the loader holds
  size_t segment_base_offset;  ///< where segment offsets count from (0: no segments)
  size_t segment_data_size;    ///< bytes of segment data the header declares (0: unknown)
};

/// InvalidProgram (with a log line naming the field and index) on the first
/// inconsistency found.
[[nodiscard]] Error validate_program(const executorch_flatbuffer::Program* program, const ProgramLayout& layout);

/// After validate_program and the constant segment's load: every Bool
/// constant (in the constant segment or the program's constant buffers)
/// holds only the bytes 0 and 1, which is all a bool may hold. InvalidProgram
/// (logged with the value and the byte) otherwise. Reads only Bool constants.
[[nodiscard]] Error validate_bool_constants(const Program& program);

}  // namespace kiln::runtime
