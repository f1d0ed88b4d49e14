// The oneDNN runtime's refusals: a blob truncated at every byte, with bytes
// flipped, of another version or magic, with indices or parameters that do
// not fit, missing or mis-sized named data, a method allocator too small,
// and execute arguments of the wrong count, dtype or shape. Each gives an
// error and a log line naming what was wrong; none crashes or leaks the
// named data. Also: init releases the blob and the named data it read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/onednn/test/runtime_test_util.h"
#include "runtime/backend/test/backend_test_util.h"

namespace kiln::backends::onednn::testing {
namespace {

using runtime::Error;
using runtime::testing::LogCapture;
using ::testing::HasSubstr;

const Sizes kIn{1, 3, 5, 4}, kW{4, 3, 3, 3}, kOut{1, 4, 5, 4};

// conv(3x3, pad 1) + bias + residual add + relu, then a permute: small but
// with constants, post-ops, an intermediate and two operation kinds.
BlobBuilder small_network(std::vector<uint8_t>* blob) {
  BlobBuilder b;
  const int in = b.input(kIn), res = b.input(kOut);
  const int w = b.constant(kW, random_values(numel(kW), 1)), bias = b.constant({4}, random_values(4, 2));
  const int mid = b.intermediate(kOut), out = b.output({1, 5, 4, 4});
  auto s = b.longs({1, 1}), p = b.longs({1, 1}), q = b.longs({1, 1}), d = b.longs({1, 1});
  auto table = fb::CreateConvolution(b.fbb, s, p, q, d, 1).Union();
  const std::vector<flatbuffers::Offset<fb::PostOp>> posts{b.binary_post(fb::BinaryAlgorithm::Add, res),
                                                           b.eltwise_post(fb::EltwiseAlgorithm::Relu)};
  b.op(fb::OperationKind::Convolution, table, {in, w, bias}, mid, posts, "conv1");
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb, b.longs({0, 2, 3, 1})).Union(), {mid}, out, {}, "permute");
  *blob = b.finish();
  return b;
}

struct Arguments {
  HostTensor in{kIn, random_values(numel(kIn), 3)};
  HostTensor res{kOut, random_values(numel(kOut), 4)};
  HostTensor out{{1, 5, 4, 4}};
  std::vector<HostTensor*> all() { return {&in, &res, &out}; }
};

TEST(OneDnnBlobTest, InitReleasesTheBlobAndTheNamedDataAndRunsTwice) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  Runner runner;
  ASSERT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  EXPECT_EQ(runner.processed.data(), nullptr);  // freed by init
  EXPECT_EQ(b.named_data.outstanding(), 0);     // weights now live in the handle
  Arguments args;
  ASSERT_EQ(runner.execute(args.all()), Error::Ok);
  const std::vector<float> first = args.out.data;
  args.out.data.assign(args.out.data.size(), 0.f);
  ASSERT_EQ(runner.execute(args.all()), Error::Ok);
  EXPECT_EQ(args.out.data, first);
}

TEST(OneDnnBlobTest, RefusesEveryTruncation) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  LogCapture log;
  for (size_t size = 0; size < blob.size(); ++size) {
    // As cut, and with the header rewritten so that the flatbuffer itself
    // is what is short.
    std::vector<uint8_t> cut(blob.begin(), blob.begin() + static_cast<long>(size));
    Runner runner(1 << 20);
    EXPECT_EQ(runner.init(cut, &b.named_data), Error::DelegateInvalidCompatibility) << size;
    if (size > kBlobHeaderSize) {
      write_blob_header(cut.data(), static_cast<uint32_t>(size - kBlobHeaderSize));
      Runner again(1 << 20);
      EXPECT_NE(again.init(cut, &b.named_data), Error::Ok) << size;
    }
  }
  EXPECT_THAT(log.text(), HasSubstr("shorter than its 16-byte header"));
  EXPECT_THAT(log.text(), HasSubstr("the flatbuffer's offset and size do not fit the blob"));
  EXPECT_THAT(log.text(), HasSubstr("fails verification"));
  EXPECT_EQ(b.named_data.outstanding(), 0);
}

