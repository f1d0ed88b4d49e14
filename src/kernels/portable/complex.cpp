// The complex-number paths of abs and mul (complex.h): std::complex arithmetic
// over contiguous or broadcast operands.
#include "kernels/portable/complex.h"

#include <complex>

#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/portable/util/strided.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

// Element i of operand `data` of dtype `type` (its complex type's parts, or
// a real value of the matching type) as a complex number.
template <typename T>
std::complex<T> load(const void* data, ScalarType type, int64_t i) {
  if (runtime::is_complex_type(type)) return static_cast<const std::complex<T>*>(data)[i];
  return {static_cast<const T*>(data)[i], T(0)};
}

}  // namespace

bool has_complex_tensor(Span<EValue*> args) {
  for (EValue* arg : args) {
    if (arg != nullptr && arg->isTensor() && runtime::is_complex_type(arg->toTensor().scalar_type())) return true;
  }
  return false;
}

void complex_abs_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::abs.out", args);
  Tensor self, out;
  if (!a.check_count(2) || !a.tensor(0, "self", &self) || !a.tensor(1, "out", &out)) return;
  if (!runtime::is_complex_type(self.scalar_type())) {
    a.fail(Error::InvalidArgument, "'self' must be complex here, got %s", runtime::to_string(self.scalar_type()));
    return;
  }
  if (!a.check_dtype(out, "out", runtime::real_type_of(self.scalar_type())) || !a.check_contiguous(self, "self") ||
      !a.check_contiguous(out, "out") || !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  const auto magnitudes = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto* x = self.const_data_ptr<std::complex<T>>();
    T* y = out.mutable_data_ptr<T>();
    for (ssize_t i = 0; i < self.numel(); ++i) y[i] = std::abs(x[i]);
  };
  if (self.scalar_type() == ScalarType::ComplexDouble) magnitudes(util::TypeTag<double>{});
  else magnitudes(util::TypeTag<float>{});
}

void complex_mul_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::mul.out", args);
  Tensor self, other, out;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !a.tensor(1, "other", &other) || !a.tensor(2, "out", &out)) {
    return;
  }
  ScalarType type = ScalarType::ComplexFloat;
  if (!runtime::promote_types(self.scalar_type(), other.scalar_type(), &type) || !runtime::is_complex_type(type)) {
    a.fail(Error::InvalidArgument, "'self' (%s) and 'other' (%s) do not promote to a complex type",
           runtime::to_string(self.scalar_type()), runtime::to_string(other.scalar_type()));
    return;
  }
  // A real operand is read in the promoted type's part type; a complex one
  // must have the promoted type itself.
  for (const auto& [t, name] : {std::pair<const Tensor&, const char*>{self, "self"}, {other, "other"}}) {
    const ScalarType want = runtime::is_complex_type(t.scalar_type()) ? type : runtime::real_type_of(type);
    if (t.scalar_type() != want) {
      a.fail(Error::NotSupported, "'%s' is %s; with a %s result it must be %s (cast it first)", name,
             runtime::to_string(t.scalar_type()), runtime::to_string(type), runtime::to_string(want));
      return;
    }
  }
  if (!a.check_dtype(out, "out", type)) return;
  SizesType sizes[util::kMaxDims];
  size_t rank = 0;
  if (!util::broadcast_shape(self.sizes(), other.sizes(), sizes, &rank)) {
    a.fail(Error::InvalidArgument, "'self' and 'other' do not broadcast");
    return;
  }
  if (!a.check_contiguous(self, "self") || !a.check_contiguous(other, "other") || !a.resize_out(out, "out", {sizes, rank})) {
    return;
  }
  util::StridedLayout<3> layout;
  layout.rank = rank;
  for (size_t d = 0; d < rank; ++d) layout.sizes[d] = sizes[d];
  util::set_broadcast_strides(layout, 0, out);
  util::set_broadcast_strides(layout, 1, self);
  util::set_broadcast_strides(layout, 2, other);
  const auto multiply = [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* y = out.mutable_data_ptr<std::complex<T>>();
    util::for_each_row(layout, [&](const int64_t* offsets, int64_t length, const int64_t* inner) {
      for (int64_t i = 0; i < length; ++i) {
        y[offsets[0] + i * inner[0]] = load<T>(self.const_data_ptr(), self.scalar_type(), offsets[1] + i * inner[1]) *
                                       load<T>(other.const_data_ptr(), other.scalar_type(), offsets[2] + i * inner[2]);
      }
    });
  };
  if (type == ScalarType::ComplexDouble) multiply(util::TypeTag<double>{});
  else multiply(util::TypeTag<float>{});
}

}  // namespace kiln::kernels::portable
