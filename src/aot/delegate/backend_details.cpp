#include "aot/delegate/backend_details.h"

#include <algorithm>
#include <mutex>

#include "aot/ir/error.h"

namespace kiln::aot {

CompileSpec CompileSpec::from_string(std::string key, const std::string& value) {
  return {std::move(key), std::vector<uint8_t>(value.begin(), value.end())};
}

std::string to_string(const DelegateDebugId& id) {
  if (const auto* number = std::get_if<int64_t>(&id)) return std::to_string(*number);
  return "'" + std::get<std::string>(id) + "'";
}

std::string to_string(const DebugHandleMap& map) {
  std::string text = "{";
  bool first = true;
  for (const auto& [id, handles] : map) {
    text += (first ? "" : ", ") + to_string(id) + ": (";
    for (size_t i = 0; i < handles.size(); ++i) text += (i ? ", " : "") + std::to_string(handles[i]);
    text += handles.size() == 1 ? ",)" : ")";
    first = false;
  }
  return text + "}";
}

const std::vector<uint8_t>& NamedDataStoreOutput::get(const std::string& key) const {
  auto it = pte_data.find(key);
  if (it == pte_data.end()) throw AotError("no named data under key '" + key + "'");
  return buffers.at(it->second.buffer_index);
}

void NamedDataStore::add_named_data(const std::string& key, std::vector<uint8_t> data, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    throw AotError("named data '" + key + "': alignment " + std::to_string(alignment) + " is not a power of two");
  }
  auto same = std::find(output_.buffers.begin(), output_.buffers.end(), data);
  const size_t index = static_cast<size_t>(same - output_.buffers.begin());
  if (auto it = output_.pte_data.find(key); it != output_.pte_data.end()) {
    if (it->second.buffer_index == index) {
      it->second.alignment = std::max(it->second.alignment, alignment);
      return;
    }
    throw AotError("named data key '" + key + "' is already used for other data");
  }
  if (same == output_.buffers.end()) output_.buffers.push_back(std::move(data));
  output_.pte_data[key] = DataEntry{index, alignment};
}

NodeSupport BackendDetails::supports(const Node& /*node*/, const ExportedProgram& /*program*/) const {
  return NodeSupport::no("backend '" + id() + "' takes whole programs only");
}

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<BackendDetails>> backends;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

void register_backend(std::unique_ptr<BackendDetails> backend) {
  if (backend == nullptr) throw AotError("register_backend: null backend");
  const std::string id = backend->id();
  if (id.empty()) throw AotError("register_backend: a backend needs a non-empty id");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.backends.count(id)) throw AotError("backend '" + id + "' is registered twice");
  r.backends.emplace(id, std::move(backend));
}

void unregister_backend(const std::string& id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.backends.erase(id);
}

const BackendDetails* find_backend(const std::string& id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.backends.find(id);
  return it == r.backends.end() ? nullptr : it->second.get();
}

std::vector<std::string> registered_backend_ids() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> ids;
  for (const auto& [id, backend] : r.backends) ids.push_back(id);
  return ids;
}

const BackendDetails& get_backend(const std::string& id) {
  if (const BackendDetails* backend = find_backend(id)) return *backend;
  std::string known;
  for (const std::string& name : registered_backend_ids()) known += (known.empty() ? "" : ", ") + name;
  throw AotError("backend '" + id + "' was not found (registered backends: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace kiln::aot
