// The per-op golden cases of tests/fixtures/ops (tools/fixtures/generate_op_cases.py):
// each is one call of an out-variant kernel with PyTorch's result. This reads
// the manifest and its tensors, boxes a case's arguments as the executor does
// (one EValue per schema argument, out tensors included, then the return
// slot), calls the kernel through the runtime's registry and compares every
// output with PyTorch's.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "runtime/core/scalar_type.h"

namespace kiln::kernels::golden {

using runtime::ScalarType;

struct GoldenCase {
  std::string op;  ///< the out variant, "aten::add.out"
  std::string id;  ///< unique within the op, "f32_broadcast"
  /// The dtype of the op's main input (its first tensor argument, or the out
  /// tensor when it has none): what PortableKernel::dtypes speaks of.
  ScalarType dtype = ScalarType::Float;
  nlohmann::json args;     ///< every non-out argument in schema order
  nlohmann::json outputs;  ///< every out argument in schema order
  double atol = 0.0;
  double rtol = 0.0;

  /// "add_out__f32_broadcast": the case as a test name (other namespaces
  /// than aten's kept: "quantized_decomposed__add_out__u8").
  std::string test_name() const;
};

/// The manifest and its tensors.
struct GoldenSuite {
  std::string torch_version;
  std::vector<GoldenCase> cases;
  std::map<std::string, aot::HostTensor> tensors;  ///< by npz key, bfloat16 still as uint16
};

/// The suite under `directory` (manifest.json and the archive it names).
/// Throws AotError naming the file and case on malformed input.
GoldenSuite load_golden_suite(const std::string& directory);

struct CaseOutcome {
  enum class Status {
    Passed,
    Mismatch,       ///< the kernel ran and an output differs from PyTorch's
    KernelFailed,   ///< the kernel reported an error
    NotRegistered,  ///< no kernel of that name in the registry
  };
  Status status = Status::Passed;
  /// What went wrong: every mismatching output, or the kernel's message.
  std::string message;
};

/// Calls the registered kernel of `c.op` on the case's arguments and compares
/// the outputs: dtype and shape exactly, integers and bools exactly, floats
/// within |actual - expected| <= atol + rtol * |expected| with NaN where NaN
/// and infinities equal, complex numbers part by part. Inputs must come back
/// unchanged, and every output element must be written (outs start filled
/// with a byte pattern).
CaseOutcome run_golden_case(const GoldenSuite& suite, const GoldenCase& c);

/// The ScalarType named as runtime::to_string names it ("Float", "Long");
/// throws AotError for an unknown name.
ScalarType scalar_type_named(const std::string& name);

}  // namespace kiln::kernels::golden
