#include "bench_call.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "kernels/portable/register.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace kiln::bench {

using runtime::Error;
using runtime::EValue;

void BenchTensor::FreeAligned::operator()(float* p) const { std::free(p); }

BenchTensor::BenchTensor(std::vector<runtime::SizesType> sizes, float low, float high, uint32_t seed,
                         runtime::ScalarType dtype)
    : sizes_(std::move(sizes)), dim_order_(sizes_.size()), strides_(sizes_.size()) {
  size_t numel = 1;
  for (size_t d = 0; d < sizes_.size(); ++d) {
    dim_order_[d] = static_cast<runtime::DimOrderType>(d);
    numel *= static_cast<size_t>(sizes_[d]);
  }
  if (runtime::compute_strides({sizes_.data(), sizes_.size()}, {dim_order_.data(), dim_order_.size()},
                               {strides_.data(), strides_.size()}) != Error::Ok) {
    std::abort();  // the cases are written in this file's callers: a bad shape is a typo
  }
  if (dtype == runtime::ScalarType::ComplexFloat) numel *= 2;  // the parts
  const size_t bytes = (numel * sizeof(float) + 63) / 64 * 64;
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes)));
  if (!data_) throw std::bad_alloc();
  // A 32-bit LCG: the same values on every run, and cheap enough for 1M floats.
  uint32_t state = seed;
  for (size_t i = 0; i < numel; ++i) {
    state = state * 1664525u + 1013904223u;
    data_.get()[i] = low + (high - low) * static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
  }
  impl_ = std::make_unique<runtime::TensorImpl>(dtype, static_cast<ssize_t>(sizes_.size()),
                                                sizes_.data(), data_.get(), dim_order_.data(), strides_.data());
}

BoxedCall& BoxedCall::value(const EValue& v) {
  values_.push_back(v);
  return *this;
}

BoxedCall& BoxedCall::tensor(const BenchTensor& t) { return value(EValue(t.tensor())); }
BoxedCall& BoxedCall::none() { return value(EValue()); }
BoxedCall& BoxedCall::scalar(int64_t v) { return value(EValue(v)); }
BoxedCall& BoxedCall::scalar(double v) { return value(EValue(v)); }
BoxedCall& BoxedCall::boolean(bool v) { return value(EValue(v)); }

BoxedCall& BoxedCall::string(const char* text) {
  strings_.push_back(std::make_unique<std::string>(text));
  return value(EValue(strings_.back()->data(), strings_.back()->size()));
}

BoxedCall& BoxedCall::int_list(std::vector<int64_t> values) {
  auto list = std::make_unique<IntList>();
  for (int64_t v : values) list->elements.emplace_back(v);
  for (EValue& e : list->elements) list->wrapped.push_back(&e);
  list->unwrapped.resize(values.size());
  list->list = runtime::BoxedEvalueList<int64_t>(list->wrapped.data(), list->unwrapped.data(), values.size());
  lists_.push_back(std::move(list));
  return value(EValue(&lists_.back()->list));
}

bool BoxedCall::prepare(std::string* error) {
  if (kernels::portable::register_portable_kernels() != Error::Ok) {
    *error = "registering the portable kernels failed";
    return false;
  }
  auto fn = runtime::get_op_function_from_registry(op_.c_str());
  if (!fn.ok()) {
    *error = op_ + " is not registered";
    return false;
  }
  fn_ = *fn;
  // The executor passes a return slot after the schema's arguments: a copy of
  // the (last) out tensor.
  values_.push_back(values_.back());
  pointers_.clear();
  for (EValue& v : values_) pointers_.push_back(&v);
  runtime::KernelRuntimeContext ctx;
  fn_(ctx, {pointers_.data(), pointers_.size()});
  if (ctx.failure_state() != Error::Ok) {
    *error = op_ + " failed: " + ctx.failure_message();
    return false;
  }
  return true;
}

bool BoxedCall::run() {
  runtime::KernelRuntimeContext ctx;
  fn_(ctx, {pointers_.data(), pointers_.size()});
  return ctx.failure_state() == Error::Ok;
}

}  // namespace kiln::bench
