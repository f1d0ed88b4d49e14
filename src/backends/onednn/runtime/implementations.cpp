#include "backends/onednn/runtime/implementations.h"

#include <cstring>
#include <new>

#include <oneapi/dnnl/dnnl_debug.h>

#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/onednn_runtime.h"

namespace kiln::backends::onednn {

using runtime::Error;

bool is_reference_implementation(const char* implementation) {
  if (implementation == nullptr) return false;
  // ncsp_bnorm is no `ref:` by name, but is as slow: a batch norm with its
  // relu over a plain 32x112x112 image took 1.87 ms on it against 0.25 ms
  // as two reorders and bnorm_jit over channels-last (AVX-512, 1 thread).
  return std::strncmp(implementation, "ref", 3) == 0 || std::strncmp(implementation, "ncsp_bnorm", 10) == 0;
}

namespace {

// Releases the plan's oneDNN objects however planning ended.
struct ReleaseOnExit {
  CompiledGraph* compiled;
  ~ReleaseOnExit() { release_compiled_graph(compiled); }
};

StepImplementation describe_step(const fb::Graph* graph, const Step& step) {
  const fb::Operation* operation = graph->operations()->Get(step.operation);
  StepImplementation described{step.operation, operation->name() != nullptr ? operation->name()->c_str() : "",
                               fb::EnumNameOperationKind(operation->op_type()), "kiln", "kiln"};
  if (step.depthwise.packed >= 0) {
    described.primitive_kind = "convolution";
    described.implementation = "kiln_depthwise_int8:avx512_core_vnni";
    return described;
  }
  if (step.channel_scale.src >= 0) {
    described.primitive_kind = "binary";
    described.implementation = "kiln_channel_scale_int8";
    return described;
  }
  if (step.pointwise != nullptr) {
    described.primitive_kind = "eltwise";
    described.implementation = "kiln_pointwise_f32";
    return described;
  }
  if (step.quantize_image.src >= 0) {
    described.primitive_kind = "reorder";
    described.implementation = "kiln_quantize_channels_last";
    return described;
  }
  if (step.pd == nullptr) return described;
  dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
  if (dnnl_primitive_desc_query(step.pd, dnnl_query_primitive_kind, 0, &kind) == dnnl_success) {
    described.primitive_kind = dnnl_prim_kind2str(kind);
  }
  const char* implementation = nullptr;
  if (step.panel_gemv.src >= 0) {
    described.implementation = "kiln_panel_gemv_f32";  // the primitive's work, on Kiln's kernel
  } else if (dnnl_primitive_desc_query(step.pd, dnnl_query_impl_info_str, 0, &implementation) == dnnl_success &&
             implementation != nullptr) {
    described.implementation = implementation;
  }
  return described;
}

}  // namespace

namespace {

// Plans the blob as init would, at the backend's thread count, and hands the
// plan to `visit`; oneDNN's objects are released before it returns.
template <typename Visit>
Error visit_plan(const void* data, size_t size, runtime::MemoryAllocator* allocator, const Visit& visit) {
  BlobGraph blob;
  KILN_TRY(read_blob_graph(data, size, "(implementations)", allocator, &blob));
  const dnnl_engine_t engine = shared_cpu_engine();
  if (engine == nullptr) return Error::NotSupported;
  auto* compiled = allocator->allocateInstance<CompiledGraph>();
  if (compiled == nullptr) return Error::DelegateMemoryAllocationFailed;
  new (compiled) CompiledGraph{};
  compiled->method_name = "(implementations)";
  compiled->engine = engine;
  compiled->runtime_size = -1;
  const ReleaseOnExit release{compiled};
  const ScopedThreads threads(num_threads());  // as init plans: at the backend's thread count
  KILN_TRY(plan_compiled_graph(blob, allocator, compiled));
  visit(blob, *compiled);
  return Error::Ok;
}

}  // namespace

Error visit_step_implementations(const void* data, size_t size, runtime::MemoryAllocator* allocator, StepVisitor visit,
                                 void* context) {
  return visit_plan(data, size, allocator, [&](const BlobGraph& blob, const CompiledGraph& compiled) {
    for (uint32_t s = 0; s < compiled.steps.size; ++s) visit(context, describe_step(blob.graph, compiled.steps[s]));
  });
}

Error visit_constant_layouts(const void* data, size_t size, runtime::MemoryAllocator* allocator,
                             ConstantVisitor visit, void* context) {
  return visit_plan(data, size, allocator, [&](const BlobGraph&, const CompiledGraph& compiled) {
    for (uint32_t i = 0; i < compiled.constant_uses.size; ++i) {
      const ConstantUse& use = compiled.constant_uses[i];
      visit(context, ConstantLayout{use.value, use.source, compiled.memories[use.memory].desc, use.scales >= 0});
    }
  });
}

}  // namespace kiln::backends::onednn
