// libFuzzer target for the runtime's handling of untrusted .pte files: any
// bytes go through Program::load (InternalConsistency), the first method's
// MethodMeta, Method::load into caller memory, inputs of ones and one
// execute. Every step may refuse the input with an Error; none may crash,
// leak, hang or touch memory outside what it was given.
//
// Memory as an app would give it: the planned buffers from the heap, each
// exactly sized (skipped when they total more than kMaxPlannedBytes, which a
// fuzzed size easily asks for), a method allocator and a temp allocator of
// fixed sizes, also exactly-sized heap blocks. The input is copied to an
// exactly-sized heap block so AddressSanitizer sees any read past its end.
// Kernels and DemoBackend register themselves at start-up (linked whole).
//
// Built and run by `make fuzz` (clang, libFuzzer, ASan + UBSan), seeded with
// tests/fixtures/pte/*.pte and the .pte files Kiln writes for the fixtures.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/core/evalue.h"
#include "runtime/core/log.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/robustness_util.h"
#include "runtime/loader/buffer_data_loader.h"

namespace {

using namespace kiln::runtime;

constexpr size_t kMaxPlannedBytes = 64u << 20;
constexpr size_t kMaxInputBytes = 16u << 20;
constexpr uint32_t kMethodAllocatorBytes = 4u << 20;
constexpr uint32_t kTempAllocatorBytes = 1u << 20;

// Refusals are expected by the thousand; their log lines would only slow the
// fuzzer down. KILN_FUZZ_LOG=1 keeps them (for reproducing one input).
void quiet_sink(LogLevel, const char*) {}

bool set_up() {
  if (std::getenv("KILN_FUZZ_LOG") == nullptr) set_log_sink(quiet_sink);
  return true;
}

void touch(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  volatile unsigned sum = 0;
  for (size_t i = 0; i < size; ++i) sum = sum + bytes[i];
}

// Reads every output tensor's bytes, as an app copying its results would.
void read_outputs(const Method& method) {
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& output = method.get_output(i);
    if (!output.isTensor()) continue;
    const Tensor tensor = output.toTensor();
    if (tensor.const_data_ptr() != nullptr) touch(tensor.const_data_ptr(), tensor.nbytes());
  }
}

void run_first_method(const Program& program) {
  if (program.num_methods() == 0) return;
  const Result<const char*> name = program.get_method_name(0);
  if (!name.ok()) return;
  const Result<MethodMeta> meta = program.method_meta(name.get());
  if (!meta.ok()) return;
  testing::PlannedArenas planned;
  if (!planned.allocate(meta.get(), kMaxPlannedBytes)) return;
  testing::OnesInputs inputs;
  if (!inputs.build(meta.get(), kMaxInputBytes)) return;

  testing::HeapAllocator method_allocator(kMethodAllocatorBytes);
  testing::HeapAllocator temp_allocator(kTempAllocatorBytes);
  MemoryManager memory(&method_allocator, planned.allocator(), &temp_allocator);
  Result<Method> method = program.load_method(name.get(), &memory);
  if (!method.ok()) return;
  if (inputs.set(method.get()) != Error::Ok) return;
  if (method.get().execute() != Error::Ok) return;
  read_outputs(method.get());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = set_up();
  (void)ready;
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size == 0 ? 1 : size]);
  if (size > 0) std::memcpy(copy.get(), data, size);
  BufferDataLoader loader(copy.get(), size);
  Result<Program> program = Program::load(&loader, Program::Verification::InternalConsistency);
  if (program.ok()) run_first_method(program.get());
  return 0;
}
