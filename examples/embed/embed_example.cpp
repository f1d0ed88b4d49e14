// An app that embeds Kiln's runtime: it links only `kiln::runtime`,
// `kiln::portable_kernels` and, when Kiln has it, `kiln::onednn_backend`, in
// Kiln's tree or from the installed package (see examples/embed/CMakeLists.txt),
// loads a .pte with Module, builds every input from the program's own MethodMeta
// (float32 tensors filled with one value), runs `forward` and prints the
// outputs.
//
//   kiln_embed_example MODEL.pte [VALUE]
//
// Built like the runtime: C++17, no exceptions, no RTTI. An app that needs
// control over every byte (static pools, no malloc) uses Program and Method
// directly: tools/size/minimal_app.cpp shows that path.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor_impl.h"
#include "runtime/module/module.h"

namespace {

using namespace kiln::runtime;

/// One input tensor and the storage its TensorImpl points into.
struct InputTensor {
  std::vector<SizesType> sizes;
  std::vector<DimOrderType> dim_order;
  std::vector<StridesType> strides;
  std::vector<float> data;
  TensorImpl impl{ScalarType::Float, 0, nullptr, nullptr, nullptr, nullptr};
};

/// Fills `input` after the method's declared input `info`; false (after a
/// message) if it is not a float32 tensor this example can make.
bool make_input(const TensorInfo& info, float value, size_t index, InputTensor& input) {
  if (info.scalar_type() != ScalarType::Float) {
    std::fprintf(stderr, "error: input %zu is %s; this example fills float32 inputs only\n", index,
                 to_string(info.scalar_type()));
    return false;
  }
  input.sizes.assign(info.sizes().begin(), info.sizes().end());
  input.dim_order.assign(info.dim_order().begin(), info.dim_order().end());
  input.strides.resize(input.sizes.size());
  if (compute_strides({input.sizes.data(), input.sizes.size()}, {input.dim_order.data(), input.dim_order.size()},
                      {input.strides.data(), input.strides.size()}) != Error::Ok) {
    std::fprintf(stderr, "error: input %zu: cannot lay out its sizes\n", index);
    return false;
  }
  input.data.assign(info.nbytes() / sizeof(float), value);
  input.impl = TensorImpl(ScalarType::Float, static_cast<ssize_t>(input.sizes.size()), input.sizes.data(),
                          input.data.data(), input.dim_order.data(), input.strides.data());
  return true;
}

void print_output(size_t index, const EValue& value) {
  if (!value.isTensor()) {
    std::printf("output %zu: %s\n", index, to_string(value.tag()));
    return;
  }
  const Tensor tensor = value.toTensor();
  std::printf("output %zu: %s [", index, to_string(tensor.scalar_type()));
  for (size_t d = 0; d < tensor.sizes().size(); ++d) std::printf(d == 0 ? "%d" : ", %d", tensor.sizes()[d]);
  std::printf("]");
  if (tensor.scalar_type() == ScalarType::Float) {
    const float* data = tensor.const_data_ptr<float>();
    const ssize_t shown = tensor.numel() < 8 ? tensor.numel() : 8;
    for (ssize_t i = 0; i < shown; ++i) std::printf(" %g", static_cast<double>(data[i]));
    if (shown < tensor.numel()) std::printf(" ...");
  }
  std::printf("\n");
}

int run(const char* path, float value) {
  Module module(path);
  Result<MethodMeta> meta = module.method_meta("forward");
  if (!meta.ok()) {
    std::fprintf(stderr, "error: cannot load %s: %s (the runtime's log above says why)\n", path,
                 to_string(meta.error()));
    return 1;
  }
  std::vector<InputTensor> tensors(meta->num_inputs());
  std::vector<EValue> inputs;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    Result<TensorInfo> info = meta->input_tensor_meta(i);
    if (!info.ok()) {
      std::fprintf(stderr, "error: input %zu is not a tensor\n", i);
      return 1;
    }
    if (!make_input(*info, value, i, tensors[i])) return 1;
    inputs.emplace_back(Tensor(&tensors[i].impl));
  }
  Result<std::vector<EValue>> outputs = module.forward(inputs);
  if (!outputs.ok()) {
    std::fprintf(stderr, "error: forward failed: %s\n", to_string(outputs.error()));
    return 1;
  }
  for (size_t i = 0; i < outputs->size(); ++i) print_output(i, (*outputs)[i]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fputs("usage: kiln_embed_example MODEL.pte [VALUE]\n"
               "Runs forward with every float32 input filled with VALUE (default 1) and prints the outputs.\n",
               stderr);
    return 2;
  }
  char* end = nullptr;
  const float value = argc == 3 ? std::strtof(argv[2], &end) : 1.0f;
  if (argc == 3 && (end == argv[2] || *end != '\0')) {
    std::fprintf(stderr, "error: VALUE '%s' is not a number\n", argv[2]);
    return 2;
  }
  return run(argv[1], value);
}
