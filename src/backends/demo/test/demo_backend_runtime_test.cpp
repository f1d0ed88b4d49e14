// DemoBackend's runtime half, called directly as Method would call it: a blob
// the AOT side wrote runs with its constants from named data and gives what
// the host runner gives; a refused blob, missing or mis-sized named data, a
// full method allocator and bad arguments each give their error and a log
// line naming what was wrong, and nothing fetched from named data leaks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/runtime/demo_backend_runtime.h"
#include "backends/demo/test/demo_test_programs.h"
#include "runtime/backend/test/backend_test_util.h"

namespace kiln::backends::demo {
namespace {

using aot::HostTensor;
using runtime::BackendExecutionContext;
using runtime::BackendInitContext;
using runtime::DelegateHandle;
using runtime::Error;
using runtime::EValue;
using runtime::FreeableBuffer;
using runtime::MemoryAllocator;
using runtime::Result;
using runtime::testing::LogCapture;
using ::testing::HasSubstr;
using testing::ramp;

aot::LoweredBackendModule lowered_elementwise() {
  return aot::to_backend("DemoBackend", testing::elementwise_program(), {});
}

// The named data of a lowered module, counting the buffers handed out and
// not yet freed. `size_change` is added to every buffer's size.
class StoreNamedData final : public runtime::NamedDataMap {
 public:
  explicit StoreNamedData(const aot::NamedDataStoreOutput& store, long size_change = 0)
      : store_(store), size_change_(size_change) {}

  Result<FreeableBuffer> get_data(const char* key) const override {
    const auto it = store_.pte_data.find(key);
    if (it == store_.pte_data.end()) return Error::NotFound;
    const std::vector<uint8_t>& bytes = store_.buffers.at(it->second.buffer_index);
    ++outstanding_;
    return FreeableBuffer(bytes.data(), static_cast<size_t>(static_cast<long>(bytes.size()) + size_change_),
                          [](void* context, void*, size_t) { --*static_cast<int*>(context); }, &outstanding_);
  }
  size_t get_num_keys() const override { return store_.pte_data.size(); }
  Result<const char*> get_key(size_t index) const override {
    if (index >= store_.pte_data.size()) return Error::InvalidArgument;
    return std::next(store_.pte_data.begin(), static_cast<long>(index))->first.c_str();
  }
  int outstanding() const { return outstanding_; }

 private:
  const aot::NamedDataStoreOutput& store_;
  long size_change_;
  mutable int outstanding_ = 0;
};

// A 1-D float32 runtime tensor over its own storage.
struct FloatTensor {
  explicit FloatTensor(std::vector<float> values, runtime::ScalarType type = runtime::ScalarType::Float)
      : data(std::move(values)),
        size(static_cast<runtime::SizesType>(data.size())),
        impl(type, 1, &size, data.data(), &dim_order, &stride),
        value(runtime::Tensor(&impl)) {}
  std::vector<float> data;
  runtime::SizesType size;
  runtime::DimOrderType dim_order = 0;
  runtime::StridesType stride = 1;
  runtime::TensorImpl impl;
  EValue value;
};

std::vector<float> values_of(const HostTensor& t) {
  const HostTensor dense = t.clone();
  return std::vector<float>(dense.data<float>(), dense.data<float>() + dense.numel());
}

struct Fixture {
  aot::LoweredBackendModule module = lowered_elementwise();
  std::vector<uint8_t> arena = std::vector<uint8_t>(4096);
  MemoryAllocator allocator{static_cast<uint32_t>(arena.size()), arena.data()};
  DemoBackendRuntime backend;

