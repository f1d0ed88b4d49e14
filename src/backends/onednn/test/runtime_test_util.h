// Test helpers for the oneDNN runtime: blobs written by hand with the
// flatbuffers builder (BlobBuilder: values, operations, and constants kept
// as the named data a program would hold), runtime tensors over host
// vectors, and a Runner that calls the backend as Method would.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/onednn/onednn_blob.h"
#include "backends/onednn/onednn_graph_generated.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/tensor_impl.h"

namespace kiln::backends::onednn::testing {

namespace fb = ::kiln::onednn;
using Sizes = std::vector<int64_t>;

inline int64_t numel(const Sizes& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

/// Deterministic values in [lo, hi).
inline std::vector<float> random_values(int64_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

/// The program's named data: float32 constants by key; counts the buffers
/// handed out and not yet freed.
class TestNamedData final : public runtime::NamedDataMap {
 public:
  void put(const std::string& key, std::vector<float> values) { data_[key] = std::move(values); }
  runtime::Result<runtime::FreeableBuffer> get_data(const char* key) const override {
    const auto it = data_.find(key);
    if (it == data_.end()) return runtime::Error::NotFound;
    ++outstanding_;
    return runtime::FreeableBuffer(it->second.data(), it->second.size() * sizeof(float) + size_change_,
                                   [](void* context, void*, size_t) { --*static_cast<int*>(context); },
                                   &outstanding_);
  }
  size_t get_num_keys() const override { return data_.size(); }
  runtime::Result<const char*> get_key(size_t index) const override {
    if (index >= data_.size()) return runtime::Error::InvalidArgument;
    return std::next(data_.begin(), static_cast<long>(index))->first.c_str();
  }
  int outstanding() const { return outstanding_; }
  /// Added to every buffer's size (a mis-sized constant).
  void set_size_change(long change) { size_change_ = static_cast<size_t>(change); }

 private:
  std::map<std::string, std::vector<float>> data_;
  mutable int outstanding_ = 0;
  size_t size_change_ = 0;
};

/// Writes a blob: header + Graph flatbuffer.
class BlobBuilder {
 public:
  flatbuffers::FlatBufferBuilder fbb;
  TestNamedData named_data;

  int input(const Sizes& sizes) { return add_value(sizes, fb::ValueKind::Input, num_inputs_++, ""); }
  int output(const Sizes& sizes) { return add_value(sizes, fb::ValueKind::Output, num_outputs_++, ""); }
  int intermediate(const Sizes& sizes) { return add_value(sizes, fb::ValueKind::Intermediate, 0, ""); }
  /// An intermediate held quantized (UInt8 or Int8) by `scale` and `zero_point`.
  int quantized(const Sizes& sizes, fb::DataType dtype, float scale, int32_t zero_point) {
    values_.push_back(fb::CreateValueDirect(fbb, &sizes, fb::ValueKind::Intermediate, 0, nullptr, dtype, scale,
                                            zero_point));
    return static_cast<int>(values_.size() - 1);
  }
  int constant(const Sizes& sizes, std::vector<float> data) {
    const std::string key = "const_" + std::to_string(values_.size());
    named_data.put(key, std::move(data));
    return add_value(sizes, fb::ValueKind::Constant, 0, key);
  }

  flatbuffers::Offset<fb::PostOp> eltwise_post(fb::EltwiseAlgorithm alg, float alpha = 0, float beta = 0) {
    auto e = fb::CreateEltwise(fbb, alg, alpha, beta);
    return fb::CreatePostOp(fbb, fb::PostOpKind::Eltwise, e.Union());
  }
  flatbuffers::Offset<fb::PostOp> binary_post(fb::BinaryAlgorithm alg, int input) {
    auto b = fb::CreateBinaryPostOp(fbb, alg, input);
    return fb::CreatePostOp(fbb, fb::PostOpKind::BinaryPostOp, b.Union());
  }
  flatbuffers::Offset<flatbuffers::Vector<int64_t>> longs(const Sizes& v) { return fbb.CreateVector(v); }

  void op(fb::OperationKind kind, flatbuffers::Offset<void> table, const std::vector<int32_t>& inputs, int output,
          const std::vector<flatbuffers::Offset<fb::PostOp>>& post_ops = {}, const std::string& name = "") {
    const std::string op_name = name.empty() ? std::string(fb::EnumNameOperationKind(kind)) + "_" +
                                                   std::to_string(operations_.size())
                                             : name;
    const std::vector<int32_t> outputs{output};
    operations_.push_back(fb::CreateOperationDirect(fbb, kind, table, &inputs, &outputs,
                                                    post_ops.empty() ? nullptr : &post_ops, 0, op_name.c_str()));
  }

  /// The blob: header then the flatbuffer.
  std::vector<uint8_t> finish() {
    std::vector<flatbuffers::Offset<fb::Operation>> ops;
    for (size_t i = 0; i < operations_.size(); ++i) ops.push_back(operations_[i]);
    auto graph = fb::CreateGraphDirect(fbb, &values_, &ops);
    fb::FinishGraphBuffer(fbb, graph);
    std::vector<uint8_t> blob(kBlobHeaderSize + fbb.GetSize());
    write_blob_header(blob.data(), fbb.GetSize());
    std::memcpy(blob.data() + kBlobHeaderSize, fbb.GetBufferPointer(), fbb.GetSize());
    return blob;
  }

 private:
  int add_value(const Sizes& sizes, fb::ValueKind kind, uint32_t index, const std::string& key) {
    values_.push_back(fb::CreateValueDirect(fbb, &sizes, kind, index, key.empty() ? nullptr : key.c_str()));
    return static_cast<int>(values_.size() - 1);
  }

  std::vector<flatbuffers::Offset<fb::Value>> values_;
  std::vector<flatbuffers::Offset<fb::Operation>> operations_;
  uint32_t num_inputs_ = 0, num_outputs_ = 0;
};

/// A contiguous runtime tensor over its own storage.
struct HostTensor {
  HostTensor(const Sizes& shape, std::vector<float> values, runtime::ScalarType type = runtime::ScalarType::Float)
      : data(std::move(values)) {
    for (int64_t s : shape) sizes.push_back(static_cast<runtime::SizesType>(s));
    strides.resize(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) dim_order.push_back(static_cast<runtime::DimOrderType>(i));
    for (size_t i = sizes.size(); i-- > 0;) {
      strides[i] = i + 1 == sizes.size() ? 1 : strides[i + 1] * sizes[i + 1];
    }
    impl = std::make_unique<runtime::TensorImpl>(type, static_cast<ssize_t>(sizes.size()), sizes.data(), data.data(),
                                                 dim_order.data(), strides.data());
    value = runtime::EValue(runtime::Tensor(impl.get()));
  }
  explicit HostTensor(const Sizes& shape) : HostTensor(shape, std::vector<float>(static_cast<size_t>(numel(shape)), -7.f)) {}
  std::vector<float> data;
  std::vector<runtime::SizesType> sizes;
  std::vector<runtime::DimOrderType> dim_order;
  std::vector<runtime::StridesType> strides;
  std::unique_ptr<runtime::TensorImpl> impl;
  runtime::EValue value;
};

/// The backend called as Method calls it, with a method allocator of its own.
struct Runner {
  explicit Runner(size_t arena_bytes = size_t{64} << 20)
      : arena(new uint8_t[arena_bytes]), allocator(static_cast<uint32_t>(arena_bytes), arena.get()) {}
  ~Runner() {
    if (handle != nullptr) backend.destroy(handle);
  }

  runtime::Error init(const std::vector<uint8_t>& blob, const runtime::NamedDataMap* named_data) {
    processed = runtime::FreeableBuffer(blob.data(), blob.size(), nullptr);
    runtime::BackendInitContext context(&allocator, "forward", named_data);
    runtime::Result<runtime::DelegateHandle*> result = backend.init(context, &processed, {});
    if (!result.ok()) return result.error();
    handle = *result;
    return runtime::Error::Ok;
  }

  runtime::Error execute(const std::vector<HostTensor*>& arguments) {
    std::vector<runtime::EValue*> args;
    for (HostTensor* t : arguments) args.push_back(&t->value);
    return execute(args);
  }
  /// With the argument list prepared (this call itself allocates nothing).
  runtime::Error execute(std::vector<runtime::EValue*>& args) {
    runtime::BackendExecutionContext context(nullptr, "forward");
    return backend.execute(context, handle, runtime::Span<runtime::EValue*>(args.data(), args.size()));
  }

  std::unique_ptr<uint8_t[]> arena;
  runtime::MemoryAllocator allocator;
  OneDnnBackendRuntime backend;
  runtime::FreeableBuffer processed;
  runtime::DelegateHandle* handle = nullptr;
};

/// Expects `got` within `tolerance` (absolute + relative) of `want`.
inline void expect_near_all(const std::vector<float>& got, const std::vector<float>& want, float tolerance = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float bound = tolerance * (1.0f + std::abs(want[i]));
    if (!(std::abs(got[i] - want[i]) <= bound) && reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(reported, 0) << "elements out of tolerance";
}

}  // namespace kiln::backends::onednn::testing
