// kiln.load, kiln.Program and kiln.Method: a .pte on Kiln's runtime, run on
// numpy arrays, torch tensors or any DLPack producer.
//
// Inputs are passed to the runtime without a copy when their dtype, sizes and
// strides fit the method's input (the runtime then reads the caller's memory;
// a memory-planned input is copied into its arena by the runtime itself, as in
// C++). An array of the right dtype laid out otherwise (a transposed view, a
// slice with steps, channels-first for a channels-last input) is copied into
// the input's layout first; a wrong dtype, rank or size is an InputError that
// names what the method expects. Nothing is converted silently.
//
// The GIL is released while a method runs, so methods run on several threads
// at once; one Method runs one call at a time (a lock per method).
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>

#include "aot/ir/error.h"
#include "bindings.h"
#include "devtools/runtime_session.h"
#include "devtools/trace_recorder.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/random.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/executor/method.h"

namespace kiln::python {

namespace {

using namespace nb::literals;
using runtime::ScalarType;
using runtime::Tag;

/// One tensor of a method's signature, as Python sees it.
struct TensorSpec {
  std::string dtype;  ///< numpy's name ("float32"); Kiln's for types numpy lacks
  std::vector<int64_t> shape;
  bool dynamic = false;  ///< sizes may shrink down from `shape` (the planned bounds)
  std::vector<int64_t> dim_order;
  std::string kind = "tensor";  ///< "tensor", or the value's kind ("int", "float", "bool", "none", ...)

  std::string repr() const {
    if (kind != "tensor") return "TensorSpec(kind='" + kind + "')";
    std::string text = "TensorSpec(dtype='" + dtype + "', shape=(";
    for (size_t d = 0; d < shape.size(); ++d) text += (d ? ", " : "") + std::to_string(shape[d]);
    if (shape.size() == 1) text += ",";
    text += ")";
    if (dynamic) text += ", dynamic=True";
    bool contiguous = true;
    for (size_t d = 0; d < dim_order.size(); ++d) contiguous &= dim_order[d] == static_cast<int64_t>(d);
    if (!contiguous) {
      text += ", dim_order=(";
      for (size_t d = 0; d < dim_order.size(); ++d) text += (d ? ", " : "") + std::to_string(dim_order[d]);
      text += ")";
    }
    return text + ")";
  }
};

const char* kind_name(Tag tag) {
  switch (tag) {
    case Tag::Tensor: return "tensor";
    case Tag::Int: return "int";
    case Tag::Double: return "float";
    case Tag::Bool: return "bool";
    case Tag::None: return "none";
    case Tag::String: return "str";
    default: return runtime::to_string(tag);
  }
}

TensorSpec spec_of(const runtime::TensorInfo& info) {
  TensorSpec spec;
  spec.dtype = numpy_dtype_name(info.scalar_type());
  spec.shape.assign(info.sizes().begin(), info.sizes().end());
  spec.dim_order.assign(info.dim_order().begin(), info.dim_order().end());
  spec.dynamic = info.shape_dynamism() != runtime::TensorShapeDynamism::Static;
  return spec;
}

template <typename TagOf, typename InfoOf>
std::vector<TensorSpec> specs(size_t count, TagOf tag_of, InfoOf info_of) {
  std::vector<TensorSpec> result;
  for (size_t i = 0; i < count; ++i) {
    auto tag = tag_of(i);
    TensorSpec spec;
    if (tag.ok() && *tag == Tag::Tensor) {
      auto info = info_of(i);
      if (info.ok()) spec = spec_of(*info);
    } else {
      spec.kind = tag.ok() ? kind_name(*tag) : "unknown";
    }
    result.push_back(std::move(spec));
  }
  return result;
}

/// What a method takes and gives, and the memory its plan asks for.
struct MethodMetadata {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<int64_t> planned_buffers;  ///< bytes of each planned arena
  int64_t planned_bytes = 0;
  size_t instructions = 0;

