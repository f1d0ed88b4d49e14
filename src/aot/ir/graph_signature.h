// GraphSignature: what each placeholder and each output of an exported graph
// means — torch.export's ExportGraphSignature, with its derived views.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aot/ir/argument.h"

namespace kiln::aot {

enum class InputKind { UserInput, Parameter, Buffer, ConstantTensor, CustomObj, Token };
enum class OutputKind {
  UserOutput,
  LossOutput,
  BufferMutation,
  GradientToParameter,
  GradientToUserInput,
  UserInputMutation,
  Token,
};
std::string to_string(InputKind kind);   // "USER_INPUT", "PARAMETER", ...
std::string to_string(OutputKind kind);  // "USER_OUTPUT", "BUFFER_MUTATION", ...

/// What a placeholder or output carries (torch.export's *Argument classes).
struct ArgumentSpec {
  enum class Kind { Tensor, SymInt, SymFloat, SymBool, Constant, CustomObj, Token };
  Kind kind = Kind::Tensor;
  std::string name;         ///< the graph node's name (empty for a constant)
  Argument constant_value;  ///< Constant only: the traced value (int, float, bool, str, None)
  std::string class_fqn;    ///< CustomObj only: the script class

  static ArgumentSpec tensor(std::string name) { return {Kind::Tensor, std::move(name), {}, {}}; }
  static ArgumentSpec sym_int(std::string name) { return {Kind::SymInt, std::move(name), {}, {}}; }
  static ArgumentSpec constant(std::string name, Argument value) {
    return {Kind::Constant, std::move(name), std::move(value), {}};
  }
  static ArgumentSpec token(std::string name) { return {Kind::Token, std::move(name), {}, {}}; }
  static ArgumentSpec custom_obj(std::string name, std::string class_fqn) {
    return {Kind::CustomObj, std::move(name), {}, std::move(class_fqn)};
  }
  /// True for the kinds that name a graph node (all but Constant).
  bool names_node() const { return kind != Kind::Constant; }
  bool operator==(const ArgumentSpec&) const = default;
};

struct InputSpec {
  InputKind kind = InputKind::UserInput;
  ArgumentSpec arg;
  std::string target;               ///< state-dict / constants key (params, buffers, constants, custom objects)
  std::optional<bool> persistent;   ///< buffers only
  /// True for parameters and persistent buffers, whose values live in the
  /// state dict; non-persistent buffers and constants live in the constants.
  bool in_state_dict() const {
    return kind == InputKind::Parameter || (kind == InputKind::Buffer && persistent.value_or(true));
  }
  bool operator==(const InputSpec&) const = default;
};

struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  ArgumentSpec arg;
  std::string target;  ///< mutated buffer / user input name, or gradient's parameter / input
  bool operator==(const OutputSpec&) const = default;
};

class GraphSignature {
 public:
  GraphSignature() = default;
  GraphSignature(std::vector<InputSpec> inputs, std::vector<OutputSpec> outputs);

  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;

  // Derived views, recomputed from the specs on each call (in spec order).
  std::vector<std::string> parameters() const;               ///< targets
  std::vector<std::string> buffers() const;                  ///< targets
  std::vector<std::string> non_persistent_buffers() const;   ///< targets
  std::vector<std::string> lifted_tensor_constants() const;  ///< targets
  std::vector<std::string> lifted_custom_objs() const;       ///< targets
  /// Names of user-input placeholders (constants contribute their printed value).
  std::vector<std::string> user_inputs() const;
  /// User outputs and the loss output, as torch counts them.
  std::vector<std::string> user_outputs() const;
  std::map<std::string, std::string> inputs_to_parameters() const;  ///< placeholder -> target
  std::map<std::string, std::string> inputs_to_buffers() const;
  std::map<std::string, std::string> inputs_to_lifted_tensor_constants() const;
  std::map<std::string, std::string> inputs_to_lifted_custom_objs() const;
  std::map<std::string, std::string> buffers_to_mutate() const;      ///< output node -> buffer target
  std::map<std::string, std::string> user_inputs_to_mutate() const;  ///< output node -> user input name
  std::map<std::string, std::string> gradients_to_parameters() const;
  std::map<std::string, std::string> gradients_to_user_inputs() const;
  std::vector<std::string> input_tokens() const;
  std::vector<std::string> output_tokens() const;
  /// Index of the loss output, if any.
  std::optional<size_t> loss_output() const;

  /// Textual form as ExportedProgram prints it ("# inputs" / "# outputs").
  std::string to_string() const;

  /// Checks what a signature must satisfy on its own and throws AotError
  /// naming the spec: targets present where the kind needs one, persistent set
  /// exactly for buffers, names unique, mutation targets that name a buffer /
  /// user input of this signature.
  void validate() const;

  bool operator==(const GraphSignature&) const = default;
};

}  // namespace kiln::aot
