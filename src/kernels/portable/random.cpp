// Sampling: rand, randn, their _like forms, normal, uniform, randint, randperm. Each draws from
// the process's generator (runtime/core/random.h) in the order PyTorch's CPU
// kernels draw, with their transformations, so that after the same seed
// rand, uniform and randint give PyTorch's values bit for bit and randn
// within a few float32 ulps (PyTorch's vectorized log, sine and cosine
// against the C library's):
//  - uniform in [from, to): for float, the next 32 bits' low 24 over 2^24;
//    for double, the next 64 bits' low 53 over 2^53; times (to - from) plus
//    from in one fused multiply-add, in the element type (PyTorch's build
//    contracts it: rounded twice, a third of the draws in [-2, 3) differ).
//  - normal (randn: mean 0, std 1), a contiguous float or double tensor of 16 elements or more:
//    every element drawn uniform in [0, 1), then Box-Muller over blocks of 16
//    (element j and j + 8 of a block give a pair); when 16 does not divide
//    the size, the last 16 elements are drawn again and transformed the same
//    way. Otherwise one element at a time in double: Box-Muller on two draws
//    (log1p(-u2), angle 2 pi u1), the cosine returned, the sine kept in the
//    generator for the next normal draw. Each value is then times std plus
//    mean in one fused multiply-add.
//  - randint in [low, high): the next 32 bits (64 when high - low is 2^32 or
//    more) modulo high - low, plus low.
//  - randperm(n): 0 .. n-1, then for i < n - 1 element i swapped with element
//    i + (the next 32 bits % (n - i)).
// Elements are drawn in memory order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/convert.h"
#include "kernels/portable/util/dispatch.h"
#include "kernels/portable/util/kernel_args.h"
#include "runtime/core/random.h"