  std::string repr() const {
    return "MethodMetadata(name='" + name + "', inputs=" + std::to_string(inputs.size()) +
           ", outputs=" + std::to_string(outputs.size()) + ", planned_bytes=" + std::to_string(planned_bytes) + ")";
  }
};

MethodMetadata metadata_of(const std::string& name, const runtime::MethodMeta& meta) {
  MethodMetadata result;
  result.name = name;
  result.inputs = specs(
      meta.num_inputs(), [&](size_t i) { return meta.input_tag(i); }, [&](size_t i) { return meta.input_tensor_meta(i); });
  result.outputs = specs(
      meta.num_outputs(), [&](size_t i) { return meta.output_tag(i); },
      [&](size_t i) { return meta.output_tensor_meta(i); });
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    auto size = meta.memory_planned_buffer_size(i);
    result.planned_buffers.push_back(size.ok() ? *size : 0);
    result.planned_bytes += size.ok() ? *size : 0;
  }
  result.instructions = meta.num_instructions();
  return result;
}

/// Calls running now (the GIL released), and the most seen at once since the
/// last read: what the tests check that two threads run two methods at once.
std::atomic<int> g_running{0};
std::atomic<int> g_most_running{0};

/// Counts a call as running while it lives.
struct Running {
  Running() {
    const int now = g_running.fetch_add(1) + 1;
    int most = g_most_running.load();
    while (now > most && !g_most_running.compare_exchange_weak(most, now)) {
    }
  }
  ~Running() { g_running.fetch_sub(1); }
};

void set_threads(int threads) {
  if (threads < 1 || threads > 256) throw InputError{"threads must be 1 to 256, got " + std::to_string(threads)};
  runtime::set_backend_threads(threads);
}

// ---------------------------------------------------------------- Program

class Program {
 public:
  Program(std::shared_ptr<const devtools::LoadedProgram> program) : program_(std::move(program)) {}

  const std::shared_ptr<const devtools::LoadedProgram>& loaded() const { return program_; }
  std::vector<std::string> method_names() const { return program_->method_names(); }
  MethodMetadata metadata(const std::string& method) const {
    const std::string name = program_->resolve_method(method);
    return metadata_of(name, program_->method_meta(name));
  }

 private:
  std::shared_ptr<const devtools::LoadedProgram> program_;
};

/// The program in `source`: a path (str or os.PathLike) is mapped; bytes (or
/// any buffer) are read in place, kept alive by the program.
std::shared_ptr<const devtools::LoadedProgram> load_program(nb::handle source) {
  if (PyUnicode_Check(source.ptr()) || nb::hasattr(source, "__fspath__")) {
    const std::string path = nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(source));
    nb::gil_scoped_release release;
    return devtools::LoadedProgram::from_file(path);
  }
  Py_buffer view;
  if (PyObject_GetBuffer(source.ptr(), &view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    throw InputError{std::string("kiln.load takes a path or the bytes of a .pte, got a ") +
                     nb::inst_name(source).c_str()};
  }
  // The buffer stays held (and its object alive) until the program goes; the
  // release needs the GIL, which the last owner may not hold.
  auto* held = new Py_buffer(view);
  std::shared_ptr<const void> owner(held, [](const void* pointer) {
    nb::gil_scoped_acquire acquire;
    auto* buffer = static_cast<Py_buffer*>(const_cast<void*>(pointer));
    PyBuffer_Release(buffer);
    delete buffer;
  });
  const size_t size = static_cast<size_t>(view.len);
  nb::gil_scoped_release release;
  return devtools::LoadedProgram::from_bytes(held->buf, size, owner, "the program's bytes");
}

// ---------------------------------------------------------------- Method

/// One input as the runtime sees it: its metadata, and either the caller's
/// array (borrowed) or a copy in the input's layout.
struct BoundInput {
  std::vector<runtime::SizesType> sizes;
  std::vector<runtime::DimOrderType> dim_order;
  std::vector<runtime::StridesType> strides;
  std::unique_ptr<runtime::TensorImpl> impl;
  nb::object keep;     ///< the array whose memory the runtime reads
  aot::HostTensor copy;  ///< or the copy it reads
};

std::string describe_array(ScalarType dtype, const std::vector<int64_t>& sizes) {
  std::string text = std::string(numpy_dtype_name(dtype)) + "[";
  for (size_t d = 0; d < sizes.size(); ++d) text += (d ? ", " : "") + std::to_string(sizes[d]);
  return text + "]";
}

class Method {
 public:
  Method(std::shared_ptr<const devtools::LoadedProgram> program, const std::string& name) {
    nb::gil_scoped_release release;
    session_ = std::make_unique<devtools::RuntimeSession>(std::move(program), name);
    meta_.emplace(session_->method_meta());
  }

