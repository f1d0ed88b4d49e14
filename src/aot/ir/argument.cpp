#include "aot/ir/argument.h"

#include <charconv>
#include <cmath>

#include "aot/ir/node.h"
#include "host/python_float.h"

namespace kiln::aot {

std::string torch_dtype_name(ScalarType type) {
  switch (type) {
    case ScalarType::Byte: return "torch.uint8";
    case ScalarType::Char: return "torch.int8";
    case ScalarType::Short: return "torch.int16";
    case ScalarType::Int: return "torch.int32";
    case ScalarType::Long: return "torch.int64";
    case ScalarType::Half: return "torch.float16";
    case ScalarType::Float: return "torch.float32";
    case ScalarType::Double: return "torch.float64";
    case ScalarType::Bool: return "torch.bool";
    case ScalarType::BFloat16: return "torch.bfloat16";
    case ScalarType::UInt16: return "torch.uint16";
    case ScalarType::UInt32: return "torch.uint32";
    case ScalarType::UInt64: return "torch.uint64";
    default: return std::string("torch.") + runtime::to_string(type);
  }
}

std::string to_string(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return "torch.contiguous_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
    case MemoryFormat::Preserve: return "torch.preserve_format";
    case MemoryFormat::Unknown: break;
  }
  return "torch.unknown_format";
}

std::string to_string(Layout layout) {
  switch (layout) {
    case Layout::SparseCoo: return "torch.sparse_coo";
    case Layout::SparseCsr: return "torch.sparse_csr";
    case Layout::SparseCsc: return "torch.sparse_csc";
    case Layout::SparseBsr: return "torch.sparse_bsr";
    case Layout::SparseBsc: return "torch.sparse_bsc";
    case Layout::Mkldnn: return "torch._mkldnn";
    case Layout::Strided: return "torch.strided";
    case Layout::Unknown: break;
  }
  return "torch.unknown_layout";
}

std::string to_string(const Device& device) {
  if (device.index < 0) return "device(type='" + device.type + "')";
  return "device(type='" + device.type + "', index=" + std::to_string(device.index) + ")";
}

std::string to_string(const Argument& argument) {
  struct Printer {
    std::string operator()(None) const { return "None"; }
    std::string operator()(Node* node) const { return node->name(); }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return python_float(v); }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::string& v) const { return "'" + v + "'"; }
    std::string operator()(ScalarType v) const { return torch_dtype_name(v); }
    std::string operator()(MemoryFormat v) const { return aot::to_string(v); }
    std::string operator()(Layout v) const { return aot::to_string(v); }
    std::string operator()(const Device& v) const { return aot::to_string(v); }
    std::string operator()(const ArgumentList& list) const {
      std::string text = "[";
      for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) text += ", ";
        text += aot::to_string(list[i]);
      }
      return text + "]";
    }
  };
  return std::visit(Printer{}, argument.value);
}

}  // namespace kiln::aot
