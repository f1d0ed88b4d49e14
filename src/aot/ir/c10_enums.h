// c10's numbering of ScalarType, Layout and MemoryFormat (the runtime's
// enums, runtime/core/c10_enums.h): the ints a kernel receives for a boxed
// `ScalarType` / `Layout` / `MemoryFormat` argument, that a .pte stores, and
// that str(op._schema) prints in defaults. The compiler's own Layout and
// MemoryFormat (argument.h) are numbered as the .pt2 schema numbers them,
// which differs; convert here and nowhere else.
#pragma once

#include <cstdint>
#include <optional>

#include "aot/ir/argument.h"
#include "runtime/core/c10_enums.h"

namespace kiln::aot {

/// c10's Layout and MemoryFormat, as the runtime numbers them.
using C10Layout = runtime::Layout;
using C10MemoryFormat = runtime::MemoryFormat;

/// c10's number of `type` (runtime::ScalarType already follows c10).
constexpr int64_t c10_scalar_type(ScalarType type) { return static_cast<int64_t>(type); }

/// c10's number of `layout`; nullopt for Layout::Unknown.
constexpr std::optional<int64_t> c10_layout(Layout layout) {
  switch (layout) {
    case Layout::Strided: return static_cast<int64_t>(C10Layout::Strided);
    case Layout::SparseCoo: return static_cast<int64_t>(C10Layout::Sparse);
    case Layout::SparseCsr: return static_cast<int64_t>(C10Layout::SparseCsr);
    case Layout::Mkldnn: return static_cast<int64_t>(C10Layout::Mkldnn);
    case Layout::SparseCsc: return static_cast<int64_t>(C10Layout::SparseCsc);
    case Layout::SparseBsr: return static_cast<int64_t>(C10Layout::SparseBsr);
    case Layout::SparseBsc: return static_cast<int64_t>(C10Layout::SparseBsc);
    case Layout::Unknown: break;
  }
  return std::nullopt;
}

/// The Layout c10 numbers `code`; nullopt for a number Kiln has no Layout for
/// (Jagged, or out of range).
constexpr std::optional<Layout> layout_from_c10(int64_t code) {
  for (Layout layout : {Layout::Strided, Layout::SparseCoo, Layout::SparseCsr, Layout::Mkldnn, Layout::SparseCsc,
                        Layout::SparseBsr, Layout::SparseBsc}) {
    if (c10_layout(layout) == code) return layout;
  }
  return std::nullopt;
}

/// c10's number of `format`; nullopt for MemoryFormat::Unknown.
constexpr std::optional<int64_t> c10_memory_format(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return static_cast<int64_t>(C10MemoryFormat::Contiguous);
    case MemoryFormat::Preserve: return static_cast<int64_t>(C10MemoryFormat::Preserve);
    case MemoryFormat::ChannelsLast: return static_cast<int64_t>(C10MemoryFormat::ChannelsLast);
    case MemoryFormat::ChannelsLast3d: return static_cast<int64_t>(C10MemoryFormat::ChannelsLast3d);
    case MemoryFormat::Unknown: break;
  }
  return std::nullopt;
}

/// The MemoryFormat c10 numbers `code`; nullopt if there is none.
constexpr std::optional<MemoryFormat> memory_format_from_c10(int64_t code) {
  for (MemoryFormat format : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                              MemoryFormat::ChannelsLast3d}) {
    if (c10_memory_format(format) == code) return format;
  }
  return std::nullopt;
}

}  // namespace kiln::aot
