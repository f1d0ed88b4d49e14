// The ETDump the recorder writes, read back with the reader flatc generates
// from schema/etdump.fbs: size prefix and identifier, one RunData per event
// block, every event's fields, and the logged tensors' bytes in the debug
// buffer at their offsets.
#include "runtime/devtools/etdump_recorder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"
#include "schema/etdump_generated.h"

namespace kiln::runtime {
namespace {

struct SmallTensor {
  std::vector<float> data;
  SizesType sizes[2] = {2, 3};
  DimOrderType dim_order[2] = {0, 1};
  StridesType strides[2] = {3, 1};
  TensorImpl impl;
  explicit SmallTensor(float first)
      : data{first, first + 1, first + 2, first + 3, first + 4, first + 5},
        impl(ScalarType::Float, 2, sizes, data.data(), dim_order, strides, TensorShapeDynamism::Static) {}
};

const ::etdump::ETDump* read_back(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!::etdump::VerifySizePrefixedETDumpBuffer(verifier)) return nullptr;
  return ::etdump::GetSizePrefixedETDump(bytes.data());
}

std::string text(const flatbuffers::String* s) { return s == nullptr ? "<null>" : s->str(); }

TEST(ProgramTagTest, IsTheSizeAndFnv1a64OfTheBytes) {
  EXPECT_EQ(program_tag("", 0), "kiln-program 0 bytes fnv1a64 cbf29ce484222325");
  EXPECT_EQ(program_tag("a", 1), "kiln-program 1 bytes fnv1a64 af63dc4c8601ec8c");
}

TEST(EtdumpRecorderTest, WritesASizePrefixedEtdumpWithTheIdentifier) {
  EtdumpRecorder recorder;
  recorder.create_event_block("forward");
  const std::vector<uint8_t> bytes = recorder.etdump();
  ASSERT_GE(bytes.size(), 12u);
  uint32_t prefix = 0;
  std::memcpy(&prefix, bytes.data(), 4);
  EXPECT_EQ(prefix + 4u, bytes.size());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()) + 8, 4), "ED00");
  const ::etdump::ETDump* etdump = read_back(bytes);
  ASSERT_NE(etdump, nullptr);
  EXPECT_EQ(etdump->version(), EtdumpRecorder::kVersion);
  ASSERT_EQ(etdump->run_data()->size(), 1u);
  EXPECT_EQ(text(etdump->run_data()->Get(0)->name()), "forward");
  EXPECT_EQ(etdump->run_data()->Get(0)->bundled_input_index(), -1);
}

TEST(EtdumpRecorderTest, RoundTripsEveryEventOfEveryRun) {
  EtdumpRecorder recorder;
  recorder.set_program_tag(program_tag("a", 1));
  for (uint64_t run = 0; run < 2; ++run) {
    recorder.create_event_block("forward");
    InstructionEvent kernel;
    kernel.chain = 0;
    kernel.instruction = 1;
    kernel.name = "aten::add.out";
    kernel.start_ns = 100 + run * 1000;
    kernel.end_ns = 150 + run * 1000;
    recorder.log_instruction(kernel);
    DelegateEvent by_int;
    by_int.instruction = 2;
    by_int.debug_id = 3;
    by_int.start_ns = 210 + run * 1000;
    by_int.end_ns = 240 + run * 1000;
    recorder.log_delegate_event(by_int);
    DelegateEvent by_name = by_int;
    by_name.debug_id = -1;
    by_name.debug_name = "conv_relu";
    recorder.log_delegate_event(by_name);
    InstructionEvent call;
    call.instruction = 2;
    call.name = "DemoBackend";
    call.delegate = 0;
    call.start_ns = 200 + run * 1000;
    call.end_ns = 300 + run * 1000;
    recorder.log_instruction(call);
  }
  EXPECT_EQ(recorder.num_runs(), 2u);
  EXPECT_EQ(recorder.num_events(), 8u);
  EXPECT_TRUE(recorder.debug_buffer().empty());

  const std::vector<uint8_t> bytes = recorder.etdump();  // read_back's result points into it
  const ::etdump::ETDump* etdump = read_back(bytes);
  ASSERT_NE(etdump, nullptr);
  ASSERT_EQ(etdump->run_data()->size(), 2u);
  for (uint32_t run = 0; run < 2; ++run) {
    const ::etdump::RunData* data = etdump->run_data()->Get(run);
    EXPECT_EQ(text(data->name()), "forward [kiln-program 1 bytes fnv1a64 af63dc4c8601ec8c]");
    ASSERT_NE(data->allocators(), nullptr);
    ASSERT_EQ(data->events()->size(), 4u);
    const ::etdump::ProfileEvent* kernel = data->events()->Get(0)->profile_event();
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(data->events()->Get(0)->debug_event(), nullptr);
    EXPECT_EQ(text(kernel->name()), "aten::add.out");
    EXPECT_EQ(kernel->chain_index(), 0);
    EXPECT_EQ(kernel->instruction_id(), 1);
    EXPECT_EQ(kernel->delegate_debug_id_int(), -1);
    EXPECT_EQ(kernel->delegate_debug_id_str(), nullptr);
    EXPECT_EQ(kernel->start_time(), 100u + run * 1000);
    EXPECT_EQ(kernel->end_time(), 150u + run * 1000);
    const ::etdump::ProfileEvent* by_int = data->events()->Get(1)->profile_event();
    EXPECT_EQ(by_int->instruction_id(), 2);
    EXPECT_EQ(by_int->delegate_debug_id_int(), 3);
    EXPECT_EQ(text(by_int->name()), "3");
    EXPECT_EQ(by_int->end_time() - by_int->start_time(), 30u);
    const ::etdump::ProfileEvent* by_name = data->events()->Get(2)->profile_event();
    EXPECT_EQ(by_name->delegate_debug_id_int(), -1);
    EXPECT_EQ(text(by_name->delegate_debug_id_str()), "conv_relu");
    const ::etdump::ProfileEvent* call = data->events()->Get(3)->profile_event();
    EXPECT_EQ(text(call->name()), "DELEGATE_CALL");
    EXPECT_EQ(call->instruction_id(), 2);
    EXPECT_EQ(call->start_time(), 200u + run * 1000);
  }
}

