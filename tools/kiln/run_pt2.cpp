// kiln run on a .pt2 (run.cpp parses the flags): the program decomposed to
// core ATen and called on the reference interpreter, its outputs printed and
// optionally saved, with its inputs and buffers after the call, as an .npz.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/pass_manager.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "cli.h"

namespace kiln::cli {

void print_output(const std::string& label, const aot::Value& value) {
  const auto* tensor = std::get_if<aot::HostTensor>(&value);
  if (tensor == nullptr) {
    std::printf("%s: %s\n", label.c_str(), aot::describe(value).c_str());
    return;
  }
  const std::optional<aot::HostTensor> parts =
      runtime::is_complex_type(tensor->dtype()) ? std::optional(tensor->view_as_real()) : std::nullopt;
  // A complex tensor's statistics and elements are over its parts, (re, im) pairs.
  const std::vector<double> values = parts ? parts->to_doubles() : tensor->to_doubles();
  double low = INFINITY, high = -INFINITY, sum = 0;
  for (double v : values) {
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  std::printf("%s: %s", label.c_str(), tensor->describe().c_str());
  if (!values.empty()) {
    std::printf("  %smin=%.6g max=%.6g mean=%.6g", parts ? "parts " : "", low, high, sum / values.size());
  }
  std::printf("\n    [");
  const size_t step = parts ? 2 : 1;
  for (size_t i = 0; i < values.size() && i < 8 * step; i += step) {
    if (parts) std::printf("%s(%.6g, %.6g)", i ? ", " : "", values[i], values[i + 1]);
    else std::printf("%s%.6g", i ? ", " : "", values[i]);
  }
  std::printf("%s]\n", values.size() > 8 * step ? ", ..." : "");
}

int run_pt2_file(const RunFlags& flags) {
  const std::string& inputs_path = flags.inputs_path;
  const std::string& output_path = flags.output_path;
  aot::ExportedProgram program = aot::load_pt2(flags.path, flags.model);
  aot::to_core_aten(program);
  std::vector<aot::Value> leaves = aot::order_inputs(program, aot::read_npz(inputs_path), inputs_path);
  const aot::PyTree result = aot::call_with_leaves(program, leaves);
  const auto [outputs, spec] = aot::tree_flatten(result);
  std::printf("%zu output%s (structure %s)\n", outputs.size(), outputs.size() == 1 ? "" : "s", spec.to_string().c_str());
  for (size_t i = 0; i < outputs.size(); ++i) print_output("output_" + std::to_string(i), outputs[i]);

  if (!output_path.empty()) {
    std::vector<std::pair<std::string, aot::HostTensor>> arrays;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (const auto* tensor = std::get_if<aot::HostTensor>(&outputs[i])) arrays.emplace_back("output_" + std::to_string(i), *tensor);
    }
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (const auto* tensor = std::get_if<aot::HostTensor>(&leaves[i])) arrays.emplace_back("input_" + std::to_string(i), *tensor);
    }
    for (const auto& [name, tensor] : program.named_buffers()) arrays.emplace_back("buffer:" + name, tensor);
    aot::write_npz(output_path, arrays);
    std::printf("wrote %s\n", output_path.c_str());
  }
  return 0;
}

}  // namespace kiln::cli
