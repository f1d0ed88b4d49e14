#include "kernels/portable/test/kernel_test_util.h"

#include <cmath>

#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::portable::testing {

TestTensor::TestTensor(ScalarType dtype, std::vector<SizesType> sizes, TensorShapeDynamism dynamism,
                       std::vector<DimOrderType> dim_order)
    : sizes_(std::move(sizes)), dim_order_(std::move(dim_order)), strides_(sizes_.size()) {
  if (dim_order_.empty()) {
    for (size_t d = 0; d < sizes_.size(); ++d) dim_order_.push_back(static_cast<DimOrderType>(d));
  }
  EXPECT_EQ(runtime::compute_strides({sizes_.data(), sizes_.size()}, {dim_order_.data(), dim_order_.size()},
                                     {strides_.data(), strides_.size()}),
            Error::Ok);
  size_t numel = 1;
  for (SizesType s : sizes_) numel *= static_cast<size_t>(s);
  data_.resize((numel * runtime::element_size(dtype) + 7) / 8 + 1);
  impl_ = std::make_unique<runtime::TensorImpl>(dtype, static_cast<ssize_t>(sizes_.size()), sizes_.data(),
                                                data_.data(), dim_order_.data(), strides_.data(), dynamism);
}

std::vector<SizesType> TestTensor::sizes() const {
  const auto s = impl_->sizes();
  return {s.begin(), s.end()};
}

std::vector<int64_t> TestTensor::logical_offsets() const {
  const size_t rank = sizes_.size();
  std::vector<int64_t> offsets;
  std::vector<int64_t> index(rank, 0);
  const int64_t numel = impl_->numel();
  for (int64_t n = 0; n < numel; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * impl_->strides()[d];
    offsets.push_back(offset);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < impl_->sizes()[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

struct KernelCall::IntList {
  std::vector<EValue> elements;
  std::vector<EValue*> wrapped;
  std::vector<int64_t> unwrapped;
  runtime::BoxedEvalueList<int64_t> list;
};

KernelCall& KernelCall::int_list(const std::vector<int64_t>& values) {
  auto storage = std::make_shared<IntList>();
  for (int64_t v : values) storage->elements.emplace_back(v);
  for (EValue& e : storage->elements) storage->wrapped.push_back(&e);
  storage->unwrapped.resize(values.size());
  storage->list = runtime::BoxedEvalueList<int64_t>(storage->wrapped.data(), storage->unwrapped.data(), values.size());
  lists_.push_back(storage);
  return value(EValue(&storage->list));
}

KernelRuntimeContext KernelCall::run(const char* op, bool add_return_slot) {
  KernelRuntimeContext ctx;
  EXPECT_EQ(register_portable_kernels(), Error::Ok);
  auto fn = runtime::get_op_function_from_registry(op);
  if (!fn.ok()) {
    ADD_FAILURE() << op << " is not registered";
    ctx.fail(fn.error(), "%s is not registered", op);
    return ctx;
  }
  std::vector<EValue> stack = values_;
  if (add_return_slot && !stack.empty()) stack.push_back(stack.back());
  std::vector<EValue*> pointers;
  for (EValue& v : stack) pointers.push_back(&v);
  (*fn)(ctx, {pointers.data(), pointers.size()});
  return ctx;
}

::testing::AssertionResult failed_with(const KernelRuntimeContext& ctx, Error error, const std::string& op,
                                       const std::string& argument) {
  const std::string message = ctx.failure_message();
  if (ctx.failure_state() != error) {
    return ::testing::AssertionFailure() << "failure state " << runtime::to_string(ctx.failure_state())
                                         << ", expected " << runtime::to_string(error) << " (message: \"" << message
                                         << "\")";
  }
  if (message.find(op) == std::string::npos || message.find(argument) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not name " << op << " and "
                                         << argument;
  }
  return ::testing::AssertionSuccess() << message;
}

::testing::AssertionResult all_near(const std::vector<float>& actual, const std::vector<float>& expected,
                                    float tolerance) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "size " << actual.size() << ", expected " << expected.size();
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const bool both_nan = std::isnan(actual[i]) && std::isnan(expected[i]);
    if (!both_nan && actual[i] != expected[i] && !(std::fabs(actual[i] - expected[i]) <= tolerance)) {
      return ::testing::AssertionFailure() << "element " << i << " is " << actual[i] << ", expected " << expected[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kiln::kernels::portable::testing
