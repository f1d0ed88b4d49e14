#include "tests/golden/golden_cases.h"

#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "aot/import/npz.h"
#include "aot/ir/error.h"
#include "aot/ir/op_table/op_schema.h"
#include "kernels/portable/register.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::golden {

namespace {

using aot::AotError;
using aot::HostTensor;
using nlohmann::json;
using runtime::EValue;

// Out tensors start as this byte repeated: a float, a double or an integer of
// it is far from any expected value, and as a bool it is neither 0 nor 1, so
// an element the kernel does not write shows as a mismatch.
constexpr uint8_t kUnwrittenByte = 0x5A;
// Temporary memory a kernel may ask its context for.
constexpr size_t kTempBytes = 1 << 20;

std::string describe(ScalarType dtype, const std::vector<int64_t>& sizes) {
  std::string text = std::string(runtime::short_name(dtype)) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// A tensor with storage of its own, for one kernel call. The storage is
// exactly as large as the tensor, so that the sanitizers see a kernel that
// reads or writes past it.
struct OwnedTensor {
  std::vector<runtime::SizesType> sizes;
  std::vector<runtime::DimOrderType> dim_order;
  std::vector<runtime::StridesType> strides;
  std::unique_ptr<uint8_t[]> storage;  // operator new[]'s alignment suits every dtype
  size_t nbytes = 0;
  std::unique_ptr<runtime::TensorImpl> impl;

  uint8_t* bytes() { return storage.get(); }
};

// Owns everything the EValues of one call point into.
class CallFrame {
 public:
  EValue* add(EValue value) { return &values_.emplace_back(value); }

  OwnedTensor& tensor(ScalarType dtype, const std::vector<int64_t>& sizes, const std::string& where) {
    OwnedTensor& t = tensors_.emplace_back();
    size_t numel = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] < 0 || sizes[d] > std::numeric_limits<runtime::SizesType>::max()) {
        throw AotError(where + ": size " + std::to_string(sizes[d]) + " is out of range");
      }
      t.sizes.push_back(static_cast<runtime::SizesType>(sizes[d]));
      t.dim_order.push_back(static_cast<runtime::DimOrderType>(d));
      numel *= static_cast<size_t>(sizes[d]);
    }
    t.strides.resize(sizes.size());
    if (runtime::compute_strides({t.sizes.data(), t.sizes.size()}, {t.dim_order.data(), t.dim_order.size()},
                                 {t.strides.data(), t.strides.size()}) != runtime::Error::Ok) {
      throw AotError(where + ": cannot lay out " + describe(dtype, sizes));
    }
    t.nbytes = numel * runtime::element_size(dtype);
    t.storage = std::make_unique_for_overwrite<uint8_t[]>(t.nbytes);
    t.impl = std::make_unique<runtime::TensorImpl>(dtype, static_cast<ssize_t>(sizes.size()), t.sizes.data(),
                                                   t.storage.get(), t.dim_order.data(), t.strides.data());
    return t;
  }

  template <typename T>
  EValue list(const std::vector<EValue*>& items) {
    auto& wrapped = pointer_lists_.emplace_back(items);
    if constexpr (std::is_same_v<T, int64_t>) {
      auto& unwrapped = int_buffers_.emplace_back(items.size());
      return EValue(&int_lists_.emplace_back(wrapped.data(), unwrapped.data(), items.size()));
    } else if constexpr (std::is_same_v<T, runtime::Tensor>) {
      auto& unwrapped = tensor_buffers_.emplace_back(items.size());
      return EValue(&tensor_lists_.emplace_back(wrapped.data(), unwrapped.data(), items.size()));
    } else {
      auto& unwrapped = optional_buffers_.emplace_back(items.size());
      return EValue(&optional_lists_.emplace_back(wrapped.data(), unwrapped.data(), items.size()));
    }
  }

  EValue doubles(std::vector<double> values) {
    const auto& kept = double_buffers_.emplace_back(std::move(values));
    return EValue(runtime::Span<const double>(kept.data(), kept.size()));
  }

  EValue bools(const std::vector<bool>& values) {
    auto& kept = bool_buffers_.emplace_back(std::make_unique<bool[]>(values.size() + 1));
    for (size_t i = 0; i < values.size(); ++i) kept[i] = values[i];
    return EValue(runtime::Span<const bool>(kept.get(), values.size()));
  }

  EValue string(std::string text) {
    const std::string& kept = strings_.emplace_back(std::move(text));
    return EValue(kept.data(), kept.size());
  }

 private:
  std::deque<EValue> values_;
  std::deque<OwnedTensor> tensors_;
  std::deque<std::vector<EValue*>> pointer_lists_;
  std::deque<std::vector<int64_t>> int_buffers_;
  std::deque<std::vector<runtime::Tensor>> tensor_buffers_;
  std::deque<std::vector<std::optional<runtime::Tensor>>> optional_buffers_;
  std::deque<runtime::BoxedEvalueList<int64_t>> int_lists_;
  std::deque<runtime::BoxedEvalueList<runtime::Tensor>> tensor_lists_;
  std::deque<runtime::BoxedEvalueList<std::optional<runtime::Tensor>>> optional_lists_;
  std::deque<std::vector<double>> double_buffers_;
  std::deque<std::unique_ptr<bool[]>> bool_buffers_;
  std::deque<std::string> strings_;
};

