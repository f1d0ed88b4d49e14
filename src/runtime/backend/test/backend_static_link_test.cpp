// Static registration survives static linking: this binary links the demo
// backends' runtime archive (whole, through kiln_backends_demo_runtime) but
// never refers to a symbol in it, so only the archive's static initializer
// can have put DemoBackend in the registry. Linked without the whole-archive
// flag, the linker would drop that object file and this test would fail.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/backend/backend_interface.h"

namespace kiln::runtime {
namespace {

TEST(BackendStaticLinkTest, DemoBackendIsRegisteredWithoutACall) {
  BackendInterface* backend = get_backend_class("DemoBackend");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->is_available());
  bool listed = false;
  for (size_t i = 0; i < get_num_registered_backends(); ++i) {
    auto name = get_backend_name(i);
    ASSERT_TRUE(name.ok());
    listed = listed || std::strcmp(*name, "DemoBackend") == 0;
  }
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace kiln::runtime
