// c10's Layout and MemoryFormat, numbered as c10 numbers them: the ints a
// kernel receives for a boxed `Layout` / `MemoryFormat` argument and that a
// .pte stores (ScalarType, scalar_type.h, is numbered as c10 too). The
// compiler's readers convert the .pt2 schema's own numbering to these
// (aot/ir/c10_enums.h).
#pragma once

#include <cstdint>

namespace kiln::runtime {

/// c10::Layout (torch/headeronly/core/Layout.h).
enum class Layout : int8_t {
  Strided = 0,
  Sparse = 1,
  SparseCsr = 2,
  Mkldnn = 3,
  SparseCsc = 4,
  SparseBsr = 5,
  SparseBsc = 6,
  Jagged = 7,
};

/// c10::MemoryFormat (torch/headeronly/core/MemoryFormat.h).
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1, ChannelsLast = 2, ChannelsLast3d = 3 };

/// True if `code`, a boxed MemoryFormat argument, is `format`.
constexpr bool is_memory_format(int64_t code, MemoryFormat format) { return code == static_cast<int64_t>(format); }

}  // namespace kiln::runtime
