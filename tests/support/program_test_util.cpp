#include "tests/support/program_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/pte_reader.h"
#include "aot/emit/to_executorch.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/testing/golden_fixtures.h"
#include "aot/ir/graph_builder.h"
#include "aot/passes/decompose.h"
#include "runtime/executor/pte_header.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"

namespace kiln::runtime::testing {

namespace fb = executorch_flatbuffer;

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

namespace {

// The files write_temp_file wrote, removed when the test process exits
// (ctest runs every test as a process of its own, and /tmp kept them all).
struct TempFiles {
  std::vector<std::string> paths;
  ~TempFiles() {
    for (const std::string& path : paths) ::unlink(path.c_str());
  }
};

}  // namespace

std::string write_temp_file(const std::vector<uint8_t>& bytes, const std::string& stem) {
  static int counter = 0;
  static TempFiles written;
  const std::string path = ::testing::TempDir() + "kiln_program_test_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++) + "_" + stem + ".pte";
  written.paths.push_back(path);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(file.good()) << "cannot write " << path;
  return path;
}

const char* to_string(LoaderKind kind) {
  switch (kind) {
    case LoaderKind::Buffer: return "Buffer";
    case LoaderKind::File: return "File";
    case LoaderKind::Mmap: return "Mmap";
  }
  return "?";
}

std::unique_ptr<DataLoader> make_loader(LoaderKind kind, const std::vector<uint8_t>& bytes) {
  if (kind == LoaderKind::Buffer) return std::make_unique<BufferDataLoader>(bytes.data(), bytes.size());
  const std::string path = write_temp_file(bytes, to_string(kind));
  std::unique_ptr<DataLoader> loader;
  if (kind == LoaderKind::File) {
    Result<FileDataLoader> file = FileDataLoader::from(path.c_str());
    if (file.ok()) loader = std::make_unique<FileDataLoader>(std::move(*file));
  } else {
    Result<MmapDataLoader> mapped = MmapDataLoader::from(path.c_str());
    if (mapped.ok()) loader = std::make_unique<MmapDataLoader>(std::move(*mapped));
  }
  // The open descriptor keeps the bytes readable.
  ::unlink(path.c_str());
  EXPECT_NE(loader, nullptr) << "cannot open " << path;
  return loader;
}

std::vector<uint8_t> repack(const std::vector<uint8_t>& bytes, const std::function<void(fb::ProgramT&)>& mutate) {
  const aot::pte::PteFile file = aot::pte::read_pte(bytes);
  fb::ProgramT program = *file.program;
  mutate(program);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::Program::Pack(builder, &program), fb::ProgramIdentifier());
  std::vector<uint8_t> out(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  if (!file.header) return out;
  // Insert the header after the first 8 bytes; the root offset moves with the tables.
  uint8_t header_bytes[pte::kHeaderLength] = {};
  out.insert(out.begin() + pte::kHeaderOffset, header_bytes, header_bytes + pte::kHeaderLength);
  pte::write_le(out.data(), pte::read_le(out.data(), 4) + pte::kHeaderLength, 4);
  pte::ExtendedHeader header;
  header.program_size = out.size();
  header.segment_base_offset = (out.size() + 127) / 128 * 128;
  header.segment_data_size = file.header->segment_data_size;
  pte::encode_header(header, out.data() + pte::kHeaderOffset);
  out.resize(header.segment_base_offset, 0);
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(file.header->segment_base_offset), bytes.end());
  return out;
}

const aot::ExecutorchProgram& kiln_program(const std::string& fixture, const std::string& file, bool delegate_whole) {
  static std::map<std::string, aot::ExecutorchProgram> cache;
  const std::string key = fixture + "/" + file + (delegate_whole ? "/whole" : "");
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  aot::ExportedProgram program = aot::load_pt2(aot::testing::kFixtures + fixture + "/" + file);
  if (program.dialect() == aot::kTrainingDialect) program = aot::transform(program, {aot::decompose_to_core_aten()});
  if (delegate_whole) program = aot::to_backend(program, aot::AllNodePartitioner(aot::testing::kAllOps));
  return cache.emplace(key, aot::to_executorch(program)).first->second;
}

std::vector<std::pair<std::string, std::string>> fixture_program_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& fixture : aot::testing::fixture_manifest().at("fixtures")) {
    for (const auto& [file, unused] : fixture.at("programs").items()) files.emplace_back(fixture.at("name"), file);
  }
  return files;
}

std::vector<uint8_t> demo_program_with_named_data() {
  aot::GraphBuilder b;
  aot::Node* x = b.input("x", aot::f32({2, 3}));
  aot::Node* w = b.parameter("w", aot::testing::ramp({2, 3}, -1.0f, 0.4f));
  aot::Node* y = b.call("aten::mul.Tensor", {b.call("aten::sin", {x}), w});
  b.output({b.call("aten::relu", {b.call("aten::add.Tensor", {y, 2.0})})});
  aot::ExportedProgram program = std::move(b).build();
  aot::generate_debug_handles(program);
  return aot::to_executorch(aot::to_backend(program, aot::CapabilityPartitioner("DemoBackend"))).buffer;
}

}  // namespace kiln::runtime::testing
