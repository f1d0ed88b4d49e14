// ModuleAttribute: an object an ExportedProgram holds by name and a get_attr
// node fetches — a lowered backend module, which
// `executorch_call_delegate(get_attr, inputs...)` calls. The IR knows it only
// through this interface, so that aot/ir does not depend on aot/delegate.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/tensor_meta.h"

namespace kiln::aot {

class ExportedProgram;

/// The target of the higher-order op that calls a lowered module (torch's
/// torch.ops.higher_order.executorch_call_delegate): its first argument is a
/// get_attr node naming the module, the rest are the delegate's user inputs in
/// order; it returns a tuple that getitem nodes take apart. It has no schema:
/// its meta is the list of the delegate's returned outputs
/// (see delegate_call_output_indices).
inline constexpr const char* kCallDelegate = "executorch_call_delegate";

class ModuleAttribute {
 public:
  virtual ~ModuleAttribute() = default;
  /// The class name printouts show: "LoweredBackendModule".
  virtual std::string type_name() const = 0;
  /// One line for printouts, e.g. "backend_id='DemoBackend', 120 bytes, 3 ops".
  virtual std::string describe() const = 0;
  /// A copy that shares nothing with this one, tensor data included.
  virtual std::shared_ptr<ModuleAttribute> clone() const = 0;
  /// The program a call of this attribute stands for; the reference
  /// interpreter runs it in place of the backend.
  virtual const ExportedProgram& delegated_program() const = 0;
};

/// Attribute name ("lowered_module_0") -> the attribute.
using ModuleAttributes = std::map<std::string, std::shared_ptr<ModuleAttribute>>;

/// The outputs of `delegated` that a call of it returns, as indices into its
/// output specs: every output but the buffer mutations, whose buffers the
/// delegate owns and updates itself.
std::vector<size_t> delegate_call_output_indices(const ExportedProgram& delegated);

/// The meta of a call of `delegated`: the tensor metas of the outputs it
/// returns. Throws AotError naming the output if one is not a single tensor.
ValueMeta delegate_call_meta(const ExportedProgram& delegated);

}  // namespace kiln::aot
