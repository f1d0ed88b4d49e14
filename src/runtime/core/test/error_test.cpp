#include "runtime/core/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "runtime/core/result.h"
#include "runtime/core/test/log_capture.h"

namespace kiln::runtime {
namespace {

struct ErrorCase {
  Error error;
  uint32_t value;
  const char* name;
  const char* category;
};

constexpr ErrorCase kAllErrors[] = {
    {Error::Ok, 0x00, "Ok", "system"},
    {Error::Internal, 0x01, "Internal", "system"},
    {Error::InvalidState, 0x02, "InvalidState", "system"},
    {Error::EndOfMethod, 0x03, "EndOfMethod", "system"},
    {Error::AlreadyLoaded, 0x04, "AlreadyLoaded", "system"},
    {Error::NotSupported, 0x10, "NotSupported", "logical"},
    {Error::NotImplemented, 0x11, "NotImplemented", "logical"},
    {Error::InvalidArgument, 0x12, "InvalidArgument", "logical"},
    {Error::InvalidType, 0x13, "InvalidType", "logical"},
    {Error::OperatorMissing, 0x14, "OperatorMissing", "logical"},
    {Error::RegistrationExceedingMaxKernels, 0x15, "RegistrationExceedingMaxKernels", "logical"},
    {Error::RegistrationAlreadyRegistered, 0x16, "RegistrationAlreadyRegistered", "logical"},
    {Error::NotFound, 0x20, "NotFound", "resource"},
    {Error::MemoryAllocationFailed, 0x21, "MemoryAllocationFailed", "resource"},
    {Error::AccessFailed, 0x22, "AccessFailed", "resource"},
    {Error::InvalidProgram, 0x23, "InvalidProgram", "resource"},
    {Error::InvalidExternalData, 0x24, "InvalidExternalData", "resource"},
    {Error::OutOfResources, 0x25, "OutOfResources", "resource"},
    {Error::DelegateInvalidCompatibility, 0x30, "DelegateInvalidCompatibility", "delegate"},
    {Error::DelegateMemoryAllocationFailed, 0x31, "DelegateMemoryAllocationFailed", "delegate"},
    {Error::DelegateInvalidHandle, 0x32, "DelegateInvalidHandle", "delegate"},
};

TEST(ErrorTest, EveryCodeHasExecuTorchNumberNameAndCategory) {
  for (const ErrorCase& c : kAllErrors) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(static_cast<uint32_t>(c.error), c.value);
    EXPECT_STREQ(to_string(c.error), c.name);
    EXPECT_STREQ(category(c.error), c.category);
  }
}

TEST(ErrorTest, NamesAreUsableAtCompileTime) {
  static_assert(to_string(Error::InvalidArgument)[0] == 'I');
  static_assert(category(Error::NotFound)[0] == 'r');
}

TEST(ErrorTest, ValuesOutsideTheEnumAreUnknown) {
  EXPECT_STREQ(to_string(static_cast<Error>(0x05)), "Unknown");
  EXPECT_STREQ(to_string(static_cast<Error>(0x17)), "Unknown");
  EXPECT_STREQ(to_string(static_cast<Error>(0xffff)), "Unknown");
  // A gap inside a known range still has that range's category.
  EXPECT_STREQ(category(static_cast<Error>(0x2f)), "resource");
  EXPECT_STREQ(category(static_cast<Error>(0x40)), "unknown");
  EXPECT_STREQ(category(static_cast<Error>(0xffffffffu)), "unknown");
}

// ---------------------------------------------------------------------------
// Result<T>

TEST(ResultTest, HoldsAValue) {
  Result<int> result(42);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.error(), Error::Ok);
  EXPECT_EQ(result.get(), 42);
  EXPECT_EQ(*result, 42);
  *result = 7;
  EXPECT_EQ(result.get(), 7);
}

TEST(ResultTest, HoldsAnError) {
  Result<int> result(Error::NotFound);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::NotFound);
}

TEST(ResultTest, OkWithoutAValueBecomesInternal) {
  Result<int> result(Error::Ok);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::Internal);
}

TEST(ResultTest, ArrowReachesMembers) {
  Result<std::string> result(std::string("kiln"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->size(), 4u);
  const Result<std::string>& const_ref = result;
  EXPECT_EQ(const_ref->front(), 'k');
  EXPECT_EQ(*const_ref, "kiln");
}

TEST(ResultTest, CopiesFromAConstValue) {
  const std::string name = "copied";
  Result<std::string> result(name);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.get(), "copied");
  EXPECT_EQ(name, "copied");
}

