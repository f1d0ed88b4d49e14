#include "aot/import/pt2_reader.h"

#include <algorithm>

#include "aot/import/program_json.h"
#include "aot/ir/error.h"

namespace kiln::aot {

using nlohmann::json;

namespace {

json parse_entry(const ZipArchive& archive, const std::string& entry) {
  try {
    return json::parse(archive.read_text(entry));
  } catch (const json::exception& error) {
    throw AotError("entry '" + entry + "' is not valid JSON: " + error.what());
  }
}

std::vector<int64_t> int_list(const json& values, const std::string& where) {
  if (!values.is_array()) throw AotError(where + " is not a list");
  std::vector<int64_t> result;
  for (const json& value : values) {
    if (!value.is_object() || !value.contains("as_int") || !value.at("as_int").is_number_integer()) {
      throw AotError(where + " holds " + value.dump() + "; stored tensors need plain integers");
    }
    result.push_back(value.at("as_int").get<int64_t>());
  }
  return result;
}

// One tensor of a weights or constants config: a strided view of a raw
// storage file, mapped in place. Several names may share one file (tied weights).
HostTensor payload_tensor(const ZipArchive& archive, const std::string& folder, const std::string& name,
                          const json& config, std::map<std::string, std::shared_ptr<Storage>>& storages) {
  const std::string where = "'" + name + "' in " + folder + " config";
  const json& path = config.at("path_name");
  if (!path.is_string()) throw AotError(where + ": path_name is not a string");
  const std::string entry = folder + path.get<std::string>();
  if (config.value("use_pickle", false)) {
    throw AotError(where + ": entry '" + entry + "' is a pickled tensor (a tensor subclass), which Kiln cannot read");
  }
  const json& meta = config.at("tensor_meta");
  const ScalarType dtype = scalar_type_from_pt2(meta.at("dtype").get<int64_t>());
  const std::vector<int64_t> sizes = int_list(meta.at("sizes"), where + " sizes");
  const std::vector<int64_t> strides = int_list(meta.at("strides"), where + " strides");
  int64_t offset = 0;
  if (meta.contains("storage_offset")) offset = int_list(json::array({meta.at("storage_offset")}), where + " storage_offset")[0];
  try {
    if (archive.data(entry).empty()) return HostTensor::zeros(dtype, sizes);  // torch writes fake tensors as empty files
    auto& storage = storages[entry];
    if (storage == nullptr) storage = archive.storage(entry);
    return HostTensor(dtype, sizes, strides, offset, storage);
  } catch (const AotError& error) {
    throw AotError(where + " (entry '" + entry + "'): " + error.what());
  }
}

template <typename Put>
void read_payload(const ZipArchive& archive, const std::string& config_entry, const std::string& folder, Put&& put) {
  if (!archive.contains(config_entry)) return;
  const json config = parse_entry(archive, config_entry);
  if (!config.is_object() || !config.contains("config") || !config.at("config").is_object()) {
    throw AotError("entry '" + config_entry + "' has no 'config' object");
  }
  std::map<std::string, std::shared_ptr<Storage>> storages;
  for (const auto& [name, entry] : config.at("config").items()) {
    try {
      if (!entry.is_object() || !entry.contains("path_name")) throw AotError("'" + name + "' has no path_name");
      if (!entry.at("path_name").is_string()) throw AotError("'" + name + "' has a path_name that is not a string");
      const std::string path = entry.at("path_name");
      if (path.rfind("custom_obj_", 0) == 0 || path.rfind("opaque_obj_", 0) == 0) {
        const auto bytes = archive.data(folder + path);
        put(name, Constant(CustomObject{"", std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())}));
      } else {
        put(name, Constant(payload_tensor(archive, folder, name, entry, storages)));
      }
    } catch (const json::exception& error) {
      throw AotError("entry '" + config_entry + "', '" + name + "': " + error.what());
    }
  }
}

}  // namespace

std::vector<std::string> pt2_model_names(const ZipArchive& archive) {
  std::vector<std::string> names;
  for (const std::string& entry : archive.entries()) {
    const std::string prefix = "models/";
    const std::string suffix = ".json";
    if (entry.size() > prefix.size() + suffix.size() && entry.rfind(prefix, 0) == 0 &&
        entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        entry.find('/', prefix.size()) == std::string::npos) {
      names.push_back(entry.substr(prefix.size(), entry.size() - prefix.size() - suffix.size()));
    }
  }
  return names;
}

