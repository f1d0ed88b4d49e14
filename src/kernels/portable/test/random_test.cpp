// rand, randn, their _like forms, normal, uniform, randint, randperm: the numbers PyTorch's CPU
// generator gives after the same seed. The expected values are PyTorch 2.15's
// (torch.manual_seed(s) then the call, printed with repr); the uniform draws
// are also checked against MT19937's definition (std::mt19937).
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/portable/test/kernel_test_util.h"
#include "runtime/core/random.h"

namespace kiln::kernels::portable::testing {
namespace {

KernelRuntimeContext run_sized(const char* op, const std::vector<int64_t>& size, const TestTensor& out) {
  return KernelCall().int_list(size).tensor(out).run(op);
}

std::vector<float> rand_floats(uint64_t seed, SizesType n) {
  runtime::manual_seed(seed);
  TestTensor out = zeros<float>({n});
  EXPECT_EQ(run_sized("aten::rand.out", {n}, out).failure_state(), Error::Ok);
  return out.values<float>();
}

TEST(Rand, DrawsWhatPyTorchDrawsAfterTheSameSeed) {
  EXPECT_EQ(rand_floats(0, 3), (std::vector<float>{0.49625658988952637f, 0.7682217955589294f, 0.08847743272781372f}));
  runtime::manual_seed(5);
  TestTensor doubles = zeros<double>({3});
  ASSERT_EQ(run_sized("aten::rand.out", {3}, doubles).failure_state(), Error::Ok);
  EXPECT_EQ(doubles.values<double>(), (std::vector<double>{0.6420150066280941, 0.2597579151763153, 0.36082761942715424}));
}

TEST(Rand, IsMt19937sLow24BitsOver2To24) {
  const std::vector<float> drawn = rand_floats(123456789012345, 1000);
  std::mt19937 engine(static_cast<uint32_t>(123456789012345));  // PyTorch seeds with the low 32 bits
  for (float value : drawn) {
    EXPECT_EQ(value, static_cast<float>(engine() & 0xFFFFFF) / 16777216.0f);
  }
}

TEST(Rand, EachCallGoesOnAndASeedRestarts) {
  runtime::manual_seed(9);
  TestTensor first = zeros<float>({4}), second = zeros<float>({4});
  ASSERT_EQ(run_sized("aten::rand.out", {4}, first).failure_state(), Error::Ok);
  ASSERT_EQ(run_sized("aten::rand.out", {4}, second).failure_state(), Error::Ok);
  EXPECT_NE(first.values<float>(), second.values<float>());
  EXPECT_EQ(rand_floats(9, 4), first.values<float>());
}

TEST(Randn, OneAtATimeBelowSixteenElementsKeepingEachPairsSecond) {
  runtime::manual_seed(0);
  TestTensor out = zeros<float>({3});
  ASSERT_EQ(run_sized("aten::randn.out", {3}, out).failure_state(), Error::Ok);
  const std::vector<float> got = out.values<float>();
  const std::vector<float> want = {1.5409960746765137f, -0.293428897857666f, -2.1787893772125244f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
  // The third draw's twin is the next call's first value.
  runtime::manual_seed(77);
  TestTensor a = zeros<float>({3}), b = zeros<float>({3});
  ASSERT_EQ(run_sized("aten::randn.out", {3}, a).failure_state(), Error::Ok);
  ASSERT_EQ(run_sized("aten::randn.out", {3}, b).failure_state(), Error::Ok);
  const std::vector<float> want_a = {-0.35683774948120117f, 0.6007267236709595f, -0.6967807412147522f};
  const std::vector<float> want_b = {-0.5241932272911072f, 0.9086558818817139f, -1.6423312425613403f};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(a.values<float>()[i], want_a[i]) << i;
    EXPECT_FLOAT_EQ(b.values<float>()[i], want_b[i]) << i;
  }
}

TEST(Randn, BlocksOfSixteenAndTheLastBlockDrawnAgain) {
  runtime::manual_seed(0);
  TestTensor out = zeros<float>({4, 5});
  ASSERT_EQ(run_sized("aten::randn.out", {4, 5}, out).failure_state(), Error::Ok);
  const std::vector<float> want = {
      -1.1258398294448853f, -1.152360200881958f,  -0.2505785822868347f, -0.4338788092136383f, 0.5988394618034363f,
      -1.5550950765609741f, -0.3413603901863098f, 1.85300612449646f,    0.46809640526771545f, -0.1577124446630478f,
      1.4436601400375366f,  0.26604941487312317f, 1.3893661499023438f,  1.586334228515625f,   0.946298360824585f,
      -0.843676745891571f,  0.9318265914916992f,  1.2590092420578003f,  2.0049805641174316f,  0.05373690277338028f};
  const std::vector<float> got = out.values<float>();
  // PyTorch's vectorized log and sincos against the C library's: a few ulps.
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  runtime::manual_seed(5);
  TestTensor doubles = zeros<double>({18});
  ASSERT_EQ(run_sized("aten::randn.out", {18}, doubles).failure_state(), Error::Ok);
  const std::vector<double> want_doubles = {
      0.8235713931461853,  -0.7421276044281208, 0.7631504315434021,  0.8166228687367919,   -1.4026899148812593,
      0.703788943525086,   0.050956472052993064, 0.8372184336887067, -0.3622047240956292,  -0.7125441318799689,
      1.5007376473394378,  0.8666017326817648,  -0.4010886991989854, -0.7198743755133706,  -0.2686318022053022,
      -0.3955216105396746, 1.9172346797519741,  0.2521633133845829};
  for (size_t i = 0; i < want_doubles.size(); ++i) EXPECT_DOUBLE_EQ(doubles.values<double>()[i], want_doubles[i]) << i;
}

TEST(Normal, IsRandnsDrawsTimesStdPlusMean) {
  const auto normal = [](const std::vector<int64_t>& size, const TestTensor& out) {
    return KernelCall().scalar(0.5).scalar(2.0).int_list(size).none().tensor(out).run("aten::normal.float_float_out");
  };
  runtime::manual_seed(5);
  TestTensor few = zeros<float>({3});
  ASSERT_EQ(normal({3}, few).failure_state(), Error::Ok);
  const std::vector<float> want_few = {-0.47356149554252625f, -0.7076431512832642f, -0.6161924600601196f};
  for (size_t i = 0; i < want_few.size(); ++i) EXPECT_FLOAT_EQ(few.values<float>()[i], want_few[i]) << i;
  runtime::manual_seed(5);
  TestTensor many = zeros<float>({17});
  ASSERT_EQ(normal({17}, many).failure_state(), Error::Ok);
  const std::vector<float> want_many = {
      4.184659957885742f,   2.9440505504608154f, -0.17289870977401733f, -1.4301203489303589f, 0.24067464470863342f,
      -0.7035312652587891f, 0.7899971008300781f, 0.20034566521644592f,  5.729154109954834f,   2.058467388153076f,
      0.383321076631546f,   -3.560990333557129f, 3.465864658355713f,    1.4880762100219727f,  0.9984375238418579f,
      3.994062900543213f,   1.9895539283752441f};
  for (size_t i = 0; i < want_many.size(); ++i) EXPECT_NEAR(many.values<float>()[i], want_many[i], 4e-6) << i;
  EXPECT_EQ(KernelCall().scalar(0.0).scalar(-1.0).int_list({2}).none().tensor(few).run("aten::normal.float_float_out")
                .failure_state(),
            Error::InvalidArgument);  // a negative std
}

TEST(RandnLike, ANonContiguousOutDrawsOneAtATimeInMemoryOrder) {
  // randn_like of a channels-last [2, 3, 2, 2]: PyTorch's values in memory order.
  const TestTensor self = zeros<float>({2, 3, 2, 2});
  TestTensor out(ScalarType::Float, {2, 3, 2, 2}, TensorShapeDynamism::Static, {0, 2, 3, 1});
  runtime::manual_seed(3);
  ASSERT_EQ(KernelCall().tensor(self).none().tensor(out).run("aten::randn_like.out").failure_state(), Error::Ok);
  const std::vector<float> want = {
      0.8032760620117188f,  0.17483338713645935f, 0.08897809684276581f,  -0.6137180328369141f, 0.04618244990706444f,
      -1.3682591915130615f, 0.3374950885772705f,  1.0111159086227417f,   -1.435179352760315f,  0.9774317741394043f,
      0.5220499634742737f,  1.2379167079925537f,  -0.8646355867385864f,  0.2989608347415924f,  0.41921865940093994f,
      -0.0798543244600296f, 0.9264108538627625f,  0.8156775236129761f,   0.49518901109695435f, -0.16431698203086853f,
      -0.6779621839523315f, -1.0591074228286743f, 0.7476966381072998f,   0.23891741037368774f};
  const std::vector<float> got = out.values<float>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
}

TEST(RandLike, IsRandOfSelfsSizes) {
  const TestTensor self = zeros<double>({2, 3});
  TestTensor out = zeros<float>({2, 3});
  runtime::manual_seed(0);
  ASSERT_EQ(KernelCall().tensor(self).none().tensor(out).run("aten::rand_like.out").failure_state(), Error::Ok);
  EXPECT_EQ(out.values<float>(), rand_floats(0, 6));
}

TEST(Uniform, ScalesDrawsToFromAndToInTheElementType) {
  const TestTensor self = zeros<float>({6});
  TestTensor out = zeros<float>({6});
  runtime::manual_seed(5);
  ASSERT_EQ(KernelCall().tensor(self).scalar(-1.3).scalar(2.7).none().tensor(out).run("aten::uniform.out").failure_state(),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2.021007537841797f, -0.7955563068389893f, 2.329878807067871f,
                                                    1.979708194732666f, 2.380413770675659f, -0.8334190845489502f}));
  // In [-2, 3) a product rounded before the sum differs from PyTorch's.
  runtime::manual_seed(1);
  ASSERT_EQ(KernelCall().tensor(self).scalar(-2.0).scalar(3.0).none().tensor(out).run("aten::uniform.out").failure_state(),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.7881579399108887f, -0.6034455895423889f, 0.015346288681030273f,
                                                    1.6734223365783691f, -1.8535921573638916f, 1.9992930889129639f}));
}

