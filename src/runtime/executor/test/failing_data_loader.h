// A DataLoader that forwards to another, counting load() and load_into()
// calls together and failing call number `fail_at` (from 0) with
// AccessFailed, logged as a file loader logs a failed read.
//
// DataLoader's type info lives in the runtime, which is built without RTTI,
// so a subclass can only be compiled without RTTI too: the loader is defined
// in failing_data_loader.cpp (-fno-rtti) and tests hold it through this
// non-polymorphic handle, never calling it directly (UBSan's vptr check in
// an RTTI test would reject an object whose vtable has no type info).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"

namespace kiln::runtime::testing {

class FailingDataLoader;

class FailingDataLoaderHandle final {
 public:
  static constexpr size_t kNeverFail = SIZE_MAX;

  explicit FailingDataLoaderHandle(const DataLoader* inner, size_t fail_at = kNeverFail);
  ~FailingDataLoaderHandle();
  FailingDataLoaderHandle(const FailingDataLoaderHandle&) = delete;
  FailingDataLoaderHandle& operator=(const FailingDataLoaderHandle&) = delete;

  /// The loader, for Program::load.
  DataLoader* get() const;
  /// load() and load_into() calls so far.
  size_t calls() const;

 private:
  FailingDataLoader* loader_;
};

}  // namespace kiln::runtime::testing
