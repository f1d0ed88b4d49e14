// The debug record (`kiln lower --debug-record model.kdbg`): what the
// devtools need, besides a .pte, to say which of the user's ops a runtime
// event belongs to. It is written at lowering, from the program as imported
// (each node numbered by generate_debug_handles before any pass) and from
// the emitter's maps:
//   - instruction index -> the debug handles of the node(s) it came from;
//   - per delegate call, the backend's identifiers -> handles (the map its
//     preprocess returned), which a backend logs its events under;
//   - per handle the source node: name, op, module stack and stack trace.
// It also carries the size and FNV-1a hash of the .pte it describes, so a
// record is never read against another program.
//
// On disk it is JSON (docs/devtools.md gives the fields), with "format":
// "kiln-debug-record" and a version.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "aot/emit/emitter.h"
#include "aot/ir/exported_program.h"
#include "aot/passes/debug_handles.h"
#include "aot/pipeline/lower.h"
#include "devtools/program_id.h"

namespace kiln::devtools {

/// One node of the user's program, as imported (aot/passes/debug_handles.h).
using aot::SourceNode;
using aot::short_op_name;
using aot::source_nodes;

struct DelegateRecord {
  std::string backend_id;
  /// The backend's delegate debug identifiers ("0", or a name) -> handles.
  std::map<std::string, std::vector<int64_t>> identifiers;
};

struct DebugRecord {
  static constexpr int kVersion = 1;

  std::string method = "forward";
  ProgramId program;  ///< the .pte it describes
  /// Instruction index -> handles (kernel calls and delegate calls).
  std::map<size_t, std::vector<int64_t>> instructions;
  /// The delegate call's instruction index -> its identifiers.
  std::map<size_t, DelegateRecord> delegates;
  std::map<int64_t, SourceNode> nodes;

  /// The node a handle stands for; null if the record has none.
  const SourceNode* node(int64_t handle) const;
  /// Throws AotError unless `pte` is the program this record was written for.
  void check_matches(std::span<const uint8_t> pte, const std::string& pte_label) const;
};

/// How a group of handles (a fused backend op, or one source op) reads in
/// the devtools' tables. getitems are left out (they only pick an output).
struct SourceGroup {
  std::string names;   ///< "conv2d + relu"
  std::string ops;     ///< short op names, each once: "convolution + relu"
  std::string module;  ///< the module path the ops share ("layer1.0"), "" at top level
};
SourceGroup describe_group(const DebugRecord& record, const std::vector<int64_t>& handles);
/// A " + " list that fits `width`: whole, or its first item and "+ N more".
std::string shorten_list(const std::string& list, size_t width);

/// The record of a lowering: `nodes` from source_nodes of the program before
/// any pass, `emitted` and `pte` from to_executorch; it describes program
/// method `method` of the .pte (AotError if the .pte has none of that name).
DebugRecord make_debug_record(std::map<int64_t, SourceNode> nodes, const aot::EmitterOutput& emitted,
                              std::span<const uint8_t> pte, const std::string& method = "forward");
/// The record of `lowered` (lowered with LowerOptions::debug_record, which
/// keeps its source nodes); throws AotError if it was lowered without.
DebugRecord make_debug_record(const aot::LoweredProgram& lowered);

std::string to_json(const DebugRecord& record);
/// Parses a record; throws AotError naming `label` and what is wrong.
DebugRecord parse_debug_record(const std::string& text, const std::string& label);
DebugRecord read_debug_record(const std::string& path);
/// Written whole or not at all.
void write_debug_record(const std::string& path, const DebugRecord& record);

}  // namespace kiln::devtools
