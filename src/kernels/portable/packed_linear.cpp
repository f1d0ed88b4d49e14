// kiln::linear: a linear layer on weights packed at lowering, run by the
// tuned kernels (src/kernels/tuned/linear.h) on the CPU's best path and split
// over the kernel threads (runtime/kernel/thread_pool.h) in chunks of panels
// that the threads claim one at a time.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "kernels/portable/kernels.h"
#include "kernels/portable/util/kernel_args.h"
#include "kernels/tuned/linear.h"
#include "runtime/kernel/thread_pool.h"

namespace kiln::kernels::portable {

using runtime::ScalarType;
using runtime::SizesType;
using runtime::Tensor;
using util::KernelArgs;

namespace {

namespace tuned = kernels::tuned;

// A decode step's activations fit here (the rows of one token, K up to about
// 8000 values); larger scratch comes from the temp allocator.
constexpr size_t kStackScratchBytes = size_t{64} << 10;

// Weights per task: below it, another thread costs more than it saves.
constexpr int64_t kMinTaskWeights = int64_t{1} << 16;

bool parse_format(Span<const char> text, tuned::WeightFormat* format) {
  const std::string_view name(text.data(), text.size());
  if (name == "f32") *format = tuned::WeightFormat::kF32;
  else if (name == "q8") *format = tuned::WeightFormat::kQ8;
  else if (name == "q4") *format = tuned::WeightFormat::kQ4;
  else return false;
  return true;
}

bool parse_activations(Span<const char> text, tuned::ActivationMode* mode) {
  const std::string_view name(text.data(), text.size());
  if (name == "float") *mode = tuned::ActivationMode::kFloat;
  else if (name == "int8_per_token") *mode = tuned::ActivationMode::kInt8PerToken;
  else if (name == "int8_block32") *mode = tuned::ActivationMode::kInt8Block32;
  else return false;
  return true;
}

struct Split {
  const tuned::LinearArgs* args;
  int64_t panels, per_task;
};

void run_panels(void* context, int64_t task) {
  const auto* split = static_cast<const Split*>(context);
  const int64_t begin = task * split->per_task;
  tuned::compute_linear(*split->args, begin, std::min(split->panels, begin + split->per_task));
}

}  // namespace

// kiln::linear.out(input, weight, bias, out_features, format, group_size,
// zero_points, activations, eps, *, out).
void kiln_linear_out(KernelRuntimeContext& ctx, Span<EValue*> args) {
  KernelArgs a(ctx, "kiln::linear.out", args);
  Tensor input, weight, out;
  std::optional<Tensor> bias;
  int64_t n = 0, group_size = 0;
  bool zero_points = false;
  double eps = 0;
  Span<const char> format_name, activations_name;
  if (!a.check_count(10) || !a.tensor(0, "input", &input) || !a.tensor(1, "weight", &weight) ||
      !a.optional_tensor(2, "bias", &bias) || !a.integer(3, "out_features", &n) ||
      !a.string(4, "format", &format_name) || !a.integer(5, "group_size", &group_size) ||
      !a.boolean(6, "zero_points", &zero_points) || !a.string(7, "activations", &activations_name) ||
      !a.floating(8, "eps", &eps) || !a.tensor(9, "out", &out)) {
    return;
  }
  if (!a.check_dtype(input, "input", ScalarType::Float) || !a.check_contiguous(input, "input") ||
      !a.check_dtype(weight, "weight", ScalarType::Byte) || !a.check_dtype(out, "out", ScalarType::Float)) {
    return;
  }
  if (bias && (!a.check_dtype(*bias, "bias", ScalarType::Float) || !a.check_contiguous(*bias, "bias"))) return;
  tuned::LinearDesc desc;
  tuned::ActivationMode mode = tuned::ActivationMode::kFloat;
  if (!parse_format(format_name, &desc.format)) {
    a.fail(runtime::Error::InvalidArgument, "'format' must be 'f32', 'q8' or 'q4'");
    return;
  }
  if (!parse_activations(activations_name, &mode)) {
    a.fail(runtime::Error::InvalidArgument, "'activations' must be 'float', 'int8_per_token' or 'int8_block32'");
    return;
  }
  if (input.dim() == 0) {
    a.fail(runtime::Error::InvalidArgument, "'input' must have at least one dim");
    return;
  }
  desc.n = n;
  desc.k = input.size(input.dim() - 1);
  desc.group_size = group_size;
  desc.zero_points = zero_points;
  if (tuned::check_linear(desc) != runtime::Error::Ok || tuned::check_linear_mode(desc, mode) != runtime::Error::Ok) {
    a.fail(runtime::Error::InvalidArgument, "the packed weights' description (out_features %ld, in_features %ld, "
           "group_size %ld) or its activations do not fit (the log says why)", static_cast<long>(n),
           static_cast<long>(desc.k), static_cast<long>(group_size));
    return;
  }
  if (static_cast<size_t>(weight.numel()) != tuned::packed_linear_bytes(desc)) {
    a.fail(runtime::Error::InvalidArgument, "'weight' holds %zd bytes; weights packed for [%ld, %ld] take %zu",
           weight.numel(), static_cast<long>(n), static_cast<long>(desc.k), tuned::packed_linear_bytes(desc));
    return;
  }
  if (bias && bias->numel() != n) {
    a.fail(runtime::Error::InvalidArgument, "'bias' has %zd elements, out_features is %ld", bias->numel(), static_cast<long>(n));
    return;
  }
  SizesType sizes[util::kMaxDims];
  const size_t rank = static_cast<size_t>(input.dim());
  for (size_t d = 0; d + 1 < rank; ++d) sizes[d] = static_cast<SizesType>(input.size(d));
  sizes[rank - 1] = static_cast<SizesType>(n);
  if (!a.resize_out(out, "out", Span<const SizesType>(sizes, rank))) return;
  const int64_t m = desc.k == 0 ? 0 : input.numel() / desc.k;
  if (m == 0) return;

  alignas(64) uint8_t stack_scratch[kStackScratchBytes];
  const size_t scratch_bytes = tuned::linear_scratch_bytes(desc, mode, m);
  void* scratch = stack_scratch;
  if (scratch_bytes > sizeof stack_scratch) {
    runtime::Result<void*> temp = ctx.allocate_temp(scratch_bytes, 64);
    if (!temp.ok()) {
      a.fail(runtime::Error::MemoryAllocationFailed, "no room for %zu bytes of scratch for %ld rows (the method's "
             "temp allocator)", scratch_bytes, static_cast<long>(m));
      return;
    }
    scratch = temp.get();
  }
  tuned::LinearArgs call;
  call.desc = &desc;
  call.mode = mode;
  call.packed = weight.const_data_ptr<uint8_t>();
  call.x = input.const_data_ptr<float>();
  call.m = m;
  call.x_stride = desc.k;
  call.bias = bias ? bias->const_data_ptr<float>() : nullptr;
  call.y = out.mutable_data_ptr<float>();
  call.y_stride = n;
  call.scratch = scratch;
  call.eps = static_cast<float>(eps);
  tuned::prepare_linear(call);

  const int64_t panels = tuned::linear_panels(desc);
  const int threads = runtime::kernel_threads();
  const int64_t panel_weights = tuned::kPanelRows * desc.k * m;
  const int64_t by_work = std::max<int64_t>(1, kMinTaskWeights / std::max<int64_t>(1, panel_weights));
  // About four tasks per thread, so that a slow thread's share is taken over.
  const int64_t per_task = std::max(by_work, (panels + 4 * threads - 1) / (4 * threads));
  const Split split{&call, panels, per_task};
  runtime::parallel_for((panels + per_task - 1) / per_task, run_panels, const_cast<Split*>(&split));
}

}  // namespace kiln::kernels::portable
