// The oneDNN blob as preprocess writes it: the 16-byte header, a flatbuffer
// the Verifier accepts, every field read back as written, and the errors a
// short, foreign, newer or corrupted blob gets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aot/ir/testing/aot_testing.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/onednn_blob.h"

namespace kiln::backends::onednn {
namespace {

namespace fb = ::kiln::onednn;
using aot::testing::expect_error;

std::unique_ptr<fb::ValueT> value(std::vector<int64_t> sizes, fb::ValueKind kind, uint32_t index, std::string key = "") {
  auto v = std::make_unique<fb::ValueT>();
  v->sizes = std::move(sizes);
  v->kind = kind;
  v->index = index;
  v->constant_key = std::move(key);
  return v;
}

template <typename T>
std::unique_ptr<fb::OperationT> operation(T params, std::vector<int32_t> inputs, std::vector<int32_t> outputs, int32_t debug_id,
                                          std::string name) {
  auto op = std::make_unique<fb::OperationT>();
  op->op.Set(std::move(params));
  op->inputs = std::move(inputs);
  op->outputs = std::move(outputs);
  op->debug_id = debug_id;
  op->name = std::move(name);
  return op;
}

// Every value kind, every operation kind, both post-op kinds.
fb::GraphT every_field() {
  fb::GraphT graph;
  graph.values.push_back(value({1, 3, 8, 8}, fb::ValueKind::Input, 0));
  graph.values.push_back(value({4, 3, 3, 3}, fb::ValueKind::Constant, 0, "onednn_w_ab_432"));
  graph.values.push_back(value({1, 4, 8, 8}, fb::ValueKind::Intermediate, 0));
  graph.values.push_back(value({1, 4}, fb::ValueKind::Output, 1));
  fb::ConvolutionT conv;
  conv.strides = {1, 2};
  conv.padding_l = {1, 0};
  conv.padding_r = {1, 1};
  conv.dilations = {1, 3};
  conv.groups = 2;
  conv.transposed = true;
  conv.output_padding = {0, 1};
  auto op = operation(conv, {0, 1, -1}, {2}, 0, "conv");
  auto relu = std::make_unique<fb::PostOpT>();
  relu->op.Set(fb::EltwiseT{});
  relu->op.AsEltwise()->algorithm = fb::EltwiseAlgorithm::Clip;
  relu->op.AsEltwise()->alpha = -1.5f;
  relu->op.AsEltwise()->beta = 6.0f;
  op->post_ops.push_back(std::move(relu));
  auto residual = std::make_unique<fb::PostOpT>();
  residual->op.Set(fb::BinaryPostOpT{});
  residual->op.AsBinaryPostOp()->algorithm = fb::BinaryAlgorithm::Sub;
  residual->op.AsBinaryPostOp()->input = 0;
  op->post_ops.push_back(std::move(residual));
  graph.operations.push_back(std::move(op));
  fb::MatMulT mm;
  mm.transpose_b = true;
  graph.operations.push_back(operation(mm, {2, 1, -1}, {3}, 1, "mm"));
  fb::BatchNormT bn;
  bn.epsilon = 1e-3f;
  graph.operations.push_back(operation(bn, {2, 1, 1, -1, -1}, {2}, 2, "bn"));
  fb::LayerNormT ln;
  ln.epsilon = 1e-6f;
  ln.normalized_dims = 2;
  graph.operations.push_back(operation(ln, {2, -1, -1}, {2}, 3, "ln"));
  fb::SoftmaxT sm;
  sm.axis = 3;
  sm.log = true;
  graph.operations.push_back(operation(sm, {2}, {2}, 4, "sm"));
  fb::PoolingT pool;
  pool.algorithm = fb::PoolingAlgorithm::AvgExcludePadding;
  pool.kernel = {3, 3};
  pool.strides = {2, 2};
  pool.padding_l = {1, 1};
  pool.padding_r = {2, 2};
  pool.dilations = {1, 1};
  graph.operations.push_back(operation(pool, {2}, {2}, 5, "pool"));
  fb::ReductionT reduce;
  reduce.algorithm = fb::ReductionAlgorithm::Sum;
  graph.operations.push_back(operation(reduce, {2}, {2}, 6, "sum"));
  fb::ResamplingT resample;
  resample.algorithm = fb::ResamplingAlgorithm::Linear;
  graph.operations.push_back(operation(resample, {2}, {2}, 7, "up"));
  fb::ConcatT cat;
  cat.axis = 1;
  graph.operations.push_back(operation(cat, {2, 2}, {2}, 8, "cat"));
  fb::EltwiseOpT eltwise;
  eltwise.eltwise = std::make_unique<fb::EltwiseT>();
  eltwise.eltwise->algorithm = fb::EltwiseAlgorithm::GeluTanh;
  graph.operations.push_back(operation(std::move(eltwise), {2}, {2}, 9, "gelu"));
  fb::BinaryOpT binary;
  binary.algorithm = fb::BinaryAlgorithm::Max;
  graph.operations.push_back(operation(binary, {2, 0}, {2}, 10, "max"));
  fb::ReorderT reorder;
  reorder.permutation = {0, 2, 3, 1};
  graph.operations.push_back(operation(reorder, {2}, {2}, 11, "permute"));
  fb::PadT pad;
  pad.before = {0, 0, 1, 2};
  pad.after = {0, 0, 3, 4};
  pad.value = -2.5f;
  graph.operations.push_back(operation(pad, {2}, {2}, -1, "pad"));
  return graph;
}

TEST(OneDnnBlobTest, HeaderThenAVerifiedFlatbuffer) {
  const std::vector<uint8_t> blob = serialize_onednn_blob(every_field());
  BlobHeader header;
  ASSERT_EQ(parse_blob_header(blob.data(), blob.size(), &header), BlobHeaderStatus::kOk);
  EXPECT_EQ(std::string(blob.begin(), blob.begin() + 4), "KODN");
  EXPECT_EQ(header.version, kBlobVersion);
  EXPECT_EQ(header.flatbuffer_offset, kBlobHeaderSize);
  EXPECT_EQ(header.flatbuffer_offset + header.flatbuffer_size, blob.size());
  flatbuffers::Verifier verifier(blob.data() + kBlobHeaderSize, header.flatbuffer_size);
  EXPECT_TRUE(fb::VerifyGraphBuffer(verifier));
  EXPECT_TRUE(fb::GraphBufferHasIdentifier(blob.data() + kBlobHeaderSize));
}

TEST(OneDnnBlobTest, EveryFieldReadsBackAsWritten) {
  const std::vector<uint8_t> blob = serialize_onednn_blob(every_field());
  const auto graph = parse_onednn_blob(blob);
  EXPECT_EQ(serialize_onednn_blob(*graph), blob);  // nothing lost on the way
  ASSERT_EQ(graph->values.size(), 4u);
  EXPECT_EQ(graph->values[1]->constant_key, "onednn_w_ab_432");
  EXPECT_EQ(graph->values[3]->kind, fb::ValueKind::Output);
  EXPECT_EQ(graph->values[3]->index, 1u);
  EXPECT_EQ(describe_onednn_blob(blob),
            "graph: 4 values (1 constants), 13 operations\n"
            "  %0 (input 0) f32[1, 3, 8, 8]\n"
            "  %1 (constant) f32[4, 3, 3, 3]\n"
            "  %2 (intermediate) f32[1, 4, 8, 8]\n"
            "  %3 (output 1) f32[1, 4]\n"
            "  #0 Convolution strides=[1, 2] padding_l=[1, 0] padding_r=[1, 1] dilations=[1, 3] groups=2 transposed "
            "output_padding=[0, 1] (%0[1, 3, 8, 8], %1[4, 3, 3, 3], none) -> %2[1, 4, 8, 8] "
            "post-ops [Eltwise Clip(min=-1.5, max=6), Binary Sub %0[1, 3, 8, 8]] debug_id 0 'conv'\n"
            "  #1 MatMul transpose_b (%2[1, 4, 8, 8], %1[4, 3, 3, 3], none) -> %3[1, 4] debug_id 1 'mm'\n"
            "  #2 BatchNorm epsilon=0.001 (%2[1, 4, 8, 8], %1[4, 3, 3, 3], %1[4, 3, 3, 3], none, none) -> %2[1, 4, 8, 8] debug_id 2 'bn'\n"
            "  #3 LayerNorm epsilon=1e-06 normalized_dims=2 (%2[1, 4, 8, 8], none, none) -> %2[1, 4, 8, 8] debug_id 3 'ln'\n"
            "  #4 Softmax axis=3 log (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 4 'sm'\n"
            "  #5 Pooling AvgExcludePadding kernel=[3, 3] strides=[2, 2] padding_l=[1, 1] padding_r=[2, 2] dilations=[1, 1] "
            "(%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 5 'pool'\n"
            "  #6 Reduction Sum (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 6 'sum'\n"
            "  #7 Resampling Linear (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 7 'up'\n"
            "  #8 Concat axis=1 (%2[1, 4, 8, 8], %2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 8 'cat'\n"
            "  #9 EltwiseOp GeluTanh (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 9 'gelu'\n"
            "  #10 BinaryOp Max (%2[1, 4, 8, 8], %0[1, 3, 8, 8]) -> %2[1, 4, 8, 8] debug_id 10 'max'\n"
            "  #11 Reorder permutation=[0, 2, 3, 1] (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id 11 'permute'\n"
            "  #12 Pad before=[0, 0, 1, 2] after=[0, 0, 3, 4] value=-2.5 (%2[1, 4, 8, 8]) -> %2[1, 4, 8, 8] debug_id -1 'pad'\n");
}

TEST(OneDnnBlobTest, BadBlobsAreRefusedWithTheReason) {
  const std::vector<uint8_t> good = serialize_onednn_blob(every_field());
  expect_error([&] { parse_onednn_blob(std::vector<uint8_t>(good.begin(), good.begin() + 10)); },
               "oneDNN blob of 10 bytes is shorter than its 16-byte header");
  std::vector<uint8_t> magic = good;
  magic[0] = 'X';
  expect_error([&] { parse_onednn_blob(magic); }, "does not start with the magic 'KODN'");
  std::vector<uint8_t> version = good;
  write_u32_le(version.data() + 4, kBlobVersion + 1);
  expect_error([&] { parse_onednn_blob(version); }, "has version " + std::to_string(kBlobVersion + 1) + ", expected 1 to " + std::to_string(kBlobVersion));
  const std::vector<uint8_t> truncated(good.begin(), good.end() - 1);
  expect_error([&] { parse_onednn_blob(truncated); }, "does not fit its");
  std::vector<uint8_t> shifted(good.size() + 4);  // the flatbuffer moved 4 bytes on, the header saying so
  std::copy(good.begin(), good.begin() + kBlobHeaderSize, shifted.begin());
  std::copy(good.begin() + kBlobHeaderSize, good.end(), shifted.begin() + kBlobHeaderSize + 4);
  write_u32_le(shifted.data() + 8, kBlobHeaderSize + 4);
  expect_error([&] { parse_onednn_blob(shifted); }, "(offset 20) does not start on an 8-byte boundary");
  std::vector<uint8_t> identifier = good;
  identifier[kBlobHeaderSize + 4] = 'X';  // the file identifier "KODG"
  expect_error([&] { parse_onednn_blob(identifier); }, "does not verify as a kiln.onednn.Graph");
  std::vector<uint8_t> root = good;
  write_u32_le(root.data() + kBlobHeaderSize, 0x7fffff00u);  // the root table's offset, far past the end
  expect_error([&] { parse_onednn_blob(root); }, "does not verify");
}

// Every single-byte corruption of a blob either parses or is refused with an
// AotError; none crashes or reads out of bounds (run under the sanitizers in CI).
TEST(OneDnnBlobTest, ACorruptionSweepNeverCrashes) {
  const std::vector<uint8_t> good = serialize_onednn_blob(every_field());
  size_t refused = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= flip;
      try {
        describe_onednn_blob(bad);
      } catch (const aot::AotError&) {
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace kiln::backends::onednn
