// kiln run: a .pt2 program on inputs from an .npz, through the reference
// interpreter; prints the outputs and optionally saves them as an .npz.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/pass_manager.h"
#include "aot/passes/decompose.h"
#include "cli.h"

namespace kiln::cli {

namespace {

constexpr const char* kRunUsage = R"(Usage: kiln run MODEL.pt2 --inputs INPUTS.npz [--output OUT.npz] [--model NAME]

Runs a program saved by torch.export.save through Kiln's reference interpreter
(the portable kernels) and prints each output's shape and statistics. A
program in the training IR (what torch.export.export returns) is first
decomposed to core ATen, as run_decompositions() would.

The inputs are the program's user inputs, flattened as torch.export flattens
them (args, then kwargs, depth first). In the .npz, name them either by
position as np.savez(f, a, b) does (arr_0, arr_1, ...) or by the names the
program gives them (see 'kiln inspect': the USER_INPUT lines).

Options:
  --inputs FILE   the .npz holding the inputs (required)
  --output FILE   write the results to this .npz: output_<i> for each flattened
                  output, input_<i> for each user input and buffer:<name> for
                  each buffer after the call (so in-place updates show)
  --model NAME    the program to run when the archive holds several
)";

std::vector<aot::Value> order_inputs(const aot::ExportedProgram& program,
                                     std::vector<std::pair<std::string, aot::HostTensor>> arrays,
                                     const std::string& path) {
  std::vector<std::string> names = program.graph_signature().user_inputs();
  const bool positional = std::all_of(arrays.begin(), arrays.end(), [](const auto& array) {
    return array.first.rfind("arr_", 0) == 0;
  });
  std::string expected;
  for (const std::string& name : names) expected += (expected.empty() ? "" : ", ") + name;
  if (arrays.size() != names.size()) {
    throw aot::AotError(path + " holds " + std::to_string(arrays.size()) + " arrays, but the program takes " +
                        std::to_string(names.size()) + " user inputs (" + expected + ")");
  }
  std::vector<aot::Value> leaves(names.size());
  for (auto& [key, tensor] : arrays) {
    size_t index = names.size();
    if (positional) {
      const std::string digits = key.substr(4);
      if (!digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit)) index = std::stoul(digits);
    } else {
      index = static_cast<size_t>(std::find(names.begin(), names.end(), key) - names.begin());
    }
    if (index >= names.size() || !std::holds_alternative<aot::None>(leaves[index])) {
      throw aot::AotError(path + ": array '" + key + "' matches no user input (expected " +
                          (positional ? std::string("arr_0 ... arr_") + std::to_string(names.size() - 1) : expected) + ")");
    }
    leaves[index] = std::move(tensor);
  }
  return leaves;
}

void print_output(const std::string& label, const aot::Value& value) {
  const auto* tensor = std::get_if<aot::HostTensor>(&value);
  if (tensor == nullptr) {
    std::printf("%s: %s\n", label.c_str(), aot::describe(value).c_str());
    return;
  }
  const std::vector<double> values = tensor->to_doubles();
  double low = INFINITY, high = -INFINITY, sum = 0;
  for (double v : values) {
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
  }
  std::printf("%s: %s", label.c_str(), tensor->describe().c_str());
  if (!values.empty()) std::printf("  min=%.6g max=%.6g mean=%.6g", low, high, sum / values.size());
  std::printf("\n    [");
  for (size_t i = 0; i < values.size() && i < 8; ++i) std::printf("%s%.6g", i ? ", " : "", values[i]);
  std::printf("%s]\n", values.size() > 8 ? ", ..." : "");
}

}  // namespace

int run_run(Args args) {
  std::string path, inputs_path, output_path, model;
  while (!args.done()) {
    const std::string arg = args.take();
    if (arg == "--help" || arg == "-h") {
      std::cout << kRunUsage;
      return 0;
    } else if (arg == "--inputs") {
      inputs_path = args.value(arg);
    } else if (arg == "--output") {
      output_path = args.value(arg);
    } else if (arg == "--model") {
      model = args.value(arg);
    } else if (path.empty() && (arg.empty() || arg[0] != '-')) {
      path = arg;
    } else {
      args.unknown(arg);
    }
  }
  if (path.empty()) throw UsageError("'kiln run' needs a .pt2 file");
  if (inputs_path.empty()) throw UsageError("'kiln run' needs --inputs FILE.npz");

  aot::ExportedProgram program = aot::load_pt2(path, model);
  if (program.dialect() == aot::kTrainingDialect) {
    // torch.export.export's training IR: lower it to core ATen first.
    program = aot::transform(program, {aot::decompose_to_core_aten()});
  }
  std::vector<aot::Value> leaves = order_inputs(program, aot::read_npz(inputs_path), inputs_path);
  aot::PyTree args_tree = aot::PyTree::tuple({});
  aot::PyTree kwargs_tree = aot::PyTree::dict({});
  if (const aot::TreeSpec* in_spec = program.in_spec()) {
    aot::PyTree call = aot::tree_unflatten(leaves, *in_spec);
    if (call.kind != aot::PyTree::Kind::Tuple || call.children.size() != 2) {
      throw aot::AotError("the program's input spec is not (args, kwargs): " + in_spec->to_string());
    }
    args_tree = call.children[0];
    kwargs_tree = call.children[1];
  } else {
    for (const aot::Value& leaf : leaves) args_tree.children.push_back(aot::PyTree::make_leaf(leaf));
  }

  const aot::PyTree result = aot::call_program(program, args_tree, kwargs_tree);
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
