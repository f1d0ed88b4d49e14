#include "aot/ir/graph_signature.h"

#include <string_view>
#include <unordered_set>

#include <set>

#include "aot/ir/error.h"

namespace kiln::aot {

std::string to_string(InputKind kind) {
  switch (kind) {
    case InputKind::UserInput: return "USER_INPUT";
    case InputKind::Parameter: return "PARAMETER";
    case InputKind::Buffer: return "BUFFER";
    case InputKind::ConstantTensor: return "CONSTANT_TENSOR";
    case InputKind::CustomObj: return "CUSTOM_OBJ";
    case InputKind::Token: return "TOKEN";
  }
  return "UNKNOWN";
}

std::string to_string(OutputKind kind) {
  switch (kind) {
    case OutputKind::UserOutput: return "USER_OUTPUT";
    case OutputKind::LossOutput: return "LOSS_OUTPUT";
    case OutputKind::BufferMutation: return "BUFFER_MUTATION";
    case OutputKind::GradientToParameter: return "GRADIENT_TO_PARAMETER";
    case OutputKind::GradientToUserInput: return "GRADIENT_TO_USER_INPUT";
    case OutputKind::UserInputMutation: return "USER_INPUT_MUTATION";
    case OutputKind::Token: return "TOKEN";
  }
  return "UNKNOWN";
}

GraphSignature::GraphSignature(std::vector<InputSpec> inputs, std::vector<OutputSpec> outputs)
    : input_specs(std::move(inputs)), output_specs(std::move(outputs)) {}

namespace {

std::string spec_name(const ArgumentSpec& arg) {
  return arg.kind == ArgumentSpec::Kind::Constant ? to_string(arg.constant_value) : arg.name;
}

template <typename Specs, typename Kind, typename Pred>
std::vector<std::string> targets_where(const Specs& specs, Kind kind, Pred pred) {
  std::vector<std::string> result;
  for (const auto& spec : specs) {
    if (spec.kind == kind && pred(spec)) result.push_back(spec.target);
  }
  return result;
}

template <typename Specs, typename Kind>
std::map<std::string, std::string> names_to_targets(const Specs& specs, Kind kind) {
  std::map<std::string, std::string> result;
  for (const auto& spec : specs) {
    if (spec.kind == kind) result[spec.arg.name] = spec.target;
  }
  return result;
}

const auto kAny = [](const auto&) { return true; };

}  // namespace

std::vector<std::string> GraphSignature::parameters() const {
  return targets_where(input_specs, InputKind::Parameter, kAny);
}

std::vector<std::string> GraphSignature::buffers() const { return targets_where(input_specs, InputKind::Buffer, kAny); }

std::vector<std::string> GraphSignature::non_persistent_buffers() const {
  return targets_where(input_specs, InputKind::Buffer,
                       [](const InputSpec& spec) { return spec.persistent.has_value() && !*spec.persistent; });
}

std::vector<std::string> GraphSignature::lifted_tensor_constants() const {
  return targets_where(input_specs, InputKind::ConstantTensor, kAny);
}

std::vector<std::string> GraphSignature::lifted_custom_objs() const {
  return targets_where(input_specs, InputKind::CustomObj, kAny);
}

std::vector<std::string> GraphSignature::user_inputs() const {
  std::vector<std::string> result;
  for (const InputSpec& spec : input_specs) {
    if (spec.kind == InputKind::UserInput) result.push_back(spec_name(spec.arg));
  }
  return result;
}

std::vector<std::string> GraphSignature::user_outputs() const {
  std::vector<std::string> result;
  for (const OutputSpec& spec : output_specs) {
    if (spec.kind == OutputKind::UserOutput || spec.kind == OutputKind::LossOutput) {
      result.push_back(spec_name(spec.arg));
    }
  }
  return result;
}

std::map<std::string, std::string> GraphSignature::inputs_to_parameters() const {
  return names_to_targets(input_specs, InputKind::Parameter);
}
std::map<std::string, std::string> GraphSignature::inputs_to_buffers() const {
  return names_to_targets(input_specs, InputKind::Buffer);
}
std::map<std::string, std::string> GraphSignature::inputs_to_lifted_tensor_constants() const {
  return names_to_targets(input_specs, InputKind::ConstantTensor);
}
std::map<std::string, std::string> GraphSignature::inputs_to_lifted_custom_objs() const {
  return names_to_targets(input_specs, InputKind::CustomObj);
}
std::map<std::string, std::string> GraphSignature::buffers_to_mutate() const {
  return names_to_targets(output_specs, OutputKind::BufferMutation);
}
std::map<std::string, std::string> GraphSignature::user_inputs_to_mutate() const {
  return names_to_targets(output_specs, OutputKind::UserInputMutation);
}
std::map<std::string, std::string> GraphSignature::gradients_to_parameters() const {
  return names_to_targets(output_specs, OutputKind::GradientToParameter);
}
std::map<std::string, std::string> GraphSignature::gradients_to_user_inputs() const {
  return names_to_targets(output_specs, OutputKind::GradientToUserInput);
}

std::vector<std::string> GraphSignature::input_tokens() const {
  std::vector<std::string> result;
  for (const InputSpec& spec : input_specs) {
    if (spec.kind == InputKind::Token) result.push_back(spec.arg.name);
  }
  return result;
}

std::vector<std::string> GraphSignature::output_tokens() const {
  std::vector<std::string> result;
  for (const OutputSpec& spec : output_specs) {
    if (spec.kind == OutputKind::Token) result.push_back(spec.arg.name);
  }
  return result;
}

std::optional<size_t> GraphSignature::loss_output() const {
  for (size_t i = 0; i < output_specs.size(); ++i) {
    if (output_specs[i].kind == OutputKind::LossOutput) return i;
  }
  return std::nullopt;
}

std::string GraphSignature::to_string() const {
  std::string text = "# inputs\n";
  for (const InputSpec& spec : input_specs) {
    text += spec_name(spec.arg) + ": " + aot::to_string(spec.kind);
    if (!spec.target.empty()) text += " target='" + spec.target + "'";
    if (spec.persistent.has_value()) text += std::string(" persistent=") + (*spec.persistent ? "True" : "False");
    text += "\n";
  }
  text += "\n# outputs\n";
  for (const OutputSpec& spec : output_specs) {
    text += spec_name(spec.arg) + ": " + aot::to_string(spec.kind);
    if (!spec.target.empty()) text += " target='" + spec.target + "'";
    text += "\n";
  }
  return text;
}

void GraphSignature::validate() const {
  // Views of the specs' own strings, which outlive these sets.
  std::unordered_set<std::string_view> input_names;
  std::unordered_set<std::string_view> buffer_targets;
  std::unordered_set<std::string_view> user_input_names;
  input_names.reserve(input_specs.size());
  for (size_t i = 0; i < input_specs.size(); ++i) {
    const InputSpec& spec = input_specs[i];
    const auto where = [&] {
      return "input spec " + std::to_string(i) + " ('" + spec_name(spec.arg) + "', " + aot::to_string(spec.kind) + ")";
    };
    if (spec.arg.names_node() && spec.arg.name.empty()) throw AotError(where() + " has no name");
    if (spec.arg.names_node() && !input_names.insert(spec.arg.name).second) {
      throw AotError(where() + " repeats the name of an earlier input");
    }
    const bool needs_target = spec.kind == InputKind::Parameter || spec.kind == InputKind::Buffer ||
                              spec.kind == InputKind::ConstantTensor || spec.kind == InputKind::CustomObj;
    if (needs_target && spec.target.empty()) throw AotError(where() + " has no target");
    if (!needs_target && !spec.target.empty()) throw AotError(where() + " must not have a target");
    if ((spec.kind == InputKind::Buffer) != spec.persistent.has_value()) {
      throw AotError(where() + (spec.kind == InputKind::Buffer ? " needs a persistent flag"
                                                              : " must not have a persistent flag"));
    }
    if (spec.kind == InputKind::Buffer) buffer_targets.insert(spec.target);
    if (spec.kind == InputKind::UserInput && spec.arg.names_node()) user_input_names.insert(spec.arg.name);
  }
  for (size_t i = 0; i < output_specs.size(); ++i) {
    const OutputSpec& spec = output_specs[i];
    const auto where = [&] {
      return "output spec " + std::to_string(i) + " ('" + spec_name(spec.arg) + "', " + aot::to_string(spec.kind) +
             ")";
    };
    switch (spec.kind) {
      case OutputKind::BufferMutation:
        if (!buffer_targets.count(spec.target)) {
          throw AotError(where() + " mutates '" + spec.target + "', which is not a buffer input");
        }
        break;
      case OutputKind::UserInputMutation:
        if (!user_input_names.count(spec.target)) {
          throw AotError(where() + " mutates '" + spec.target + "', which is not a user input");
        }
        break;
      case OutputKind::GradientToParameter:
      case OutputKind::GradientToUserInput:
        if (spec.target.empty()) throw AotError(where() + " has no target");
        break;
      default:
        break;
    }
  }
}

}  // namespace kiln::aot
