#include "backends/demo/aot/demo_backend.h"

#include <cstring>
#include <map>

#include "aot/delegate/debug_handle.h"
#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/ir/op_table/schema_binding.h"
#include "backends/demo/demo_blob.h"

namespace kiln::backends::demo {

using aot::AotError;
using aot::Argument;
using aot::Node;
using aot::NodeSupport;
using aot::TensorMeta;

namespace {

struct OpEntry {
  OpCode tensor_op;  // with a tensor `other` (or the unary op)
  OpCode scalar_op;  // with a number `other`; unused for unary ops
  bool binary;
  bool has_alpha;
};

const std::map<std::string, OpEntry>& op_table() {
  static const std::map<std::string, OpEntry> table = {
      {"aten::sin.default", {OpCode::kSin, OpCode::kSin, false, false}},
      {"aten::cos.default", {OpCode::kCos, OpCode::kCos, false, false}},
      {"aten::tan.default", {OpCode::kTan, OpCode::kTan, false, false}},
      {"aten::neg.default", {OpCode::kNeg, OpCode::kNeg, false, false}},
      {"aten::exp.default", {OpCode::kExp, OpCode::kExp, false, false}},
      {"aten::relu.default", {OpCode::kRelu, OpCode::kRelu, false, false}},
      {"aten::abs.default", {OpCode::kAbs, OpCode::kAbs, false, false}},
      {"aten::sigmoid.default", {OpCode::kSigmoid, OpCode::kSigmoid, false, false}},
      {"aten::tanh.default", {OpCode::kTanh, OpCode::kTanh, false, false}},
      {"aten::add.Tensor", {OpCode::kAdd, OpCode::kAddScalar, true, true}},
      {"aten::sub.Tensor", {OpCode::kSub, OpCode::kSubScalar, true, true}},
      {"aten::mul.Tensor", {OpCode::kMul, OpCode::kMulScalar, true, false}},
      {"aten::div.Tensor", {OpCode::kDiv, OpCode::kDivScalar, true, false}},
  };
  return table;
}

const OpEntry* find_entry(const Node& node) {
  const aot::OpSchema* schema = aot::find_op_schema(node.target());
  if (schema == nullptr) return nullptr;
  auto it = op_table().find(schema->qualified_name());
  return it == op_table().end() ? nullptr : &it->second;
}

bool is_number(const Argument& arg) { return arg.is_int() || arg.is_double(); }
float number(const Argument& arg) {
  return static_cast<float>(arg.is_int() ? static_cast<double>(arg.to_int()) : arg.to_double());
}

// A static float32 tensor meta, or why not.
std::string check_tensor(const aot::ValueMeta& val, const std::string& what) {
  const auto* meta = std::get_if<TensorMeta>(&val);
  if (meta == nullptr) return what + " is not a tensor";
  if (meta->dtype != aot::ScalarType::Float) return what + " is " + meta->to_string() + "; DemoBackend runs float32 only";
  if (!meta->is_static()) return what + " is " + meta->to_string() + "; DemoBackend needs static sizes";
  // Its runtime runs over memory, element i of every operand at offset i.
  const std::vector<uint8_t> order = meta->resolved_dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) {
      return what + " is " + meta->to_string() + " in a permuted dim order; DemoBackend needs contiguous tensors";
    }
  }
  return "";
}

// Why `node` cannot run on DemoBackend, or "" if it can.
std::string unsupported_reason(const Node& node) {
  const OpEntry* entry = find_entry(node);
  if (entry == nullptr) return node.target() + " is not an elementwise op DemoBackend has";
  if (std::string why = check_tensor(node.meta.val, "its result"); !why.empty()) return why;
  const auto& out = std::get<TensorMeta>(node.meta.val);
  const std::vector<Argument> args = aot::bind_node_arguments(node);
  const size_t operands = entry->binary ? 2 : 1;
  for (size_t i = 0; i < operands; ++i) {
    if (!args.at(i).is_node()) {
      if (i == 1 && is_number(args[i])) continue;
      return "operand " + std::to_string(i) + " (" + aot::to_string(args[i]) + ") is not a tensor or a number";
    }
    const Node* input = args[i].node();
    if (std::string why = check_tensor(input->meta.val, "'" + input->name() + "'"); !why.empty()) return why;
    const auto& meta = std::get<TensorMeta>(input->meta.val);
    if (meta.static_sizes() != out.static_sizes()) {
      return "'" + input->name() + "' is " + meta.to_string() + " but the result is " + out.to_string() +
             "; DemoBackend does not broadcast";
    }
  }
  if (entry->has_alpha && !is_number(args.at(2))) return "alpha is not a number";
  return "";
}

