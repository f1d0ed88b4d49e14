// init's loader thread (set_loader_thread): the weights reordered there while
// the calling thread compiles the primitives give the same handle as init on
// one thread -- bit for bit the same results -- and a constant that cannot be
// loaded fails init on either path with the same error, the named data all
// released.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/onednn/test/runtime_test_util.h"
#include "runtime/backend/test/backend_test_util.h"

namespace kiln::backends::onednn::testing {
namespace {

using runtime::Error;
using runtime::testing::LogCapture;
using ::testing::HasSubstr;

constexpr int64_t kLayers = 6;
const Sizes kIn{1, 4, 9, 7};

int64_t channels(int64_t layer) { return 4 + 4 * (layer % 3); }

// kLayers convolutions (3x3, pad 1, bias, relu) of varying widths: a
// constant pair and a primitive per layer, for both threads to share.
BlobBuilder conv_chain(std::vector<uint8_t>* blob, int64_t* out_channels) {
  BlobBuilder b;
  int x = b.input(kIn);
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    const int64_t ic = layer == 0 ? kIn[1] : channels(layer - 1), oc = channels(layer);
    const Sizes w_sizes{oc, ic, 3, 3};
    const int w = b.constant(w_sizes, random_values(numel(w_sizes), 10 + static_cast<uint32_t>(layer)));
    const int bias = b.constant({oc}, random_values(oc, 20 + static_cast<uint32_t>(layer)));
    const Sizes out_sizes{1, oc, kIn[2], kIn[3]};
    const int y = layer + 1 == kLayers ? b.output(out_sizes) : b.intermediate(out_sizes);
    auto one = b.longs({1, 1});
    auto table = fb::CreateConvolution(b.fbb, one, b.longs({1, 1}), b.longs({1, 1}), b.longs({1, 1}), 1).Union();
    b.op(fb::OperationKind::Convolution, table, {x, w, bias}, y, {b.eltwise_post(fb::EltwiseAlgorithm::Relu)});
    x = y;
  }
  *out_channels = channels(kLayers - 1);
  *blob = b.finish();
  return b;
}

// Restores the default (the loader thread allowed) after each test.
class LoaderThreadTest : public ::testing::Test {
 protected:
  void TearDown() override { set_loader_thread(true); }
};

std::vector<float> run_once(bool loader_thread) {
  std::vector<uint8_t> blob;
  int64_t oc = 0;
  BlobBuilder b = conv_chain(&blob, &oc);
  set_loader_thread(loader_thread);
  Runner runner;
  EXPECT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  EXPECT_EQ(b.named_data.outstanding(), 0);
  HostTensor in{kIn, random_values(numel(kIn), 3)};
  HostTensor out{{1, oc, kIn[2], kIn[3]}};
  EXPECT_EQ(runner.execute({&in, &out}), Error::Ok);
  return out.data;
}

TEST_F(LoaderThreadTest, GivesBitForBitTheResultsOfOneThread) {
  const std::vector<float> one_thread = run_once(false);
  const std::vector<float> shared = run_once(true);
  ASSERT_EQ(shared.size(), one_thread.size());
  EXPECT_EQ(shared, one_thread);
  EXPECT_GT(*std::max_element(shared.begin(), shared.end()), 0.f);  // the chain computed something
}

TEST_F(LoaderThreadTest, AConstantThatCannotBeLoadedFailsInitEitherWay) {
  for (const bool loader_thread : {false, true}) {
    SCOPED_TRACE(loader_thread ? "with the loader thread" : "on one thread");
    set_loader_thread(loader_thread);
    std::vector<uint8_t> blob;
    int64_t oc = 0;
    BlobBuilder b = conv_chain(&blob, &oc);
    LogCapture log;
    b.named_data.set_size_change(-4);  // every constant one float short
    Runner runner;
    EXPECT_EQ(runner.init(blob, &b.named_data), Error::DelegateInvalidCompatibility);
    EXPECT_THAT(log.text(), HasSubstr("named data 'const_2' has 12 bytes; value 2 expects 16 (Float32)"));
    EXPECT_EQ(b.named_data.outstanding(), 0);
    TestNamedData empty;
    Runner without;
    EXPECT_EQ(without.init(blob, &empty), Error::NotFound);
    EXPECT_THAT(log.text(), HasSubstr("cannot get named data 'const_2' (NotFound)"));
  }
}

}  // namespace
}  // namespace kiln::backends::onednn::testing