  std::string name() const { return session_->method_name(); }
  MethodMetadata metadata() const { return metadata_of(name(), *meta_); }

  /// Runs the method on `inputs`; outputs as numpy arrays, copies unless
  /// `copy_outputs` is false (then views of the method's memory, valid until
  /// its next call).
  nb::list execute(nb::handle self, const nb::sequence& inputs, bool copy_outputs) {
    // The lock is waited for without the GIL: its holder needs the GIL to bind
    // the inputs and make the outputs.
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    {
      nb::gil_scoped_release release;
      lock.lock();
    }
    bind_inputs(inputs);
    {
      nb::gil_scoped_release release;
      Running running;
      session_->execute();
    }
    ++calls_;
    return outputs(self, copy_outputs);
  }

  /// The data pointer of input `index` as the runtime holds it after the last
  /// call (the caller's array's when it was passed without a copy).
  uintptr_t input_data_ptr(size_t index) {
    if (index >= session_->method().inputs_size()) {
      throw InputError{"input " + std::to_string(index) + " is out of range: the method takes " +
                       std::to_string(session_->method().inputs_size())};
    }
    const runtime::EValue& value = session_->method().get_input(index);
    if (!value.isTensor()) return 0;
    return reinterpret_cast<uintptr_t>(value.toTensor().const_data_ptr());
  }

  /// How many inputs of the last call were copied into the input's layout.
  size_t last_copies() const { return copies_; }
  size_t calls() const { return calls_; }

 private:
  void bind_inputs(const nb::sequence& inputs) {
    const runtime::MethodMeta& meta = *meta_;
    const size_t count = nb::len(inputs);
    if (count != meta.num_inputs()) {
      throw InputError{"method '" + name() + "' takes " + std::to_string(meta.num_inputs()) + " input" +
                       (meta.num_inputs() == 1 ? "" : "s") + ", got " + std::to_string(count)};
    }
    bound_.resize(count);
    values_.clear();
    copies_ = 0;
    for (size_t i = 0; i < count; ++i) {
      const nb::handle item = inputs[i];
      auto tag = meta.input_tag(i);
      if (!tag.ok()) throw aot::AotError("input " + std::to_string(i) + ": the program's metadata cannot be read");
      values_.push_back(bind_input(i, *tag, item, bound_[i]));
    }
    try {
      session_->set_input_values(values_);
    } catch (const aot::AotError& error) {
      throw InputError{error.what()};
    }
  }

