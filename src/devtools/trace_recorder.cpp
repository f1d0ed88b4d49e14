#include "devtools/trace_recorder.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace kiln::devtools {

void TraceRecorder::log_instruction(const runtime::InstructionEvent& event) {
  instructions_.push_back({event.chain, event.instruction, event.name, event.delegate, event.start_ns, event.end_ns});
}

void TraceRecorder::log_delegate_event(const runtime::DelegateEvent& event) {
  const std::string id = event.debug_name != nullptr ? std::string(event.debug_name) : std::to_string(event.debug_id);
  delegate_events_.push_back({event.chain, event.instruction, event.delegate, id, event.start_ns, event.end_ns});
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

}  // namespace kiln::devtools