// The flatbuffer moved 4 bytes on, the header saying so: its 8-byte vectors
// would be read misaligned, so init refuses it.
TEST(OneDnnBlobTest, RefusesAFlatbufferOffAnEightByteBoundary) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  std::vector<uint8_t> shifted(blob.size() + 4);
  std::copy(blob.begin(), blob.begin() + kBlobHeaderSize, shifted.begin());
  std::copy(blob.begin() + kBlobHeaderSize, blob.end(), shifted.begin() + kBlobHeaderSize + 4);
  write_u32_le(shifted.data() + 8, static_cast<uint32_t>(kBlobHeaderSize + 4));
  LogCapture log;
  Runner runner(1 << 20);
  EXPECT_EQ(runner.init(shifted, &b.named_data), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("the flatbuffer does not start on an 8-byte boundary"));
  EXPECT_EQ(b.named_data.outstanding(), 0);
}

// Every byte flipped three ways: init refuses, or the graph it accepts runs
// (or refuses its arguments) without crashing.
TEST(OneDnnBlobTest, FlippedBytesNeverCrash) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  LogCapture log;
  size_t refused = 0, accepted = 0;
  for (size_t i = 0; i < blob.size(); ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = blob;
      bad[i] ^= flip;
      Runner runner(4 << 20);
      if (runner.init(bad, &b.named_data) != Error::Ok) {
        ++refused;
        continue;
      }
      ++accepted;
      Arguments args;
      const Error error = runner.execute(args.all());
      EXPECT_TRUE(error == Error::Ok || error == Error::InvalidArgument) << i << ": " << runtime::to_string(error);
    }
    EXPECT_EQ(b.named_data.outstanding(), 0) << i;
  }
  EXPECT_GT(refused, 0u);
  RecordProperty("refused", static_cast<int>(refused));
  RecordProperty("accepted", static_cast<int>(accepted));
}

TEST(OneDnnBlobTest, NamesAWrongVersionAndMagic) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  LogCapture log;
  std::vector<uint8_t> bad = blob;
  write_u32_le(bad.data() + 4, kBlobVersion + 1);
  Runner runner;
  EXPECT_EQ(runner.init(bad, &b.named_data), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("refusing the blob of method 'forward'"));
  EXPECT_THAT(log.text(), HasSubstr("version " + std::to_string(kBlobVersion + 1) + ", this runtime reads 1 to " + std::to_string(kBlobVersion)));
  bad = blob;
  bad[0] = 'X';
  EXPECT_EQ(runner.init(bad, &b.named_data), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("bad magic (expected KODN)"));
  runtime::BackendInitContext context(&runner.allocator, "forward", &b.named_data);
  EXPECT_EQ(runner.backend.init(context, nullptr, {}).error(), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("there is no blob"));
}

TEST(OneDnnBlobTest, RefusesGraphsWhoseIndicesDoNotFit) {
  LogCapture log;
  {
    BlobBuilder b;  // reads an intermediate no operation wrote
    const int mid = b.intermediate({4}), out = b.output({4});
    auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Relu, 0, 0);
    b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {mid}, out);
    Runner runner;
    EXPECT_EQ(runner.init(b.finish(), &b.named_data), Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr("operation 0 (EltwiseOp) reads value 0 before any operation writes it"));
  }
  {
    BlobBuilder b;  // an output nobody writes, an input index out of range
    b.input({4});
    b.output({4});
    Runner runner;
    EXPECT_EQ(runner.init(b.finish(), &b.named_data), Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr("output value 1 is never written"));
  }
  {
    BlobBuilder b;  // input 7 of value count 2
    const int in = b.input({4}), out = b.output({4});
    auto e = fb::CreateEltwise(b.fbb, fb::EltwiseAlgorithm::Relu, 0, 0);
    b.op(fb::OperationKind::EltwiseOp, fb::CreateEltwiseOp(b.fbb, e).Union(), {in + 7}, out);
    Runner runner;
    EXPECT_EQ(runner.init(b.finish(), &b.named_data), Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr("operation 0 (EltwiseOp) input 0 is value 7 of 2"));
  }
}

