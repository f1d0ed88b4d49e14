// Helpers shared by the AOT side's tests (header-only; tests only).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aot/ir/argument.h"
#include "aot/ir/error.h"
#include "aot/ir/host_tensor.h"

namespace kiln::aot::testing {

/// [v0, v1, ...] as one int-list argument. An Argument, not an ArgumentList:
/// a braced list whose single element is an ArgumentList is copied from it by
/// clang and wrapped as one element by GCC, so `{ints({2, 2})}` must hold an
/// Argument to mean one argument on both.
inline Argument ints(const std::vector<int64_t>& values) {
  ArgumentList list;
  for (int64_t v : values) list.emplace_back(v);
  return Argument(std::move(list));
}

/// The message of the AotError `run` throws; fails the test if it throws none.
inline std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const AotError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an AotError";
  return "";
}

/// Expects `run` to throw an AotError whose message contains `expected`.
inline void expect_error(const std::function<void()>& run, const std::string& expected) {
  EXPECT_THAT(error_of(run), ::testing::HasSubstr(expected));
}

/// A float32 tensor of `sizes` with every element `value`.
inline HostTensor filled(const std::vector<int64_t>& sizes, float value) {
  HostTensor t = HostTensor::zeros(runtime::ScalarType::Float, sizes);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = value;
  return t;
}

}  // namespace kiln::aot::testing
