// scalar_to_tensor: a Python number passed where the schema takes a Tensor
// (`x * 2` as aten::mul.Tensor(x, 2)) becomes a lifted 0-dim constant tensor.
// PyTorch lets such a "wrapped number" join type promotion without widening
// the other operand; giving it the call's result dtype has the same effect for
// arithmetic, so that is its dtype unless the result is Bool (a comparison),
// where the literal's own kind decides. Equal numbers of one dtype share one
// constant; its placeholder goes before the user inputs, as torch lifts them.
// A symbolic int (a size known at run time) becomes aten::scalar_tensor of it.
#include <map>

#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/lowering.h"
#include "aot/passes/provenance.h"

namespace kiln::aot {
namespace {

bool is_number(const Argument& arg) { return arg.is_int() || arg.is_double() || arg.is_bool(); }

// A symbolic int computed at run time (sym_size, SymInt arithmetic).
bool is_symbolic_number(const Argument& arg) {
  return arg.is_node() && std::holds_alternative<SymExpr>(arg.node()->meta.val);
}

bool takes_tensor(const SchemaArgument& param) {
  return param.type.kind == SchemaType::Kind::Tensor && !param.type.is_list;
}

ScalarType wrapped_dtype(const Node& node, const Argument& number) {
  if (const auto* meta = std::get_if<TensorMeta>(&node.meta.val); meta != nullptr && meta->dtype != ScalarType::Bool) {
    return meta->dtype;
  }
  return number.is_double() ? ScalarType::Float : number.is_bool() ? ScalarType::Bool : ScalarType::Long;
}

template <typename T>
void fill(HostTensor& tensor, T value) {
  *tensor.data<T>() = value;
}

HostTensor wrapped_tensor(const Node& node, const Argument& number, ScalarType dtype) {
  HostTensor tensor = HostTensor::zeros(dtype, {});
  const double value = number.is_double() ? number.to_double()
                       : number.is_int()  ? static_cast<double>(number.to_int())
                                          : static_cast<double>(number.to_bool());
  switch (dtype) {
    case ScalarType::Float: fill(tensor, static_cast<float>(value)); break;
    case ScalarType::Double: fill(tensor, value); break;
    case ScalarType::Long: fill(tensor, number.is_int() ? number.to_int() : static_cast<int64_t>(value)); break;
    case ScalarType::Int: fill(tensor, static_cast<int32_t>(value)); break;
    case ScalarType::Short: fill(tensor, static_cast<int16_t>(value)); break;
    case ScalarType::Char: fill(tensor, static_cast<int8_t>(value)); break;
    case ScalarType::Byte: fill(tensor, static_cast<uint8_t>(value)); break;
    case ScalarType::Bool: fill(tensor, value != 0); break;
    default:
      throw AotError(passes::describe_node(node) + ": cannot pass the number " + to_string(number) + " as a " +
                     runtime::to_string(dtype) + " tensor");
  }
  return tensor;
}

class ScalarLifter {
 public:
  explicit ScalarLifter(ExportedProgram& program) : program_(program) {}

  // A 0-dim tensor of `dtype` holding the symbolic int `number` at run time,
  // made before `user` (aten::scalar_tensor; once per number and dtype).
  Node* tensor_of(Node& user, Node* number, ScalarType dtype) {
    auto [it, fresh] = made_.try_emplace({number, dtype}, nullptr);
    if (!fresh) return it->second;
    Graph& graph = program_.graph();
    Node* saved = graph.insert_point();
    graph.set_insert_point(&user);
    Node* tensor = graph.call_function("aten::scalar_tensor.default", {number}, {{"dtype", dtype}});
    graph.set_insert_point(saved);
    tensor->meta.val = TensorMeta(dtype, std::vector<int64_t>{});
    passes::copy_provenance(user, *tensor);
    it->second = tensor;
    return tensor;
  }

  // The placeholder of the constant tensor holding `number` as `dtype`.
  Node* constant_for(const Node& user, const Argument& number, ScalarType dtype) {
    const std::string key = std::string(runtime::to_string(dtype)) + ":" + to_string(number);
    if (auto it = lifted_.find(key); it != lifted_.end()) return it->second;
    const std::string target = unused_target();
    Node* placeholder = lift_constant(program_, "c_" + target, target, TensorMeta(dtype, std::vector<int64_t>{}),
                                      wrapped_tensor(user, number, dtype), user);
    lifted_[key] = placeholder;
    return placeholder;
  }

 private:
  // "lifted_tensor_0", "lifted_tensor_1", ...: torch's names for lifted constants.
  std::string unused_target() const {
    for (int n = 0;; ++n) {
      std::string name = "lifted_tensor_" + std::to_string(n);
      if (!program_.constants().count(name) && !program_.state_dict().count(name) &&
          program_.graph().find_node("c_" + name) == nullptr) {
        return name;
      }
    }
  }

  ExportedProgram& program_;
  std::map<std::string, Node*> lifted_;
  std::map<std::pair<Node*, ScalarType>, Node*> made_;
};

}  // namespace

Node* lift_constant(ExportedProgram& program, const std::string& name, const std::string& target, TensorMeta meta,
                    HostTensor value, const Node& source) {
  Graph& graph = program.graph();
  Node* placeholder = graph.placeholder(graph.unique_name(name), std::move(meta));
  passes::copy_provenance(source, *placeholder);
  auto& specs = program.graph_signature().input_specs;
  size_t index = 0;
  while (index < specs.size() && specs[index].kind != InputKind::UserInput) ++index;
  if (index < specs.size()) graph.move_before(placeholder, graph.placeholders().at(index));
  InputSpec spec;
  spec.kind = InputKind::ConstantTensor;
  spec.arg = ArgumentSpec::tensor(placeholder->name());
  spec.target = target;
  specs.insert(specs.begin() + static_cast<std::ptrdiff_t>(index), spec);
  program.constants()[target] = std::move(value);
  return placeholder;
}

bool scalar_to_tensor(ExportedProgram& program) {
  ScalarLifter lifter(program);
  bool changed = false;
  for (Node* node : program.graph().node_list()) {
    if (!node->is_call_function()) continue;
    const OpSchema* schema = find_op_schema(node->target());
    if (schema == nullptr) continue;
    ArgumentList args = node->args();
    KwargList kwargs = node->kwargs();
    bool rewritten = false;
    for (size_t i = 0; i < args.size() && i < schema->arguments.size(); ++i) {
      if (!takes_tensor(schema->arguments[i])) continue;
      if (is_symbolic_number(args[i])) {
        args[i] = lifter.tensor_of(*node, args[i].node(), wrapped_dtype(*node, Argument(int64_t{0})));
      } else if (is_number(args[i])) {
        args[i] = lifter.constant_for(*node, args[i], wrapped_dtype(*node, args[i]));
      } else {
        continue;
      }
      rewritten = true;
    }
    for (auto& [name, value] : kwargs) {
      const SchemaArgument* param = schema->find_argument(name);
      if (param == nullptr || !takes_tensor(*param)) continue;
      if (is_symbolic_number(value)) {
        value = lifter.tensor_of(*node, value.node(), wrapped_dtype(*node, Argument(int64_t{0})));
      } else if (is_number(value)) {
        value = lifter.constant_for(*node, value, wrapped_dtype(*node, value));
      } else {
        continue;
      }
      rewritten = true;
    }
    if (!rewritten) continue;
    node->set_args(std::move(args));
    node->set_kwargs(std::move(kwargs));
    changed = true;
  }
  return changed;
}

}  // namespace kiln::aot
