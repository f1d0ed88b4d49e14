// kiln run on a .pt2 (run.cpp parses the flags): the program decomposed to
// core ATen and called on the reference interpreter, its outputs printed and
// optionally saved, with its inputs and buffers after the call, as an .npz.
#include <cstdio>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/ir/pass_manager.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/reference_call.h"
#include "cli.h"
#include "run_pte.h"

namespace kiln::cli {

void print_output(const std::string& label, const aot::Value& value) {
  if (const auto* tensor = std::get_if<aot::HostTensor>(&value)) {
    print_array(label, aot::to_array(*tensor));
  } else {
    std::printf("%s: %s\n", label.c_str(), aot::describe(value).c_str());
  }
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
