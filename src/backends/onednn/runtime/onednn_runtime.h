// OneDnnBackend's runtime half: runs the blob the oneDNN backend's
// preprocess wrote (onednn_blob.h header + onednn_graph.fbs flatbuffer) with
// oneDNN 3.2's C API on one CPU engine.
//
// init verifies the blob, creates one oneDNN primitive per operation (plus
// reorders where a layout must change: at the delegate's edges only),
// reorders every weight once into the layout its primitive chose, sizes one
// user scratchpad for the largest primitive and plans the intermediate
// buffers by lifetime. Kiln's own memory (the handle, its tables, weights,
// intermediates and scratchpad) comes from the method allocator; oneDNN's
// objects (engine, stream, primitive descriptors, primitives, memory
// descriptors and memory objects, JIT code) are allocated by oneDNN itself
// and released at destroy. execute binds the call's tensors and runs the
// primitives in order. The library registers the backend as
// "OneDnnBackend" from a static initializer: link the whole archive (CMake
// target kiln_backends_onednn_runtime).
#pragma once

#include "runtime/backend/backend_interface.h"

namespace kiln::backends::onednn {

/// Sets the number of OpenMP threads oneDNN uses (the library is the GNU
/// OpenMP build). Call it before Method::load: primitives are created for the
/// thread count current at init, and execute re-applies the count on the
/// calling thread. Values below 1 mean 1. The default is 1 thread.
void set_num_threads(int num_threads);

/// The thread count set_num_threads chose (1 until it is called).
int num_threads();

class OneDnnBackendRuntime final : public runtime::BackendInterface {
 public:
  /// The id preprocess writes into the program (onednn_blob.h kBackendId).
  static constexpr const char* kName = "OneDnnBackend";

  /// False when oneDNN cannot create a CPU engine here.
  bool is_available() const override;

  /// @retval DelegateInvalidCompatibility a blob that is truncated, of
  ///   another version, fails flatbuffer verification, has an index or size
  ///   out of range, or describes an operation oneDNN refuses (the log line
  ///   names the operation and the oneDNN call).
  /// @retval NotFound a constant's key is not in the named data (named).
  /// @retval NotSupported an operation this runtime does not implement.
  /// @retval DelegateMemoryAllocationFailed the method allocator is full.
  runtime::Result<runtime::DelegateHandle*> init(runtime::BackendInitContext& context,
                                                 runtime::FreeableBuffer* processed,
                                                 runtime::Span<const runtime::CompileSpec> compile_specs) const override;

  /// `args`: the blob's inputs, then its outputs, each a contiguous float32
  /// tensor with exactly the sizes the blob records -- but in a value's
  /// run-time dimension (onednn_graph.fbs Value.runtime_dim), any size from
  /// 1 to the recorded bound, the same in every argument. A call with another
  /// run-time size than the last makes the memories of those values again
  /// (oneDNN allocates their descriptors); the primitives stay.
  /// @retval InvalidArgument a wrong argument count, kind, dtype or shape (named).
  /// @retval Internal a oneDNN primitive failed (the operation is named).
  runtime::Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                         runtime::Span<runtime::EValue*> args) const override;

  /// Releases every oneDNN object init created.
  void destroy(runtime::DelegateHandle* handle) const override;

  /// The module-wide set_num_threads above.
  void set_num_threads(int num_threads) const override;
};

}  // namespace kiln::backends::onednn
