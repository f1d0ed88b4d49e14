// Several methods in one .pte on the runtime: a program Kiln writes with two
// program methods (each its own memory plan, one with state) and constant
// methods of every kind runs through Module (each program method computes
// its own result, each constant reads back as written, as one EValue per
// item for a list); ExecuTorch's own constant_methods.pte (tests/fixtures/pte)
// does the same; a plan with no chain at all loads and runs; Module's
// constant helpers refuse what is no constant.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aot/emit/constant_methods.h"
#include "aot/emit/to_executorch.h"
#include "aot/ir/graph_builder.h"
#include "runtime/core/test/log_capture.h"
#include "runtime/module/module.h"
#include "tests/support/host_tensors.h"
#include "tests/support/program_test_util.h"

// A namespace of its own: the integration tests build as one unity file.
namespace kiln::runtime::multi_method_test {
namespace {

namespace fb = executorch_flatbuffer;
using aot::HostTensor;
using testing::LogCapture;
using testing::OwnedTensor;
using aot::Node;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

HostTensor ramp(const std::vector<int64_t>& sizes, float start, float step) {
  HostTensor t = HostTensor::zeros(ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i);
  return t;
}

std::vector<float> floats(const EValue& value) {
  const HostTensor host = testing::to_host(value, "output");
  return {host.data<float>(), host.data<float>() + host.numel()};
}

// forward(x) = x + w; decode(x) = x * count, count += 1 first (state kept
// from call to call, in decode's own planned memory).
std::vector<uint8_t> two_methods_and_constants(const aot::ConstantMethods& constants) {
  aot::GraphBuilder f;
  Node* x = f.input("x", aot::f32({2, 3}));
  f.output({f.call("aten::add.Tensor", {x, f.parameter("w", ramp({2, 3}, 0.5f, 1.0f))})});
  const aot::ExportedProgram forward = std::move(f).build();

  aot::GraphBuilder d;
  Node* y = d.input("x", aot::f32({4}));
  Node* count = d.buffer("count", ramp({1}, 1.0f, 0.0f));
  Node* next = d.call("aten::add.Tensor", {count, 1.0});
  d.mutate_buffer("count", next);
  d.output({d.call("aten::mul.Tensor", {y, next})});
  const aot::ExportedProgram decode = std::move(d).build();
  return aot::to_executorch({{"forward", &forward}, {"decode", &decode}}, constants).buffer;
}

const aot::ConstantMethods kConstants{
    {"get_max_seq_len", int64_t{128}},
    {"get_temperature", 0.75},
    {"use_kv_cache", true},
    {"get_name", std::string("tiny-llama")},
    {"get_prefix", std::string("")},
    {"get_eos_ids", std::vector<int64_t>{2, 32000}},
    {"get_scales", std::vector<double>{0.25, -1.5}},
    {"get_flags", std::vector<bool>{false, true}},
    {"get_words", std::vector<std::string>{"<s>", "</s>"}},
    {"get_nothing", std::vector<int64_t>{}},
};

// Every output of constant method `name` equals the items of `value` (one
// output for a scalar).
void expect_constant(Module& module, const std::string& name, const aot::ConstantValue& value) {
  SCOPED_TRACE(name);
  Result<std::vector<EValue>> outputs = module.constant_values(name);
  ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
  std::visit(
      [&](const auto& expected) {
        using T = std::decay_t<decltype(expected)>;
        const auto check = [&](const EValue& got, const auto& want) {
          using W = std::decay_t<decltype(want)>;
          if constexpr (std::is_same_v<W, int64_t>) {
            ASSERT_TRUE(got.isInt());
            EXPECT_EQ(got.toInt(), want);
          } else if constexpr (std::is_same_v<W, double>) {
            ASSERT_TRUE(got.isDouble());
            EXPECT_EQ(got.toDouble(), want);
          } else if constexpr (std::is_same_v<W, bool>) {
            ASSERT_TRUE(got.isBool());
            EXPECT_EQ(got.toBool(), want);
          } else {
            ASSERT_TRUE(got.isString());
            EXPECT_EQ(std::string(got.toString().data(), got.toString().size()), want);
          }
        };
        if constexpr (std::is_same_v<T, std::vector<bool>> || std::is_same_v<T, std::vector<int64_t>> ||
                      std::is_same_v<T, std::vector<double>> || std::is_same_v<T, std::vector<std::string>>) {
          ASSERT_EQ(outputs->size(), expected.size());
          for (size_t i = 0; i < expected.size(); ++i) {
            check((*outputs)[i], static_cast<typename T::value_type>(expected[i]));
          }
        } else {
          ASSERT_EQ(outputs->size(), 1u);
          check(outputs->front(), expected);
          Result<EValue> single = module.constant_value(name);
          ASSERT_TRUE(single.ok());
          check(*single, expected);
        }
      },
      value);
}

TEST(MultiMethod, KilnsProgramMethodsAndConstantsRunOnTheRuntime) {
  const std::string path = testing::write_temp_file(two_methods_and_constants(kConstants), "multi_method");
  Module module(path);
  Result<std::vector<std::string>> names = module.method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_THAT(*names, ElementsAre("decode", "forward", "get_eos_ids", "get_flags", "get_max_seq_len", "get_name",
                                  "get_nothing", "get_prefix", "get_scales", "get_temperature", "get_words",
                                  "use_kv_cache"));

  const OwnedTensor x(ramp({2, 3}, -1.0f, 0.25f));
  Result<std::vector<EValue>> sum = module.forward({x.value()});
  ASSERT_TRUE(sum.ok()) << to_string(sum.error());
  EXPECT_THAT(floats(sum->at(0)), ElementsAre(-0.5f, 0.75f, 2.0f, 3.25f, 4.5f, 5.75f));
  const OwnedTensor y(ramp({4}, 1.0f, 1.0f));
  for (float count : {2.0f, 3.0f}) {  // decode's buffer counts its calls
    Result<std::vector<EValue>> product = module.execute("decode", {y.value()});
    ASSERT_TRUE(product.ok()) << to_string(product.error());
    EXPECT_THAT(floats(product->at(0)), ElementsAre(count, 2 * count, 3 * count, 4 * count));
  }
  for (const auto& [name, value] : kConstants) expect_constant(module, name, value);

  // A constant method needs no memory and runs no instruction.
  Result<MethodMeta> meta = module.method_meta("get_eos_ids");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 0u);
  EXPECT_EQ(meta->num_outputs(), 2u);
  EXPECT_EQ(meta->num_memory_planned_buffers(), 0u);
  EXPECT_EQ(meta->num_instructions(), 0u);
  // Each program method has its own arena.
  EXPECT_EQ(module.method_meta("forward")->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(module.method_meta("decode")->num_memory_planned_buffers(), 1u);
}

TEST(MultiMethod, ConstantHelpersRefuseWhatIsNoConstant) {
  const std::string path = testing::write_temp_file(two_methods_and_constants(kConstants), "multi_method_refusals");
  Module module(path);
  LogCapture log;
  EXPECT_EQ(module.constant_values("forward").error(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("method 'forward' takes 1 inputs; a constant method takes none"));
  EXPECT_EQ(module.constant_value("get_eos_ids").error(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("method 'get_eos_ids' returns 2 values, not one"));
  EXPECT_EQ(module.constant_value("get_nothing").error(), Error::InvalidArgument);
  EXPECT_EQ(module.constant_value("get_bos_id").error(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("no method named 'get_bos_id'"));
}

TEST(MultiMethod, ExecuTorchsConstantMethodsRunOnTheRuntime) {
  const nlohmann::json manifest = nlohmann::json::parse(std::ifstream(testing::kPteFixtures + "manifest.json"));
  const nlohmann::json& entry = manifest.at("multi_method_files").at(0);
  Module module(testing::kPteFixtures + entry.at("file").get<std::string>());
  Result<std::vector<std::string>> names = module.method_names();
  ASSERT_TRUE(names.ok());
  std::vector<std::string> expected_names;
  for (const auto& method : entry.at("methods")) expected_names.push_back(method.at("name"));
  EXPECT_EQ(*names, expected_names);

  const aot::ConstantMethods constants = aot::parse_constant_methods(entry.at("constant_methods").dump(), "manifest");
  ASSERT_EQ(constants.size(), 8u);
  for (const auto& [name, value] : constants) expect_constant(module, name, value);

  const OwnedTensor x(ramp({2, 3}, -1.0f, 0.5f));
  const OwnedTensor y(ramp({2, 3}, 2.0f, -0.25f));
  Result<std::vector<EValue>> sum = module.forward({x.value(), y.value()});
  ASSERT_TRUE(sum.ok()) << to_string(sum.error());
  EXPECT_THAT(floats(sum->at(0)), ElementsAre(1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.25f));
  Result<std::vector<EValue>> scaled = module.execute("decode", {x.value()});
  ASSERT_TRUE(scaled.ok()) << to_string(scaled.error());
  EXPECT_THAT(floats(scaled->at(0)), ElementsAre(-3.0f, -1.5f, 0.0f, 1.5f, 3.0f, 4.5f));
}

// A plan whose chains field is absent (ExecuTorch writes one empty chain; a
// writer may leave it out): nothing to run, its outputs read as written.
std::vector<uint8_t> program_without_chains() {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::EValue>> values{
      fb::CreateEValue(builder, fb::KernelTypes::Int, fb::CreateInt(builder, 42).Union()),
      fb::CreateEValue(builder, fb::KernelTypes::String,
                       fb::CreateString(builder, builder.CreateString("forty-two")).Union())};
  const std::vector<int32_t> outputs{0, 1};
  const std::vector<int64_t> buffer_sizes{0};
  auto plan = fb::CreateExecutionPlan(builder, builder.CreateString("get_answer"), 0, builder.CreateVector(values),
                                      builder.CreateVector(std::vector<int32_t>{}), builder.CreateVector(outputs),
                                      /*chains=*/0, 0, 0, builder.CreateVector(buffer_sizes));
  auto root = fb::CreateProgram(builder, 0, builder.CreateVector(std::vector{plan}));
  builder.Finish(root, "ET12");
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

TEST(MultiMethod, APlanWithoutChainsLoadsAndRuns) {
  const std::vector<uint8_t> bytes = program_without_chains();
  ASSERT_EQ(fb::GetProgram(bytes.data())->execution_plan()->Get(0)->chains(), nullptr);
  Module module(testing::write_temp_file(bytes, "no_chains"));
  Result<std::vector<EValue>> outputs = module.constant_values("get_answer");
  ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
  ASSERT_EQ(outputs->size(), 2u);
  EXPECT_EQ((*outputs)[0].toInt(), 42);
  EXPECT_EQ(std::string((*outputs)[1].toString().data(), (*outputs)[1].toString().size()), "forty-two");
}

}  // namespace
}  // namespace kiln::runtime::multi_method_test
