// Fills the process-global backend table to kMaxRegisteredBackends, so it
// runs in a binary of its own: no other test may count on free capacity here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/backend/backend_interface.h"
#include "runtime/backend/test/backend_test_util.h"

namespace kiln::runtime {
namespace {

using ::testing::HasSubstr;
using testing::LogCapture;
using testing::NoopBackend;

NoopBackend backend;

TEST(BackendRegistryOverflowTest, FillsToCapacityAndRejectsMore) {
  ASSERT_EQ(get_num_registered_backends(), 0u) << "nothing else in this binary may register backends";
  // The registry keeps the name pointers: the strings live until the end.
  static std::vector<std::string> names;
  names.reserve(kMaxRegisteredBackends + 1);
  for (size_t i = 0; i <= kMaxRegisteredBackends; ++i) names.push_back("Overflow" + std::to_string(i));

  for (size_t i = 0; i < kMaxRegisteredBackends; ++i) {
    ASSERT_EQ(register_backend({names[i].c_str(), &backend}), Error::Ok) << i;
  }
  EXPECT_EQ(get_num_registered_backends(), kMaxRegisteredBackends);

  LogCapture log;
  EXPECT_EQ(register_backend({names.back().c_str(), &backend}), Error::OutOfResources);
  EXPECT_THAT(log.text(), HasSubstr("cannot register '" + names.back() + "': the table holds " +
                                     std::to_string(kMaxRegisteredBackends) + " backends"));
  EXPECT_EQ(get_num_registered_backends(), kMaxRegisteredBackends);
  EXPECT_EQ(get_backend_class(names.back().c_str()), nullptr);
  // A duplicate is still named as one when the table is full.
  EXPECT_EQ(register_backend({names[0].c_str(), &backend}), Error::RegistrationAlreadyRegistered);
  // First and last entries are still found.
  EXPECT_EQ(get_backend_class("Overflow0"), &backend);
  const std::string& last_name = names[kMaxRegisteredBackends - 1];
  EXPECT_EQ(get_backend_class(last_name.c_str()), &backend);
  auto last = get_backend_name(kMaxRegisteredBackends - 1);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, last_name);
}

}  // namespace
}  // namespace kiln::runtime
