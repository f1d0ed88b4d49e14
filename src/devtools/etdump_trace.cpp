#include "devtools/etdump_trace.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "aot/ir/error.h"
#include "schema/etdump_generated.h"

namespace kiln::devtools {

namespace {

using aot::AotError;
namespace fb = ::etdump;

constexpr const char* kDelegateCall = "DELEGATE_CALL";
constexpr uint32_t kReadVersion = 0;
constexpr size_t kMaxRank = 16;

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}

std::string describe(const ProgramId& id) {
  return std::to_string(id.bytes) + " bytes, fnv1a64 " + hex64(id.fnv1a64);
}

/// Checks the envelope before the verifier: a clear word for a file that is
/// cut short or is something else altogether.
const fb::ETDump* open_etdump(std::span<const uint8_t> bytes, const std::string& label) {
  if (bytes.size() < 12) {
    throw AotError(label + " is not an ETDump: " + std::to_string(bytes.size()) +
                   " bytes, too short for a size-prefixed FlatBuffer");
  }
  const char* identifier = reinterpret_cast<const char*>(bytes.data()) + 8;
  if (std::memcmp(identifier, fb::ETDumpIdentifier(), 4) != 0) {
    std::string found;
    for (int i = 0; i < 4; ++i) {
      const unsigned char c = static_cast<unsigned char>(identifier[i]);
      found += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : "\\x" + hex64(c).substr(14);
    }
    const bool unprefixed = std::memcmp(bytes.data() + 4, fb::ETDumpIdentifier(), 4) == 0;
    throw AotError(label + " is not an ETDump: identifier '" + found + "' at byte 8, expected 'ED00'" +
                   (unprefixed ? " (it reads as an ETDump without its size prefix, which this format has)" : ""));
  }
  uint32_t prefix = 0;
  std::memcpy(&prefix, bytes.data(), 4);
  if (static_cast<uint64_t>(prefix) + 4 > bytes.size()) {
    throw AotError(label + " is truncated: its size prefix says " + std::to_string(prefix + uint64_t{4}) +
                   " bytes, the file holds " + std::to_string(bytes.size()));
  }
  flatbuffers::Verifier verifier(bytes.data(), static_cast<size_t>(prefix) + 4);
  if (!fb::VerifySizePrefixedETDumpBuffer(verifier)) {
    throw AotError(label + " is a malformed ETDump: its FlatBuffer does not verify against the ETDump schema");
  }
  const fb::ETDump* etdump = fb::GetSizePrefixedETDump(bytes.data());
  if (etdump->version() != kReadVersion) {
    throw AotError(label + " is an ETDump of version " + std::to_string(etdump->version()) + "; this kiln reads version " +
                   std::to_string(kReadVersion));
  }
  return etdump;
}

/// "forward [kiln-program 1234 bytes fnv1a64 0123...]" -> method, program.
void parse_run_name(const std::string& name, std::string& method, std::optional<ProgramId>& program) {
  const size_t open = name.find(" [kiln-program ");
  if (open == std::string::npos || name.back() != ']') {
    method = name;
    return;
  }
  method = name.substr(0, open);
  unsigned long long bytes = 0;
  char hex[17] = {};
  if (std::sscanf(name.c_str() + open, " [kiln-program %llu bytes fnv1a64 %16[0-9a-f]]", &bytes, hex) == 2 &&
      std::strlen(hex) == 16) {
    program = ProgramId{bytes, std::strtoull(hex, nullptr, 16)};
  }
}

std::string text(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

/// The delegate identifier of an event, as the debug record spells it ("3",
/// or a name); empty for none.
std::string debug_id(int32_t id_int, const flatbuffers::String* id_str) {
  if (id_str != nullptr && id_str->size() > 0) return id_str->str();
  return id_int >= 0 ? std::to_string(id_int) : std::string();
}

/// A logged tensor's value, copied out of the debug buffer.
aot::HostTensor read_tensor(const fb::Tensor* tensor, std::span<const uint8_t> buffer, const std::string& label) {
  const auto dtype = static_cast<runtime::ScalarType>(tensor->scalar_type());
  if (!runtime::is_valid(dtype)) {
    throw AotError(label + ": a logged tensor has scalar type " + std::to_string(static_cast<int>(dtype)) +
                   ", which Kiln does not know");
  }
  const size_t rank = tensor->sizes() == nullptr ? 0 : tensor->sizes()->size();
  if (rank > kMaxRank) throw AotError(label + ": a logged tensor has " + std::to_string(rank) + " dimensions");
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < rank; ++d) sizes.push_back(tensor->sizes()->Get(static_cast<flatbuffers::uoffset_t>(d)));
  if (tensor->strides() != nullptr && tensor->strides()->size() == rank) {
    for (size_t d = 0; d < rank; ++d) strides.push_back(tensor->strides()->Get(static_cast<flatbuffers::uoffset_t>(d)));
  } else {
    strides.assign(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  }
  // The extent the strides reach, in elements, computed so that no product overflows.
  const size_t width = runtime::element_size(dtype);
  uint64_t extent = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || strides[d] < 0 || sizes[d] > (int64_t{1} << 40) || strides[d] > (int64_t{1} << 40)) {
      throw AotError(label + ": a logged tensor has a negative or impossible size or stride");
    }
    if (sizes[d] == 0) extent = 0;
  }
  if (extent != 0) {
    for (size_t d = 0; d < rank; ++d) {
      const uint64_t reach = static_cast<uint64_t>(sizes[d] - 1) * static_cast<uint64_t>(strides[d]);
      if (reach > buffer.size()) {
        throw AotError(label + ": a logged tensor reaches past the debug buffer (" + std::to_string(buffer.size()) +
                       " bytes)");
      }
      extent += reach;
    }
  }
  const uint64_t nbytes = extent * width;
  const int64_t offset = tensor->offset();
  if (offset < 0 || static_cast<uint64_t>(offset) > buffer.size() || nbytes > buffer.size() - offset) {
    throw AotError(label + ": a logged tensor reaches past the debug buffer: " + std::to_string(nbytes) +
                   " bytes at offset " + std::to_string(offset) + ", the buffer holds " + std::to_string(buffer.size()));
  }
  auto storage = aot::Storage::allocate(nbytes);
  if (nbytes != 0) std::memcpy(storage->data, buffer.data() + offset, nbytes);
  return aot::HostTensor(dtype, sizes, strides, 0, storage).clone();
}