// Parameters oneDNN cannot take are named with the operation and the call.
TEST(OneDnnBlobTest, NamesTheOperationAndTheOneDnnCallThatRefusedIt) {
  LogCapture log;
  {
    BlobBuilder b;  // strides with one entry for a 2-D convolution
    const int in = b.input(kIn), w = b.constant(kW, random_values(numel(kW), 1)), out = b.output(kOut);
    auto s = b.longs({1}), p = b.longs({1, 1}), q = b.longs({1, 1}), d = b.longs({1, 1});
    b.op(fb::OperationKind::Convolution, fb::CreateConvolution(b.fbb, s, p, q, d, 1).Union(), {in, w, -1}, out, {},
         "stem_conv");
    Runner runner;
    EXPECT_EQ(runner.init(b.finish(), &b.named_data), Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr("operation 0 'stem_conv' (Convolution): strides has 1 entries"));
  }
  {
    BlobBuilder b;  // a result size the convolution does not produce
    const int in = b.input(kIn), w = b.constant(kW, random_values(numel(kW), 1)), out = b.output({1, 4, 9, 9});
    auto s = b.longs({1, 1}), p = b.longs({1, 1}), q = b.longs({1, 1}), d = b.longs({1, 1});
    b.op(fb::OperationKind::Convolution, fb::CreateConvolution(b.fbb, s, p, q, d, 1).Union(), {in, w, -1}, out, {},
         "bad_conv");
    Runner runner;
    EXPECT_NE(runner.init(b.finish(), &b.named_data), Error::Ok);
    EXPECT_THAT(log.text(),
                HasSubstr("operation 0 'bad_conv' (Convolution): dnnl_convolution_forward_primitive_desc_create "
                          "failed: dnnl_invalid_arguments"));
    EXPECT_EQ(b.named_data.outstanding(), 0);
  }
}

// A Pointwise program's view past its source, a step reading a register
// not yet written, an eltwise its kernel lacks: refused at init, named.
TEST(OneDnnBlobTest, RefusesPointwiseProgramsThatReadOutsideTheirValues) {
  struct Bad {
    std::vector<int64_t> offsets, strides;
    fb::PointwiseStep step;
    const char* reason;
  };
  const fb::PointwiseStep sigmoid(false, fb::EltwiseAlgorithm::Logistic, fb::BinaryAlgorithm::Add, 0, 0, 0, 0);
  const Bad cases[] = {
      {{1}, {6, 1}, sigmoid, "Pointwise source 0's view reads outside its 12 elements"},
      {{0}, {7, 1}, sigmoid, "Pointwise source 0's view reads outside its 12 elements"},
      {{0}, {6, 1}, fb::PointwiseStep(true, fb::EltwiseAlgorithm::Linear, fb::BinaryAlgorithm::Mul, 0, 1, 0, 0),
       "Pointwise step 0 reads a register not yet written"},
      {{0}, {6, 1}, fb::PointwiseStep(false, fb::EltwiseAlgorithm::GeluErf, fb::BinaryAlgorithm::Add, 0, 0, 0, 0),
       "an eltwise the kernel does not compute (GeluErf)"},
  };
  for (const Bad& bad : cases) {
    LogCapture log;
    BlobBuilder b;
    const int in = b.input({2, 6}), out = b.output({2, 6});
    const std::vector<fb::PointwiseStep> steps{bad.step};
    auto table = fb::CreatePointwise(b.fbb, b.fbb.CreateVectorOfStructs(steps), b.longs(bad.offsets), b.longs(bad.strides));
    b.op(fb::OperationKind::Pointwise, table.Union(), {in}, out, {}, "cell");
    Runner runner;
    EXPECT_EQ(runner.init(b.finish(), &b.named_data), Error::DelegateInvalidCompatibility) << bad.reason;
    EXPECT_THAT(log.text(), HasSubstr(bad.reason));
  }
}

