// libFuzzer target for OneDnnBackend's runtime half on untrusted blobs (a
// .pte's delegate data): any bytes are refused by init with an error, or
// give a handle that executes on arguments shaped as the blob says and is
// destroyed; never a crash, a leak or a read outside the blob. Named data is
// served for every constant the blob names, zero-filled and sized as the
// blob's value says, so the fuzzer gets past weight loading into the graph
// builder. Built and run by `make fuzz`, replayed on its seeds
// (tests/fixtures/fuzz/seeds/onednn) by the sanitizer suite.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/onednn/runtime/blob_graph.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "runtime/core/evalue.h"
#include "runtime/core/log.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/tensor_impl.h"

namespace {

using namespace kiln::runtime;
namespace onednn = kiln::backends::onednn;

constexpr size_t kMaxBytes = size_t{64} << 20;  // named data and arguments, in all

// Refusals are expected by the thousand; KILN_FUZZ_LOG=1 keeps their lines.
void quiet_sink(LogLevel, const char*) {}

class ZeroNamedData final : public NamedDataMap {
 public:
  std::map<std::string, std::vector<uint8_t>> entries;
  Result<FreeableBuffer> get_data(const char* key) const override {
    const auto it = entries.find(key);
    if (it == entries.end()) return Error::NotFound;
    return FreeableBuffer(it->second.data(), it->second.size(), nullptr);
  }
  size_t get_num_keys() const override { return entries.size(); }
  Result<const char*> get_key(size_t index) const override {
    if (index >= entries.size()) return Error::InvalidArgument;
    auto it = entries.begin();
    std::advance(it, static_cast<long>(index));
    return it->first.c_str();
  }
};

// One float32 argument tensor shaped as a blob value.
struct Argument {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::vector<float> data;
  std::unique_ptr<TensorImpl> impl;
  EValue value;
};

// The blob's input and output values, as arguments; false when they are not
// a call the bytes could describe within the budget.
bool make_arguments(const onednn::BlobGraph& graph, std::vector<Argument>& arguments, size_t* budget) {
  arguments.resize(graph.num_inputs + graph.num_outputs);
  for (uint32_t v = 0; v < graph.graph->values()->size(); ++v) {
    const auto* value = graph.graph->values()->Get(v);
    if (value->kind() != kiln::onednn::ValueKind::Input && value->kind() != kiln::onednn::ValueKind::Output) continue;
    const uint32_t slot = value->kind() == kiln::onednn::ValueKind::Input ? value->index() : graph.num_inputs + value->index();
    if (slot >= arguments.size()) return false;
    const auto numel = static_cast<size_t>(onednn::numel_of(value));
    if (numel * sizeof(float) > *budget) return false;
    *budget -= numel * sizeof(float);
    Argument& a = arguments[slot];
    const uint32_t rank = onednn::rank_of(value);
    for (uint32_t d = 0; d < rank; ++d) {
      a.sizes.push_back(static_cast<SizesType>(value->sizes()->Get(d)));
      a.dim_order.push_back(static_cast<DimOrderType>(d));
    }
    a.strides.resize(rank);
    if (compute_strides({a.sizes.data(), rank}, {a.dim_order.data(), rank}, {a.strides.data(), rank}) != Error::Ok) {
      return false;
    }
    a.data.assign(numel, 0.5f);
    a.impl = std::make_unique<TensorImpl>(ScalarType::Float, static_cast<ssize_t>(rank), a.sizes.data(), a.data.data(),
                                          a.dim_order.data(), a.strides.data());
    a.value = EValue(Tensor(a.impl.get()));
  }
  return true;
}

void run(const uint8_t* bytes, size_t size) {
  // The blob's values, read by the runtime's own reader, give the named data
  // and the arguments; a blob it refuses goes to init as it is.
  std::vector<uint8_t> scratch_pool(size_t{1} << 20);
  MemoryAllocator scratch(static_cast<uint32_t>(scratch_pool.size()), scratch_pool.data());
  onednn::BlobGraph graph;
  const bool readable = onednn::read_blob_graph(bytes, size, "fuzz", &scratch, &graph) == Error::Ok;
  ZeroNamedData named_data;
  size_t budget = kMaxBytes;
  if (readable) {
    for (uint32_t v = 0; v < graph.graph->values()->size(); ++v) {
      const auto* value = graph.graph->values()->Get(v);
      if (value->kind() != kiln::onednn::ValueKind::Constant || value->constant_key() == nullptr) continue;
      const auto bytes_needed = static_cast<size_t>(onednn::numel_of(value)) * sizeof(float);
      if (bytes_needed > budget) return;
      budget -= bytes_needed;
      named_data.entries[value->constant_key()->str()].assign(bytes_needed, 0);
    }
  }
  std::vector<uint8_t> pool(size_t{64} << 20);
  MemoryAllocator allocator(static_cast<uint32_t>(pool.size()), pool.data());
  onednn::OneDnnBackendRuntime backend;
  FreeableBuffer processed(bytes, size, nullptr);
  BackendInitContext context(&allocator, "fuzz", &named_data);
  Result<DelegateHandle*> handle = backend.init(context, &processed, {});
  if (!handle.ok()) return;
  std::vector<Argument> arguments;
  if (readable && make_arguments(graph, arguments, &budget)) {
    std::vector<EValue*> args;
    for (Argument& a : arguments) args.push_back(&a.value);
    BackendExecutionContext execution(nullptr, "fuzz");
    (void)backend.execute(execution, *handle, Span<EValue*>(args.data(), args.size()));
  }
  backend.destroy(*handle);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool quiet = [] {
    if (std::getenv("KILN_FUZZ_LOG") == nullptr) set_log_sink(quiet_sink);
    return true;
  }();
  (void)quiet;
  // An exactly-sized heap copy, so AddressSanitizer sees a read past the end.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size == 0 ? 1 : size]);
  if (size > 0) std::memcpy(copy.get(), data, size);
  run(copy.get(), size);
  return 0;
}
