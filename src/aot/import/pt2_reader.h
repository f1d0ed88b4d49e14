// Reading .pt2 files, as torch.export.save writes them (torch >= 2.9): a zip
// of stored, 64-byte aligned entries holding models/<name>.json (the program),
// raw weight and constant files, and the JSON configs that describe them.
// Weights are memory-mapped, never copied.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aot/import/zip_archive.h"
#include "aot/ir/exported_program.h"

namespace kiln::aot {

/// The names of the programs in an archive ("model" for torch.export.save).
std::vector<std::string> pt2_model_names(const ZipArchive& archive);

/// Reads program `model` of `archive` (empty: the only program, or "model").
/// Throws AotError naming the entry, node or field that is wrong.
ExportedProgram read_pt2(const ZipArchive& archive, const std::string& model = "");

/// Opens `path` and reads its program (see read_pt2).
ExportedProgram load_pt2(const std::string& path, const std::string& model = "");

/// The archive's extra files, which torch.export.save(ep, f, extra_files=
/// {name: text}) stores under extra/: name -> contents
/// ("kiln/constant_methods.json" -> its JSON).
std::map<std::string, std::string> pt2_extra_files(const ZipArchive& archive);

/// Opens `path` and reads its extra files (see pt2_extra_files); errors name the path.
std::map<std::string, std::string> load_pt2_extra_files(const std::string& path);

}  // namespace kiln::aot