TEST(OneDnnBlobTest, NamesMissingAndMisSizedNamedData) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  LogCapture log;
  TestNamedData empty;
  Runner runner;
  EXPECT_EQ(runner.init(blob, &empty), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("cannot get named data 'const_3' (NotFound)"));
  Runner without;
  EXPECT_EQ(without.init(blob, nullptr), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("needs named data 'const_3', but the program has no named data"));
  b.named_data.set_size_change(-4);
  Runner short_data;
  EXPECT_EQ(short_data.init(blob, &b.named_data), Error::DelegateInvalidCompatibility);
  EXPECT_THAT(log.text(), HasSubstr("named data 'const_3' has 12 bytes; value 3 expects 16 (Float32)"));
  EXPECT_EQ(b.named_data.outstanding(), 0);
}

// Every method allocator too small for init fails cleanly.
TEST(OneDnnBlobTest, AFullMethodAllocatorIsAnError) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  // Start 64-aligned so that the sizes below `needed` really are too small.
  const auto aligned_runner = [](size_t size) {
    auto runner = std::make_unique<Runner>(size + 64);
    auto* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(runner->arena.get()) + 63) & ~uintptr_t{63});
    runner->allocator = runtime::MemoryAllocator(static_cast<uint32_t>(size), base);
    return runner;
  };
  size_t needed = 0;
  {
    auto runner = aligned_runner(1 << 20);
    ASSERT_EQ(runner->init(blob, &b.named_data), Error::Ok);
    needed = runner->allocator.used_size();
  }
  LogCapture log;
  for (size_t size = 0; size < needed; size += 1 + needed / 300) {
    EXPECT_EQ(aligned_runner(size)->init(blob, &b.named_data), Error::DelegateMemoryAllocationFailed) << size;
  }
  EXPECT_EQ(aligned_runner(needed)->init(blob, &b.named_data), Error::Ok);
  EXPECT_THAT(log.text(), HasSubstr("the method allocator has no room"));
  EXPECT_EQ(b.named_data.outstanding(), 0);
}

TEST(OneDnnBlobTest, RefusesArgumentsThatDoNotFitTheBlob) {
  std::vector<uint8_t> blob;
  BlobBuilder b = small_network(&blob);
  Runner runner;
  ASSERT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  LogCapture log;
  Arguments args;
  EXPECT_EQ(runner.execute({&args.in, &args.res}), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("the delegate call passes 2 arguments; the blob takes 2 inputs and 1 outputs"));
  HostTensor as_int(kIn, std::vector<float>(static_cast<size_t>(numel(kIn))), runtime::ScalarType::Int);
  EXPECT_EQ(runner.execute({&as_int, &args.res, &args.out}), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 0 is Int; the blob runs float32 only"));
  HostTensor transposed({1, 3, 4, 5}, std::vector<float>(60));  // same count, other shape
  EXPECT_EQ(runner.execute({&transposed, &args.res, &args.out}), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 0 has sizes [1, 3, 4, 5]; the blob expects [1, 3, 5, 4]"));
  HostTensor wrong_out({1, 4, 5, 4});
  EXPECT_EQ(runner.execute({&args.in, &args.res, &wrong_out}), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 2 has sizes [1, 4, 5, 4]; the blob expects [1, 5, 4, 4]"));
  runtime::EValue number(int64_t{3});
  std::vector<runtime::EValue*> not_tensor{&number, &args.res.value, &args.out.value};
  runtime::BackendExecutionContext context(nullptr, "forward");
  EXPECT_EQ(runner.backend.execute(context, runner.handle, {not_tensor.data(), not_tensor.size()}),
            Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("delegate argument 0 is Int, not a tensor"));
  EXPECT_EQ(runner.backend.execute(context, nullptr, {not_tensor.data(), not_tensor.size()}),
            Error::DelegateInvalidHandle);
  // The handle still runs correct arguments afterwards.
  EXPECT_EQ(runner.execute(args.all()), Error::Ok);
}

TEST(OneDnnBlobTest, TheBackendIsRegisteredAndAvailable) {
  runtime::BackendInterface* backend = runtime::get_backend_class(kBackendId);
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->is_available());
}

}  // namespace
}  // namespace kiln::backends::onednn::testing
