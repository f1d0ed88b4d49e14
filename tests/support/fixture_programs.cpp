// The programs of fixture_programs.h: ExecuTorch's .pte files read from disk,
// Kiln's lowered from the .pt2 fixtures the way `kiln lower` does.
#include "tests/support/fixture_programs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/passes/decompose.h"
#include "tests/support/program_test_util.h"

namespace kiln::runtime::testing {

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file.good()) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

std::vector<uint8_t> lower(const FixtureProgram& p) {
  aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + p.fixture + "/" + p.file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  if (p.source == ProgramSource::KilnDemoBackend) {
    program = aot::to_backend(program, aot::CapabilityPartitioner("DemoBackend"));
  } else if (p.source == ProgramSource::KilnEveryOther) {
    program = aot::to_backend(program, aot::CapabilityPartitioner(aot::testing::kEveryOther));
  }
  return aot::to_executorch(program).buffer;
}

const char* prefix(ProgramSource source) {
  switch (source) {
    case ProgramSource::ExecuTorch: return "executorch";
    case ProgramSource::Kiln: return "kiln";
    case ProgramSource::KilnDemoBackend: return "kiln_demo";
    case ProgramSource::KilnEveryOther: return "kiln_every_other";
  }
  return "?";
}

}  // namespace

std::string describe(const FixtureProgram& program) {
  return std::string(prefix(program.source)) + "/" + program.fixture + "/" + program.file;
}

std::string test_name(const FixtureProgram& program) {
  std::string name = describe(program);
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

std::vector<FixtureProgram> fixture_programs(const std::vector<ProgramSource>& sources) {
  std::vector<FixtureProgram> programs;
  for (ProgramSource source : sources) {
    if (source == ProgramSource::ExecuTorch) {
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::directory_iterator(kPteFixtures)) {
        if (entry.path().extension() == ".pte") files.push_back(entry.path().filename().string());
      }
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) programs.push_back({source, file.substr(0, file.size() - 4), file});
      continue;
    }
    for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
      for (const auto& [file, unused] : fixture.at("programs").items()) {
        programs.push_back({source, fixture.at("name").get<std::string>(), file});
      }
    }
  }
  return programs;
}

const std::vector<uint8_t>& program_bytes(const FixtureProgram& program) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  const std::string key = describe(program);
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<uint8_t> bytes =
        program.source == ProgramSource::ExecuTorch ? read_file(kPteFixtures + program.file) : lower(program);
    it = cache.emplace(key, std::move(bytes)).first;
  }
  return it->second;
}

}  // namespace kiln::runtime::testing