TEST(EtdumpRecorderTest, LogsOutputsAsDebugEventsWithTheirBytesInTheDebugBuffer) {
  EtdumpRecorder recorder(/*log_outputs=*/true);
  EXPECT_TRUE(recorder.wants_outputs());
  SmallTensor first(1.0f), second(10.0f);
  const EValue output{Tensor(&first.impl)};
  InstructionEvent kernel;
  kernel.instruction = 4;
  kernel.name = "aten::relu.out";
  kernel.output = &output;
  recorder.log_instruction(kernel);  // no event block: one is opened
  DelegateEvent shown;
  shown.instruction = 5;
  shown.debug_id = 7;
  const Tensor shown_tensor(&second.impl);
  shown.output = &shown_tensor;
  recorder.log_delegate_event(shown);

  const std::vector<uint8_t>& buffer = recorder.debug_buffer();
  const std::vector<uint8_t> bytes = recorder.etdump();  // read_back's result points into it
  const ::etdump::ETDump* etdump = read_back(bytes);
  ASSERT_NE(etdump, nullptr);
  const ::etdump::RunData* run = etdump->run_data()->Get(0);
  EXPECT_EQ(text(run->name()), "Execute");
  ASSERT_EQ(run->events()->size(), 4u);
  const float* expected[] = {first.data.data(), second.data.data()};
  for (uint32_t i = 0; i < 2; ++i) {
    const ::etdump::DebugEvent* debug = run->events()->Get(2 * i + 1)->debug_event();
    ASSERT_NE(debug, nullptr);
    EXPECT_EQ(debug->instruction_id(), i == 0 ? 4 : 5);
    EXPECT_EQ(debug->delegate_debug_id_int(), i == 0 ? -1 : 7);
    ASSERT_EQ(debug->debug_entry()->val(), ::etdump::ValueType::Tensor);
    const ::etdump::Tensor* tensor = debug->debug_entry()->tensor();
    EXPECT_EQ(tensor->scalar_type(), executorch_flatbuffer::ScalarType::FLOAT);
    EXPECT_EQ(std::vector<int64_t>(tensor->sizes()->begin(), tensor->sizes()->end()), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(std::vector<int64_t>(tensor->strides()->begin(), tensor->strides()->end()), (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(static_cast<size_t>(tensor->offset()) % EtdumpRecorder::kDebugAlignment, 0u);
    ASSERT_LE(static_cast<size_t>(tensor->offset()) + 6 * sizeof(float), buffer.size());
    EXPECT_EQ(std::memcmp(buffer.data() + tensor->offset(), expected[i], 6 * sizeof(float)), 0);
  }
}

TEST(EtdumpRecorderTest, LogsAListOutputAsATensorList) {
  EtdumpRecorder recorder(/*log_outputs=*/true);
  SmallTensor a(0.0f), b(6.0f);
  EValue boxed[] = {EValue(Tensor(&a.impl)), EValue(Tensor(&b.impl))};
  EValue* const wrapped[] = {&boxed[0], &boxed[1]};
  Tensor unwrapped[2] = {Tensor(&a.impl), Tensor(&b.impl)};
  BoxedEvalueList<Tensor> list(wrapped, unwrapped, 2);
  const EValue output(&list);
  InstructionEvent kernel;
  kernel.name = "aten::split_copy.Tensor_out";
  kernel.output = &output;
  recorder.log_instruction(kernel);
  InstructionEvent silent;  // no output given: no debug event
  silent.name = "aten::add.out";
  recorder.log_instruction(silent);

  const std::vector<uint8_t> bytes = recorder.etdump();  // read_back's result points into it
  const ::etdump::ETDump* etdump = read_back(bytes);
  ASSERT_NE(etdump, nullptr);
  const ::etdump::RunData* run = etdump->run_data()->Get(0);
  ASSERT_EQ(run->events()->size(), 3u);
  const ::etdump::Value* value = run->events()->Get(1)->debug_event()->debug_entry();
  ASSERT_EQ(value->val(), ::etdump::ValueType::TensorList);
  ASSERT_EQ(value->tensor_list()->tensors()->size(), 2u);
  const int64_t second = value->tensor_list()->tensors()->Get(1)->offset();
  EXPECT_EQ(std::memcmp(recorder.debug_buffer().data() + second, b.data.data(), 6 * sizeof(float)), 0);
  EXPECT_NE(run->events()->Get(2)->profile_event(), nullptr);
}

}  // namespace
}  // namespace kiln::runtime
