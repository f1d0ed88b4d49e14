// DemoBackend: a backend whose blob a runtime can execute (demo_blob.h):
// float32 elementwise ops on contiguous tensors of one shape — sin, cos, tan, neg, exp,
// relu, abs, sigmoid, tanh; add, sub (with alpha), mul, div of two tensors or
// of a tensor and a number. Parameters, buffers and constants the delegate
// owns go into the program's named data under their state-dict key.
#pragma once

#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/ir/host_tensor.h"

namespace kiln::backends::demo {

class DemoBackend : public aot::BackendDetails {
 public:
  std::string id() const override { return "DemoBackend"; }
  /// Encodes the program; every output and debug handle is kept. Throws
  /// AotError naming the node when one is not supported, and for buffers the
  /// program mutates (the demo runtime keeps no state).
  aot::PreprocessResult preprocess(const aot::ExportedProgram& edge_program,
                                   const std::vector<aot::CompileSpec>& compile_specs) const override;
  aot::NodeSupport supports(const aot::Node& node, const aot::ExportedProgram& program) const override;
  std::vector<std::string> supported_ops() const override;
};

/// Runs a DemoBackend blob on the host, as its runtime would: `named_data`
/// holds the constants, `inputs` the call's inputs. Returns the outputs as
/// 1-D tensors (the blob records element counts, not shapes). Throws
/// AotError if the blob does not parse or the inputs do not fit it.
std::vector<aot::HostTensor> run_demo_blob(const std::vector<uint8_t>& blob,
                                           const aot::NamedDataStoreOutput& named_data,
                                           const std::vector<aot::HostTensor>& inputs);

}  // namespace kiln::backends::demo
