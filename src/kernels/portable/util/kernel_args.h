// KernelArgs: typed access to a boxed kernel's arguments, for the portable
// kernels.
//
// Every accessor checks what it reads (arity, tags, dtypes, shapes). On a
// mismatch it fails the kernel's context with an InvalidArgument (or
// NotSupported) message of the form "<op>: '<argument>' <what was wrong>" and
// returns false; the kernel then returns at once. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::kernels::portable::util {

using runtime::Error;
using runtime::EValue;
using runtime::KernelRuntimeContext;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Span;
using runtime::Tensor;

/// The most dimensions a portable kernel handles (ExecuTorch's limit).
constexpr size_t kMaxDims = 16;

class KernelArgs final {
 public:
  /// `op` is the registered name ("aten::add.out"); it prefixes every message.
  KernelArgs(KernelRuntimeContext& ctx, const char* op, Span<EValue*> args) : ctx_(ctx), op_(op), args_(args) {}

  /// Checks that there is one non-null EValue per schema argument (out tensors
  /// included) plus the return slot.
  bool check_count(size_t num_schema_args);

  /// Argument `index` as a tensor of at most kMaxDims dims whose data is
  /// present (unless it is empty).
  bool tensor(size_t index, const char* name, Tensor* out);
  /// None, or a tensor as for `tensor`.
  bool optional_tensor(size_t index, const char* name, std::optional<Tensor>* out);
  /// A Tensor[] argument: every element a tensor as for `tensor`. Messages
  /// name the element ("'tensors'[2] has no data").
  bool tensor_list(size_t index, const char* name, Span<const Tensor>* out);
  /// A Tensor?[] argument: every element None or a tensor as for `tensor`.
  bool optional_tensor_list(size_t index, const char* name, Span<const std::optional<Tensor>>* out);
  bool int_list(size_t index, const char* name, Span<const int64_t>* out);
  bool integer(size_t index, const char* name, int64_t* out);
  bool boolean(size_t index, const char* name, bool* out);
  /// A `float` argument: a Double, or an Int (which PyTorch also accepts).
  bool floating(size_t index, const char* name, double* out);
  /// A Scalar (Int, Double or Bool); the EValue itself, to keep its kind.
  bool scalar(size_t index, const char* name, const EValue** out);
  /// A `str` argument (its chars, not null-terminated).
  bool string(size_t index, const char* name, Span<const char>* out);

  /// `dim` wrapped against `rank` dims as PyTorch does (-1 is the last dim; a
  /// 0-dim tensor takes 0 and -1); fails naming `name` if it is out of range.
  bool wrap_dim(int64_t dim, size_t rank, const char* name, size_t* out);

  /// Fails unless `t` has dtype `expected`.
  bool check_dtype(const Tensor& t, const char* name, ScalarType expected);
  /// Fails InvalidArgument unless `t`'s dtype is one the runtime knows.
  bool check_valid_dtype(const Tensor& t, const char* name);
  /// Fails NotSupported unless `t` is laid out in contiguous dim order.
  bool check_contiguous(const Tensor& t, const char* name);
  /// Resizes the out tensor `out` (named `name`, or element `element` of the
  /// list `name` when element >= 0) to `sizes`; fails if it cannot take that
  /// shape (a static tensor of another shape, a wrong rank, ...).
  bool resize_out(const Tensor& out, const char* name, Span<const SizesType> sizes, long element = -1);
  /// Resizes `out` to the factory argument `size` (argument `name`: at most
  /// kMaxDims dims, none negative, the element count within int32).
  bool resize_out_to_size(const Tensor& out, const char* name, Span<const int64_t> size);

  /// Fails the context with "<op>: " followed by the formatted message.
  void fail(Error error, const char* format, ...) __attribute__((format(printf, 3, 4)));

  const char* op() const { return op_; }

 private:
  const EValue& at(size_t index) const { return *args_[index]; }
  bool check_tag(size_t index, const char* name, bool ok, const char* expected);
  // Checks a tensor value; `element` is its position in a list, or -1.
  bool check_tensor(const Tensor& t, const char* name, long element);

  KernelRuntimeContext& ctx_;
  const char* op_;
  Span<EValue*> args_;
};

/// Writes "[2, 3]" into `buffer` (always null-terminated, truncated if short).
void format_sizes(Span<const SizesType> sizes, char* buffer, size_t size);

}  // namespace kiln::kernels::portable::util
