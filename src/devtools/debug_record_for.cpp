#include "devtools/debug_record_for.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aot/ir/error.h"

namespace kiln::devtools {

DebugRecord parse_debug_record_for(const std::string& text, const std::string& label, std::span<const uint8_t> pte,
                                   const std::string& pte_label) {
  DebugRecord record = parse_debug_record(text, label);
  record.check_matches(pte, pte_label);
  return record;
}

DebugRecord read_debug_record_for(const std::string& record_path, const std::string& pte_path) {
  DebugRecord record = read_debug_record(record_path);
  std::ifstream file(pte_path, std::ios::binary);
  if (!file) throw aot::AotError("cannot open the program " + pte_path + " (" + std::strerror(errno) + ")");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  const std::string pte = bytes.str();
  record.check_matches({reinterpret_cast<const uint8_t*>(pte.data()), pte.size()}, pte_path);
  return record;
}

}  // namespace kiln::devtools
