#include "runtime/core/evalue.h"

namespace kiln::runtime {

const char* to_string(Tag tag) {
  switch (tag) {
    case Tag::None: return "None";
    case Tag::Tensor: return "Tensor";
    case Tag::String: return "String";
    case Tag::Double: return "Double";
    case Tag::Int: return "Int";
    case Tag::Bool: return "Bool";
    case Tag::ListBool: return "ListBool";
    case Tag::ListDouble: return "ListDouble";
    case Tag::ListInt: return "ListInt";
    case Tag::ListTensor: return "ListTensor";
    case Tag::ListScalar: return "ListScalar";
    case Tag::ListOptionalTensor: return "ListOptionalTensor";
  }
  return "Unknown";
}

}  // namespace kiln::runtime