  Result<DelegateHandle*> init(const runtime::NamedDataMap* named_data, MemoryAllocator* method_allocator = nullptr) {
    processed = FreeableBuffer(module.processed_bytes().data(), module.processed_bytes().size(), nullptr);
    BackendInitContext context(method_allocator != nullptr ? method_allocator : &allocator, "forward", named_data);
    return backend.init(context, &processed, {});
  }
  FreeableBuffer processed;
};

TEST(DemoBackendRuntimeTest, RunsTheBlobWithItsConstantsFromNamedData) {
  Fixture f;
  StoreNamedData named_data(f.module.named_data_store_output());
  Result<DelegateHandle*> handle = f.init(&named_data);
  ASSERT_TRUE(handle.ok()) << runtime::to_string(handle.error());
  EXPECT_EQ(named_data.outstanding(), 1);  // "w", held until destroy

  const HostTensor x = ramp({2, 3}, -1.5f, 0.7f);
  const auto expected = run_demo_blob(f.module.processed_bytes(), f.module.named_data_store_output(), {x});
  FloatTensor input(values_of(x));
  FloatTensor out0(std::vector<float>(6, -99.0f));
  FloatTensor out1(std::vector<float>(6, -99.0f));
  EValue* args[] = {&input.value, &out0.value, &out1.value};
  BackendExecutionContext context(nullptr, "forward");
  // Twice: the second call sees the same constants and fresh inputs.
  for (int call = 0; call < 2; ++call) {
    ASSERT_EQ(f.backend.execute(context, *handle, args), Error::Ok);
    EXPECT_EQ(out0.data, values_of(expected[0]));
    EXPECT_EQ(out1.data, values_of(expected[1]));
  }
  // And against a direct computation of the first output.
  for (size_t i = 0; i < 6; ++i) {
    const double xi = input.data[i], w = -1.0 + 0.4 * static_cast<double>(i);
    EXPECT_NEAR(out0.data[i], std::max(0.0, std::sin(xi) * w + 2.0) - 2.0 * xi / 4.0, 1e-5) << i;
  }
  f.backend.destroy(*handle);
  EXPECT_EQ(named_data.outstanding(), 0);
}

TEST(DemoBackendRuntimeTest, RefusesABlobItCannotParseWithTheParsersReason) {
  Fixture f;
  StoreNamedData named_data(f.module.named_data_store_output());
  std::vector<uint8_t> bad = f.module.processed_bytes();
  bad[0] = 'X';
  FreeableBuffer processed(bad.data(), bad.size(), nullptr);
  BackendInitContext context(&f.allocator, "forward", &named_data);
  LogCapture log;
  EXPECT_EQ(f.backend.init(context, &processed, {}).error(), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("DemoBackend: refusing the blob of method 'forward'"));
  EXPECT_THAT(log.text(), HasSubstr("demo blob: bad magic (expected KDM1)"));
  FreeableBuffer empty;
  EXPECT_EQ(f.backend.init(context, &empty, {}).error(), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(f.backend.init(context, nullptr, {}).error(), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(f.allocator.used_size(), 0u);
}

// Every blob with one byte changed (to 0, 1, 0x7f or 0xff) either fails
// init or execute, with a log line of DemoBackend's saying why, or computes
// what the blob computed before: none computes something else silently.
TEST(DemoBackendRuntimeTest, EveryOneByteCorruptionIsRefusedOrChangesNothing) {
  Fixture f;
  StoreNamedData named_data(f.module.named_data_store_output());
  const HostTensor x = ramp({2, 3}, -1.5f, 0.7f);
  const auto expected = run_demo_blob(f.module.processed_bytes(), f.module.named_data_store_output(), {x});
  const std::vector<uint8_t>& blob = f.module.processed_bytes();
  size_t refused = 0;
  for (size_t at = 0; at < blob.size(); ++at) {
    for (const uint8_t value : {uint8_t{0}, uint8_t{1}, uint8_t{0x7f}, uint8_t{0xff}}) {
      if (blob[at] == value) continue;
      SCOPED_TRACE("byte " + std::to_string(at) + " set to " + std::to_string(value));
      std::vector<uint8_t> bad = blob;
      bad[at] = value;
      FreeableBuffer processed(bad.data(), bad.size(), nullptr);
      MemoryAllocator allocator(static_cast<uint32_t>(f.arena.size()), f.arena.data());
      BackendInitContext init_context(&allocator, "forward", &named_data);
      LogCapture log;
      Result<DelegateHandle*> handle = f.backend.init(init_context, &processed, {});
      if (!handle.ok()) {
        EXPECT_THAT(log.text(), HasSubstr("DemoBackend: "));
        ++refused;
        continue;
      }
      FloatTensor input(values_of(x));
      FloatTensor out0(std::vector<float>(6, -99.0f));
      FloatTensor out1(std::vector<float>(6, -99.0f));
      EValue* args[] = {&input.value, &out0.value, &out1.value};
      BackendExecutionContext context(nullptr, "forward");
      const Error error = f.backend.execute(context, *handle, args);
      f.backend.destroy(*handle);
      if (error != Error::Ok) {
        EXPECT_THAT(log.text(), HasSubstr("DemoBackend: "));
        ++refused;
        continue;
      }
      EXPECT_EQ(out0.data, values_of(expected[0]));
      EXPECT_EQ(out1.data, values_of(expected[1]));
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_EQ(named_data.outstanding(), 0);
}

TEST(DemoBackendRuntimeTest, NamesAMissingConstant) {
  Fixture f;
  const aot::NamedDataStoreOutput nothing;
  StoreNamedData empty(nothing);
  LogCapture log;
  EXPECT_EQ(f.init(&empty).error(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("cannot get named data 'w' (NotFound)"));
  EXPECT_EQ(f.init(nullptr).error(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("needs named data 'w', but the program has no named data"));
}

TEST(DemoBackendRuntimeTest, RefusesAConstantOfTheWrongSizeAndFreesIt) {
  Fixture f;
  StoreNamedData short_data(f.module.named_data_store_output(), -4);
  LogCapture log;
  EXPECT_EQ(f.init(&short_data).error(), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("named data 'w' has 20 bytes; the blob expects 24 (6 float32)"));
  EXPECT_EQ(short_data.outstanding(), 0);
}

// Every method allocator too small for init fails cleanly, with nothing held.
TEST(DemoBackendRuntimeTest, AFullMethodAllocatorIsAnErrorAndLeaksNothing) {
  Fixture f;
  StoreNamedData named_data(f.module.named_data_store_output());
  Result<DelegateHandle*> first = f.init(&named_data);
  ASSERT_TRUE(first.ok());
  const size_t needed = f.allocator.used_size();
  f.backend.destroy(*first);
  LogCapture log;
  for (size_t size = 0; size < needed; ++size) {
    std::vector<uint8_t> arena(size + 16);
    // Start 16-aligned so that the sizes below `needed` really are too small.
    auto* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(arena.data()) + 15) & ~uintptr_t{15});
    MemoryAllocator small(static_cast<uint32_t>(size), base);
    EXPECT_EQ(f.init(&named_data, &small).error(), Error::DelegateMemoryAllocationFailed) << size;
  }
  EXPECT_THAT(log.text(), HasSubstr("the method allocator has no room"));
  EXPECT_EQ(named_data.outstanding(), 0);
}

TEST(DemoBackendRuntimeTest, RefusesArgumentsThatDoNotFitTheBlob) {
  Fixture f;
  StoreNamedData named_data(f.module.named_data_store_output());
  Result<DelegateHandle*> handle = f.init(&named_data);
  ASSERT_TRUE(handle.ok());
  BackendExecutionContext context(nullptr, "forward");
  FloatTensor input(std::vector<float>(6, 1.0f)), out0(std::vector<float>(6)), out1(std::vector<float>(6));
  FloatTensor longer(std::vector<float>(7, 1.0f));
  FloatTensor as_int(std::vector<float>(6), runtime::ScalarType::Int);
  EValue number(int64_t{3});
  LogCapture log;

  EValue* too_few[] = {&input.value, &out0.value};
  EXPECT_EQ(f.backend.execute(context, *handle, too_few), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("the delegate call passes 2 arguments; the blob takes 1 inputs and 2 outputs"));
  EValue* wrong_numel[] = {&longer.value, &out0.value, &out1.value};
  EXPECT_EQ(f.backend.execute(context, *handle, wrong_numel), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 0 has 7 elements; the blob expects 6"));
  EValue* wrong_dtype[] = {&input.value, &out0.value, &as_int.value};
  EXPECT_EQ(f.backend.execute(context, *handle, wrong_dtype), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 2 is Int; the blob runs float32 only"));
  EValue* not_tensor[] = {&number, &out0.value, &out1.value};
  EXPECT_EQ(f.backend.execute(context, *handle, not_tensor), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 0 is Int, not a tensor"));
  EXPECT_EQ(f.backend.execute(context, nullptr, not_tensor), Error::DelegateInvalidHandle);
  f.backend.destroy(*handle);
}

}  // namespace
}  // namespace kiln::backends::demo
