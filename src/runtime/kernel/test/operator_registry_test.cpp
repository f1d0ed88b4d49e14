// The registry is one process-global table, so every test here registers
// names of its own and measures counts as differences. Filling the table is
// tested in operator_registry_overflow_test.cpp, its own binary.
#include "runtime/kernel/operator_registry.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/core/test/log_capture.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::runtime {
namespace {

// aten::add.Scalar_out-like: args = (a, b, out, return slot).
void add_ints(KernelRuntimeContext& context, Span<EValue*> args) {
  KILN_KERNEL_CHECK_MSG(context, args.size() == 4, InvalidArgument, , "add_ints: %zu args", args.size());
  KILN_KERNEL_CHECK_MSG(context, args[0]->isInt() && args[1]->isInt(), InvalidType, , "add_ints: arg is %s",
                        to_string(args[0]->isInt() ? args[1]->tag() : args[0]->tag()));
  *args[2] = EValue(args[0]->toInt() + args[1]->toInt());
  *args[3] = *args[2];
}

void noop(KernelRuntimeContext&, Span<EValue*>) {}
void other_noop(KernelRuntimeContext& context, Span<EValue*>) { context.fail(Error::NotImplemented); }

TEST(OperatorRegistryTest, RegisterAndLookUp) {
  const size_t before = get_num_registered_kernels();
  const Kernel kernels[] = {{"test::add.out", add_ints}, {"test::noop.out", noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  EXPECT_EQ(get_num_registered_kernels(), before + 2);

  EXPECT_TRUE(registry_has_op_function("test::add.out"));
  EXPECT_TRUE(registry_has_op_function("test::noop.out"));
  Result<OpFunction> add = get_op_function_from_registry("test::add.out");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add.get(), &add_ints);
  Result<OpFunction> nop = get_op_function_from_registry("test::noop.out");
  ASSERT_TRUE(nop.ok());
  EXPECT_EQ(nop.get(), &noop);
}

TEST(OperatorRegistryTest, LookupComparesNamesNotPointers) {
  const Kernel kernels[] = {{"test::by_value.out", noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  std::string name = "test::by_value";
  name += ".out";  // a different buffer with the same characters
  EXPECT_TRUE(registry_has_op_function(name.c_str()));
  EXPECT_FALSE(registry_has_op_function("test::by_value"));  // the overload is part of the name
  EXPECT_FALSE(registry_has_op_function("test::by_value.out2"));
}

TEST(OperatorRegistryTest, CallsAKernelThroughTheBoxedConvention) {
  const Kernel kernels[] = {{"test::call_add.out", add_ints}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  Result<OpFunction> op = get_op_function_from_registry("test::call_add.out");
  ASSERT_TRUE(op.ok());

  EValue a(int64_t{40});
  EValue b(int64_t{2});
  EValue out;
  EValue ret;
  EValue* args[] = {&a, &b, &out, &ret};
  KernelRuntimeContext context;
  op.get()(context, Span<EValue*>(args));  // GCC will not convert an array through a function pointer
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_STREQ(context.failure_message(), "");
  ASSERT_TRUE(out.isInt());
  EXPECT_EQ(out.toInt(), 42);
  EXPECT_EQ(ret.toInt(), 42);

  EValue not_an_int(1.5);
  EValue* bad_args[] = {&a, &not_an_int, &out, &ret};
  KernelRuntimeContext failing;
  op.get()(failing, Span<EValue*>(bad_args));
  EXPECT_EQ(failing.failure_state(), Error::InvalidType);
  EXPECT_STREQ(failing.failure_message(), "add_ints: arg is Double");
}

TEST(OperatorRegistryTest, MissingOperator) {
  Result<OpFunction> op = get_op_function_from_registry("test::never_registered.out");
  EXPECT_FALSE(op.ok());
  EXPECT_EQ(op.error(), Error::OperatorMissing);
  EXPECT_FALSE(registry_has_op_function("test::never_registered.out"));
  EXPECT_FALSE(registry_has_op_function(""));
}

TEST(OperatorRegistryTest, DuplicateOfARegisteredNameIsRejected) {
  const Kernel first[] = {{"test::dup.out", noop}};
  ASSERT_EQ(register_kernels(first), Error::Ok);
  const size_t before = get_num_registered_kernels();

  const Kernel again[] = {{"test::dup.out", other_noop}};
  EXPECT_EQ(register_kernels(again), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_num_registered_kernels(), before);
  // The first registration still wins.
  EXPECT_EQ(get_op_function_from_registry("test::dup.out").get(), &noop);
}

TEST(OperatorRegistryTest, FailedBatchRegistersNothing) {
  const Kernel first[] = {{"test::batch_existing.out", noop}};
  ASSERT_EQ(register_kernels(first), Error::Ok);
  const size_t before = get_num_registered_kernels();

  // The clash is last, so the fresh names ahead of it must not sneak in.
  const Kernel batch[] = {{"test::batch_a.out", noop},
                          {"test::batch_b.out", noop},
                          {"test::batch_existing.out", other_noop}};
  EXPECT_EQ(register_kernels(batch), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_num_registered_kernels(), before);
  EXPECT_FALSE(registry_has_op_function("test::batch_a.out"));
  EXPECT_FALSE(registry_has_op_function("test::batch_b.out"));

  // Without the clash the same fresh names register fine.
  const Kernel fresh[] = {{"test::batch_a.out", noop}, {"test::batch_b.out", noop}};
  EXPECT_EQ(register_kernels(fresh), Error::Ok);
  EXPECT_EQ(get_num_registered_kernels(), before + 2);
}

TEST(OperatorRegistryTest, DuplicateWithinOneBatchIsRejected) {
  const size_t before = get_num_registered_kernels();
  const Kernel batch[] = {{"test::twice.out", noop}, {"test::in_between.out", noop}, {"test::twice.out", other_noop}};
  EXPECT_EQ(register_kernels(batch), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_num_registered_kernels(), before);
  EXPECT_FALSE(registry_has_op_function("test::twice.out"));
  EXPECT_FALSE(registry_has_op_function("test::in_between.out"));
}

TEST(OperatorRegistryTest, NullNameOrFunctionIsInvalidAndRegistersNothing) {
  const size_t before = get_num_registered_kernels();
  const Kernel null_op[] = {{"test::null_fn_ok.out", noop}, {"test::null_fn.out", nullptr}};
  EXPECT_EQ(register_kernels(null_op), Error::InvalidArgument);
  const Kernel null_name[] = {{"test::null_name_ok.out", noop}, {nullptr, noop}};
  EXPECT_EQ(register_kernels(null_name), Error::InvalidArgument);
  EXPECT_EQ(get_num_registered_kernels(), before);
  EXPECT_FALSE(registry_has_op_function("test::null_fn_ok.out"));
  EXPECT_FALSE(registry_has_op_function("test::null_name_ok.out"));
}

TEST(OperatorRegistryTest, EmptyBatchIsOk) {
  const size_t before = get_num_registered_kernels();
  EXPECT_EQ(register_kernels({}), Error::Ok);
  EXPECT_EQ(get_num_registered_kernels(), before);
}

TEST(OperatorRegistryTest, ListsKernelsInRegistrationOrder) {
  const size_t before = get_num_registered_kernels();
  const Kernel kernels[] = {{"test::order_z.out", noop}, {"test::order_a.out", other_noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  Span<const Kernel> all = get_registered_kernels();
  ASSERT_EQ(all.size(), before + 2);
  EXPECT_STREQ(all[before].name, "test::order_z.out");
  EXPECT_EQ(all[before].op, &noop);
  EXPECT_STREQ(all[before + 1].name, "test::order_a.out");
  EXPECT_EQ(all[before + 1].op, &other_noop);
}

// ---------------------------------------------------------------------------
// Kernel keys

TEST(KernelKeyTest, SpellsDtypeAndDimOrderOfEachTensor) {
  const DimOrderType nchw[] = {0, 1, 2, 3};
  const DimOrderType scalar_dims[] = {0};
  const TensorMeta metas[] = {{ScalarType::Float, nchw}, {ScalarType::Long, scalar_dims}, {ScalarType::Bool, {}}};
  char key[kMaxKernelKeyLength];
  ASSERT_EQ(make_kernel_key(metas, key, sizeof key), Error::Ok);
  EXPECT_STREQ(key, "v1/6;0,1,2,3|4;0|11;");
  ASSERT_EQ(make_kernel_key({}, key, sizeof key), Error::Ok);
  EXPECT_STREQ(key, "v1/");
}

TEST(KernelKeyTest, TooSmallABufferIsInvalid) {
  const DimOrderType dims[] = {0, 1};
  const TensorMeta metas[] = {{ScalarType::Float, dims}};
  char key[8];  // "v1/6;0,1" needs 9 with its null
  testing::LogCapture log;
  EXPECT_EQ(make_kernel_key(metas, key, sizeof key), Error::InvalidArgument);
  EXPECT_STREQ(key, "");
  EXPECT_TRUE(log.contains("does not fit in 8 bytes")) << log.text();
  EXPECT_EQ(make_kernel_key(metas, nullptr, 0), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("no buffer")) << log.text();
  char exact[9];
  EXPECT_EQ(make_kernel_key(metas, exact, sizeof exact), Error::Ok);
  EXPECT_STREQ(exact, "v1/6;0,1");
}

TEST(KernelKeyTest, ExactKeyBeatsTheFallbackWhicheverIsRegisteredFirst) {
  const Kernel kernels[] = {{"test::keyed.out", noop},
                            {"test::keyed.out", other_noop, "v1/6;0,1|6;0,1"},
                            {"test::keyed_first.out", other_noop, "v1/6;0,1"},
                            {"test::keyed_first.out", noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const DimOrderType dims[] = {0, 1};
  const TensorMeta floats[] = {{ScalarType::Float, dims}, {ScalarType::Float, dims}};
  const TensorMeta longs[] = {{ScalarType::Long, dims}, {ScalarType::Long, dims}};
  EXPECT_EQ(get_op_function_from_registry("test::keyed.out", floats).get(), &other_noop);
  EXPECT_EQ(get_op_function_from_registry("test::keyed.out", longs).get(), &noop);  // no exact key: the fallback
  EXPECT_EQ(get_op_function_from_registry("test::keyed.out").get(), &noop);
  EXPECT_EQ(get_op_function_from_registry("test::keyed_first.out", Span<const TensorMeta>(floats, 1)).get(), &other_noop);
  EXPECT_EQ(get_op_function_from_registry("test::keyed_first.out", longs).get(), &noop);
}

TEST(KernelKeyTest, AKeyedKernelWithoutFallbackMatchesOnlyItsKey) {
  const Kernel kernels[] = {{"test::only_keyed.out", noop, "v1/6;0"}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const DimOrderType dims[] = {0};
  const TensorMeta floats[] = {{ScalarType::Float, dims}};
  const TensorMeta ints[] = {{ScalarType::Int, dims}};
  EXPECT_EQ(get_op_function_from_registry("test::only_keyed.out", floats).get(), &noop);
  EXPECT_EQ(get_op_function_from_registry("test::only_keyed.out", ints).error(), Error::OperatorMissing);
  EXPECT_EQ(get_op_function_from_registry("test::only_keyed.out").error(), Error::OperatorMissing);
  EXPECT_TRUE(registry_has_op_function("test::only_keyed.out"));
}

// A miss is logged where it happens, naming the operator and the key asked
// for, and whether the name has kernels under other keys.
TEST(KernelKeyTest, AMissingKernelIsLoggedWithItsNameAndKey) {
  const Kernel kernels[] = {{"test::logged_keyed.out", noop, "v1/6;0"}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const DimOrderType dims[] = {0};
  const TensorMeta ints[] = {{ScalarType::Int, dims}};
  testing::LogCapture log;
  EXPECT_EQ(get_op_function_from_registry("test::logged_never.out").error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("no kernel registered for 'test::logged_never.out' (no key; no kernel of that name)"))
      << log.text();
  EXPECT_EQ(get_op_function_from_registry("test::logged_keyed.out", ints).error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("no kernel registered for 'test::logged_keyed.out' (key v1/3;0; 1 kernel of that name "
                           "under other keys, no fallback)"))
      << log.text();
  EXPECT_EQ(get_op_function_from_registry(nullptr).error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("no operator name to look up")) << log.text();
}

// A kernel that selective build left out is named as such; another missing
// kernel is still only missing, and a registered kernel of a noted name (a
// list noted by mistake) still wins.
TEST(KernelKeyTest, AKernelLeftOutBySelectiveBuildIsLoggedAsLeftOut) {
  static const char* const kLeftOut[] = {"test::left_out.out", "test::left_out_but_registered.out"};
  ASSERT_EQ(note_left_out_kernels(kLeftOut), Error::Ok);
  ASSERT_EQ(note_left_out_kernels(kLeftOut), Error::Ok);  // the same list again: nothing changes
  const Kernel kernels[] = {{"test::left_out_but_registered.out", noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  EXPECT_TRUE(is_left_out_kernel("test::left_out.out"));
  EXPECT_FALSE(is_left_out_kernel("test::never_known.out"));
  EXPECT_FALSE(is_left_out_kernel(nullptr));

  testing::LogCapture log;
  EXPECT_EQ(get_op_function_from_registry("test::left_out.out").error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("no kernel registered for 'test::left_out.out': selective build left it out of this "
                           "runtime (the op list the runtime was built from does not name it; add it and rebuild)"))
      << log.text();
  EXPECT_EQ(get_op_function_from_registry("test::never_known.out").error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("no kernel registered for 'test::never_known.out' (no key; no kernel of that name)"))
      << log.text();
  EXPECT_EQ(get_op_function_from_registry("test::left_out_but_registered.out").get(), &noop);
}

TEST(KernelKeyTest, DuplicatesAreTheSameNameAndTheSameKey) {
  const size_t before = get_num_registered_kernels();
  const Kernel kernels[] = {{"test::dup_key.out", noop, "v1/6;0"}, {"test::dup_key.out", noop, "v1/4;0"},
                            {"test::dup_key.out", noop}};
  ASSERT_EQ(register_kernels(kernels), Error::Ok);
  const Kernel same_key[] = {{"test::dup_key.out", other_noop, "v1/4;0"}};
  EXPECT_EQ(register_kernels(same_key), Error::RegistrationAlreadyRegistered);
  const Kernel second_fallback[] = {{"test::dup_key.out", other_noop}};
  EXPECT_EQ(register_kernels(second_fallback), Error::RegistrationAlreadyRegistered);
  const Kernel twice_in_batch[] = {{"test::dup_key2.out", noop, "v1/6;0"}, {"test::dup_key2.out", noop, "v1/6;0"}};
  EXPECT_EQ(register_kernels(twice_in_batch), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(get_num_registered_kernels(), before + 3);
}

// ---------------------------------------------------------------------------
// KernelRuntimeContext

TEST(KernelRuntimeContextTest, StartsWithoutFailure) {
  KernelRuntimeContext context;
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_STREQ(context.failure_message(), "");
}

TEST(KernelRuntimeContextTest, FailWithoutMessage) {
  KernelRuntimeContext context;
  context.fail(Error::InvalidArgument);
  EXPECT_EQ(context.failure_state(), Error::InvalidArgument);
  EXPECT_STREQ(context.failure_message(), "");
}

TEST(KernelRuntimeContextTest, FailFormatsTheMessage) {
  KernelRuntimeContext context;
  context.fail(Error::InvalidArgument, "aten::add.out: arg %d has dtype %s", 1, "Float");
  EXPECT_EQ(context.failure_state(), Error::InvalidArgument);
  EXPECT_STREQ(context.failure_message(), "aten::add.out: arg 1 has dtype Float");
}

TEST(KernelRuntimeContextTest, FirstMessageIsKept) {
  KernelRuntimeContext context;
  context.fail(Error::InvalidArgument, "first: %s", "shape");
  context.fail(Error::InvalidType, "second: %s", "dtype");
  EXPECT_STREQ(context.failure_message(), "first: shape");
}

TEST(KernelRuntimeContextTest, LongMessageIsTruncated) {
  KernelRuntimeContext context;
  const std::string long_text(1000, 'x');
  context.fail(Error::Internal, "%s", long_text.c_str());
  EXPECT_EQ(std::strlen(context.failure_message()), KernelRuntimeContext::kMaxMessageLength - 1);
}

bool checked_kernel(KernelRuntimeContext& context, int value) {
  KILN_KERNEL_CHECK_MSG(context, value >= 0, InvalidArgument, false, "value %d is negative", value);
  return true;
}

TEST(KernelRuntimeContextTest, KernelCheckMacroFailsAndReturns) {
  KernelRuntimeContext context;
  EXPECT_TRUE(checked_kernel(context, 3));
  EXPECT_EQ(context.failure_state(), Error::Ok);
  EXPECT_FALSE(checked_kernel(context, -3));
  EXPECT_EQ(context.failure_state(), Error::InvalidArgument);
  EXPECT_STREQ(context.failure_message(), "value -3 is negative");
}

TEST(KernelRuntimeContextTest, AllocateTempWithoutAllocatorIsNotFound) {
  KernelRuntimeContext context;
  Result<void*> memory = context.allocate_temp(16);
  EXPECT_FALSE(memory.ok());
  EXPECT_EQ(memory.error(), Error::NotFound);
}

TEST(KernelRuntimeContextTest, AllocateTempFromTheAllocator) {
  alignas(16) uint8_t buffer[64];
  MemoryAllocator allocator(sizeof buffer, buffer);
  KernelRuntimeContext context(&allocator);
  Result<void*> first = context.allocate_temp(8);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.get(), buffer);
  Result<void*> aligned = context.allocate_temp(8, 16);
  ASSERT_TRUE(aligned.ok());
  EXPECT_EQ(aligned.get(), buffer + 16);
  EXPECT_EQ(allocator.used_size(), 24u);
}

TEST(KernelRuntimeContextTest, AllocateTempFromAFullAllocatorFails) {
  alignas(16) uint8_t buffer[32];
  MemoryAllocator allocator(sizeof buffer, buffer);
  ASSERT_NE(allocator.allocate(32), nullptr);
  KernelRuntimeContext context(&allocator);
  Result<void*> memory = context.allocate_temp(1);
  EXPECT_FALSE(memory.ok());
  EXPECT_EQ(memory.error(), Error::MemoryAllocationFailed);
  // A malformed request is reported the same way.
  allocator.reset();
  EXPECT_EQ(context.allocate_temp(8, 3).error(), Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace kiln::runtime
