// Weights packed at lowering (aot/packing.h, runtime/packed_layout.h): the
// lowering stores each float32 weight in the layout this CPU's plan reads,
// init reads it in place, and a blob packed for another layout (another
// CPU) or another view of the value still computes the same numbers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/graph_builder.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/lowering.h"
#include "backends/onednn/aot/packing.h"
#include "backends/onednn/aot/weights.h"
#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/graph_builder.h"
#include "backends/onednn/runtime/packed_layout.h"
#include "backends/onednn/test/onednn_test_util.h"
#include "backends/onednn/test/runtime_test_util.h"
#include "runtime/core/log.h"
#include "runtime/core/test/log_capture.h"

namespace kiln::backends::onednn {
namespace {

using aot::ExportedProgram;
using aot::GraphBuilder;
using aot::Node;
using runtime::Error;
using testing::conv2d;
using testing::ints;
using testing::ramp;
using ::testing::HasSubstr;

// conv (8 -> 16 channels, 3x3, padding 1) + relu, a depthwise conv, the
// mean over the image and a linear to 5: weights read blocked, depthwise,
// transposed and plain.
ExportedProgram small_network() {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({1, 8, 6, 6}));
  Node* conv = conv2d(b, x, b.parameter("conv.weight", ramp({16, 8, 3, 3})), b.parameter("conv.bias", ramp({16}, 5)), 1, 1);
  Node* relu = b.call("aten::relu", {conv});
  Node* depthwise = conv2d(b, relu, b.parameter("dw.weight", ramp({16, 1, 3, 3}, 2)), b.parameter("dw.bias", ramp({16}, 3)),
                           1, 1, 1, 16);
  Node* mean = b.call("aten::mean.dim", {depthwise, ints({2, 3})});
  Node* t = b.call("aten::permute", {b.parameter("fc.weight", ramp({5, 16}, 4)), ints({1, 0})});
  b.output({b.call("aten::addmm", {b.parameter("fc.bias", ramp({5}, 1)), mean, t})});
  return std::move(b).build();
}

// The named data, each entry `misalignment` bytes past a 64-byte boundary.
class NamedData final : public runtime::NamedDataMap {
 public:
  NamedData(const aot::NamedDataStoreOutput& output, size_t misalignment) {
    for (const auto& [key, entry] : output.pte_data) {
      const std::vector<uint8_t>& bytes = output.buffers.at(entry.buffer_index);
      std::vector<uint8_t>& storage = storage_[key];
      storage.resize(bytes.size() + 64 + misalignment);
      const size_t start = (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + misalignment;
      std::memcpy(storage.data() + start, bytes.data(), bytes.size());
      entries_[key] = {storage.data() + start, bytes.size()};
    }
  }
  runtime::Result<runtime::FreeableBuffer> get_data(const char* key) const override {
    const auto it = entries_.find(key);
    if (it == entries_.end()) return runtime::Error::NotFound;
    return runtime::FreeableBuffer(it->second.first, it->second.second, nullptr);
  }
  size_t get_num_keys() const override { return entries_.size(); }
  runtime::Result<const char*> get_key(size_t index) const override {
    if (index >= entries_.size()) return runtime::Error::InvalidArgument;
    return std::next(entries_.begin(), static_cast<long>(index))->first.c_str();
  }
  /// Whether `p` points into one of the entries.
  bool holds(const void* p) const {
    for (const auto& [key, entry] : entries_) {
      const auto* bytes = static_cast<const uint8_t*>(p);
      if (bytes >= entry.first && bytes < entry.first + entry.second) return true;
    }
    return false;
  }

 private:
  std::map<std::string, std::vector<uint8_t>> storage_;
  std::map<std::string, std::pair<const uint8_t*, size_t>> entries_;
};

LoweredPartition lowered_copy(const LoweredPartition& lowered) {
  return {parse_onednn_blob(serialize_onednn_blob(*lowered.graph)), lowered.named_data, lowered.debug_handle_map};
}

// The outputs of one call of `lowered` on the runtime, and where its
// compiled graph reads its weights from.
struct Ran {
  std::vector<float> output;
  bool all_in_place = true;
  bool none_in_place = true;
  bool read_from_named_data = true;  ///< every weight read in place is read where the named data lies
  bool read_from_copies = true;      ///< every one is read from a copy on a 64-byte boundary
  size_t arena_bytes = 0;
};

Ran run(const LoweredPartition& lowered, Error* status = nullptr, size_t misalignment = 0) {
  const std::vector<uint8_t> blob = serialize_onednn_blob(*lowered.graph);
  const NamedData named(lowered.named_data, misalignment);
  testing::Runner runner;
  Ran ran;
  const Error init = runner.init(blob, &named);
  if (status != nullptr) *status = init;
  if (init != Error::Ok) return ran;
  const auto* compiled = static_cast<const CompiledGraph*>(runner.handle);
  ran.arena_bytes = compiled->arena_bytes;
  for (uint32_t i = 0; i < compiled->constant_uses.size; ++i) {
    const ConstantUse& use = compiled->constant_uses[i];
    ran.all_in_place = ran.all_in_place && use.in_place;
    ran.none_in_place = ran.none_in_place && !use.in_place;
    if (!use.in_place) continue;
    void* handle = nullptr;
    EXPECT_EQ(dnnl_memory_get_data_handle(compiled->memories[use.memory].memory, &handle), dnnl_success);
    EXPECT_EQ(handle, use.held.data());
    ran.read_from_named_data = ran.read_from_named_data && named.holds(handle);
    ran.read_from_copies = ran.read_from_copies && !named.holds(handle) && reinterpret_cast<uintptr_t>(handle) % 64 == 0;
  }
  testing::HostTensor x({1, 8, 6, 6}, testing::random_values(8 * 36, 7)), out({1, 5});
  EXPECT_EQ(runner.execute({&x, &out}), Error::Ok);
  ran.output = out.data;
  return ran;
}

// The float32 constant values of `lowered`'s graph.
std::vector<fb::ValueT*> weights(const LoweredPartition& lowered) {
  std::vector<fb::ValueT*> found;
  for (const auto& value : lowered.graph->values) {
    if (value->kind == fb::ValueKind::Constant && value->dtype == fb::DataType::Float32) found.push_back(value.get());
  }
  return found;
}

// `value` packed again, by hand, in `desc`'s layout over the view
// (`dims`, `plain_strides`) of its row-major elements.
void repack(LoweredPartition* lowered, fb::ValueT* value, const std::vector<int64_t>& dims,
            const std::vector<int64_t>& plain_strides, dnnl_format_tag_t tag) {
  const std::vector<uint8_t> row_major =
      value->packed != nullptr ? unpacked_bytes(*value->packed, lowered->named_data.get(value->constant_key))
                               : lowered->named_data.get(value->constant_key);
  MemoryDesc view, packed;
  ASSERT_EQ(dnnl_memory_desc_create_with_strides(view.out(), static_cast<int>(dims.size()), dims.data(), dnnl_f32,
                                                 plain_strides.data()),
            dnnl_success);
  ASSERT_EQ(dnnl_memory_desc_create_with_tag(packed.out(), static_cast<int>(dims.size()), dims.data(), dnnl_f32, tag),
            dnnl_success);
  Blocking blocking;
  ASSERT_TRUE(blocking_of(packed.get(), &blocking));
  std::vector<uint8_t> bytes(dnnl_memory_desc_get_size(packed.get()));
  ASSERT_EQ(reorder_bytes(shared_cpu_engine(), view.get(), row_major.data(), packed.get(), bytes.data()), dnnl_success);
  auto layout = std::make_unique<fb::PackedLayoutT>();
  layout->dims = dims;
  layout->plain_strides = plain_strides;
  layout->format_tag = blocking.format_tag;
  layout->strides.assign(blocking.strides, blocking.strides + blocking.ndims);
  layout->inner_blocks.assign(blocking.inner_blocks, blocking.inner_blocks + blocking.inner_nblks);
  layout->inner_indices.assign(blocking.inner_indices, blocking.inner_indices + blocking.inner_nblks);
  value->packed = std::move(layout);
  value->constant_key = "repacked_" + value->constant_key;
  aot::NamedDataStore store;
  for (const auto& [key, entry] : lowered->named_data.pte_data) {
    store.add_named_data(key, lowered->named_data.buffers.at(entry.buffer_index), entry.alignment);
  }
  store.add_named_data(value->constant_key, std::move(bytes), kWeightAlignment);
  lowered->named_data = store.get_named_data_store_output();
}

TEST(PackWeightsTest, EveryFloatWeightIsPackedAsThePlanReadsItAndReadInPlace) {
  const LoweredPartition plain = lower_partition(small_network());
  LoweredPartition packed = lowered_copy(plain);
  pack_weights(&packed);
  ASSERT_EQ(weights(packed).size(), 6u);
  ASSERT_EQ(weights(plain).size(), 6u);
  for (size_t w = 0; w < 6; ++w) {
    const fb::ValueT& value = *weights(packed)[w];
    ASSERT_NE(value.packed, nullptr) << "a weight of sizes " << ::testing::PrintToString(value.sizes);
    // Unpacked, the bytes are the weight as lowered.
    EXPECT_EQ(unpacked_bytes(*value.packed, packed.named_data.get(value.constant_key)),
              plain.named_data.get(weights(plain)[w]->constant_key));
  }
  // Only the packed entries remain.
  EXPECT_EQ(packed.named_data.pte_data.size(), weights(packed).size());

  const Ran unpacked_run = run(plain);
  const Ran packed_run = run(packed);
  EXPECT_TRUE(unpacked_run.none_in_place);
  EXPECT_TRUE(packed_run.all_in_place);
  EXPECT_TRUE(packed_run.read_from_named_data);
  EXPECT_LT(packed_run.arena_bytes, unpacked_run.arena_bytes);  // no copy of the weights
  EXPECT_EQ(packed_run.output, unpacked_run.output);

  // Named data off a 64-byte boundary (a caller's buffer) is copied onto one.
  const Ran misaligned = run(packed, nullptr, /*misalignment=*/4);
  EXPECT_TRUE(misaligned.all_in_place);
  EXPECT_TRUE(misaligned.read_from_copies);
  EXPECT_EQ(misaligned.output, unpacked_run.output);
}

// One weight read by two convolutions in the same layout is packed once
// and read in place by both.
TEST(PackWeightsTest, AWeightTwoOperationsReadAlikeIsPackedOnce) {
  GraphBuilder b;
  Node* x = b.input("x", aot::f32({1, 8, 6, 6}));
  Node* w = b.parameter("shared.weight", ramp({8, 8, 3, 3}));
  Node* first = b.call("aten::relu", {conv2d(b, x, w, aot::None{}, 1, 1)});
  b.output({conv2d(b, first, w, aot::None{}, 1, 1)});
  LoweredPartition lowered = lower_partition(std::move(b).build());
  const std::vector<uint8_t> row_major = lowered.named_data.get(weights(lowered).at(0)->constant_key);
  pack_weights(&lowered);
  ASSERT_EQ(weights(lowered).size(), 1u);
  const fb::ValueT& value = *weights(lowered)[0];
  ASSERT_NE(value.packed, nullptr);
  EXPECT_EQ(unpacked_bytes(*value.packed, lowered.named_data.get(value.constant_key)), row_major);
  EXPECT_EQ(lowered.named_data.pte_data.size(), 1u);
}

// As on a CPU whose kernels read another layout: init reorders from the
// packed bytes into its own.
TEST(PackWeightsTest, WeightsPackedInAnotherLayoutAreReorderedFromIt) {
  const LoweredPartition plain = lower_partition(small_network());
  LoweredPartition packed = lowered_copy(plain);
  pack_weights(&packed);
  for (fb::ValueT* value : weights(packed)) {
    if (value->sizes == std::vector<int64_t>{16, 8, 3, 3}) {
      // Output channels in blocks of 4: no x86 kernel's choice.
      repack(&packed, value, {16, 8, 3, 3}, {72, 9, 3, 1}, dnnl_Abcd4a);
    }
  }
  const Ran ran = run(packed);
  EXPECT_FALSE(ran.all_in_place);
  EXPECT_EQ(ran.output, run(plain).output);
}

// Packed for another view of the value than the use reads (a 2-D view of
// the convolution's weights): init unpacks them to row-major first.
TEST(PackWeightsTest, WeightsPackedForAnotherViewAreUnpackedFirst) {
  const LoweredPartition plain = lower_partition(small_network());
  LoweredPartition packed = lowered_copy(plain);
  pack_weights(&packed);
  for (fb::ValueT* value : weights(packed)) {
    if (value->sizes == std::vector<int64_t>{16, 8, 3, 3}) repack(&packed, value, {16, 72}, {72, 1}, dnnl_ba);
  }
  const Ran ran = run(packed);
  EXPECT_FALSE(ran.all_in_place);
  EXPECT_EQ(ran.output, run(plain).output);
}

TEST(PackWeightsTest, APackedLayoutThatDoesNotFitItsValueIsRefusedWithTheReason) {
  LoweredPartition packed = lower_partition(small_network());
  pack_weights(&packed);
  fb::ValueT* conv_weight = nullptr;
  for (fb::ValueT* value : weights(packed)) {
    if (value->sizes == std::vector<int64_t>{16, 8, 3, 3}) conv_weight = value;
  }
  ASSERT_NE(conv_weight, nullptr);
  ASSERT_NE(conv_weight->packed, nullptr);
  const auto expect_refused = [&](const std::string& reason) {
    runtime::testing::LogCapture log;
    Error status = Error::Ok;
    run(packed, &status);
    EXPECT_EQ(status, Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr(reason));
  };
  const fb::PackedLayoutT good = *conv_weight->packed;
  conv_weight->packed->dims = {16, 8, 3, 2};
  expect_refused("packed layout has 768 elements; the value has 1152");
  *conv_weight->packed = good;
  conv_weight->packed->inner_blocks = {7};
  conv_weight->packed->inner_indices = {0};
  expect_refused("is packed in a layout this oneDNN has no format for");
  *conv_weight->packed = good;
  conv_weight->packed->inner_indices.assign(good.inner_blocks.size(), 9);
  if (!good.inner_blocks.empty()) expect_refused("packed layout blocks dimension 9 of 4");
}

// A blob from before packing (version 1) has no packed values and still loads.
TEST(PackWeightsTest, AVersionOneBlobStillLoads) {
  const LoweredPartition plain = lower_partition(small_network());
  std::vector<uint8_t> blob = serialize_onednn_blob(*plain.graph);
  write_u32_le(blob.data() + 4, 1);
  const NamedData named(plain.named_data, 0);
  testing::Runner runner;
  EXPECT_EQ(runner.init(blob, &named), Error::Ok);
}

}  // namespace
}  // namespace kiln::backends::onednn
