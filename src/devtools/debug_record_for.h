// A debug record read for one .pte: parsed, then checked against the
// program's bytes (their size and FNV-1a hash), so that neither `kiln
// profile`, `kiln compare` nor the Python package ever attributes a run
// through another program's record.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "devtools/debug_record.h"

namespace kiln::devtools {

/// The record in `text` (JSON; `label` names it in messages), checked to
/// describe the .pte `pte` (`pte_label` names it). Throws AotError naming
/// what is wrong: not a record, a version this build does not read, or
/// written for another program.
DebugRecord parse_debug_record_for(const std::string& text, const std::string& label, std::span<const uint8_t> pte,
                                   const std::string& pte_label);

/// The record at `record_path`, checked to describe the .pte at `pte_path`;
/// throws AotError as above, or naming the file that cannot be read.
DebugRecord read_debug_record_for(const std::string& record_path, const std::string& pte_path);

}  // namespace kiln::devtools
