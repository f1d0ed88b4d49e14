// Does execute allocate? Measured with the global allocation counter over a
// network touching every primitive kind, after two warm-up calls, at 1 and 2
// OpenMP threads. The test binary is linked with
// -Wl,--wrap=dnnl_primitive_execute so that allocations made inside oneDNN's
// execute are told apart from the rest: Kiln's own code must make none;
// oneDNN's execute does allocate (it builds a std::unordered_map of the
// arguments per call), a constant number per call, which is reported.
#include <gtest/gtest.h>
#include <cstdio>

#include <oneapi/dnnl/dnnl.h>

#include "backends/onednn/test/runtime_test_util.h"
#include "runtime/executor/test/global_allocation_counter.h"

namespace {

kiln::runtime::testing::GlobalAllocationCounter* g_counter = nullptr;
size_t g_inside_onednn = 0;

}  // namespace

extern "C" dnnl_status_t __real_dnnl_primitive_execute(const_dnnl_primitive_t, dnnl_stream_t, int,
                                                       const dnnl_exec_arg_t*);

// Every call the runtime makes to dnnl_primitive_execute comes here.
extern "C" dnnl_status_t __wrap_dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream,
                                                       int nargs, const dnnl_exec_arg_t* args) {
  const size_t before = g_counter != nullptr ? g_counter->count() : 0;
  const dnnl_status_t status = __real_dnnl_primitive_execute(primitive, stream, nargs, args);
  if (g_counter != nullptr) g_inside_onednn += g_counter->count() - before;
  return status;
}

namespace kiln::backends::onednn::testing {
namespace {

using runtime::Error;
using runtime::testing::GlobalAllocationCounter;

// conv+relu -> depthwise conv -> max pool -> concat with a pad of the
// pool -> batch norm -> mean -> reshape -> linear -> layer norm -> softmax,
// and a permute + upsample + binary branch to a second output.
std::vector<uint8_t> every_kind(BlobBuilder& b) {
  const Sizes xs{1, 3, 16, 12};
  const int x = b.input(xs);
  const int w1 = b.constant({16, 3, 3, 3}, random_values(16 * 27, 1));
  const int w2 = b.constant({16, 1, 3, 3}, random_values(16 * 9, 2));
  const int c1 = b.intermediate({1, 16, 16, 12}), c2 = b.intermediate({1, 16, 16, 12});
  const int pool = b.intermediate({1, 16, 8, 6}), padded = b.intermediate({1, 16, 8, 6});
  const int cat = b.intermediate({1, 32, 8, 6}), bn = b.intermediate({1, 32, 8, 6});
  const int mean = b.intermediate({1, 32, 1, 1}), flat = b.intermediate({1, 32});
  const int lw = b.constant({10, 32}, random_values(320, 3)), lin = b.intermediate({1, 10});
  const int ln = b.intermediate({1, 10}), out0 = b.output({1, 10});
  const int perm = b.intermediate({1, 8, 6, 16}), up = b.intermediate({1, 8, 12, 32}), out1 = b.output({1, 8, 12, 32});
  const auto conv = [&](int64_t groups) {
    auto s = b.longs({1, 1}), p = b.longs({1, 1}), q = b.longs({1, 1}), d = b.longs({1, 1});
    return fb::CreateConvolution(b.fbb, s, p, q, d, groups).Union();
  };
  b.op(fb::OperationKind::Convolution, conv(1), {x, w1, -1}, c1, {b.eltwise_post(fb::EltwiseAlgorithm::Relu)});
  b.op(fb::OperationKind::Convolution, conv(16), {c1, w2, -1}, c2, {b.eltwise_post(fb::EltwiseAlgorithm::Swish)});
  {
    auto k = b.longs({2, 2}), s = b.longs({2, 2}), p = b.longs({0, 0}), q = b.longs({0, 0});
    b.op(fb::OperationKind::Pooling, fb::CreatePooling(b.fbb, fb::PoolingAlgorithm::Max, k, s, p, q).Union(), {c2},
         pool);
  }
  {
    auto before = b.longs({0, 0, 1, 0}), after = b.longs({0, 0, -1, 0});
    b.op(fb::OperationKind::Pad, fb::CreatePad(b.fbb, before, after, 0.5f).Union(), {pool}, padded);
  }
  b.op(fb::OperationKind::Concat, fb::CreateConcat(b.fbb, 1).Union(), {pool, padded}, cat);
  const int m = b.constant({32}, random_values(32, 4)), v = b.constant({32}, random_values(32, 5, 0.5f, 1.5f));
  b.op(fb::OperationKind::BatchNorm, fb::CreateBatchNorm(b.fbb, 1e-5f).Union(), {cat, m, v, -1, -1}, bn);
  b.op(fb::OperationKind::Reduction, fb::CreateReduction(b.fbb, fb::ReductionAlgorithm::Mean).Union(), {bn}, mean);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb).Union(), {mean}, flat);
  b.op(fb::OperationKind::MatMul, fb::CreateMatMul(b.fbb, true).Union(), {flat, lw, -1}, lin);
  b.op(fb::OperationKind::LayerNorm, fb::CreateLayerNorm(b.fbb, 1e-5f, 1).Union(), {lin, -1, -1}, ln);
  b.op(fb::OperationKind::Softmax, fb::CreateSoftmax(b.fbb, 1, true).Union(), {ln}, out0);
  b.op(fb::OperationKind::Reorder, fb::CreateReorder(b.fbb, b.longs({0, 2, 3, 1})).Union(), {pool}, perm);
  b.op(fb::OperationKind::Resampling, fb::CreateResampling(b.fbb, fb::ResamplingAlgorithm::Linear).Union(), {perm},
       up);
  b.op(fb::OperationKind::BinaryOp, fb::CreateBinaryOp(b.fbb, fb::BinaryAlgorithm::Mul).Union(), {up, up}, out1);
  return b.finish();
}