// A float argument: a number, or "inf", "-inf", "nan".
double number(const json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  if (value == "inf") return std::numeric_limits<double>::infinity();
  if (value == "-inf") return -std::numeric_limits<double>::infinity();
  if (value == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw AotError(where + ": " + value.dump() + " is not a float");
}

// A stored tensor as `dtype`: bfloat16 is kept in the archive as its uint16 bits.
const HostTensor& stored(const GoldenSuite& suite, const std::string& key, ScalarType dtype, const std::string& where) {
  const auto it = suite.tensors.find(key);
  if (it == suite.tensors.end()) throw AotError(where + ": the archive has no tensor '" + key + "'");
  const ScalarType held = it->second.dtype();
  if (held != dtype && !(dtype == ScalarType::BFloat16 && held == ScalarType::UInt16)) {
    throw AotError(where + ": tensor '" + key + "' is " + runtime::to_string(held) + ", expected " +
                   runtime::to_string(dtype));
  }
  return it->second;
}

// What one call needs besides the EValues: the inputs to check afterwards and
// the outputs to compare.
struct Expected {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  const HostTensor* values;
  OwnedTensor* actual;
};
struct Input {
  std::string name;
  const HostTensor* original;
  OwnedTensor* copy;
};

class Boxer {
 public:
  Boxer(const GoldenSuite& suite, const GoldenCase& c, CallFrame& frame)
      : suite_(suite), where_(c.op + " " + c.id), frame_(frame) {}

  EValue argument(const json& arg) {
    const std::string name = arg.at("name");
    const std::string where = where_ + " argument '" + name + "'";
    if (arg.contains("none")) return EValue();
    if (arg.contains("tensor")) return EValue(input_tensor(arg, name));
    if (arg.contains("int")) return EValue(arg["int"].get<int64_t>());
    if (arg.contains("float")) return EValue(number(arg["float"], where));
    if (arg.contains("bool")) return EValue(arg["bool"].get<bool>());
    if (arg.contains("scalar_type")) return EValue(arg["scalar_type"].get<int64_t>());
    if (arg.contains("string")) return frame_.string(arg["string"].get<std::string>());
    if (arg.contains("int_list")) {
      std::vector<EValue*> items;
      for (const json& v : arg["int_list"]) items.push_back(frame_.add(EValue(v.get<int64_t>())));
      return frame_.list<int64_t>(items);
    }
    if (arg.contains("float_list")) {
      std::vector<double> values;
      for (const json& v : arg["float_list"]) values.push_back(number(v, where));
      return frame_.doubles(std::move(values));
    }
    if (arg.contains("bool_list")) return frame_.bools(arg["bool_list"].get<std::vector<bool>>());
    if (arg.contains("tensor_list") || arg.contains("optional_tensor_list")) {
      const bool optional = arg.contains("optional_tensor_list");
      std::vector<EValue*> items;
      for (const json& item : arg[optional ? "optional_tensor_list" : "tensor_list"]) {
        items.push_back(frame_.add(item.is_null() ? EValue() : EValue(input_tensor(item, name))));
      }
      return optional ? frame_.list<std::optional<runtime::Tensor>>(items) : frame_.list<runtime::Tensor>(items);
    }
    throw AotError(where + ": unknown kind of argument " + arg.dump());
  }

  EValue output(const json& out) {
    if (out.contains("list")) {
      std::vector<EValue*> items;
      for (const json& item : out["list"]) items.push_back(frame_.add(output(item)));
      return frame_.list<runtime::Tensor>(items);
    }
    const std::string name = out.at("name");
    const std::string where = where_ + " output '" + name + "'";
    const ScalarType dtype = scalar_type_named(out.at("dtype"));
    const auto shape = out.at("shape").get<std::vector<int64_t>>();
    const HostTensor& values = stored(suite_, out.at("expected"), dtype, where);
    if (values.sizes() != shape) throw AotError(where + ": the stored tensor is not " + describe(dtype, shape));
    OwnedTensor& actual = frame_.tensor(dtype, shape, where);
    std::memset(actual.bytes(), kUnwrittenByte, actual.nbytes);
    expected.push_back({name, dtype, shape, &values, &actual});
    return EValue(runtime::Tensor(actual.impl.get()));
  }

  std::vector<Expected> expected;
  std::vector<Input> inputs;

 private:
  runtime::Tensor input_tensor(const json& ref, const std::string& name) {
    const std::string key = ref.at("tensor");
    const std::string where = where_ + " argument '" + name + "'";
    const auto it = suite_.tensors.find(key);
    if (it == suite_.tensors.end()) throw AotError(where + ": the archive has no tensor '" + key + "'");
    const ScalarType dtype = ref.contains("dtype") ? scalar_type_named(ref["dtype"]) : it->second.dtype();
    const HostTensor& original = stored(suite_, key, dtype, where);
    OwnedTensor& copy = frame_.tensor(dtype, original.sizes(), where);
    if (original.nbytes() > 0) std::memcpy(copy.bytes(), original.data(), original.nbytes());
    inputs.push_back({name, &original, &copy});
    return runtime::Tensor(copy.impl.get());
  }

  const GoldenSuite& suite_;
  std::string where_;
  CallFrame& frame_;
};

std::string index_text(size_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = static_cast<int64_t>(flat % static_cast<size_t>(shape[d]));
    flat /= static_cast<size_t>(shape[d]);
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d) text += (d > 0 ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

double float_at(ScalarType dtype, const uint8_t* p) {
  switch (dtype) {
    case ScalarType::Float: { float v; std::memcpy(&v, p, sizeof v); return v; }
    case ScalarType::Double: { double v; std::memcpy(&v, p, sizeof v); return v; }
    case ScalarType::Half: { runtime::Half v; std::memcpy(&v.bits, p, 2); return static_cast<float>(v); }
    case ScalarType::BFloat16: { runtime::BFloat16 v; std::memcpy(&v.bits, p, 2); return static_cast<float>(v); }
    default: return 0.0;
  }
}

// The type of a complex dtype's two parts (real, imaginary); nullopt for
// every other dtype.
std::optional<ScalarType> complex_part(ScalarType dtype) {
  if (dtype == ScalarType::ComplexFloat) return ScalarType::Float;
  if (dtype == ScalarType::ComplexDouble) return ScalarType::Double;
  return std::nullopt;
}

// The element's value as text, for messages.
std::string element_text(ScalarType dtype, const uint8_t* p) {
  std::ostringstream text;
  text.precision(9);
  if (const auto part = complex_part(dtype)) {
    text << "(" << float_at(*part, p) << ", " << float_at(*part, p + runtime::element_size(*part)) << ")";
    return text.str();
  }
  if (runtime::is_floating_type(dtype)) {
    text << float_at(dtype, p);
    return text.str();
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, runtime::element_size(dtype));
  switch (dtype) {
    case ScalarType::Char: text << static_cast<int>(static_cast<int8_t>(bits)); break;
    case ScalarType::Short: text << static_cast<int16_t>(bits); break;
    case ScalarType::Int: text << static_cast<int32_t>(bits); break;
    case ScalarType::Long: text << static_cast<int64_t>(bits); break;
    case ScalarType::Bool: text << (bits == 0 ? "false" : bits == 1 ? "true" : "invalid bool " + std::to_string(bits)); break;
    default: text << bits; break;
  }
  return text.str();
}

// Floats within the tolerance (NaN where NaN, infinities equal), complex
// numbers part by part, everything else bit for bit.
bool element_matches(ScalarType dtype, const uint8_t* actual, const uint8_t* expected, double atol, double rtol) {
  if (const auto part = complex_part(dtype)) {
    const size_t size = runtime::element_size(*part);
    return element_matches(*part, actual, expected, atol, rtol) &&
           element_matches(*part, actual + size, expected + size, atol, rtol);
  }
  if (!runtime::is_floating_type(dtype)) return std::memcmp(actual, expected, runtime::element_size(dtype)) == 0;
  const double a = float_at(dtype, actual);
  const double e = float_at(dtype, expected);
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  if (std::isinf(e) || std::isinf(a)) return a == e;
  return std::fabs(a - e) <= atol + rtol * std::fabs(e);
}

// Mismatches of one output, at most a few of them spelled out.
std::string compare_output(const Expected& out, const runtime::Tensor& result, double atol, double rtol) {
  const auto sizes = result.sizes();
  const std::vector<int64_t> shape(sizes.begin(), sizes.end());
  if (result.scalar_type() != out.dtype || shape != out.shape) {
    return "'" + out.name + "' is " + describe(result.scalar_type(), shape) + ", expected " +
           describe(out.dtype, out.shape) + "\n";
  }
  const size_t element = runtime::element_size(out.dtype);
  const auto* actual = static_cast<const uint8_t*>(result.const_data_ptr());
  const auto* expected = static_cast<const uint8_t*>(out.values->data());
  std::string report;
  size_t mismatches = 0;
  for (size_t i = 0; i < static_cast<size_t>(result.numel()); ++i) {
    if (element_matches(out.dtype, actual + i * element, expected + i * element, atol, rtol)) continue;
    if (++mismatches <= 5) {
      report += "'" + out.name + "'" + index_text(i, out.shape) + " is " + element_text(out.dtype, actual + i * element) +
                ", expected " + element_text(out.dtype, expected + i * element) + "\n";
    }
  }
  if (mismatches > 5) report += "... " + std::to_string(mismatches) + " mismatching elements of '" + out.name + "' in all\n";
  return report;
}

// Checks the case's arguments against the op table's out-variant schema and
// boxes them in its order, outs included.
std::vector<EValue*> box_arguments(const GoldenCase& c, Boxer& boxer, CallFrame& frame) {
  const aot::OpSchema& schema = aot::get_op_schema(c.op);
  std::vector<EValue*> stack;
  size_t next_arg = 0;
  size_t next_out = 0;
  std::vector<EValue*> outs;
  for (const aot::SchemaArgument& param : schema.arguments) {
    const json& list = param.is_out ? c.outputs : c.args;
    size_t& next = param.is_out ? next_out : next_arg;
    if (next >= list.size() || list[next].at("name") != param.name) {
      throw AotError(c.op + " " + c.id + ": the case has no value for schema argument '" + param.name + "' here");
    }
    const json& value = list[next++];
    stack.push_back(frame.add(param.is_out ? boxer.output(value) : boxer.argument(value)));
    if (param.is_out) outs.push_back(stack.back());
  }
  if (next_arg != c.args.size() || next_out != c.outputs.size()) {
    throw AotError(c.op + " " + c.id + ": the case has more arguments than the schema");
  }
  // The return slot: the out tensor for single-output ops, as the executor passes it.
  stack.push_back(frame.add(outs.size() == 1 ? *outs[0] : EValue()));
  return stack;
}

}  // namespace

std::string GoldenCase::test_name() const {
  // aten ops by their bare name; other namespaces keep theirs
  // (quantized_decomposed::add.out is no aten::add.out).
  const bool aten = op.rfind("aten::", 0) == 0;
  std::string name = (aten ? op.substr(6) : op) + "__" + id;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

ScalarType scalar_type_named(const std::string& name) {
  for (int code = 0; code <= std::numeric_limits<int8_t>::max(); ++code) {
    const auto type = static_cast<ScalarType>(code);
    if (runtime::is_valid(type) && name == runtime::to_string(type)) return type;
  }
  throw AotError("unknown dtype '" + name + "'");
}

GoldenSuite load_golden_suite(const std::string& directory) {
  const std::string path = directory + "/manifest.json";
  std::ifstream file(path);
  if (!file.good()) throw AotError("cannot read " + path);
  json manifest;
  try {
    manifest = json::parse(file);
  } catch (const json::exception& error) {
    throw AotError(path + ": " + error.what());
  }
  GoldenSuite suite;
  try {
    suite.torch_version = manifest.at("torch_version");
    for (auto& [key, tensor] : aot::read_npz(directory + "/" + manifest.at("tensors").get<std::string>())) {
      suite.tensors.emplace(key, std::move(tensor));
    }
    for (const json& entry : manifest.at("cases")) {
      GoldenCase c;
      c.op = entry.at("op");
      c.id = entry.at("id");
      c.dtype = scalar_type_named(entry.at("dtype"));
      c.args = entry.at("args");
      c.outputs = entry.at("outputs");
      c.atol = entry.at("atol");
      c.rtol = entry.at("rtol");
      suite.cases.push_back(std::move(c));
    }
  } catch (const json::exception& error) {
    throw AotError(path + ": case " + std::to_string(suite.cases.size()) + ": " + error.what());
  }
  return suite;
}

CaseOutcome run_golden_case(const GoldenSuite& suite, const GoldenCase& c) {
  (void)portable::register_portable_kernels();
  const auto kernel = runtime::get_op_function_from_registry(c.op.c_str());
  if (!kernel.ok()) return {CaseOutcome::Status::NotRegistered, "no kernel is registered for " + c.op};

  CallFrame frame;
  Boxer boxer(suite, c, frame);
  std::vector<EValue*> stack = box_arguments(c, boxer, frame);
  std::vector<uint8_t> temp(kTempBytes);
  runtime::MemoryAllocator temp_allocator(static_cast<uint32_t>(temp.size()), temp.data());
  runtime::KernelRuntimeContext context(&temp_allocator);
  (*kernel)(context, {stack.data(), stack.size()});
  if (context.failure_state() != runtime::Error::Ok) {
    return {CaseOutcome::Status::KernelFailed,
            std::string(runtime::to_string(context.failure_state())) + ": " + context.failure_message()};
  }

  std::string report;
  for (const Input& input : boxer.inputs) {
    const size_t nbytes = input.original->nbytes();
    if (nbytes > 0 && std::memcmp(input.copy->bytes(), input.original->data(), nbytes) != 0) {
      report += "input '" + input.name + "' was written to\n";
    }
  }
  for (const Expected& out : boxer.expected) {
    report += compare_output(out, runtime::Tensor(out.actual->impl.get()), c.atol, c.rtol);
  }
  if (!report.empty()) return {CaseOutcome::Status::Mismatch, report};
  return {};
}

}  // namespace kiln::kernels::golden