namespace kiln::kernels::portable {

namespace {

using runtime::Error;
using runtime::RandomGenerator;
using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

constexpr double kTwoPi = 6.283185307179586476925286766559;

// One uniform draw in [from, to) (the caller holds the generator's lock).
template <typename T>
T uniform(RandomGenerator& generator, T from, T to) {
  if constexpr (std::is_same_v<T, double>) {
    const double x = static_cast<double>(generator.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
    return std::fma(x, to - from, from);
  } else {
    const float x = static_cast<float>(generator.random() & ((uint32_t{1} << 24) - 1)) * 0x1p-24f;
    return std::fma(x, to - from, from);
  }
}

// One normal draw in double, its Box-Muller twin kept for the next.
double normal_sample(RandomGenerator& generator, double mean, double std) {
  if (generator.has_next_normal) {
    generator.has_next_normal = false;
    return std::fma(generator.next_normal, std, mean);
  }
  const double u1 = uniform<double>(generator, 0, 1);
  const double u2 = uniform<double>(generator, 0, 1);
  const double radius = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = kTwoPi * u1;
  generator.next_normal = radius * std::sin(theta);
  generator.has_next_normal = true;
  return std::fma(radius * std::cos(theta), std, mean);
}

// Box-Muller over 16 uniform values in place: j and j + 8 make a pair.
template <typename T>
void normal_block(T* data, T mean, T std) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - data[j];  // (0, 1] for the log
    const T u2 = data[j + 8];
    const T radius = std::sqrt(-2 * std::log(u1));
    const T theta = static_cast<T>(kTwoPi * u2);
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

template <typename T>
void fill_normal(T* data, int64_t n, bool contiguous, double mean, double std, RandomGenerator& generator) {
  if (n >= 16 && contiguous) {
    for (int64_t i = 0; i < n; ++i) data[i] = uniform<T>(generator, 0, 1);
    for (int64_t i = 0; i + 16 <= n; i += 16) normal_block<T>(data + i, static_cast<T>(mean), static_cast<T>(std));
    if (n % 16 != 0) {
      T* last = data + n - 16;
      for (int i = 0; i < 16; ++i) last[i] = uniform<T>(generator, 0, 1);
      normal_block<T>(last, static_cast<T>(mean), static_cast<T>(std));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(normal_sample(generator, mean, std));
}

bool check_floating_out(KernelArgs& a, const Tensor& out) {
  if (util::is_floating(out.scalar_type())) return true;
  a.fail(Error::NotSupported, "'out' has dtype %s; it samples float32 and float64", runtime::to_string(out.scalar_type()));
  return false;
}

// The memory_format argument of the _like forms: None or a format (the
// elements are drawn in memory order whatever it is).
bool check_memory_format(KernelArgs& a, Span<EValue*> args, size_t index) {
  if (args[index]->isNone()) return true;
  int64_t format = 0;
  return a.integer(index, "memory_format", &format);
}

void fill_uniform(const Tensor& out, double from, double to) {
  RandomGenerator& generator = runtime::default_generator();
  const std::lock_guard<std::mutex> lock(generator.mutex);
  util::visit_floating(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) data[i] = uniform<T>(generator, static_cast<T>(from), static_cast<T>(to));
  });
}

void fill_normal(const Tensor& out, double mean, double std) {
  RandomGenerator& generator = runtime::default_generator();
  const std::lock_guard<std::mutex> lock(generator.mutex);
  const bool contiguous = runtime::is_contiguous_dim_order(out.dim_order());
  util::visit_floating(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_normal<T>(out.mutable_data_ptr<T>(), out.numel(), contiguous, mean, std, generator);
  });
}

// Fails unless out's dtype is one `op` writes (int32, int64, float32,
// float64) and holds every integer of [low, high) exactly.
bool check_holds(KernelArgs& a, const Tensor& out, int64_t low, int64_t high, const char* op) {
  bool fits = false;
  const bool known = util::visit_real(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      fits = low >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
             high - 1 <= static_cast<int64_t>(std::numeric_limits<T>::max());
    } else {
      constexpr int64_t exact = int64_t{1} << std::numeric_limits<T>::digits;
      fits = low >= -exact && high - 1 <= exact;
    }
  });
  if (!known) {
    a.fail(Error::NotSupported, "'out' has dtype %s; %s writes int32, int64, float32 or float64",
           runtime::to_string(out.scalar_type()), op);
    return false;
  }
  if (!fits) {
    a.fail(Error::InvalidArgument, "[%lld, %lld) does not fit 'out''s dtype %s", static_cast<long long>(low),
           static_cast<long long>(high), runtime::to_string(out.scalar_type()));
  }
  return fits;
}

// randint's values low + (bits % (high - low)) in out's dtype, which must
// hold low and high - 1 exactly.
void fill_randint(KernelArgs& a, int64_t low, int64_t high, const Tensor& out) {
  if (low >= high) {
    a.fail(Error::InvalidArgument, "'low' (%lld) must be less than 'high' (%lld)", static_cast<long long>(low),
           static_cast<long long>(high));
    return;
  }
  if (!check_holds(a, out, low, high, "randint")) return;
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  RandomGenerator& generator = runtime::default_generator();
  const std::lock_guard<std::mutex> lock(generator.mutex);
  util::visit_real(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      const uint64_t bits = range >= (uint64_t{1} << 32) ? generator.random64() : generator.random();
      data[i] = static_cast<T>(static_cast<int64_t>(bits % range + static_cast<uint64_t>(low)));
    }
  });
}

}  // namespace

void rand_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::rand.out", args);
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(2) || !a.int_list(0, "size", &size) || !a.tensor(1, "out", &out) || !check_floating_out(a, out) ||
      !a.resize_out_to_size(out, "size", size)) {
    return;
  }
  fill_uniform(out, 0, 1);
}

void randn_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::randn.out", args);
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(2) || !a.int_list(0, "size", &size) || !a.tensor(1, "out", &out) || !check_floating_out(a, out) ||
      !a.resize_out_to_size(out, "size", size)) {
    return;
  }
  fill_normal(out, 0, 1);
}

void rand_like_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::rand_like.out", args);
  Tensor self, out;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !check_memory_format(a, args, 1) || !a.tensor(2, "out", &out) ||
      !check_floating_out(a, out) || !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  fill_uniform(out, 0, 1);
}

