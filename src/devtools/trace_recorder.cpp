#include "devtools/trace_recorder.h"
#include "devtools/json_fields.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "aot/ir/error.h"

namespace kiln::devtools {

aot::HostTensor host_copy(const runtime::Tensor& tensor) {
  auto storage = aot::Storage::allocate(tensor.nbytes());
  if (tensor.nbytes() != 0) std::memcpy(storage->data, tensor.const_data_ptr(), tensor.nbytes());
  std::vector<int64_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
  std::vector<int64_t> strides(tensor.strides().begin(), tensor.strides().end());
  return aot::HostTensor(tensor.scalar_type(), sizes, strides, 0, storage).clone();
}

void TraceRecorder::log_instruction(const runtime::InstructionEvent& event) {
  Instruction& logged = instructions_.emplace_back(
      Instruction{run_, event.chain, event.instruction, event.name, event.delegate, event.start_ns, event.end_ns, {}});
  if (!keep_outputs_ || event.output == nullptr) return;
  if (event.output->isTensor()) {
    logged.output = host_copy(event.output->toTensor());
  } else if (event.output->isTensorList() && !event.output->toTensorList().empty()) {
    logged.output = host_copy(event.output->toTensorList()[0]);
  }
}

void TraceRecorder::log_delegate_event(const runtime::DelegateEvent& event) {
  const std::string id = event.debug_name != nullptr ? std::string(event.debug_name) : std::to_string(event.debug_id);
  DelegateEvent& logged = delegate_events_.emplace_back(
      DelegateEvent{run_, event.chain, event.instruction, event.delegate, id, event.start_ns, event.end_ns, {}});
  if (keep_outputs_ && event.output != nullptr) logged.output = host_copy(*event.output);
}

namespace {

nlohmann::json complete_event(const std::string& name, int64_t track, uint64_t start_ns, uint64_t end_ns,
                              uint64_t origin_ns, nlohmann::json args) {
  return {{"name", name},
          {"ph", "X"},
          {"pid", 1},
          {"tid", track},
          {"ts", static_cast<double>(start_ns - origin_ns) / 1000.0},
          {"dur", static_cast<double>(end_ns - start_ns) / 1000.0},
          {"args", std::move(args)}};
}

nlohmann::json track_name(int64_t track, const std::string& name) {
  return {{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", track}, {"args", {{"name", name}}}};
}

}  // namespace

std::string TraceRecorder::chrome_trace_json() const {
  uint64_t origin = UINT64_MAX;
  for (const Instruction& e : instructions_) origin = std::min(origin, e.start_ns);
  for (const DelegateEvent& e : delegate_events_) origin = std::min(origin, e.start_ns);
  nlohmann::json events = nlohmann::json::array();
  events.push_back(track_name(0, "method"));
  std::map<size_t, std::string> delegates;  // index -> backend id
  for (const Instruction& e : instructions_) {
    if (e.delegate >= 0) delegates[static_cast<size_t>(e.delegate)] = e.name;
  }
  for (const DelegateEvent& e : delegate_events_) delegates.try_emplace(e.delegate, "");
  for (const auto& [index, backend] : delegates) {
    const std::string label = "delegate " + std::to_string(index) + (backend.empty() ? "" : " (" + backend + ")");
    events.push_back(track_name(1 + static_cast<int64_t>(index), label));
  }
  for (const Instruction& e : instructions_) {
    nlohmann::json args = {{"chain", e.chain}, {"instruction", e.instruction}};
    if (e.delegate >= 0) args["delegate"] = e.delegate;
    events.push_back(complete_event(e.name, 0, e.start_ns, e.end_ns, origin, std::move(args)));
  }
  for (const DelegateEvent& e : delegate_events_) {
    nlohmann::json args = {{"chain", e.chain}, {"instruction", e.instruction}, {"delegate", e.delegate},
                           {"debug_id", e.debug_id}};
    events.push_back(
        complete_event(e.debug_id, 1 + static_cast<int64_t>(e.delegate), e.start_ns, e.end_ns, origin, std::move(args)));
  }
  return nlohmann::json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump(1) + "\n";
}

namespace {
constexpr int kTraceVersion = 1;
}  // namespace

std::string TraceRecorder::kiln_trace_json() const {
  nlohmann::json instructions = nlohmann::json::array();
  for (const Instruction& e : instructions_) {
    instructions.push_back({e.run, e.chain, e.instruction, e.name, e.delegate, e.start_ns, e.end_ns});
  }
  nlohmann::json delegate_events = nlohmann::json::array();
  for (const DelegateEvent& e : delegate_events_) {
    delegate_events.push_back({e.run, e.chain, e.instruction, e.delegate, e.debug_id, e.start_ns, e.end_ns});
  }
  const nlohmann::json document = {
      {"format", "kiln-trace"},
      {"version", kTraceVersion},
      {"runs", run_},
      {"program", program_.known() ? to_json(program_) : nlohmann::json(nullptr)},
      {"instruction_fields", {"run", "chain", "instruction", "name", "delegate", "start_ns", "end_ns"}},
      {"instructions", instructions},
      {"delegate_event_fields", {"run", "chain", "instruction", "delegate", "debug_id", "start_ns", "end_ns"}},
      {"delegate_events", delegate_events}};
  return document.dump() + "\n";
}

TraceRecorder TraceRecorder::parse_kiln_trace(const std::string& text, const std::string& label) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // a syntax error, or a number too large for a double
    throw aot::AotError(label + " is not a Kiln trace: not JSON (" + error.what() + ")");
  }
  if (!document.is_object() || !json_field_is(document, "format", "kiln-trace")) {
    throw aot::AotError(label + " is not a Kiln trace (no \"format\": \"kiln-trace\"; write one with "
                                "'kiln run MODEL.pte --trace FILE')");
  }
  if (!json_field_is(document, "version", kTraceVersion)) {
    throw aot::AotError(label + " is a Kiln trace of version " + document.value("version", nlohmann::json(0)).dump() +
                        "; this kiln reads version " + std::to_string(kTraceVersion));
  }
  TraceRecorder trace;
  try {
    trace.run_ = json_integer<size_t>(document.at("runs"));
    if (document.contains("program") && !document["program"].is_null()) {
      trace.program_ = parse_program_id(document["program"], label);
    }
    for (const nlohmann::json& e : document.at("instructions")) {
      trace.instructions_.push_back({json_integer<size_t>(e.at(0)), json_integer<size_t>(e.at(1)),
                                     json_integer<size_t>(e.at(2)), e.at(3).get<std::string>(),
                                     json_integer<int64_t>(e.at(4)), json_integer<uint64_t>(e.at(5)),
                                     json_integer<uint64_t>(e.at(6)), {}});
    }
    for (const nlohmann::json& e : document.at("delegate_events")) {
      trace.delegate_events_.push_back({json_integer<size_t>(e.at(0)), json_integer<size_t>(e.at(1)),
                                        json_integer<size_t>(e.at(2)), json_integer<size_t>(e.at(3)),
                                        e.at(4).get<std::string>(), json_integer<uint64_t>(e.at(5)),
                                        json_integer<uint64_t>(e.at(6)), {}});
    }
  } catch (const nlohmann::json::exception& error) {
    throw aot::AotError(label + ": a malformed Kiln trace (" + error.what() + ")");
  }
  return trace;
}

}  // namespace kiln::devtools