TEST(Randint, BitsModuloTheRangeThirtyTwoOrSixtyFourAtATime) {
  runtime::manual_seed(77);
  TestTensor small = zeros<int64_t>({9});
  ASSERT_EQ(KernelCall().scalar(int64_t{3}).scalar(int64_t{10}).int_list({9}).tensor(small).run("aten::randint.low_out")
                .failure_state(),
            Error::Ok);
  EXPECT_EQ(small.values<int64_t>(), (std::vector<int64_t>{8, 3, 7, 9, 7, 7, 6, 7, 5}));
  runtime::manual_seed(77);
  TestTensor wide = zeros<int64_t>({4});
  ASSERT_EQ(KernelCall().scalar(int64_t{-5}).scalar(int64_t{1} << 40).int_list({4}).tensor(wide).run("aten::randint.low_out")
                .failure_state(),
            Error::Ok);
  EXPECT_EQ(wide.values<int64_t>(), (std::vector<int64_t>{923479878840, 362241123625, 1009426162872, 656293892356}));
  // randint(high, size) is randint(0, high, size).
  runtime::manual_seed(1);
  TestTensor from_zero = zeros<int32_t>({5});
  ASSERT_EQ(KernelCall().scalar(int64_t{7}).int_list({5}).tensor(from_zero).run("aten::randint.out").failure_state(), Error::Ok);
  runtime::manual_seed(1);
  TestTensor low_zero = zeros<int32_t>({5});
  ASSERT_EQ(KernelCall().scalar(int64_t{0}).scalar(int64_t{7}).int_list({5}).tensor(low_zero).run("aten::randint.low_out")
                .failure_state(),
            Error::Ok);
  EXPECT_EQ(from_zero.values<int32_t>(), low_zero.values<int32_t>());
}

