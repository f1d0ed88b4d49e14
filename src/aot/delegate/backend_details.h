// The ahead-of-time side of a backend: what `to_backend` hands a partition to
// (`preprocess`), what a capability partitioner asks (`supports`), and the
// registry that finds a backend by id (ExecuTorch's BackendDetails, with the
// class name as id).
//
//   class MyBackend : public BackendDetails {
//     std::string id() const override { return "MyBackend"; }
//     PreprocessResult preprocess(const ExportedProgram&, const std::vector<CompileSpec>&) const override;
//   };
//   static BackendRegistration registration(std::make_unique<MyBackend>());
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// A backend-specific setting that configures its "compilation" (ExecuTorch's
/// CompileSpec: a key and opaque bytes).
struct CompileSpec {
  std::string key;
  std::vector<uint8_t> value;

  static CompileSpec from_string(std::string key, const std::string& value);
  bool operator==(const CompileSpec&) const = default;
};

/// A delegate debug identifier: generated (0, 1, 2, ...) or given, an int or a
/// string. The backend serializes it into its blob and logs it at run time.
using DelegateDebugId = std::variant<int64_t, std::string>;
/// Identifier -> the sorted debug handles of the nodes it came from.
using DebugHandleMap = std::map<DelegateDebugId, std::vector<int64_t>>;

/// "0", "'conv'": an identifier as Python prints it.
std::string to_string(const DelegateDebugId& id);
/// "{0: (1, 2), 1: (3,)}": the map as Python prints the dict of tuples.
std::string to_string(const DebugHandleMap& map);

/// Where one named blob sits in NamedDataStoreOutput::buffers.
struct DataEntry {
  size_t buffer_index = 0;
  size_t alignment = 1;
  bool operator==(const DataEntry&) const = default;
};

/// Named data a backend wants stored beside the program (weights it reads at
/// init by key), deduplicated by content.
struct NamedDataStoreOutput {
  std::vector<std::vector<uint8_t>> buffers;
  std::map<std::string, DataEntry> pte_data;  ///< key -> entry

  /// The bytes stored under `key`; throws AotError if there are none.
  const std::vector<uint8_t>& get(const std::string& key) const;
  bool empty() const { return pte_data.empty(); }
  bool operator==(const NamedDataStoreOutput&) const = default;
};

/// Collects named data during preprocess (ExecuTorch's NamedDataStore).
class NamedDataStore {
 public:
  /// Stores `data` under `key` with `alignment` (a power of two). The same
  /// bytes under two keys are stored once. Throws AotError if `key` is already
  /// used for other bytes, or the alignment is not a power of two.
  void add_named_data(const std::string& key, std::vector<uint8_t> data, size_t alignment = 16);
  const NamedDataStoreOutput& get_named_data_store_output() const { return output_; }

 private:
  NamedDataStoreOutput output_;
};

/// What `preprocess` returns: the blob the backend's runtime executes, the
/// delegate debug-handle map, and named data to store beside the program.
struct PreprocessResult {
  std::vector<uint8_t> processed_bytes;
  DebugHandleMap debug_handle_map;
  NamedDataStoreOutput data_store_output;
};

/// Whether a backend can run one node, and if not, why (for reports).
struct NodeSupport {
  bool supported = false;
  std::string reason;

  static NodeSupport yes() { return {true, ""}; }
  static NodeSupport no(std::string reason) { return {false, std::move(reason)}; }
};

class BackendDetails {
 public:
  virtual ~BackendDetails() = default;
  /// The backend's id: what partitioners name and the runtime looks up.
  virtual std::string id() const = 0;
  /// Compiles `edge_program` (a partition, or a whole program, with the
  /// parameters, buffers and constants it owns) for this backend. Throws
  /// AotError naming the node and the reason when it cannot.
  virtual PreprocessResult preprocess(const ExportedProgram& edge_program,
                                      const std::vector<CompileSpec>& compile_specs) const = 0;
  /// Whether the backend can run `node`, a call_function node of `program`
  /// (asked by CapabilityPartitioner). The default supports nothing.
  virtual NodeSupport supports(const Node& node, const ExportedProgram& program) const;
  /// The ops ("aten::sin.default") `supports` may accept, for op coverage
  /// tables such as `kiln ops`; it may still refuse a node for its dtypes,
  /// shapes or neighbours. The default is none.
  virtual std::vector<std::string> supported_ops() const { return {}; }
  /// A readable listing of a blob this backend's preprocess wrote (`kiln
  /// lower --print`), or "" when the backend has none. Throws AotError for a
  /// blob it cannot read.
  virtual std::string describe_blob(const std::vector<uint8_t>& blob) const {
    (void)blob;
    return "";
  }
  /// How this machine would run a blob this backend's preprocess wrote
  /// (`kiln lower --explain`): for OneDnnBackend, the oneDNN implementation
  /// of each operation. "" when the backend has nothing to say. Throws
  /// AotError for a blob it cannot read.
  virtual std::string explain_blob(const std::vector<uint8_t>& blob) const {
    (void)blob;
    return "";
  }
};

/// Adds `backend` to the registry; throws AotError if its id is taken.
void register_backend(std::unique_ptr<BackendDetails> backend);
/// Removes backend `id` if it is registered (for tests).
void unregister_backend(const std::string& id);
/// The backend registered as `id`, or null.
const BackendDetails* find_backend(const std::string& id);
/// The backend registered as `id`; throws AotError listing the known ids.
const BackendDetails& get_backend(const std::string& id);
/// The registered ids, sorted.
std::vector<std::string> registered_backend_ids();

/// Registers a backend during static initialization. A backend library that
/// registers this way must be linked whole (see src/backends/demo/CMakeLists.txt).
struct BackendRegistration {
  explicit BackendRegistration(std::unique_ptr<BackendDetails> backend) { register_backend(std::move(backend)); }
};

}  // namespace kiln::aot