/// The value of a debug event: its tensor, or the first of its list; none for others.
std::optional<aot::HostTensor> logged_value(const fb::DebugEvent* debug, std::span<const uint8_t> buffer,
                                            const std::string& label) {
  const fb::Value* value = debug->debug_entry();
  if (value == nullptr) return std::nullopt;
  if (value->val() == fb::ValueType::Tensor && value->tensor() != nullptr) {
    return read_tensor(value->tensor(), buffer, label);
  }
  if (value->val() == fb::ValueType::TensorList && value->tensor_list() != nullptr &&
      value->tensor_list()->tensors() != nullptr && value->tensor_list()->tensors()->size() > 0) {
    return read_tensor(value->tensor_list()->tensors()->Get(0), buffer, label);
  }
  return std::nullopt;
}

bool is_run_output(const fb::DebugEvent* debug) {
  const fb::Value* value = debug->debug_entry();
  return value != nullptr && value->output() != nullptr && value->output()->bool_val();
}

}  // namespace

TraceRecorder read_etdump(std::span<const uint8_t> bytes, const std::string& label,
                          std::span<const uint8_t> debug_buffer, const std::string& debug_label) {
  const fb::ETDump* etdump = open_etdump(bytes, label);
  const std::string buffer_label = debug_label.empty() ? label + "'s debug buffer" : debug_label;
  TraceRecorder trace;
  if (etdump->run_data() == nullptr) return trace;

  // Delegates are numbered in the order of their calls' instructions.
  std::set<int32_t> delegate_calls;
  for (const fb::RunData* run : *etdump->run_data()) {
    if (run->events() == nullptr) continue;
    for (const fb::Event* event : *run->events()) {
      const fb::ProfileEvent* profile = event->profile_event();
      if (profile != nullptr && profile->instruction_id() >= 0 && text(profile->name()) == kDelegateCall &&
          debug_id(profile->delegate_debug_id_int(), profile->delegate_debug_id_str()).empty()) {
        delegate_calls.insert(profile->instruction_id());
      }
    }
  }
  std::map<int32_t, size_t> delegate_index;
  for (const int32_t instruction : delegate_calls) delegate_index.emplace(instruction, delegate_index.size());

  std::vector<TraceRecorder::Instruction> instructions;
  std::vector<TraceRecorder::DelegateEvent> delegate_events;
  size_t runs = 0;
  std::optional<ProgramId> program;
  std::optional<std::string> method;
  bool named_program = false;
  for (const fb::RunData* run : *etdump->run_data()) {
    if (run->events() == nullptr) continue;
    const size_t index = runs;
    bool any = false;
    // The last event logged for (instruction, identifier), which a debug event's value belongs to.
    std::map<std::pair<int32_t, std::string>, std::pair<bool, size_t>> last;
    for (const fb::Event* event : *run->events()) {
      if (const fb::ProfileEvent* profile = event->profile_event()) {
        if (profile->instruction_id() < 0 || profile->chain_index() < 0) continue;
        any = true;
        const auto instruction = static_cast<size_t>(profile->instruction_id());
        const std::string id = debug_id(profile->delegate_debug_id_int(), profile->delegate_debug_id_str());
        const auto delegate = delegate_index.find(profile->instruction_id());
        if (!id.empty()) {
          delegate_events.push_back({index, static_cast<size_t>(profile->chain_index()), instruction,
                                    delegate == delegate_index.end() ? 0 : delegate->second, id,
                                    profile->start_time(), profile->end_time(), {}});
          last[{profile->instruction_id(), id}] = {true, delegate_events.size() - 1};
        } else {
          const std::string name = text(profile->name());
          const bool call = name == kDelegateCall && delegate != delegate_index.end();
          instructions.push_back({index, static_cast<size_t>(profile->chain_index()), instruction, name,
                                 call ? static_cast<int64_t>(delegate->second) : -1, profile->start_time(),
                                 profile->end_time(), {}});
          last[{profile->instruction_id(), ""}] = {false, instructions.size() - 1};
        }
      } else if (const fb::DebugEvent* debug = event->debug_event()) {
        if (debug->instruction_id() < 0 || is_run_output(debug) || debug_buffer.empty()) continue;
        const std::string id = debug_id(debug->delegate_debug_id_int(), debug->delegate_debug_id_str());
        const auto owner = last.find({debug->instruction_id(), id});
        if (owner == last.end()) continue;
        std::optional<aot::HostTensor> value = logged_value(debug, debug_buffer, buffer_label);
        if (!value) continue;
        (owner->second.first ? delegate_events[owner->second.second].output
                             : instructions[owner->second.second].output) = std::move(*value);
      }
    }
    if (!any) continue;  // a block of no instruction (ExecuTorch's method load)
    ++runs;
    std::string run_method;
    std::optional<ProgramId> run_program;
    parse_run_name(text(run->name()), run_method, run_program);
    if (run_program) {
      if (named_program && program != run_program) {
        throw AotError(label + " holds runs of two programs (" + describe(*program) + ", and " +
                       describe(*run_program) + ")");
      }
      program = run_program;
      named_program = true;
      method = run_method;
    }
  }
  for (auto& e : instructions) trace.add_instruction(std::move(e));
  for (auto& e : delegate_events) trace.add_delegate_event(std::move(e));
  trace.set_runs(runs);
  if (program) trace.set_program(*program);
  if (method) trace.set_method(*method);
  return trace;
}

