#include "aot/delegate/test/delegate_test_util.h"

#include "aot/delegate/debug_handle.h"
#include "aot/ir/op_table/op_schema.h"

namespace kiln::aot::testing {

namespace {

class OpListBackend : public BackendDetails {
 public:
  OpListBackend(std::string id, std::set<std::string> ops, bool every_other = false)
      : id_(std::move(id)), ops_(std::move(ops)), every_other_(every_other) {}

  std::string id() const override { return id_; }

  PreprocessResult preprocess(const ExportedProgram& program, const std::vector<CompileSpec>& specs) const override {
    for (const CompileSpec& spec : specs) {
      if (spec.key == "fail") throw AotError("asked to fail");
    }
    std::string text;
    DelegateMappingBuilder builder(true);
    for (const Node* node : program.graph()) {
      if (!node->is_call_function()) continue;
      text += node->target() + ";";
      if (node->meta.debug_handle) builder.insert_delegate_mapping_entry(node);
    }
    PreprocessResult result;
    result.processed_bytes.assign(text.begin(), text.end());
    result.debug_handle_map = builder.get_delegate_mapping();
    return result;
  }

  NodeSupport supports(const Node& node, const ExportedProgram& program) const override {
    if (every_other_) {
      size_t index = 0;
      for (const Node* other : program.graph()) {
        if (other == &node) break;
        if (other->is_call_function() && other->target() != "getitem") ++index;
      }
      return index % 2 == 0 ? NodeSupport::yes() : NodeSupport::no("odd op");
    }
    const OpSchema* schema = find_op_schema(node.target());
    if (ops_.empty() || (schema != nullptr && ops_.count(schema->qualified_name()))) return NodeSupport::yes();
    return NodeSupport::no(node.target() + " is not supported by " + id_);
  }

 private:
  std::string id_;
  std::set<std::string> ops_;
  bool every_other_;
};

const BackendRegistration all_ops(std::make_unique<OpListBackend>(kAllOps, std::set<std::string>{}));
const BackendRegistration sin_cos(std::make_unique<OpListBackend>(kSinCos, std::set<std::string>{"aten::sin.default",
                                                                                                  "aten::cos.default"}));
const BackendRegistration add_mul(std::make_unique<OpListBackend>(kAddMul, std::set<std::string>{"aten::add.Tensor",
                                                                                                  "aten::mul.Tensor"}));
const BackendRegistration every_other(std::make_unique<OpListBackend>(kEveryOther, std::set<std::string>{}, true));

}  // namespace

std::string blob_text(const LoweredBackendModule& module) {
  return std::string(module.processed_bytes().begin(), module.processed_bytes().end());
}

PartitionResult FunctionPartitioner::partition(const ExportedProgram& exported_program) const {
  PartitionResult result{copy_for_partitioning(exported_program), tags_, {}};
  tag_nodes_(result.tagged_exported_program);
  return result;
}

void tag_nodes(ExportedProgram& program, const std::set<std::string>& names, const std::string& tag) {
  for (const std::string& name : names) program.graph().node(name)->meta.delegation_tag = tag;
}

void tag_ops(ExportedProgram& program, const std::set<std::string>& ops, const std::string& tag) {
  for (Node* node : program.graph()) {
    const OpSchema* schema = node->is_call_function() ? find_op_schema(node->target()) : nullptr;
    if (schema != nullptr && ops.count(schema->qualified_name())) node->meta.delegation_tag = tag;
  }
}

std::vector<HostTensor> run(ExportedProgram& program, const std::vector<HostTensor>& inputs) {
  std::vector<PyTree> items;
  for (const HostTensor& input : inputs) items.push_back(PyTree::make_leaf(input));
  const PyTree result = call_program(program, PyTree::tuple(std::move(items)));
  std::vector<HostTensor> outputs;
  for (const Value& value : tree_flatten(result).first) outputs.push_back(std::get<HostTensor>(value));
  return outputs;
}

std::map<std::string, HostTensor> all_buffers(const ExportedProgram& program) {
  std::map<std::string, HostTensor> buffers;
  for (const auto& [target, tensor] : program.named_buffers()) buffers[target] = tensor;
  for (const auto& [name, attribute] : program.attributes()) {
    for (const auto& [target, tensor] : all_buffers(attribute->delegated_program())) buffers[target] = tensor;
  }
  return buffers;
}

namespace {

void expect_equal_tensors(const HostTensor& actual, const HostTensor& expected, const std::string& what) {
  ASSERT_EQ(actual.describe(), expected.describe()) << what;
  const auto a = actual.to_doubles();
  const auto e = expected.to_doubles();
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], e[i], 1e-5 * std::max(1.0, std::fabs(e[i]))) << what << " element " << i;
  }
}

std::vector<HostTensor> clones(const std::vector<HostTensor>& tensors) {
  std::vector<HostTensor> result;
  for (const HostTensor& t : tensors) result.push_back(t.clone());
  return result;
}

}  // namespace

void expect_same_behaviour(ExportedProgram& original, ExportedProgram& lowered, const std::vector<HostTensor>& inputs,
                           int calls) {
  for (int call = 0; call < calls; ++call) {
    const std::string where = "call " + std::to_string(call);
    std::vector<HostTensor> original_inputs = clones(inputs);
    std::vector<HostTensor> lowered_inputs = clones(inputs);
    const auto expected = run(original, original_inputs);
    const auto actual = run(lowered, lowered_inputs);
    ASSERT_EQ(actual.size(), expected.size()) << where;
    for (size_t i = 0; i < actual.size(); ++i) expect_equal_tensors(actual[i], expected[i], where + " output " + std::to_string(i));
    for (size_t i = 0; i < inputs.size(); ++i) {
      expect_equal_tensors(lowered_inputs[i], original_inputs[i], where + " input " + std::to_string(i));
    }
    const auto expected_buffers = all_buffers(original);
    const auto actual_buffers = all_buffers(lowered);
    ASSERT_EQ(actual_buffers.size(), expected_buffers.size()) << where;
    for (const auto& [target, tensor] : expected_buffers) {
      ASSERT_TRUE(actual_buffers.count(target)) << where << ": buffer " << target << " is lost";
      expect_equal_tensors(actual_buffers.at(target), tensor, where + " buffer " + target);
    }
  }
}

std::vector<std::string> node_names(const ExportedProgram& program) {
  std::vector<std::string> names;
  for (const Node* node : program.graph()) names.push_back(node->name());
  return names;
}

std::vector<std::string> call_targets(const ExportedProgram& program) {
  std::vector<std::string> targets;
  for (const Node* node : program.graph()) {
    if (node->is_call_function()) targets.push_back(node->target());
  }
  return targets;
}

HostTensor ramp(const std::vector<int64_t>& sizes, float start, float step) {
  HostTensor t = HostTensor::zeros(runtime::ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i);
  return t;
}

std::vector<std::vector<std::string>> names_of(const std::vector<std::vector<Node*>>& groups) {
  std::vector<std::vector<std::string>> names;
  for (const auto& group : groups) {
    auto& item = names.emplace_back();
    for (const Node* node : group) item.push_back(node->name());
  }
  return names;
}

std::vector<std::string> linked_backends(std::initializer_list<const char*> ids) {
  std::vector<std::string> linked;
  for (const char* id : ids) {
    if (find_backend(id) != nullptr) linked.emplace_back(id);
  }
  return linked;
}

}  // namespace kiln::aot::testing