void randn_like_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::randn_like.out", args);
  Tensor self, out;
  if (!a.check_count(3) || !a.tensor(0, "self", &self) || !check_memory_format(a, args, 1) || !a.tensor(2, "out", &out) ||
      !check_floating_out(a, out) || !a.resize_out(out, "out", self.sizes())) {
    return;
  }
  fill_normal(out, 0, 1);
}

void normal_float_float_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::normal.float_float_out", args);
  double mean = 0, std = 1;
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(5) || !a.floating(0, "mean", &mean) || !a.floating(1, "std", &std) || !a.int_list(2, "size", &size) ||
      !a.tensor(4, "out", &out) || !check_floating_out(a, out)) {
    return;
  }
  if (!args[3]->isNone()) {
    a.fail(Error::NotSupported, "'generator' is given; Kiln draws from its one generator (kiln run --seed)");
    return;
  }
  if (!(std >= 0) || !std::isfinite(mean) || !std::isfinite(std)) {
    a.fail(Error::InvalidArgument, "'std' (%g) must be at least 0 and 'mean' (%g) finite", std, mean);
    return;
  }
  if (!a.resize_out_to_size(out, "size", size)) return;
  fill_normal(out, mean, std);
}

void uniform_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::uniform.out", args);
  Tensor self, out;
  double from = 0, to = 1;
  if (!a.check_count(5) || !a.tensor(0, "self", &self) || !a.floating(1, "from", &from) || !a.floating(2, "to", &to) ||
      !a.tensor(4, "out", &out) || !check_floating_out(a, out)) {
    return;
  }
  if (!args[3]->isNone()) {
    a.fail(Error::NotSupported, "'generator' is given; Kiln draws from its one generator (kiln run --seed)");
    return;
  }
  if (!(from <= to) || !std::isfinite(to - from)) {
    a.fail(Error::InvalidArgument, "'from' (%g) must be at most 'to' (%g), and to - from finite", from, to);
    return;
  }
  if (!a.resize_out(out, "out", self.sizes())) return;
  fill_uniform(out, from, to);
}

void randint_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::randint.out", args);
  int64_t high = 0;
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(3) || !a.integer(0, "high", &high) || !a.int_list(1, "size", &size) || !a.tensor(2, "out", &out) ||
      !a.resize_out_to_size(out, "size", size)) {
    return;
  }
  fill_randint(a, 0, high, out);
}

void randint_low_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::randint.low_out", args);
  int64_t low = 0, high = 0;
  Span<const int64_t> size;
  Tensor out;
  if (!a.check_count(4) || !a.integer(0, "low", &low) || !a.integer(1, "high", &high) || !a.int_list(2, "size", &size) ||
      !a.tensor(3, "out", &out) || !a.resize_out_to_size(out, "size", size)) {
    return;
  }
  fill_randint(a, low, high, out);
}

void randperm_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "aten::randperm.out", args);
  int64_t n = 0;
  Tensor out;
  if (!a.check_count(2) || !a.integer(0, "n", &n) || !a.tensor(1, "out", &out)) return;
  if (n < 0 || n >= (int64_t{1} << 32) / 20) {
    a.fail(Error::InvalidArgument, "'n' (%lld) must be from 0 to %lld", static_cast<long long>(n),
           static_cast<long long>((int64_t{1} << 32) / 20 - 1));
    return;
  }
  if (!check_holds(a, out, 0, std::max<int64_t>(n, 1), "randperm")) return;
  const SizesType shape[] = {static_cast<SizesType>(n)};
  if (!a.resize_out(out, "out", shape)) return;
  RandomGenerator& generator = runtime::default_generator();
  const std::lock_guard<std::mutex> lock(generator.mutex);
  util::visit_real(out.scalar_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(i);
    for (int64_t i = 0; i + 1 < n; ++i) {
      const int64_t z = static_cast<int64_t>(generator.random() % static_cast<uint64_t>(n - i));
      std::swap(data[i], data[i + z]);
    }
  });
}

}  // namespace kiln::kernels::portable
