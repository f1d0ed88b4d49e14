// Which .pte a devtools file belongs to: its size and FNV-1a 64 hash, kept
// in the debug record and in a Kiln trace so that neither is read against
// another program.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

namespace kiln::devtools {

struct ProgramId {
  uint64_t bytes = 0;
  uint64_t fnv1a64 = 0;
  bool known() const { return bytes != 0; }
  bool operator==(const ProgramId&) const = default;
};

/// FNV-1a, 64 bits.
inline uint64_t fnv1a64(std::span<const uint8_t> bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const uint8_t byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
  return hash;
}

inline ProgramId program_id(std::span<const uint8_t> pte) { return {pte.size(), fnv1a64(pte)}; }

/// {"bytes": N, "fnv1a64": "16 hex digits"}, as the devtools' files hold it.
nlohmann::json to_json(const ProgramId& id);
/// Reads that object back; throws AotError naming `label` if it is not one.
ProgramId parse_program_id(const nlohmann::json& value, const std::string& label);

}  // namespace kiln::devtools