TEST(ResultTest, HoldsMoveOnlyValuesAndMovesThem) {
  Result<std::unique_ptr<int>> first(std::make_unique<int>(5));
  ASSERT_TRUE(first.ok());
  Result<std::unique_ptr<int>> second(std::move(first));
  ASSERT_TRUE(second.ok());
  ASSERT_NE(second.get(), nullptr);
  EXPECT_EQ(*second.get(), 5);
}

TEST(ResultTest, MovingAnErrorKeepsTheError) {
  Result<std::string> first(Error::InvalidProgram);
  Result<std::string> second(std::move(first));
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(second.error(), Error::InvalidProgram);
}

TEST(ResultTest, DestroysItsValueExactlyOnce) {
  auto counter = std::make_shared<int>(0);
  {
    Result<std::shared_ptr<int>> result{std::shared_ptr<int>(counter)};
    EXPECT_EQ(counter.use_count(), 2);
    Result<std::shared_ptr<int>> moved(std::move(result));
    EXPECT_EQ(counter.use_count(), 2);
  }
  EXPECT_EQ(counter.use_count(), 1);
}

TEST(ResultDeathTest, GetWithoutAValueAborts) {
  Result<int> result(Error::InvalidArgument);
  EXPECT_DEATH((void)result.get(), "internal check failed");
}

// ---------------------------------------------------------------------------
// KILN_TRY, KILN_ASSIGN_OR_RETURN, KILN_CHECK_OR_LOG_RETURN

Error succeed() { return Error::Ok; }
Error fail_with(Error error) { return error; }

Error try_twice(Error first, Error second, int* reached) {
  KILN_TRY(fail_with(first));
  *reached = 1;
  KILN_TRY(fail_with(second));
  *reached = 2;
  return Error::Ok;
}

TEST(MacroTest, TryReturnsTheFirstError) {
  int reached = 0;
  EXPECT_EQ(try_twice(Error::Ok, Error::Ok, &reached), Error::Ok);
  EXPECT_EQ(reached, 2);

  reached = 0;
  EXPECT_EQ(try_twice(Error::NotFound, Error::Ok, &reached), Error::NotFound);
  EXPECT_EQ(reached, 0);

  reached = 0;
  EXPECT_EQ(try_twice(Error::Ok, Error::InvalidType, &reached), Error::InvalidType);
  EXPECT_EQ(reached, 1);
}

TEST(MacroTest, TryEvaluatesItsExpressionOnce) {
  int calls = 0;
  auto run = [&]() -> Error {
    KILN_TRY((++calls, succeed()));
    return Error::Ok;
  };
  EXPECT_EQ(run(), Error::Ok);
  EXPECT_EQ(calls, 1);
}

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Error::InvalidArgument;
  return c - '0';
}

Result<int> add_digits(char a, char b) {
  KILN_ASSIGN_OR_RETURN(int x, parse_digit(a));
  KILN_ASSIGN_OR_RETURN(const int y, parse_digit(b));  // two on consecutive lines
  return x + y;
}

Error store_digit(char c, int* out) {
  KILN_ASSIGN_OR_RETURN(*out, parse_digit(c));
  return Error::Ok;
}

Result<std::unique_ptr<int>> boxed(int value) { return std::make_unique<int>(value); }

Result<int> unbox(int value) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<int> box, boxed(value));
  return *box;
}

TEST(MacroTest, AssignOrReturnDeclaresTheValue) {
  Result<int> sum = add_digits('3', '4');
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum.get(), 7);
}

TEST(MacroTest, AssignOrReturnReturnsTheError) {
  Result<int> sum = add_digits('3', 'x');
  EXPECT_FALSE(sum.ok());
  EXPECT_EQ(sum.error(), Error::InvalidArgument);
}

TEST(MacroTest, AssignOrReturnAssignsToAnExistingLvalue) {
  int out = -1;
  EXPECT_EQ(store_digit('9', &out), Error::Ok);
  EXPECT_EQ(out, 9);
  EXPECT_EQ(store_digit('?', &out), Error::InvalidArgument);
  EXPECT_EQ(out, 9);
}

TEST(MacroTest, AssignOrReturnMovesMoveOnlyValues) {
  Result<int> result = unbox(11);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.get(), 11);
}

Error require_positive(int value) {
  KILN_CHECK_OR_LOG_RETURN(value > 0, InvalidArgument, "value %d is not positive", value);
  return Error::Ok;
}

TEST(MacroTest, CheckOrLogReturnLogsItsLine) {
  testing::LogCapture log;
  EXPECT_EQ(require_positive(1), Error::Ok);
  EXPECT_TRUE(log.errors().empty());
  EXPECT_EQ(require_positive(0), Error::InvalidArgument);
  EXPECT_EQ(log.errors(), std::vector<std::string>{"value 0 is not positive"});
}

}  // namespace
}  // namespace kiln::runtime
