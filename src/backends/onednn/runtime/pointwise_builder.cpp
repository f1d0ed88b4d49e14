// A Pointwise operation (onednn_graph.fbs) as a step of Kiln's kernel
// (pointwise_f32.h): its program checked against its sources and copied
// into the method allocator, its sources read plain.
#include "backends/onednn/runtime/graph_builder.h"
#include "backends/onednn/runtime/pointwise_f32.h"

namespace kiln::backends::onednn {

using runtime::Error;

namespace {

using Op = PointwiseF32::Op;

Op binary_op(fb::BinaryAlgorithm algorithm) {
  switch (algorithm) {
    case fb::BinaryAlgorithm::Add: return Op::kAdd;
    case fb::BinaryAlgorithm::Sub: return Op::kSub;
    case fb::BinaryAlgorithm::Mul: return Op::kMul;
    case fb::BinaryAlgorithm::Div: return Op::kDiv;
    case fb::BinaryAlgorithm::Max: return Op::kMax;
    case fb::BinaryAlgorithm::Min: return Op::kMin;
  }
  return Op::kAdd;
}

// The kernel's op for an eltwise pointwise_computes takes.
Op eltwise_op(fb::EltwiseAlgorithm algorithm) {
  switch (algorithm) {
    case fb::EltwiseAlgorithm::Relu: return Op::kRelu;
    case fb::EltwiseAlgorithm::Clip: return Op::kClip;
    case fb::EltwiseAlgorithm::HardSwish: return Op::kHardSwish;
    case fb::EltwiseAlgorithm::HardSigmoid: return Op::kHardSigmoid;
    case fb::EltwiseAlgorithm::Logistic: return Op::kLogistic;
    case fb::EltwiseAlgorithm::Swish: return Op::kSwish;
    case fb::EltwiseAlgorithm::GeluTanh: return Op::kGeluTanh;
    case fb::EltwiseAlgorithm::Elu: return Op::kElu;
    case fb::EltwiseAlgorithm::Tanh: return Op::kTanh;
    case fb::EltwiseAlgorithm::Exp: return Op::kExp;
    case fb::EltwiseAlgorithm::Abs: return Op::kAbs;
    case fb::EltwiseAlgorithm::Sqrt: return Op::kSqrt;
    case fb::EltwiseAlgorithm::Square: return Op::kSquare;
    case fb::EltwiseAlgorithm::Linear: return Op::kLinear;
    case fb::EltwiseAlgorithm::GeluErf:
    case fb::EltwiseAlgorithm::Round: break;
  }
  return Op::kLinear;
}

}  // namespace

Error build_pointwise(GraphBuilder& b, const fb::Pointwise* pointwise) {
  const fb::Operation* op = b.operation();
  const int32_t out = b.output();
  const fb::Value* y = b.value(out);
  if (is_quantized(y)) return b.refuse("a Pointwise program writes float32 only");
  const auto* steps = pointwise->steps();
  const auto* offsets = pointwise->offsets();
  const auto* strides = pointwise->strides();
  const uint32_t num_inputs = op->inputs()->size();
  if (steps == nullptr || steps->size() == 0 || steps->size() > kMaxPointwiseSteps) {
    return b.refuse("a Pointwise program of %u steps (1 to %u)", steps == nullptr ? 0 : steps->size(), kMaxPointwiseSteps);
  }
  const uint32_t value_rank = rank_of(y);
  const uint32_t rank = value_rank == 0 ? 1 : value_rank;
  const int64_t numel = numel_of(y);
  if (numel > kMaxPointwiseNumel) {
    return b.refuse("a Pointwise result of %lld elements (at most %lld)", static_cast<long long>(numel),
                    static_cast<long long>(kMaxPointwiseNumel));
  }
  if (offsets == nullptr || strides == nullptr || offsets->size() != num_inputs ||
      strides->size() != num_inputs * value_rank) {
    return b.refuse("a Pointwise program's views do not match its %u sources of rank %u", num_inputs, value_rank);
  }
  runtime::MemoryAllocator* allocator = b.allocator();
  auto* program = allocator != nullptr ? allocator->allocateInstance<PointwiseF32>() : nullptr;
  auto* own_steps = allocator != nullptr ? allocator->allocateList<PointwiseF32::Step>(steps->size()) : nullptr;
  auto* own_offsets = allocator != nullptr ? allocator->allocateList<int64_t>(num_inputs) : nullptr;
  auto* own_strides = allocator != nullptr ? allocator->allocateList<int64_t>(static_cast<size_t>(num_inputs) * rank) : nullptr;
  if (program == nullptr || own_steps == nullptr || own_offsets == nullptr || own_strides == nullptr) {
    return b.no_room("a Pointwise program");
  }
  new (program) PointwiseF32{};
  program->num_inputs = num_inputs;
  program->num_steps = steps->size();
  program->rank = rank;
  program->numel = numel;
  for (uint32_t d = 0; d < rank; ++d) program->sizes[d] = value_rank == 0 ? 1 : y->sizes()->Get(d);
  // Each view stays inside its source.
  for (uint32_t i = 0; i < num_inputs; ++i) {
    const int32_t v = op->inputs()->Get(i);
    if (v < 0 || is_quantized(b.value(v))) return b.refuse("Pointwise source %u is not a float32 value", i);
    int64_t last = offsets->Get(i);
    own_offsets[i] = last;
    bool inside = last >= 0;
    for (uint32_t d = 0; d < rank; ++d) {
      const int64_t stride = value_rank == 0 ? 0 : strides->Get(i * value_rank + d);
      own_strides[static_cast<size_t>(i) * rank + d] = stride;
      inside = inside && stride >= 0 && stride < kMaxNumel;
      if (inside) last += stride * (program->sizes[d] - 1);
    }
    if (!inside || last >= numel_of(b.value(v))) {
      return b.refuse("Pointwise source %u's view reads outside its %lld elements", i,
                      static_cast<long long>(numel_of(b.value(v))));
    }
  }
  for (uint32_t s = 0; s < steps->size(); ++s) {
    const fb::PointwiseStep* step = steps->Get(s);
    const uint32_t before = num_inputs + s;
    if (step->a() >= before || (step->is_binary() && step->b() >= before)) {
      return b.refuse("Pointwise step %u reads a register not yet written", s);
    }
    if (!step->is_binary() && !pointwise_computes(step->eltwise())) {
      return b.refuse("Pointwise step %u: an eltwise the kernel does not compute (%s)", s,
                      fb::EnumNameEltwiseAlgorithm(step->eltwise()));
    }
    if (step->is_binary() && step->binary() > fb::BinaryAlgorithm::MAX) {
      return b.refuse("Pointwise step %u: an unknown binary op", s);
    }
    own_steps[s] = PointwiseF32::Step{step->is_binary() ? binary_op(step->binary()) : eltwise_op(step->eltwise()),
                                      step->a(), step->b(), step->alpha(), step->beta()};
    if (!step->is_binary() && step->eltwise() == fb::EltwiseAlgorithm::Relu) own_steps[s].beta = 0;
  }
  program->steps = own_steps;
  program->offsets = own_offsets;
  program->strides = own_strides;

  StepArg args[kMaxStepArgs];
  for (uint32_t i = 0; i < num_inputs; ++i) {
    KILN_ASSIGN_OR_RETURN(const uint32_t m, b.value_memory(op->inputs()->Get(i), true));
    args[i] = StepArg{DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), m};
  }
  MemoryDesc plain;
  KILN_TRY(b.plain_desc_of(out, &plain));
  KILN_ASSIGN_OR_RETURN(const uint32_t dst_m, b.define_output(out, plain.get()));
  args[num_inputs] = StepArg{DNNL_ARG_DST, dst_m};
  Step* step = nullptr;
  KILN_TRY(b.add_kernel_step(args, num_inputs + 1, pointwise_f32_scratch_floats(*program) * sizeof(float), &step));
  step->pointwise = program;
  return Error::Ok;
}

}  // namespace kiln::backends::onednn
