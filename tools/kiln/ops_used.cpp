// kiln ops --used MODEL.pte...: every operator of every method's operator
// table (what Method::load looks up in the kernel registry), the union over
// the files. Delegates run their own ops inside their blobs: those are no
// kernels, so a program run by delegates alone lists nothing, and its
// backends are named on stderr instead (they must be linked in).
#include "ops_used.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include "host/host_error.h"
#include "runtime/executor/program.h"
#include "runtime/loader/file_data_loader.h"

namespace kiln::cli {

namespace {

struct ProgramOps {
  std::set<std::string> operators;
  std::set<std::string> backends;
};

ProgramOps read_program_ops(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw HostError("cannot read " + path + ": it is a directory");
  runtime::Result<runtime::FileDataLoader> loader = runtime::FileDataLoader::from(path.c_str());
  if (!loader.ok()) {
    throw HostError("cannot read " + path + (loader.error() == runtime::Error::NotFound ? ": no such file" : "") + " (" +
                    runtime::to_string(loader.error()) + ")");
  }
  runtime::Result<runtime::Program> program =
      runtime::Program::load(&loader.get(), runtime::Program::Verification::InternalConsistency);
  if (!program.ok()) {
    throw HostError(path + " is not a .pte program Kiln's runtime can read (" +
                    runtime::to_string(program.error()) + "; the runtime's message above says what is wrong)");
  }
  ProgramOps ops;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    runtime::Result<const char*> method = program->get_method_name(m);
    if (!method.ok()) throw HostError(path + ": method " + std::to_string(m) + " has no readable name");
    runtime::Result<runtime::MethodMeta> meta = program->method_meta(*method);
    if (!meta.ok()) throw HostError(path + ": method '" + std::string(*method) + "' cannot be read");
    for (size_t i = 0; i < meta->num_operators(); ++i) {
      char name[256];
      if (meta->operator_name(i, name, sizeof name) != runtime::Error::Ok) {
        throw HostError(path + ": method '" + std::string(*method) + "' operator " + std::to_string(i) +
                        " has no readable name");
      }
      ops.operators.insert(name);
    }
    for (size_t i = 0; i < meta->num_backends(); ++i) {
      runtime::Result<const char*> backend = meta->get_backend_name(i);
      if (backend.ok()) ops.backends.insert(*backend);
    }
  }
  return ops;
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

int run_ops_used(const std::vector<std::string>& paths, const std::string& output_path) {
  std::set<std::string> operators;
  for (const std::string& path : paths) {
    const ProgramOps ops = read_program_ops(path);
    operators.insert(ops.operators.begin(), ops.operators.end());
    if (!ops.backends.empty()) {
      std::cerr << "kiln ops: note: " << path << " also calls delegates of " << joined(ops.backends)
                << ": link their backends into the runtime (their ops are not kernels, so not listed)\n";
    }
  }
  std::string text;
  for (const std::string& name : operators) text += name + "\n";
  if (output_path.empty()) {
    std::cout << text;
    return 0;
  }
  std::ofstream file(output_path, std::ios::binary);
  file << text;
  file.close();
  if (!file) throw HostError("cannot write the op list " + output_path);
  std::cerr << "kiln ops: wrote " << operators.size() << " operators to " << output_path << "\n";
  return 0;
}

}  // namespace kiln::cli
