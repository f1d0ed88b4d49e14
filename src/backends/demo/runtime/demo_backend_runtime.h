// DemoBackend's runtime half: runs the blob its AOT preprocess wrote
// (demo_blob.h) on float32 tensors.
//
// init parses the blob, fetches every constant from the program's named
// data (zero-copy where the loader allows it) and takes, from the method
// allocator, the value table and scratch for every intermediate value, so
// execute only copies inputs' pointers in and results out. The library
// registers the backend as "DemoBackend" from a static initializer: link the
// whole archive (CMake target kiln_backends_demo_runtime).
#pragma once

#include "runtime/backend/backend_interface.h"

namespace kiln::backends::demo {

class DemoBackendRuntime final : public runtime::BackendInterface {
 public:
  /// The id preprocess writes into the program (DemoBackend::id()).
  static constexpr const char* kName = "DemoBackend";

  bool is_available() const override { return true; }

  /// @retval DelegateInvalidCompatibility the blob does not parse (the log
  ///   gives the parser's reason), or a constant's bytes do not fit the blob.
  /// @retval NotFound a constant's key is not in the named data (named).
  /// @retval DelegateMemoryAllocationFailed the method allocator is full.
  runtime::Result<runtime::DelegateHandle*> init(runtime::BackendInitContext& context,
                                                 runtime::FreeableBuffer* processed,
                                                 runtime::Span<const runtime::CompileSpec> compile_specs) const override;

  /// `args`: the blob's inputs, then its outputs, each a contiguous float32
  /// tensor of the element count the blob records.
  /// @retval InvalidArgument a wrong argument count, kind, dtype or size (named).
  runtime::Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                         runtime::Span<runtime::EValue*> args) const override;

  /// Frees the named data init fetched.
  void destroy(runtime::DelegateHandle* handle) const override;
};

}  // namespace kiln::backends::demo
