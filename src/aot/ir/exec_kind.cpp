#include "aot/ir/exec_kind.h"

#include <string_view>

namespace kiln::aot {

ExecKind exec_kind(const std::string& target) {
  const std::string_view name = target;
  if (name == kGetItem) return ExecKind::GetItem;
  if (name == kMemoryAlloc) return ExecKind::Alloc;
  if (name == kMemoryView) return ExecKind::View;
  if (name == kCallDelegate) return ExecKind::DelegateCall;
  if (name == kCopyInPlace) return ExecKind::CopyInPlace;
  if (name == kSymSize) return ExecKind::SymSize;
  return ExecKind::KernelCall;
}

bool is_tuple_item(const Node& node) {
  return is_call_of(node, ExecKind::GetItem) && node.args().size() == 2 && node.args()[1].is_int();
}

const char* to_string(ExecKind kind) {
  switch (kind) {
    case ExecKind::Alloc: return kMemoryAlloc;
    case ExecKind::View: return kMemoryView;
    case ExecKind::GetItem: return kGetItem;
    case ExecKind::DelegateCall: return kCallDelegate;
    case ExecKind::CopyInPlace: return kCopyInPlace;
    case ExecKind::SymSize: return kSymSize;
    case ExecKind::KernelCall: return "kernel call";
  }
  return "unknown";
}

}  // namespace kiln::aot
