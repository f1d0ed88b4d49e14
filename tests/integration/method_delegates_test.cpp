// Method's delegates: an unregistered or unavailable backend named, a
// delegate call running its backend with its blob from a segment or inline,
// each delegate initialised once and destroyed with the method (or with a
// failed load).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/delegate/canonical_partitioners.h"
#include "aot/delegate/test/delegate_test_util.h"
#include "aot/emit/pte_writer.h"
#include "aot/emit/to_executorch.h"
#include "runtime/backend/backend_interface.h"
#include "tests/support/method_test_util.h"

namespace kiln::runtime {
namespace {

namespace fb = executorch_flatbuffer;
using namespace method_testing;
using ::testing::HasSubstr;

// ---- delegates ------------------------------------------------------------------

/// A runtime backend for the test backends' blobs: counts init, execute and
/// destroy; refuses the init numbered `refuse_init` (1-based; 0 never).
class CountingBackend final : public BackendInterface {
 public:
  bool is_available() const override { return available; }
  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec>) const override {
    ++inits;
    if (inits == refuse_init) return Error::DelegateInvalidCompatibility;
    EXPECT_GT(processed->size(), 0u);
    EXPECT_STREQ(context.get_method_name(), "forward");
    int* handle = context.get_runtime_allocator()->allocateInstance<int>();
    if (handle == nullptr) return Error::DelegateMemoryAllocationFailed;
    *handle = inits;
    return static_cast<DelegateHandle*>(handle);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*> args) const override {
    ++executes;
    EXPECT_GT(args.size(), 0u);
    return Error::Ok;
  }
  void destroy(DelegateHandle* handle) const override {
    ++destroys;
    EXPECT_NE(handle, nullptr);
  }
  mutable int inits = 0, executes = 0, destroys = 0;
  int refuse_init = 0;
  bool available = true;
};

/// The counting backend registered under `name` (once per name). Its names
/// are this file's own ("Counting..."), apart from the runtime backends other
/// tests of the binary register; the programs name it by delegated_mlp's
/// `backend_id`.
constexpr const char* kCountingAllOps = "CountingAllOpsBackend";
constexpr const char* kCountingEveryOther = "CountingEveryOtherBackend";
CountingBackend& counting_backend(const char* name) {
  static std::map<std::string, std::unique_ptr<CountingBackend>> backends;
  auto& backend = backends[name];
  if (backend == nullptr) {
    backend = std::make_unique<CountingBackend>();
    EXPECT_EQ(register_backend({name, backend.get()}), Error::Ok);
  }
  return *backend;
}

/// mlp lowered with `partitioner`; each delegate's backend id replaced by
/// `backend_id` if it is not empty.
/// `inline_blobs`: the blobs stay in the flatbuffer instead of segments.
std::vector<uint8_t> delegated_mlp(const aot::Partitioner& partitioner, const std::string& backend_id = "",
                                   bool inline_blobs = false) {
  const aot::ExportedProgram program = aot::to_backend(load_fixture("mlp", "model.core.pt2"), partitioner);
  aot::ExecutorchProgram lowered = aot::to_executorch(program);
  if (backend_id.empty() && !inline_blobs) return lowered.buffer;
  for (auto& delegate : lowered.emitted.program.program.execution_plan[0]->delegates) {
    if (!backend_id.empty()) delegate->id = backend_id;
  }
  aot::pte::SerializeOptions options;
  options.extract_delegate_segments = !inline_blobs;
  return aot::pte::serialize_pte(lowered.emitted.program, options);
}

void set_inputs_of_ones(const LoadedProgram& program, Method& method, std::vector<std::unique_ptr<InputTensor>>& owned) {
  const auto* plan = program.plan();
  for (size_t i = 0; i < method.inputs_size(); ++i) {
    const fb::Tensor* t = plan->values()->Get(plan->inputs()->Get(i))->val_as_Tensor();
    ASSERT_NE(t, nullptr);
    const std::vector<int64_t> sizes(t->sizes()->begin(), t->sizes()->end());
    owned.push_back(std::make_unique<InputTensor>(filled(static_cast<ScalarType>(t->scalar_type()), sizes, 1.0f)));
    ASSERT_EQ(method.set_input(owned.back()->value(), i), Error::Ok);
  }
}

TEST(MethodDelegates, AnUnregisteredBackendIsNotFoundAndNamed) {
  const auto program = load_program(delegated_mlp(aot::AllNodePartitioner(aot::testing::kAllOps), "NoSuchBackend"));
  ASSERT_NE(program, nullptr);
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::NotFound);
  EXPECT_THAT(log.text(), HasSubstr("delegate 0: backend 'NoSuchBackend' is not registered"));
}