namespace {

std::vector<uint8_t> read_bytes(const std::string& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw AotError("cannot open the " + what + " " + path + " (" + std::strerror(errno) + ")");
  std::ostringstream content;
  content << file.rdbuf();
  const std::string text = content.str();
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace

TraceRecorder read_etdump_file(const std::string& path, const std::string& debug_buffer_path) {
  const std::vector<uint8_t> etdump = read_bytes(path, "ETDump");
  std::vector<uint8_t> buffer;
  if (!debug_buffer_path.empty()) buffer = read_bytes(debug_buffer_path, "debug buffer");
  return read_etdump(etdump, path, buffer, debug_buffer_path);
}

void check_trace_matches(const TraceRecorder& trace, const std::string& trace_label, const DebugRecord& record,
                         const std::string& record_label) {
  if (trace.program().known() && trace.program() != record.program) {
    throw AotError(trace_label + " was recorded from another program than the debug record " + record_label +
                   " describes: it ran a .pte of " + describe(trace.program()) + ", the record is of one of " +
                   describe(record.program));
  }
  if (!trace.method().empty() && trace.program().known() && trace.method() != record.method) {
    throw AotError(trace_label + " was recorded from the method '" + trace.method() + "', but the debug record " +
                   record_label + " describes '" + record.method + "'");
  }
  if (trace.program().known()) return;
  // No program named (ExecuTorch's runtime wrote it): the delegate calls must be the record's.
  for (const TraceRecorder::Instruction& e : trace.instructions()) {
    if (e.delegate >= 0 && record.delegates.count(e.instruction) == 0) {
      throw AotError(trace_label + " names no program, and its instruction " + std::to_string(e.instruction) +
                     " is a delegate call where the debug record " + record_label +
                     " has none: it is a trace of another program");
    }
  }
  for (const TraceRecorder::DelegateEvent& e : trace.delegate_events()) {
    if (record.delegates.count(e.instruction) == 0) {
      throw AotError(trace_label + " names no program, and a backend logged identifier " + e.debug_id +
                     " in instruction " + std::to_string(e.instruction) + ", where the debug record " + record_label +
                     " has no delegate call: it is a trace of another program");
    }
  }
}

}  // namespace kiln::devtools
