#include "devtools/debug_record.h"
#include "devtools/json_fields.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "aot/emit/pte_writer.h"
#include "aot/ir/error.h"
#include "aot/ir/exec_kind.h"

namespace kiln::devtools {

using nlohmann::json;

const SourceNode* DebugRecord::node(int64_t handle) const {
  const auto it = nodes.find(handle);
  return it == nodes.end() ? nullptr : &it->second;
}

namespace {

// The longest common prefix of two module paths, by whole components.
std::string common_module(const std::string& a, const std::string& b) {
  size_t end = 0;
  for (size_t i = 0; i <= a.size() && i <= b.size(); ++i) {
    const bool a_ends = i == a.size() || a[i] == '.', b_ends = i == b.size() || b[i] == '.';
    if (a_ends && b_ends) end = i;
    if (i == a.size() || i == b.size() || a[i] != b[i]) break;
  }
  return a.substr(0, end);
}

void append_once(std::string& list, const std::string& item) {
  const std::string padded = " + " + list + " + ";
  if (padded.find(" + " + item + " + ") == std::string::npos) list += (list.empty() ? "" : " + ") + item;
}

}  // namespace

SourceGroup describe_group(const DebugRecord& record, const std::vector<int64_t>& handles) {
  SourceGroup group;
  bool first = true;
  for (const int64_t handle : handles) {
    const SourceNode* node = record.node(handle);
    if (node == nullptr) {
      append_once(group.names, "handle " + std::to_string(handle));
      continue;
    }
    if (node->op == aot::kGetItem && handles.size() > 1) continue;
    append_once(group.names, node->name);
    append_once(group.ops, short_op_name(node->op));
    group.module = first ? node->module_path() : common_module(group.module, node->module_path());
    first = false;
  }
  return group;
}

std::string shorten_list(const std::string& list, size_t width) {
  if (list.size() <= width) return list;
  const size_t first_end = list.find(" + ");
  size_t more = 0;
  for (size_t at = list.find(" + "); at != std::string::npos; at = list.find(" + ", at + 3)) ++more;
  std::string text = list.substr(0, first_end);
  if (more > 0) text += " + " + std::to_string(more) + " more";
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

void DebugRecord::check_matches(std::span<const uint8_t> pte, const std::string& pte_label) const {
  if (program_id(pte) != program) {
    throw aot::AotError("the debug record was written for another program: " + pte_label + " has " +
                        std::to_string(pte.size()) + " bytes, the record's program " + std::to_string(program.bytes) +
                        " (lower the .pt2 again with --debug-record to write both together)");
  }
}

DebugRecord make_debug_record(std::map<int64_t, SourceNode> nodes, const aot::EmitterOutput& emitted,
                              std::span<const uint8_t> pte, const std::string& method) {
  DebugRecord record;
  const aot::MethodDebugMaps& maps = emitted.debug_maps_of(method);
  record.method = method;
  record.program = program_id(pte);
  record.instructions = maps.debug_handle_map;
  for (const auto& [instruction, info] : maps.delegate_map) {
    record.delegates[instruction] = {info.backend_id, info.delegate_map};
  }
  record.nodes = std::move(nodes);
  return record;
}

DebugRecord make_debug_record(const aot::LoweredProgram& lowered) {
  if (!lowered.source_nodes || !lowered.executorch) {
    throw aot::AotError("the program was lowered without what its debug record needs (LowerOptions::debug_record)");
  }
  return make_debug_record(*lowered.source_nodes, lowered.executorch->emitted, lowered.executorch->buffer,
                           lowered.method_name);
}

std::string to_json(const DebugRecord& record) {
  json instructions = json::array();
  for (const auto& [index, handles] : record.instructions) instructions.push_back({{"index", index}, {"handles", handles}});
  json delegates = json::array();
  for (const auto& [index, delegate] : record.delegates) {
    json identifiers = json::object();
    for (const auto& [identifier, handles] : delegate.identifiers) identifiers[identifier] = handles;
    delegates.push_back({{"instruction", index}, {"backend", delegate.backend_id}, {"identifiers", identifiers}});
  }
  json nodes = json::array();
  for (const auto& [handle, node] : record.nodes) {
    json stack = json::array();
    for (const aot::ModuleStackEntry& entry : node.module_stack) {
      stack.push_back({{"key", entry.key}, {"path", entry.path}, {"type", entry.type}});
    }
    nodes.push_back({{"handle", handle},
                     {"name", node.name},
                     {"op", node.op},
                     {"module_stack", stack},
                     {"stack_trace", node.stack_trace}});
  }
  const json document = {{"format", "kiln-debug-record"},
                         {"version", DebugRecord::kVersion},
                         {"method", record.method},
                         {"program", to_json(record.program)},
                         {"instructions", instructions},
                         {"delegates", delegates},
                         {"nodes", nodes}};
  return document.dump(1) + "\n";
}

DebugRecord parse_debug_record(const std::string& text, const std::string& label) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {  // a syntax error, or a number too large for a double
    throw aot::AotError(label + " is not a debug record: not JSON (" + error.what() + ")");
  }
  if (!document.is_object() || !json_field_is(document, "format", "kiln-debug-record")) {
    throw aot::AotError(label + " is not a debug record (no \"format\": \"kiln-debug-record\"; write one with "
                                "'kiln lower ... --debug-record FILE')");
  }
  if (!json_field_is(document, "version", DebugRecord::kVersion)) {
    throw aot::AotError(label + " is a debug record of version " + document.value("version", json(0)).dump() +
                        "; this kiln reads version " + std::to_string(DebugRecord::kVersion));
  }
  DebugRecord record;
  try {
    record.method = document.at("method").get<std::string>();
    record.program = parse_program_id(document.at("program"), label);
    for (const json& entry : document.at("instructions")) {
      record.instructions[json_integer<size_t>(entry.at("index"))] = json_integers(entry.at("handles"));
    }
    for (const json& entry : document.at("delegates")) {
      DelegateRecord& delegate = record.delegates[json_integer<size_t>(entry.at("instruction"))];
      delegate.backend_id = entry.at("backend").get<std::string>();
      for (const auto& [identifier, handles] : entry.at("identifiers").items()) {
        delegate.identifiers[identifier] = json_integers(handles);
      }
    }
    for (const json& entry : document.at("nodes")) {
      SourceNode node;
      node.handle = json_integer<int64_t>(entry.at("handle"));
      node.name = entry.at("name").get<std::string>();
      node.op = entry.at("op").get<std::string>();
      node.stack_trace = entry.at("stack_trace").get<std::string>();
      for (const json& frame : entry.at("module_stack")) {
        node.module_stack.push_back(
            {frame.at("key").get<std::string>(), frame.at("path").get<std::string>(), frame.at("type").get<std::string>()});
      }
      record.nodes[node.handle] = std::move(node);
    }
  } catch (const json::exception& error) {
    throw aot::AotError(label + ": a malformed debug record (" + error.what() + ")");
  }
  return record;
}

DebugRecord read_debug_record(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw aot::AotError("cannot open the debug record " + path);
  std::ostringstream text;
  text << file.rdbuf();
  return parse_debug_record(text.str(), path);
}

void write_debug_record(const std::string& path, const DebugRecord& record) {
  const std::string text = to_json(record);
  aot::pte::write_file_atomically(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

}  // namespace kiln::devtools