  runtime::EValue bind_input(size_t index, Tag tag, nb::handle item, BoundInput& bound) {
    const std::string what = "input " + std::to_string(index);
    bound.keep = nb::object();
    bound.copy = aot::HostTensor();
    switch (tag) {
      case Tag::None:
        if (!item.is_none()) throw InputError{what + " must be None"};
        return runtime::EValue();
      case Tag::Int:
        if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) throw InputError{what + " must be an int"};
        return runtime::EValue(nb::cast<int64_t>(item));
      case Tag::Double:
        if (!PyFloat_Check(item.ptr()) && !PyLong_Check(item.ptr())) throw InputError{what + " must be a float"};
        return runtime::EValue(nb::cast<double>(item));
      case Tag::Bool:
        if (!PyBool_Check(item.ptr())) throw InputError{what + " must be a bool"};
        return runtime::EValue(nb::cast<bool>(item));
      case Tag::Tensor: break;
      default: throw InputError{what + " is a " + runtime::to_string(tag) + ", which Python cannot pass"};
    }
    auto info = meta_->input_tensor_meta(index);
    if (!info.ok()) throw aot::AotError(what + ": the program's metadata cannot be read");
    const nb::ndarray<nb::ro> array = as_cpu_array(item, what);
    if (!array.is_valid()) {
      throw InputError{what + " must be an array (numpy, torch or any DLPack producer) of " +
                       devtools::describe_tensor_info(*info) + ", got a " + nb::inst_name(item).c_str()};
    }
    const ScalarType dtype = scalar_type_of(array.dtype(), what);
    std::vector<int64_t> sizes(array.ndim());
    for (size_t d = 0; d < sizes.size(); ++d) sizes[d] = static_cast<int64_t>(array.shape(d));
    if (!devtools::fits_input(*info, dtype, {sizes.data(), sizes.size()})) {
      try {
        devtools::check_input(index, *info, dtype, sizes, describe_array(dtype, sizes));
      } catch (const aot::AotError& error) {
        throw InputError{error.what()};
      }
    }
    bound.sizes.assign(sizes.begin(), sizes.end());
    bound.dim_order.assign(info->dim_order().begin(), info->dim_order().end());
    bound.strides.resize(sizes.size());
    if (runtime::compute_strides({bound.sizes.data(), bound.sizes.size()},
                                 {bound.dim_order.data(), bound.dim_order.size()},
                                 {bound.strides.data(), bound.strides.size()}) != runtime::Error::Ok) {
      throw aot::AotError(what + ": the input's dim order does not fit its sizes");
    }
    // Strides only matter along dims of more than one element.
    bool fits = true;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] > 1 && array.stride(d) != bound.strides[d]) fits = false;
    }
    void* data = const_cast<void*>(array.data());
    if (fits) {
      bound.keep = nb::borrow(item);
    } else {
      ++copies_;
      std::vector<int64_t> given_strides(sizes.size());
      for (size_t d = 0; d < sizes.size(); ++d) given_strides[d] = array.stride(d);
      bound.copy = to_layout(array, dtype, sizes, given_strides, bound.strides, what);
      data = bound.copy.data();
    }
    bound.impl = std::make_unique<runtime::TensorImpl>(dtype, static_cast<ssize_t>(sizes.size()), bound.sizes.data(),
                                                       data, bound.dim_order.data(), bound.strides.data(),
                                                       runtime::TensorShapeDynamism::Static);
    return runtime::EValue(runtime::Tensor(bound.impl.get()));
  }

  /// A copy of `array` laid out with `strides` (the input's dim order).
  static aot::HostTensor to_layout(const nb::ndarray<nb::ro>& array, ScalarType dtype, const std::vector<int64_t>& sizes,
                                   const std::vector<int64_t>& given_strides,
                                   const std::vector<runtime::StridesType>& strides, const std::string& what) {
    int64_t numel = 1, reach = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      numel *= sizes[d];
      if (given_strides[d] < 0) throw InputError{what + " has a negative stride; pass a copy (numpy.ascontiguousarray)"};
      reach += (sizes[d] - 1) * given_strides[d];
    }
    auto source_storage = std::make_shared<aot::Storage>();
    source_storage->data = const_cast<void*>(array.data());
    source_storage->nbytes = numel == 0 ? 0 : static_cast<size_t>(reach) * runtime::element_size(dtype);
    const aot::HostTensor source(dtype, sizes, given_strides, 0, source_storage);
    aot::HostTensor target(dtype, sizes, std::vector<int64_t>(strides.begin(), strides.end()), 0,
                           aot::Storage::allocate(static_cast<size_t>(numel) * runtime::element_size(dtype)));
    target.copy_from(source);
    return target;
  }

  nb::list outputs(nb::handle self, bool copy_outputs) {
    runtime::Method& method = session_->method();
    nb::list result;
    for (size_t i = 0; i < method.outputs_size(); ++i) {
      const runtime::EValue& value = method.get_output(i);
      if (!value.isTensor()) {
        nb::object item;
        switch (value.tag()) {
          case Tag::Int: item = nb::int_(value.toInt()); break;
          case Tag::Double: item = nb::float_(value.toDouble()); break;
          case Tag::Bool: item = nb::bool_(value.toBool()); break;
          case Tag::None: item = nb::none(); break;
          default: {
            const std::vector<aot::Value> host = session_->outputs();
            item = to_python(host.at(i));
            break;
          }
        }
        result.append(item);
        continue;
      }
      result.append(tensor_output(self, value.toTensor(), copy_outputs, i));
    }
    return result;
  }

  nb::object tensor_output(nb::handle self, const runtime::Tensor& tensor, bool copy_outputs, size_t index) {
    const ScalarType dtype = tensor.scalar_type();
    if (dtype == ScalarType::BFloat16) {
      if (!copy_outputs) {
        throw InputError{"output " + std::to_string(index) +
                         " is bfloat16, which numpy has no dtype for: it can only be returned as a copy (float32)"};
      }
      return to_python(aot::Value(devtools::host_copy(tensor)));
    }
    const size_t rank = tensor.sizes().size();
    std::vector<size_t> shape(rank);
    std::vector<int64_t> strides(rank);
    for (size_t d = 0; d < rank; ++d) {
      shape[d] = static_cast<size_t>(tensor.sizes()[d]);
      strides[d] = tensor.strides()[d];
    }
    const nb::dlpack::dtype type = dlpack_dtype_of(dtype);
    if (!copy_outputs) {
      // A view of the arena, keeping the Method alive.
      nb::ndarray<nb::numpy> view(const_cast<void*>(tensor.const_data_ptr()), rank, shape.data(), self, strides.data(),
                                  type);
      return view.cast();
    }
    const size_t nbytes = tensor.nbytes();
    auto* bytes = new uint8_t[nbytes == 0 ? 1 : nbytes];
    if (nbytes != 0) std::memcpy(bytes, tensor.const_data_ptr(), nbytes);
    nb::capsule owner(bytes, [](void* data) noexcept { delete[] static_cast<uint8_t*>(data); });
    nb::ndarray<nb::numpy> array(bytes, rank, shape.data(), owner, strides.data(), type);
    return array.cast();
  }

  std::unique_ptr<devtools::RuntimeSession> session_;
  std::optional<runtime::MethodMeta> meta_;
  std::mutex mutex_;
  std::vector<BoundInput> bound_;
  std::vector<runtime::EValue> values_;
  size_t copies_ = 0;
  size_t calls_ = 0;
};

}  // namespace

