// The backend registry: registration, lookup by name, and the errors for a
// missing name or implementation and for a name already taken.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "runtime/backend/backend_interface.h"
#include "runtime/backend/test/backend_test_util.h"

namespace kiln::runtime {
namespace {

using ::testing::HasSubstr;
using testing::LogCapture;
using testing::NoopBackend;

NoopBackend first_backend;
NoopBackend second_backend;

TEST(BackendRegistryTest, FindsARegisteredBackendByName) {
  const size_t before = get_num_registered_backends();
  ASSERT_EQ(register_backend({"RegistryTestFirst", &first_backend}), Error::Ok);
  EXPECT_EQ(get_num_registered_backends(), before + 1);
  EXPECT_EQ(get_backend_class("RegistryTestFirst"), &first_backend);
  // Lookup compares the text, not the pointer.
  const std::string copy = "RegistryTestFirst";
  EXPECT_EQ(get_backend_class(copy.c_str()), &first_backend);
  auto name = get_backend_name(before);
  ASSERT_TRUE(name.ok());
  EXPECT_STREQ(*name, "RegistryTestFirst");
}

TEST(BackendRegistryTest, UnknownAndNullNamesFindNothing) {
  EXPECT_EQ(get_backend_class("NoSuchBackend"), nullptr);
  EXPECT_EQ(get_backend_class(nullptr), nullptr);
  LogCapture log;
  EXPECT_EQ(get_backend_name(get_num_registered_backends()).error(), Error::InvalidArgument);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("is out of range"));
}

TEST(BackendRegistryTest, RefusesANullNameOrImplementation) {
  const size_t before = get_num_registered_backends();
  LogCapture log;
  EXPECT_EQ(register_backend({nullptr, &first_backend}), Error::InvalidArgument);
  EXPECT_EQ(register_backend({"RegistryTestNoImpl", nullptr}), Error::InvalidArgument);
  EXPECT_THAT(log.text(), HasSubstr("a backend needs a name and an implementation"));
  EXPECT_EQ(get_num_registered_backends(), before);
  EXPECT_EQ(get_backend_class("RegistryTestNoImpl"), nullptr);
}

TEST(BackendRegistryTest, RefusesANameAlreadyTakenAndKeepsTheFirst) {
  ASSERT_EQ(register_backend({"RegistryTestTwice", &first_backend}), Error::Ok);
  const size_t before = get_num_registered_backends();
  LogCapture log;
  EXPECT_EQ(register_backend({"RegistryTestTwice", &second_backend}), Error::RegistrationAlreadyRegistered);
  EXPECT_THAT(log.text(), HasSubstr("a backend named 'RegistryTestTwice' is already registered"));
  EXPECT_EQ(get_num_registered_backends(), before);
  EXPECT_EQ(get_backend_class("RegistryTestTwice"), &first_backend);
}

}  // namespace
}  // namespace kiln::runtime
