#include "aot/pipeline/program_methods.h"

#include <fstream>
#include <sstream>

#include "aot/import/pt2_reader.h"
#include "aot/ir/error.h"

namespace kiln::aot {

namespace {

std::string read_text_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw AotError(path + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw AotError(path + ": cannot read");
  return text.str();
}

}  // namespace

ConstantMethods pt2_constant_methods(const std::string& path) {
  const std::map<std::string, std::string> extra = load_pt2_extra_files(path);
  const auto found = extra.find(kConstantMethodsExtraFile);
  if (found == extra.end()) return {};
  return parse_constant_methods(found->second, path + ": extra file " + kConstantMethodsExtraFile);
}

ProgramMethods read_program_methods(const ZipArchive& archive, const std::string& model) {
  ProgramMethods methods;
  methods.programs.emplace("forward", read_pt2(archive, model));
  const std::map<std::string, std::string> extra = pt2_extra_files(archive);
  const auto found = extra.find(kConstantMethodsExtraFile);
  if (found != extra.end()) {
    methods.constants =
        parse_constant_methods(found->second, archive.path() + ": extra file " + kConstantMethodsExtraFile);
  }
  return methods;
}

ProgramMethods load_program_methods(const MethodSources& sources) {
  ProgramMethods methods;
  methods.programs.emplace("forward", load_pt2(sources.path, sources.model));
  for (const auto& [name, path] : sources.programs) {
    if (name.empty()) throw AotError("a program method from " + path + " has an empty name");
    if (methods.programs.count(name)) {
      throw AotError(name == "forward" ? "'forward' is the main program's method; name the method from " + path +
                                             " otherwise"
                                       : "two program methods are named '" + name + "'");
    }
    methods.programs.emplace(name, load_pt2(path));
  }
  methods.constants = pt2_constant_methods(sources.path);
  if (!sources.constant_methods_path.empty()) {
    const std::string& path = sources.constant_methods_path;
    for (auto& [name, value] : parse_constant_methods(read_text_file(path), path)) {
      methods.constants.insert_or_assign(name, std::move(value));
    }
  }
  for (const auto& [name, value] : methods.constants) {
    if (methods.programs.count(name)) {
      throw AotError("constant method '" + name + "' has the name of a program method; method names must differ");
    }
  }
  return methods;
}

}  // namespace kiln::aot