TEST(MethodDelegates, ADelegateCallRunsItsBackendWithItsBlobInASegmentOrInline) {
  CountingBackend& backend = counting_backend(kCountingAllOps);
  for (const bool inline_blobs : {false, true}) {
    SCOPED_TRACE(inline_blobs ? "inline" : "segment");
    const auto program =
        load_program(delegated_mlp(aot::AllNodePartitioner(aot::testing::kAllOps), kCountingAllOps, inline_blobs));
    ASSERT_NE(program, nullptr);
    ASSERT_EQ(program->plan()->delegates()->Get(0)->processed()->location(),
              inline_blobs ? fb::DataLocation::INLINE : fb::DataLocation::SEGMENT);
    backend = CountingBackend();
    {
      Memory memory(*program);
      Result<Method> method = load_method(*program, memory);
      ASSERT_TRUE(method.ok()) << to_string(method.error());
      EXPECT_EQ(backend.inits, 1);
      std::vector<std::unique_ptr<InputTensor>> inputs;
      set_inputs_of_ones(*program, *method, inputs);
      EXPECT_EQ(method->execute(), Error::Ok);
      EXPECT_EQ(method->execute(), Error::Ok);
      EXPECT_EQ(backend.executes, 2);
      EXPECT_EQ(backend.destroys, 0);
    }
    EXPECT_EQ(backend.destroys, 1);
  }
}

TEST(MethodDelegates, EachIsInitialisedOnceAndDestroyedWithTheMethod) {
  CountingBackend& backend = counting_backend(kCountingEveryOther);
  const auto program =
      load_program(delegated_mlp(aot::CapabilityPartitioner(aot::testing::kEveryOther), kCountingEveryOther));
  ASSERT_NE(program, nullptr);
  const size_t delegates = program->plan()->delegates()->size();
  ASSERT_GE(delegates, 2u);
  backend = CountingBackend();
  {
    Memory memory(*program);
    Result<Method> method = load_method(*program, memory);
    ASSERT_TRUE(method.ok()) << to_string(method.error());
    EXPECT_EQ(backend.inits, static_cast<int>(delegates));
    Method moved(std::move(method.get()));  // the handles move with the method, destroyed once
    EXPECT_EQ(backend.destroys, 0);
  }
  EXPECT_EQ(backend.destroys, static_cast<int>(delegates));
}

TEST(MethodDelegates, AnUnavailableBackendIsNotSupportedAndNamed) {
  CountingBackend& backend = counting_backend(kCountingEveryOther);
  const auto program =
      load_program(delegated_mlp(aot::CapabilityPartitioner(aot::testing::kEveryOther), kCountingEveryOther));
  ASSERT_NE(program, nullptr);
  backend = CountingBackend();
  backend.available = false;
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::NotSupported);
  EXPECT_THAT(log.text(), HasSubstr("delegate 0: backend 'CountingEveryOtherBackend' is not available on this machine"));
  EXPECT_EQ(backend.inits, 0);
  backend = CountingBackend();
}

TEST(MethodDelegates, AFailedLoadDestroysWhatWasInitialised) {
  CountingBackend& backend = counting_backend(kCountingEveryOther);
  const auto program =
      load_program(delegated_mlp(aot::CapabilityPartitioner(aot::testing::kEveryOther), kCountingEveryOther));
  ASSERT_NE(program, nullptr);
  backend = CountingBackend();
  backend.refuse_init = 2;
  Memory memory(*program);
  LogCapture log;
  EXPECT_EQ(load_method(*program, memory).error(), Error::DelegateInvalidCompatibility);
  EXPECT_EQ(backend.inits, 2);
  EXPECT_EQ(backend.destroys, 1);
  EXPECT_THAT(log.text(), HasSubstr("delegate 1: backend 'CountingEveryOtherBackend' refused its blob"));
}

}  // namespace
}  // namespace kiln::runtime