struct Allocations {
  size_t total = 0;
  size_t inside_onednn = 0;
};

// Allocations during 5 calls after 2 warm-up calls.
Allocations count_allocations(int threads) {
  set_num_threads(threads);
  BlobBuilder b;
  const std::vector<uint8_t> blob = every_kind(b);
  Runner runner;
  EXPECT_EQ(runner.init(blob, &b.named_data), Error::Ok);
  HostTensor x({1, 3, 16, 12}, random_values(3 * 16 * 12, 6)), out0({1, 10}), out1({1, 8, 12, 32});
  std::vector<runtime::EValue*> args{&x.value, &out0.value, &out1.value};
  for (int warm = 0; warm < 2; ++warm) EXPECT_EQ(runner.execute(args), Error::Ok);
  Allocations counted;
  {
    GlobalAllocationCounter counter;
    g_counter = &counter;
    g_inside_onednn = 0;
    for (int call = 0; call < 5; ++call) EXPECT_EQ(runner.execute(args), Error::Ok);
    counted.total = counter.count();
    counted.inside_onednn = g_inside_onednn;
    g_counter = nullptr;
  }
  set_num_threads(1);
  return counted;
}

TEST(OneDnnAllocationTest, KilnCodeDoesNotAllocateInExecute) {
  if (!runtime::testing::counts_malloc()) GTEST_SKIP() << "malloc is not counted under ASan";
  for (int threads : {1, 2}) {
    const Allocations counted = count_allocations(threads);
    EXPECT_EQ(counted.total - counted.inside_onednn, 0u) << threads << " threads";
    // The finding: oneDNN's execute allocates, the same number every call.
    EXPECT_EQ(counted.inside_onednn % 5, 0u) << threads << " threads";
    RecordProperty(threads == 1 ? "onednn_allocations_per_call_1_thread" : "onednn_allocations_per_call_2_threads",
                   static_cast<int>(counted.inside_onednn / 5));
    std::printf("%d thread(s): %zu allocations per execute, all inside dnnl_primitive_execute\n", threads,
                counted.inside_onednn / 5);
  }
}

}  // namespace
}  // namespace kiln::backends::onednn::testing
