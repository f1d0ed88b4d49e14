// Helpers for the backend registry tests: a backend that does nothing, and a
// log sink that keeps the last error line.
#pragma once

#include <string>

#include "runtime/backend/backend_interface.h"
#include "runtime/core/log.h"
#include "runtime/core/test/log_capture.h"

namespace kiln::runtime::testing {

/// A backend whose entry points all succeed and do nothing.
class NoopBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*, Span<const CompileSpec>) const override {
    return static_cast<DelegateHandle*>(nullptr);
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override { return Error::Ok; }
};

}  // namespace kiln::runtime::testing
