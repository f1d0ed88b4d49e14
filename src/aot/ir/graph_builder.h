// GraphBuilder: builds an ExportedProgram in C++, without torch — for tests,
// the demo and tools. It records metas as it goes (see infer_meta.h), lifts
// weights into the state dict, and orders placeholders and outputs the way
// torch.export does.
//
//   GraphBuilder b;
//   Node* x = b.input("x", f32({4, 3, 64, 64}));
//   Node* w = b.parameter("conv.weight", weight);
//   Node* y = b.call("aten::convolution", {x, w, None{}, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1});
//   b.output({b.call("aten::relu", {y})});
//   ExportedProgram program = std::move(b).build();
#pragma once

#include <string>
#include <vector>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

class GraphBuilder {
 public:
  GraphBuilder();

  /// A user input placeholder.
  Node* input(const std::string& name, TensorMeta meta);
  /// A parameter (placeholder "p_<target>") whose value goes into the state dict.
  Node* parameter(const std::string& target, HostTensor value);
  /// A buffer ("b_<target>"); non-persistent buffers live in the constants.
  Node* buffer(const std::string& target, HostTensor value, bool persistent = true);
  /// A lifted tensor constant ("c_<target>").
  Node* constant(const std::string& target, HostTensor value);

  /// A call of `op` ("aten::add.Tensor"; an op without overload means its
  /// default overload). The op must be in the schema table; the node's meta is
  /// inferred from its inputs. Throws AotError naming the op on a bad call.
  Node* call(const std::string& op, ArgumentList args, KwargList kwargs = {});
  /// Element `index` of a multi-output node.
  Node* getitem(Node* value, int64_t index);

  /// The program writes `value` back into buffer `target` after each call.
  void mutate_buffer(const std::string& target, Node* value);
  /// The program writes `value` back into user input `input` after each call.
  void mutate_input(Node* input, Node* value);
  /// The user outputs. One output is returned bare (a leaf), several as a tuple.
  void output(std::vector<Node*> values);
  /// Declares the range of a size symbol used by the inputs' metas.
  void set_range(const std::string& symbol, ValueRange range);

  Graph& graph() { return *graph_; }

  /// The finished, verified program. The builder is spent afterwards.
  ExportedProgram build() &&;

 private:
  Node* lift(InputKind kind, const std::string& target, HostTensor value, bool persistent);
  Node* add_call(const std::string& target, ArgumentList args, KwargList kwargs);

  std::unique_ptr<Graph> graph_;
  std::vector<InputSpec> lifted_specs_;
  std::vector<Node*> lifted_nodes_;
  std::vector<Node*> user_inputs_;
  std::vector<std::pair<OutputSpec, Node*>> mutations_;
  std::vector<Node*> outputs_;
  bool has_output_ = false;
  StateDict state_dict_;
  ConstantMap constants_;
  RangeConstraints ranges_;
};

}  // namespace kiln::aot
