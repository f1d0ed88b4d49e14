#include "llm/language_model.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "runtime/core/scalar_type.h"
#include "runtime/executor/method.h"
#include "runtime/module/module.h"

namespace kiln::llm {
namespace {

using runtime::EValue;
using runtime::Error;
using runtime::ScalarType;

std::string describe(const EValue& value) {
  auto list = [](auto values) {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
    return text + "]";
  };
  if (value.isInt()) return std::to_string(value.toInt());
  if (value.isBool()) return value.toBool() ? "true" : "false";
  if (value.isDouble()) return std::to_string(value.toDouble());
  if (value.isString()) return '"' + std::string(value.toString().data(), value.toString().size()) + '"';
  if (value.isIntList()) return list(value.toIntList());
  return std::string("a ") + runtime::to_string(value.tag());
}

void fail(const std::string& what, Error error) {
  throw LlmError(what + ": " + runtime::to_string(error));
}

}  // namespace

LanguageModel::LanguageModel(const std::string& path) : module_(std::make_unique<runtime::Module>(path)) {
  const auto start = std::chrono::steady_clock::now();
  if (Error error = module_->load(); error != Error::Ok) fail("cannot load " + path, error);
  auto meta = module_->method_meta("forward");
  if (!meta.ok()) fail(path + " has no method 'forward'", meta.error());

  // forward(input_ids [1, seq], cache_position [seq]) -> logits.
  const auto expect = [&](bool holds, const std::string& what) {
    if (!holds) {
      throw LlmError(path + ": method 'forward' is not a language model's (token ids [1, seq], cache positions [seq]) "
                     "-> logits: " + what);
    }
  };
  expect(meta->num_inputs() == 2, "it takes " + std::to_string(meta->num_inputs()) + " inputs");
  auto ids = meta->input_tensor_meta(0);
  auto positions = meta->input_tensor_meta(1);
  expect(ids.ok() && positions.ok(), "its inputs are not tensors");
  expect(runtime::is_integral_type(ids->scalar_type(), false) && ids->sizes().size() == 2 && ids->sizes()[0] == 1,
         std::string("input 0 is ") + runtime::to_string(ids->scalar_type()) + " of rank " +
             std::to_string(ids->sizes().size()) + ", not integer token ids [1, seq]");
  expect(ids->scalar_type() == ScalarType::Long && positions->scalar_type() == ScalarType::Long &&
             positions->sizes().size() == 1 && positions->sizes()[0] == ids->sizes()[1],
         "input 1 is not int64 cache positions [seq] with seq as input 0's");
  expect(meta->num_outputs() >= 1, "it has no output");
  auto logits = meta->output_tensor_meta(0);
  expect(logits.ok() && logits->scalar_type() == ScalarType::Float, "output 0 is not float32 logits");
  info_.max_tokens_per_call = ids->sizes()[1];
  if (Error error = module_->load_method("forward"); error != Error::Ok) fail("cannot load method 'forward'", error);
  read_constant_methods();
  if (!info_.vocab_size) info_.vocab_size = logits->sizes()[logits->sizes().size() - 1];
  load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

LanguageModel::~LanguageModel() = default;
LanguageModel::LanguageModel(LanguageModel&&) noexcept = default;

// Constant methods: no inputs, their values as outputs; a list is one output
// per item, as ExecuTorch's emitter writes it (get_eos_ids [2, 7]: two Ints).
void LanguageModel::read_constant_methods() {
  auto names = module_->method_names();
  if (!names.ok()) fail("cannot list the methods", names.error());
  for (const std::string& name : *names) {
    if (name == "forward") continue;
    auto meta = module_->method_meta(name);
    if (!meta.ok() || meta->num_inputs() != 0) continue;
    auto values = module_->constant_values(name);
    if (!values.ok()) fail("constant method '" + name + "'", values.error());
    std::string text;
    std::vector<int64_t> ints;
    for (const EValue& value : *values) {
      text += (text.empty() ? "" : ", ") + describe(value);
      if (value.isInt()) ints.push_back(value.toInt());
    }
    const bool all_ints = !values->empty() && ints.size() == values->size();
    info_.constant_methods.emplace_back(name, values->size() == 1 ? text : "[" + text + "]");
    if (name == "get_bos_id" && all_ints && ints.size() == 1) {
      info_.bos_id = ints[0];
    } else if ((name == "get_eos_ids" || name == "get_eos_id") && all_ints) {
      info_.eos_ids = ints;
    } else if ((name == "get_max_seq_len" || name == "get_max_context_len") && all_ints && ints.size() == 1) {
      info_.max_context = info_.max_context ? std::min(*info_.max_context, ints[0]) : ints[0];
    } else if (name == "get_vocab_size" && all_ints && ints.size() == 1) {
      info_.vocab_size = ints[0];
    }
  }
}

void LanguageModel::set_event_tracer(runtime::EventTracer* tracer) {
  if (runtime::Method* method = module_->method("forward")) method->set_event_tracer(tracer);
}

std::span<const float> LanguageModel::forward(std::span<const int64_t> ids, int64_t start) {
  if (ids.empty()) throw LlmError("no tokens to run");
  std::span<const float> logits;
  for (size_t done = 0; done < ids.size();) {
    const size_t count = std::min(ids.size() - done, static_cast<size_t>(info_.max_tokens_per_call));
    logits = call(ids.subspan(done, count), start + static_cast<int64_t>(done));
    done += count;
  }
  return logits;
}

std::span<const float> LanguageModel::call(std::span<const int64_t> ids, int64_t start) {
  positions_.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) positions_[i] = start + static_cast<int64_t>(i);
  runtime::SizesType id_sizes[2] = {1, static_cast<runtime::SizesType>(ids.size())};
  runtime::SizesType position_sizes[1] = {static_cast<runtime::SizesType>(ids.size())};
  runtime::DimOrderType order[2] = {0, 1};
  runtime::StridesType id_strides[2] = {static_cast<runtime::StridesType>(ids.size()), 1};
  runtime::StridesType position_strides[1] = {1};
  runtime::TensorImpl id_impl(ScalarType::Long, 2, id_sizes, const_cast<int64_t*>(ids.data()), order, id_strides);
  runtime::TensorImpl position_impl(ScalarType::Long, 1, position_sizes, positions_.data(), order, position_strides);
  auto outputs = module_->execute("forward", {EValue(runtime::Tensor(&id_impl)), EValue(runtime::Tensor(&position_impl))});
  if (!outputs.ok()) {
    fail("forward at positions " + std::to_string(start) + ".." + std::to_string(start + static_cast<int64_t>(ids.size()) - 1),
         outputs.error());
  }
  const runtime::Tensor logits = outputs->at(0).toTensor();
  const int64_t vocab = logits.size(-1);
  const float* data = logits.const_data_ptr<float>();
  return {data + logits.numel() - vocab, static_cast<size_t>(vocab)};
}

}  // namespace kiln::llm
