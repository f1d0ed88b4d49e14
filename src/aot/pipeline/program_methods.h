// Where the methods of a .pte come from when the programs are .pt2 files:
// what `kiln lower` reads, decided once here.
//   - the main program is the method 'forward';
//   - its archive's extra file kiln/constant_methods.json (torch.export.save(
//     ep, f, extra_files={"kiln/constant_methods.json": json.dumps({...})})),
//     if it has one, gives constant methods; a separate JSON file of the same
//     form (kiln lower --constant-methods) adds to them, its values replacing
//     the archive's where a name is in both;
//   - further program methods each come from a .pt2 of their own (kiln lower
//     --method NAME=FILE.pt2); only the program is read from those archives.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aot/import/zip_archive.h"
#include "aot/pipeline/lower.h"

namespace kiln::aot {

/// The name of the extra file in a .pt2 that holds its constant methods.
inline constexpr const char* kConstantMethodsExtraFile = "kiln/constant_methods.json";

struct MethodSources {
  /// The main program's .pt2, and the program to read from it (empty: the
  /// only one, or "model").
  std::string path;
  std::string model;
  /// Further program methods: (method name, .pt2 path), in any order.
  std::vector<std::pair<std::string, std::string>> programs;
  /// A JSON file of constant methods (name -> value); empty: none.
  std::string constant_methods_path;
};

/// The constant methods of the archive at `path` (from its extra file
/// kiln/constant_methods.json; none without one). Throws AotError naming the
/// path, the entry and what is wrong (parse_constant_methods).
ConstantMethods pt2_constant_methods(const std::string& path);

/// The program `model` of an archive (see read_pt2) as the method 'forward',
/// with the constant methods of its extra file: a .pt2 held in memory (the
/// Python package's torch.export.save to a buffer). Throws as load_pt2 does.
ProgramMethods read_program_methods(const ZipArchive& archive, const std::string& model = "");

/// Reads every program and the constant methods as the header says. Throws
/// AotError naming the file (and the key) for an unreadable or malformed file
/// or value, a program method named 'forward' or twice, an empty name, and a
/// constant method named as a program method.
ProgramMethods load_program_methods(const MethodSources& sources);

}  // namespace kiln::aot
