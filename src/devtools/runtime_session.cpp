#include "devtools/runtime_session.h"

#include <utility>

#include "aot/import/npz.h"
#include "aot/ir/error.h"
#include "devtools/trace_recorder.h"
#include "runtime/module/logged_errors.h"

namespace kiln::devtools {

namespace {

using runtime::Error;
using runtime::LoggedErrors;
using runtime::Tag;

/// Throws AotError "<what>: <Error name>: <the runtime's last log line>",
/// followed by the lines it logged before that one, one per line.
[[noreturn]] void fail(const std::string& what, Error error) { throw aot::AotError(LoggedErrors::message(what, error)); }

/// Throws AotError with the lines logged alone: the checks of inputs log
/// lines that say everything ("input 0 must be f32 ...").
void check_logged(Error error) {
  if (error != Error::Ok) fail("", error);
}

template <typename T>
T value_or_fail(runtime::Result<T> result, const std::string& what) {
  if (!result.ok()) fail(what, result.error());
  return std::move(result.get());
}

/// A 1-d host tensor of a list's items.
template <typename T>
aot::HostTensor list_tensor(runtime::Span<const T> items) {
  return aot::HostTensor::from_vector<T>({static_cast<int64_t>(items.size())},
                                         std::vector<T>(items.begin(), items.end()));
}

/// A contiguous host copy of a runtime value: a tensor, a prim or a string as
/// itself, a list of ints, doubles or bools as a 1-d tensor.
aot::Value to_host(const runtime::EValue& value) {
  switch (value.tag()) {
    case Tag::Tensor: return devtools::host_copy(value.toTensor());
    case Tag::Int: return value.toInt();
    case Tag::Double: return value.toDouble();
    case Tag::Bool: return value.toBool();
    case Tag::String: {
      const auto text = value.toString();
      return std::string(text.data(), text.size());
    }
    case Tag::ListInt: return list_tensor(value.toIntList());
    case Tag::ListDouble: return list_tensor(value.toDoubleList());
    case Tag::ListBool: return list_tensor(value.toBoolList());
    case Tag::None: return aot::None{};
    default: return std::string("<") + runtime::to_string(value.tag()) + ">";
  }
}

}  // namespace

aot::HostTensor ones(runtime::ScalarType dtype, const std::vector<int64_t>& sizes) {
  return aot::to_host_tensor(runtime::ones_array(dtype, sizes));
}

void check_input(size_t index, const runtime::TensorInfo& info, runtime::ScalarType dtype,
                 const std::vector<int64_t>& sizes, const std::string& given) {
  LoggedErrors capture;
  check_logged(runtime::check_input(index, info, dtype, {sizes.data(), sizes.size()}, given));
}

// ---------------------------------------------------------------- LoadedProgram

LoadedProgram::LoadedProgram(std::shared_ptr<const runtime::LoadedProgram> loaded) : loaded_(std::move(loaded)) {}

std::shared_ptr<LoadedProgram> LoadedProgram::from_file(const std::string& path) {
  LoggedErrors capture;
  return std::make_shared<LoadedProgram>(
      value_or_fail(runtime::LoadedProgram::from_file(path), "'" + path + "' is not a program Kiln can load"));
}

std::shared_ptr<LoadedProgram> LoadedProgram::from_bytes(const void* data, size_t size,
                                                         std::shared_ptr<const void> owner, const std::string& label) {
  LoggedErrors capture;
  return std::make_shared<LoadedProgram>(value_or_fail(
      runtime::LoadedProgram::from_bytes(data, size, std::move(owner), label),
      "'" + label + "' is not a program Kiln can load"));
}

std::vector<std::string> LoadedProgram::method_names() const {
  LoggedErrors capture;
  return value_or_fail(loaded_->method_names(), "the methods of " + label());
}

std::string LoadedProgram::resolve_method(const std::string& requested) const {
  LoggedErrors capture;
  runtime::Result<std::string> name = loaded_->resolve_method(requested);
  if (!name.ok()) check_logged(name.error());
  return std::move(name.get());
}

runtime::MethodMeta LoadedProgram::method_meta(const std::string& method) const {
  const std::string name = resolve_method(method);
  LoggedErrors capture;
  return value_or_fail(loaded_->method_meta(name), "method '" + name + "'");
}

// ---------------------------------------------------------------- RuntimeSession

RuntimeSession::RuntimeSession(std::shared_ptr<const LoadedProgram> program, const std::string& method)
    : program_(std::move(program)) {
  const std::string name = program_->resolve_method(method);
  LoggedErrors capture;
  session_ = value_or_fail(runtime::MethodSession::load(program_->loaded(), name), "cannot load method '" + name + "'");
}

RuntimeSession::~RuntimeSession() = default;

std::unique_ptr<RuntimeSession> RuntimeSession::from_file(const std::string& path, const std::string& method) {
  return std::make_unique<RuntimeSession>(LoadedProgram::from_file(path), method);
}

std::unique_ptr<RuntimeSession> RuntimeSession::from_bytes(const void* data, size_t size, const std::string& label) {
  return std::make_unique<RuntimeSession>(LoadedProgram::from_bytes(data, size, nullptr, label));
}

void RuntimeSession::set_inputs_from(const std::string& inputs_path) {
  LoggedErrors capture;
  check_logged(inputs_path.empty() ? session_->set_ones() : session_->set_inputs_from_npz(inputs_path));
}

void RuntimeSession::set_inputs(std::vector<aot::HostTensor> tensors) {
  std::vector<runtime::NpyArray> arrays;
  for (const aot::HostTensor& tensor : tensors) arrays.push_back(aot::to_array(tensor));
  LoggedErrors capture;
  check_logged(session_->set_inputs(std::move(arrays)));
}

void RuntimeSession::set_input_values(std::vector<runtime::EValue> values) {
  LoggedErrors capture;
  check_logged(session_->set_input_values(std::move(values)));
}

double RuntimeSession::execute() {
  LoggedErrors capture;
  ++calls_;
  return value_or_fail(session_->execute(), "execute (call " + std::to_string(calls_) + ")");
}

std::vector<aot::Value> RuntimeSession::outputs() const {
  std::vector<aot::Value> outputs;
  const runtime::Method& method = session_->method();
  for (size_t i = 0; i < method.outputs_size(); ++i) outputs.push_back(to_host(method.get_output(i)));
  return outputs;
}

}  // namespace kiln::devtools