void bind_runtime(nb::module_& m) {
  nb::class_<TensorSpec>(m, "TensorSpec", "One input or output of a method: dtype, shape (the planned bounds when dynamic), dim order.")
      .def_ro("dtype", &TensorSpec::dtype, "numpy's name of the dtype ('float32')")
      .def_prop_ro("shape", [](const TensorSpec& spec) { return nb::tuple(nb::cast(spec.shape)); },
                   "the sizes; for a dynamic tensor, their upper bounds")
      .def_ro("dynamic", &TensorSpec::dynamic, "whether the sizes may be smaller than shape")
      .def_prop_ro("dim_order", [](const TensorSpec& spec) { return nb::tuple(nb::cast(spec.dim_order)); },
                   "the memory order of the dims, outermost first ((0, 2, 3, 1) is channels-last)")
      .def_ro("kind", &TensorSpec::kind, "'tensor', or the kind of a non-tensor value ('int', 'float', 'bool', 'none')")
      .def("__repr__", &TensorSpec::repr);

  nb::class_<MethodMetadata>(m, "MethodMetadata", "What a method takes and gives, and the memory it plans.")
      .def_ro("name", &MethodMetadata::name)
      .def_ro("inputs", &MethodMetadata::inputs)
      .def_ro("outputs", &MethodMetadata::outputs)
      .def_ro("planned_buffers", &MethodMetadata::planned_buffers, "bytes of each memory-planned arena")
      .def_ro("planned_bytes", &MethodMetadata::planned_bytes, "their sum")
      .def_ro("instructions", &MethodMetadata::instructions)
      .def("__repr__", &MethodMetadata::repr);

  nb::class_<Method>(m, "Method",
                     "A method of a program loaded on Kiln's runtime with memory of its own. Call it with the inputs "
                     "(numpy arrays, torch tensors, any DLPack producer, or numbers for int/float/bool inputs); "
                     "buffers the program mutates keep their state from call to call.")
      .def_prop_ro("name", &Method::name)
      .def_prop_ro("metadata", &Method::metadata)
      .def(
          "execute",
          [](nb::handle self, const nb::sequence& inputs, bool copy_outputs) {
            return nb::cast<Method&>(self).execute(self, inputs, copy_outputs);
          },
          "inputs"_a, "copy_outputs"_a = true,
          "Runs the method once. Inputs whose dtype, shape and strides fit are read in place; others of the right "
          "dtype are copied into the input's layout; anything else raises InputError naming what was expected. "
          "Returns the outputs as numpy arrays: copies, or with copy_outputs=False views of the method's memory that "
          "the next call overwrites.")
      .def(
          "__call__",
          [](nb::handle self, nb::args inputs) -> nb::list {
            return nb::cast<Method&>(self).execute(self, nb::borrow<nb::sequence>(inputs), true);
          },
          "Method(*inputs) is execute(inputs).")
      .def("input_data_ptr", &Method::input_data_ptr, "index"_a,
           "The address of input `index`'s data as the runtime holds it after the last call: the caller's array's "
           "when it was passed without a copy, and the method's own memory for a memory-planned input.")
      .def_prop_ro("last_input_copies", &Method::last_copies,
                   "How many inputs of the last call had to be copied into the input's layout.")
      .def_prop_ro("calls", &Method::calls);

  nb::class_<Program>(m, "Program", "A .pte program loaded on Kiln's runtime (verified). load_method gives its methods.")
      .def_prop_ro("method_names", &Program::method_names)
      .def("metadata", &Program::metadata, "method"_a = "forward",
           "The inputs, outputs and planned memory of `method`.")
      .def(
          "load_method",
          [](const Program& program, const std::string& name) { return new Method(program.loaded(), name); },
          "name"_a = "forward",
          "Loads `name` on memory of its own (the planned arenas it asks for); each call makes a separate method.");

  m.def(
      "load",
      [](nb::handle source, std::optional<int> threads) {
        if (threads) set_threads(*threads);
        return Program(load_program(source));
      },
      "program"_a, "threads"_a = nb::none(),
      "Loads a .pte program: a path (mapped) or its bytes (read in place). threads sets the oneDNN backend's thread "
      "count (for the process, as set_threads does) before any method is loaded.");
  m.def(
      "_most_running_calls",
      [] { return g_most_running.exchange(g_running.load()); },
      "The most method calls seen running at once since the last read (for the tests).");
  m.def(
      "manual_seed",
      [](uint64_t seed) { runtime::manual_seed(seed); },
      "seed"_a,
      "Seeds the generator the sampling ops draw from (rand, randn, their _like forms, uniform, normal, "
      "bernoulli, randint, randperm), for the whole process, as torch.manual_seed seeds PyTorch's: the next "
      "call draws what PyTorch draws after torch.manual_seed(seed) (randn within a few float32 ulps).");
  m.def("set_threads", &set_threads, "threads"_a,
        "Sets the thread count of the backends that use threads (OneDnnBackend), 1 to 256, for the whole process.");
}

}  // namespace kiln::python