TEST(Randperm, SwapsEachElementWithOneAtOrAfterIt) {
  runtime::manual_seed(3);
  TestTensor out = zeros<int64_t>({7});
  ASSERT_EQ(KernelCall().scalar(int64_t{7}).tensor(out).run("aten::randperm.out").failure_state(), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{5, 3, 4, 6, 0, 2, 1}));
  runtime::manual_seed(3);
  TestTensor floats = zeros<float>({5});
  ASSERT_EQ(KernelCall().scalar(int64_t{5}).tensor(floats).run("aten::randperm.out").failure_state(), Error::Ok);
  EXPECT_EQ(floats.values<float>(), (std::vector<float>{1, 0, 3, 4, 2}));
  EXPECT_EQ(KernelCall().scalar(int64_t{-1}).tensor(out).run("aten::randperm.out").failure_state(), Error::InvalidArgument);
}

TEST(Sampling, BadArgumentsFailNamingThem) {
  TestTensor ints = zeros<int32_t>({2});
  KernelRuntimeContext ctx = run_sized("aten::rand.out", {2}, ints);
  EXPECT_EQ(ctx.failure_state(), Error::NotSupported);
  TestTensor longs = zeros<int64_t>({2});
  EXPECT_EQ(KernelCall().scalar(int64_t{5}).scalar(int64_t{5}).int_list({2}).tensor(longs).run("aten::randint.low_out")
                .failure_state(),
            Error::InvalidArgument);  // an empty range
  TestTensor small_ints = zeros<int32_t>({2});
  EXPECT_EQ(KernelCall().scalar(int64_t{0}).scalar(int64_t{1} << 33).int_list({2}).tensor(small_ints)
                .run("aten::randint.low_out")
                .failure_state(),
            Error::InvalidArgument);  // beyond int32
  const TestTensor self = zeros<float>({2});
  TestTensor out = zeros<float>({2});
  EXPECT_EQ(KernelCall().tensor(self).scalar(2.0).scalar(1.0).none().tensor(out).run("aten::uniform.out").failure_state(),
            Error::InvalidArgument);  // from > to
  TestTensor floats = zeros<float>({2});
  EXPECT_EQ(run_sized("aten::randn.out", {-1}, floats).failure_state(), Error::InvalidArgument);
}

}  // namespace
}  // namespace kiln::kernels::portable::testing
