#include "runtime/executor/test/program_test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/debug_handle.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/graph_builder.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"

namespace kiln::runtime::testing {

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

std::string write_temp_file(const std::vector<uint8_t>& bytes, const std::string& stem) {
  static int counter = 0;
  const std::string path = ::testing::TempDir() + "kiln_program_test_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++) + "_" + stem + ".pte";
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