class BlobWriter {
 public:
  void u32(uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes_.push_back(static_cast<uint8_t>(v >> (8 * k)));
  }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    u32(bits);
  }
  void text(const std::string& s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    while (bytes_.size() % 4 != 0) bytes_.push_back(0);
  }
  /// The bytes, with the u32 at `at` set to the checksum of those after it.
  std::vector<uint8_t> take_with_checksum_at(size_t at) {
    const uint32_t sum = DemoProgram::checksum(bytes_.data() + at + 4, bytes_.size() - at - 4);
    for (int k = 0; k < 4; ++k) bytes_[at + static_cast<size_t>(k)] = static_cast<uint8_t>(sum >> (8 * k));
    return std::move(bytes_);
  }

 private:
  std::vector<uint8_t> bytes_;
};

struct Encoded {
  std::vector<uint32_t> numels;
  uint32_t num_inputs = 0;
  std::vector<std::pair<uint32_t, std::string>> constants;
  std::vector<Instruction> instructions;
  std::vector<uint32_t> outputs;
};

// The layout demo_blob.h describes.
std::vector<uint8_t> encode(const Encoded& blob) {
  BlobWriter writer;
  writer.text(std::string(kMagic, 4));
  writer.u32(kVersion);
  writer.u32(0);  // the checksum, once the rest is written
  for (size_t count : {blob.numels.size(), static_cast<size_t>(blob.num_inputs), blob.constants.size(),
                       blob.instructions.size(), blob.outputs.size()}) {
    writer.u32(static_cast<uint32_t>(count));
  }
  for (uint32_t numel : blob.numels) writer.u32(numel);
  for (const auto& [value, key] : blob.constants) {
    writer.u32(value);
    writer.u32(static_cast<uint32_t>(key.size()));
    writer.text(key);
  }
  for (const Instruction& in : blob.instructions) {
    writer.u32(static_cast<uint32_t>(in.op));
    writer.u32(in.out);
    writer.u32(in.a);
    writer.u32(in.b);
    writer.f32(in.scalar);
    writer.u32(static_cast<uint32_t>(in.debug_id));
  }
  for (uint32_t output : blob.outputs) writer.u32(output);
  return writer.take_with_checksum_at(8);
}

// One instruction for `node`, reading the values `value_of` gives its inputs.
Instruction instruction_for(const Node& node, const std::map<const Node*, uint32_t>& value_of) {
  const OpEntry& entry = *find_entry(node);
  const std::vector<Argument> args = aot::bind_node_arguments(node);
  Instruction in{entry.tensor_op, 0, value_of.at(args[0].node()), kNoValue, 1.0f, -1};
  if (entry.binary && args[1].is_node()) {
    in.b = value_of.at(args[1].node());
    if (entry.has_alpha) in.scalar = number(args[2]);
  } else if (entry.binary) {
    in.op = entry.scalar_op;
    in.scalar = number(args[1]) * (entry.has_alpha ? number(args[2]) : 1.0f);
  }
  return in;
}

}  // namespace

std::vector<std::string> DemoBackend::supported_ops() const {
  std::vector<std::string> ops;
  for (const auto& entry : op_table()) ops.push_back(entry.first);
  return ops;
}

NodeSupport DemoBackend::supports(const Node& node, const aot::ExportedProgram&) const {
  std::string why = unsupported_reason(node);
  return why.empty() ? NodeSupport::yes() : NodeSupport::no(std::move(why));
}

