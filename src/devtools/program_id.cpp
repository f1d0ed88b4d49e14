#include "devtools/program_id.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "aot/ir/error.h"

namespace kiln::devtools {

nlohmann::json to_json(const ProgramId& id) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, id.fnv1a64);
  return {{"bytes", id.bytes}, {"fnv1a64", hex}};
}

ProgramId parse_program_id(const nlohmann::json& value, const std::string& label) {
  const auto* hex = value.is_object() && value.contains("fnv1a64") ? value["fnv1a64"].get_ptr<const std::string*>() : nullptr;
  const auto* bytes = value.is_object() && value.contains("bytes") ? value["bytes"].get_ptr<const uint64_t*>() : nullptr;
  char* end = nullptr;
  const uint64_t hash = hex != nullptr && hex->size() == 16 ? std::strtoull(hex->c_str(), &end, 16) : 0;
  if (bytes == nullptr || hex == nullptr || end != hex->c_str() + hex->size()) {
    throw aot::AotError(label + ": \"program\" must be {\"bytes\": N, \"fnv1a64\": \"16 hex digits\"}, got " +
                        value.dump());
  }
  return {*bytes, hash};
}

}  // namespace kiln::devtools
