// BackendWithDelegateMappingDemo: the seed's demo of the delegate debug-handle
// mapping (ExecuTorch's exir/backend/test/backend_with_delegate_mapping_demo.py).
// Its "compiled" program is text: "<count>#op,id,op,id,...". A convolution
// followed by a relu fuses into one conv_relu_op whose identifier maps to both
// nodes' handles; a tan is decomposed into sin, cos and div ops whose three
// identifiers each map to the tan's handle. Nothing runs the blob.
#pragma once

#include "aot/delegate/backend_details.h"

namespace kiln::backends::demo {

class BackendWithDelegateMappingDemo : public aot::BackendDetails {
 public:
  std::string id() const override { return "BackendWithDelegateMappingDemo"; }
  /// The blob and the debug-handle map. Every operator node needs a debug
  /// handle (aot::generate_debug_handles). Throws AotError naming any node
  /// other than a convolution whose one user is a relu, that relu, or a tan.
  aot::PreprocessResult preprocess(const aot::ExportedProgram& edge_program,
                                   const std::vector<aot::CompileSpec>& compile_specs) const override;
  /// Supports the nodes preprocess accepts.
  aot::NodeSupport supports(const aot::Node& node, const aot::ExportedProgram& program) const override;
  std::vector<std::string> supported_ops() const override;
};

}  // namespace kiln::backends::demo