aot::PreprocessResult DemoBackend::preprocess(const aot::ExportedProgram& edge_program,
                                              const std::vector<aot::CompileSpec>&) const {
  const aot::GraphSignature& signature = edge_program.graph_signature();
  for (const aot::OutputSpec& spec : signature.output_specs) {
    if (spec.kind == aot::OutputKind::BufferMutation) {
      throw AotError("DemoBackend keeps no state, but the program mutates buffer '" + spec.target + "'");
    }
  }
  aot::PreprocessResult result;
  aot::NamedDataStore named_data;
  aot::DelegateMappingBuilder builder(/*generated_identifiers=*/true);
  Encoded blob;
  std::map<const Node*, uint32_t> value_of;
  auto add_value = [&](const Node* node) {
    value_of[node] = static_cast<uint32_t>(blob.numels.size());
    int64_t numel = 1;
    for (int64_t size : std::get<TensorMeta>(node->meta.val).static_sizes()) numel *= size;
    blob.numels.push_back(static_cast<uint32_t>(numel));
  };
  const auto placeholders = edge_program.graph().placeholders();
  // Inputs first, then constants: the order demo_blob.h lays values out in.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < placeholders.size(); ++i) {
      const aot::InputSpec& spec = signature.input_specs[i];
      if ((spec.kind == aot::InputKind::UserInput) != (pass == 0)) continue;
      const Node* node = placeholders[i];
      if (std::string why = check_tensor(node->meta.val, "input '" + node->name() + "'"); !why.empty()) {
        throw AotError("DemoBackend: " + why);
      }
      add_value(node);
      if (pass == 0) {
        ++blob.num_inputs;
        continue;
      }
      const aot::HostTensor* tensor = edge_program.find_lifted_tensor(spec);
      if (tensor == nullptr) throw AotError("DemoBackend: input '" + node->name() + "' has no tensor");
      const aot::HostTensor dense = tensor->clone();
      const auto* bytes = static_cast<const uint8_t*>(dense.data());
      named_data.add_named_data(spec.target, std::vector<uint8_t>(bytes, bytes + dense.nbytes()), 16);
      blob.constants.emplace_back(value_of[node], spec.target);
    }
  }
  for (const Node* node : edge_program.graph()) {
    if (!node->is_call_function()) continue;
    if (std::string why = unsupported_reason(*node); !why.empty()) {
      throw AotError("DemoBackend cannot run node '" + node->name() + "' (" + node->target() + "): " + why);
    }
    Instruction in = instruction_for(*node, value_of);
    if (node->meta.debug_handle) {
      in.debug_id = static_cast<int32_t>(std::get<int64_t>(builder.insert_delegate_mapping_entry(node)));
    }
    add_value(node);
    in.out = value_of.at(node);
    blob.instructions.push_back(in);
  }
  for (const Argument& value : edge_program.graph().output_node()->args().at(0).list()) {
    if (!value.is_node() || !value_of.count(value.node())) {
      throw AotError("DemoBackend: the program returns " + aot::to_string(value) + ", which is no tensor it computes");
    }
    blob.outputs.push_back(value_of.at(value.node()));
  }

  result.processed_bytes = encode(blob);
  result.debug_handle_map = builder.get_delegate_mapping();
  result.data_store_output = named_data.get_named_data_store_output();
  return result;
}

std::vector<aot::HostTensor> run_demo_blob(const std::vector<uint8_t>& blob, const aot::NamedDataStoreOutput& named_data,
                                           const std::vector<aot::HostTensor>& inputs) {
  DemoProgram program;
  const char* error = nullptr;
  if (!DemoProgram::parse(blob.data(), blob.size(), &program, &error)) throw AotError(error);
  if (inputs.size() != program.num_inputs()) {
    throw AotError("the demo blob takes " + std::to_string(program.num_inputs()) + " inputs, got " +
                   std::to_string(inputs.size()));
  }
  std::vector<aot::HostTensor> values;
  for (uint32_t v = 0; v < program.num_values(); ++v) {
    values.push_back(aot::HostTensor::zeros(aot::ScalarType::Float, {static_cast<int64_t>(program.numel(v))}));
  }
  auto fill = [&](uint32_t v, const void* data, size_t nbytes, const std::string& what) {
    if (nbytes != values[v].nbytes()) {
      throw AotError(what + " has " + std::to_string(nbytes) + " bytes; the blob expects " +
                     std::to_string(values[v].nbytes()));
    }
    std::memcpy(values[v].data(), data, nbytes);
  };
  for (uint32_t i = 0; i < program.num_inputs(); ++i) {
    if (inputs[i].dtype() != aot::ScalarType::Float) throw AotError("demo blob input " + std::to_string(i) + " is not float32");
    const aot::HostTensor dense = inputs[i].clone();
    fill(i, dense.data(), dense.nbytes(), "input " + std::to_string(i));
  }
  for (uint32_t i = 0; i < program.num_constants(); ++i) {
    const ConstantRef ref = program.constant(i);
    const std::string key(ref.key, ref.key_length);
    const std::vector<uint8_t>& data = named_data.get(key);
    fill(ref.value, data.data(), data.size(), "named data '" + key + "'");
  }
  std::vector<float*> pointers;
  for (aot::HostTensor& value : values) pointers.push_back(value.data<float>());
  execute(program, pointers.data());
  std::vector<aot::HostTensor> outputs;
  for (uint32_t i = 0; i < program.num_outputs(); ++i) outputs.push_back(values[program.output(i)].clone());
  return outputs;
}

namespace {
const aot::BackendRegistration demo_backend_registration(std::make_unique<DemoBackend>());
}  // namespace

}  // namespace kiln::backends::demo
