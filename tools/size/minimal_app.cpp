// The smallest useful app on Kiln's runtime, built to measure the runtime's
// size (`make size`): it reads a .pte into a buffer, loads the program from
// that buffer, loads 'forward' into static memory pools and executes it once.
//
// Built three times (tools/size/CMakeLists.txt): kiln_size_minimal links the
// runtime core and executor only (no kernels: a real program then fails to
// load with OperatorMissing, which is fine for measuring), kiln_size_portable
// also every portable and prim kernel, kiln_size_mobilenet_v2 only the kernels
// MobileNetV2 calls (selective build); the kernels register themselves at
// start-up. The pools are static and zero-filled (no bytes in the file), large
// enough for MobileNetV2. Exit code 0 if the method ran.
#include <cstdint>
#include <cstdio>

#include "runtime/core/evalue.h"
#include "runtime/core/hierarchical_allocator.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"

namespace {

using namespace kiln::runtime;

alignas(16) uint8_t g_file[32 << 20];
alignas(16) uint8_t g_method_pool[1 << 20];
alignas(16) uint8_t g_planned_pool[32 << 20];
alignas(16) uint8_t g_temp_pool[1 << 20];

size_t read_file(const char* path) {
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return 0;
  const size_t size = std::fread(g_file, 1, sizeof g_file, file);
  std::fclose(file);
  return size;
}

int run(size_t size) {
  BufferDataLoader loader(g_file, size);
  Result<Program> program = Program::load(&loader, Program::Verification::InternalConsistency);
  if (!program.ok()) return 2;
  Result<MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok()) return 3;

  // The planned buffers, carved one after the other from the static pool.
  Span<uint8_t> spans[8];
  size_t count = meta->num_memory_planned_buffers();
  if (count > 8) return 4;
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    Result<int64_t> bytes = meta->memory_planned_buffer_size(i);
    if (!bytes.ok() || static_cast<uint64_t>(*bytes) > sizeof g_planned_pool - used) return 4;
    spans[i] = Span<uint8_t>(g_planned_pool + used, static_cast<size_t>(*bytes));
    used += (static_cast<size_t>(*bytes) + 15) & ~size_t{15};
  }
  HierarchicalAllocator planned({spans, count});
  MemoryAllocator method_allocator(sizeof g_method_pool, g_method_pool);
  MemoryAllocator temp_allocator(sizeof g_temp_pool, g_temp_pool);
  MemoryManager memory(&method_allocator, &planned, &temp_allocator);

  Result<Method> method = program->load_method("forward", &memory);
  if (!method.ok()) return 5;
  // Planned inputs: whatever the pool holds (zeros); this app measures size.
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    if (method->set_input(method->get_input(i), i) != Error::Ok) return 6;
  }
  return method->execute() == Error::Ok ? 0 : 7;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: minimal_app MODEL.pte\n", stderr);
    return 1;
  }
  const size_t size = read_file(argv[1]);
  if (size == 0) return 1;
  const int code = run(size);
  std::printf("%s\n", code == 0 ? "ok" : "failed");
  return code;
}
