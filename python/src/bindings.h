// The pieces of the _kiln extension: each bind_* adds its part of the module
// (module.cpp calls them in order), and the conversions they share between
// Python values and Kiln's.
//
// Every Kiln error is a kiln::HostError in C++ (aot::AotError, the llm
// library's errors, ...) and kiln.KilnError in Python,
// with the message the CLI prints; errors in what the caller passed (an
// input of the wrong dtype or shape, an unknown option) are
// kiln.InputError, a subclass of KilnError and ValueError (TypeError for a
// value that is not an array at all).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"
#include "runtime/core/evalue.h"
#include "runtime/core/scalar_type.h"

namespace kiln::python {

namespace nb = nanobind;

/// kiln.KilnError, kiln.InputError (bind_errors makes them).
extern PyObject* g_kiln_error;
extern PyObject* g_input_error;

/// Raises kiln.InputError with `message` (as a C++ exception nanobind turns
/// into it).
struct InputError {
  std::string message;
};

void bind_errors(nb::module_& m);
void bind_runtime(nb::module_& m);
void bind_lower(nb::module_& m);
void bind_devtools(nb::module_& m);
void bind_llm(nb::module_& m);

/// Kiln's dtype for a DLPack dtype; throws InputError naming `what` for one
/// Kiln has no tensors of.
runtime::ScalarType scalar_type_of(const nb::dlpack::dtype& dtype, const std::string& what);
/// The DLPack dtype of Kiln's `type`.
nb::dlpack::dtype dlpack_dtype_of(runtime::ScalarType type);
/// The numpy dtype name ("float32") of Kiln's `type`.
const char* numpy_dtype_name(runtime::ScalarType type);

/// `value` as an array of the CPU (numpy, torch, anything with __dlpack__ or
/// the buffer protocol), or an invalid ndarray when it is none of those. A
/// torch tensor that requires grad is detached first (no copy).
nb::ndarray<nb::ro> as_cpu_array(nb::handle value, const std::string& what);

/// A host copy of `value` (an array, or a Python bool/int/float as a 0-dim
/// tensor); throws InputError naming `what` otherwise. For the devtools and
/// lowering, where inputs are copied anyway.
aot::HostTensor to_host_tensor(nb::handle value, const std::string& what);

/// `value` as a Python object: a tensor as a numpy array (a copy), a number,
/// bool, string or None as itself, a list as a list.
nb::object to_python(const aot::Value& value);

}  // namespace kiln::python