ExportedProgram read_pt2(const ZipArchive& archive, const std::string& requested) {
  if (archive.contains("archive_format")) {
    const std::string format = archive.read_text("archive_format");
    if (format != "pt2") throw AotError("archive_format is '" + format + "', not 'pt2'");
  } else if (archive.contains("serialized_exported_program.json")) {
    throw AotError("this is a legacy .pt2 (torch <= 2.7, pickled weights); re-export it with torch >= 2.9");
  }
  if (archive.contains("archive_version") && archive.read_text("archive_version") != "0") {
    throw AotError("archive_version '" + archive.read_text("archive_version") + "' is not supported (Kiln reads 0)");
  }
  if (archive.contains("byteorder") && archive.read_text("byteorder") != "little") {
    throw AotError("the archive's byte order is '" + archive.read_text("byteorder") + "'; Kiln reads little-endian files");
  }
  const std::vector<std::string> models = pt2_model_names(archive);
  std::string model = requested;
  if (model.empty()) {
    if (models.empty()) throw AotError("the archive has no program (no models/<name>.json entry)");
    model = std::find(models.begin(), models.end(), "model") != models.end() ? "model" : models.front();
    if (models.size() > 1 && model != "model") throw AotError("the archive holds several programs; name one");
  } else if (std::find(models.begin(), models.end(), model) == models.end()) {
    std::string known;
    for (const std::string& name : models) known += (known.empty() ? "" : ", ") + name;
    throw AotError("the archive has no program '" + model + "' (it has: " + known + ")");
  }

  const std::string program_entry = "models/" + model + ".json";
  ProgramParts parts;
  try {
    parts = program_from_json(parse_entry(archive, program_entry));
  } catch (const AotError& error) {
    throw AotError(program_entry + ": " + error.what());
  }

  StateDict state_dict;
  read_payload(archive, "data/weights/" + model + "_weights_config.json", "data/weights/",
               [&](const std::string& name, Constant value) {
                 if (auto* tensor = std::get_if<HostTensor>(&value)) state_dict.emplace(name, std::move(*tensor));
                 else throw AotError("weight '" + name + "' is not a tensor");
               });
  ConstantMap constants;
  read_payload(archive, "data/constants/" + model + "_constants_config.json", "data/constants/",
               [&](const std::string& name, Constant value) { constants.emplace(name, std::move(value)); });
  for (const InputSpec& spec : parts.signature.input_specs) {
    if (spec.kind != InputKind::CustomObj) continue;
    auto it = constants.find(spec.target);
    if (it != constants.end()) {
      if (auto* object = std::get_if<CustomObject>(&it->second)) object->class_fqn = spec.arg.class_fqn;
    }
  }
  try {
    return ExportedProgram(std::move(parts.graph), std::move(parts.signature), std::move(state_dict),
                           std::move(parts.range_constraints), std::move(parts.module_call_graph), std::move(constants),
                           parts.dialect);
  } catch (const AotError& error) {
    throw AotError(program_entry + ": " + error.what());
  }
}

namespace {

// Runs `read` on the archive at `path`, its errors prefixed with the path.
template <typename Read>
auto with_archive(const std::string& path, Read&& read) {
  try {
    return read(ZipArchive::open(path));
  } catch (const AotError& error) {
    const std::string message = error.what();
    if (message.rfind(path, 0) == 0) throw;
    throw AotError(path + ": " + message);
  }
}

}  // namespace

ExportedProgram load_pt2(const std::string& path, const std::string& model) {
  return with_archive(path, [&](const ZipArchive& archive) { return read_pt2(archive, model); });
}

std::map<std::string, std::string> pt2_extra_files(const ZipArchive& archive) {
  const std::string prefix = "extra/";
  std::map<std::string, std::string> files;
  for (const std::string& entry : archive.entries()) {
    if (entry.size() > prefix.size() && entry.rfind(prefix, 0) == 0) {
      files.emplace(entry.substr(prefix.size()), archive.read_text(entry));
    }
  }
  return files;
}

std::map<std::string, std::string> load_pt2_extra_files(const std::string& path) {
  return with_archive(path, [](const ZipArchive& archive) { return pt2_extra_files(archive); });
}

}  // namespace kiln::aot
