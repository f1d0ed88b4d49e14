#include "backends/onednn/aot/packing.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aot/ir/error.h"
#include "backends/onednn/aot/blob_io.h"
#include "backends/onednn/aot/implementations.h"
#include "backends/onednn/aot/weights.h"
#include "backends/onednn/runtime/compiled_graph.h"
#include "backends/onednn/runtime/graph_builder.h"
#include "backends/onednn/runtime/implementations.h"
#include "backends/onednn/runtime/packed_layout.h"

namespace kiln::backends::onednn {

namespace {

namespace fb = ::kiln::onednn;

// One constant's bytes in the layout its uses read.
struct Packed {
  fb::PackedLayoutT layout;
  std::vector<uint8_t> bytes;
};

struct Packing {
  const fb::GraphT* graph;
  const aot::NamedDataStoreOutput* named_data;
  std::map<uint32_t, Packed> packed;
  std::set<uint32_t> unpackable;
};

bool same_layout(const fb::PackedLayoutT& a, const fb::PackedLayoutT& b) {
  return a.dims == b.dims && a.plain_strides == b.plain_strides && a.strides == b.strides &&
         a.inner_blocks == b.inner_blocks && a.inner_indices == b.inner_indices;
}

// The layout a use reads, with the value's bytes laid out in it; false when
// it cannot be recorded (not a plain float32 view, or a layout no tag gives).
bool pack_use(const Packing& packing, const ConstantLayout& use, Packed* out) {
  const fb::ValueT& value = *packing.graph->values.at(use.value);
  Blocking view, chosen;
  if (use.scaled || value.dtype != fb::DataType::Float32 || !blocking_of(use.chosen, &chosen) ||
      !blocking_of(use.source, &view) || view.inner_nblks != 0 || view.ndims != chosen.ndims) {
    return false;
  }
  out->layout.dims.assign(view.dims, view.dims + view.ndims);
  out->layout.plain_strides.assign(view.strides, view.strides + view.ndims);
  out->layout.format_tag = chosen.format_tag;
  out->layout.strides.assign(chosen.strides, chosen.strides + chosen.ndims);
  out->layout.inner_blocks.assign(chosen.inner_blocks, chosen.inner_blocks + chosen.inner_nblks);
  out->layout.inner_indices.assign(chosen.inner_indices, chosen.inner_indices + chosen.inner_nblks);
  const std::vector<uint8_t>& row_major = packing.named_data->get(value.constant_key);
  if (dnnl_memory_desc_get_size(use.source) != row_major.size()) return false;
  out->bytes.assign(dnnl_memory_desc_get_size(use.chosen), 0);
  return reorder_bytes(shared_cpu_engine(), use.source, row_major.data(), use.chosen, out->bytes.data()) ==
         dnnl_success;
}

void visit_use(void* context, const ConstantLayout& use) {
  auto& packing = *static_cast<Packing*>(context);
  if (packing.unpackable.count(use.value) != 0) return;
  Packed packed;
  if (!pack_use(packing, use, &packed)) {
    packing.unpackable.insert(use.value);
    packing.packed.erase(use.value);
    return;
  }
  const auto earlier = packing.packed.find(use.value);
  if (earlier == packing.packed.end()) {
    packing.packed.emplace(use.value, std::move(packed));
  } else if (!same_layout(earlier->second.layout, packed.layout)) {
    // Two uses read it in two layouts: it stays row-major, each reordered at init.
    packing.unpackable.insert(use.value);
    packing.packed.erase(earlier);
  }
}

}  // namespace

void pack_weights(LoweredPartition* lowered) {
  fb::GraphT& graph = *lowered->graph;
  Packing packing{&graph, &lowered->named_data, {}, {}};
  const std::vector<uint8_t> blob = serialize_onednn_blob(graph);
  plan_on_this_machine([&](runtime::MemoryAllocator* allocator) {
    packing.packed.clear();
    packing.unpackable.clear();
    return visit_constant_layouts(blob.data(), blob.size(), allocator, visit_use, &packing);
  });
  if (packing.packed.empty()) return;
  aot::NamedDataStore store;
  const aot::NamedDataStoreOutput& before = lowered->named_data;
  for (const auto& [key, entry] : before.pte_data) {
    store.add_named_data(key, before.buffers.at(entry.buffer_index), entry.alignment);
  }
  for (auto& [v, packed] : packing.packed) {
    fb::ValueT& value = *graph.values.at(v);
    value.constant_key = content_key(packed.bytes);
    value.packed = std::make_unique<fb::PackedLayoutT>(std::move(packed.layout));
    store.add_named_data(value.constant_key, std::move(packed.bytes), kWeightAlignment);
  }
  lowered->named_data = named_data_read_by(graph, store.get_named_data_store_output());
}

std::vector<uint8_t> unpacked_bytes(const fb::PackedLayoutT& layout, const std::vector<uint8_t>& bytes) {
  Blocking blocking;
  blocking.ndims = static_cast<int>(layout.dims.size());
  blocking.inner_nblks = static_cast<int>(layout.inner_blocks.size());
  if (blocking.ndims < 1 || blocking.ndims > static_cast<int>(kMaxRank) || layout.strides.size() != layout.dims.size() ||
      layout.plain_strides.size() != layout.dims.size() || blocking.inner_nblks > static_cast<int>(kMaxRank) ||
      layout.inner_indices.size() != layout.inner_blocks.size()) {
    throw aot::AotError("a packed layout with mismatched dims, strides and blocks");
  }
  dnnl_dims_t dims = {}, plain_strides = {};
  for (int d = 0; d < blocking.ndims; ++d) {
    blocking.dims[d] = dims[d] = layout.dims[static_cast<size_t>(d)];
    blocking.strides[d] = layout.strides[static_cast<size_t>(d)];
    plain_strides[d] = layout.plain_strides[static_cast<size_t>(d)];
  }
  for (int b = 0; b < blocking.inner_nblks; ++b) {
    blocking.inner_blocks[b] = layout.inner_blocks[static_cast<size_t>(b)];
    blocking.inner_indices[b] = layout.inner_indices[static_cast<size_t>(b)];
  }
  blocking.format_tag = layout.format_tag;
  MemoryDesc packed, view;
  if (blocking_desc(blocking, packed.out()) != dnnl_success) {
    throw aot::AotError("a packed layout no oneDNN format tag describes");
  }
  if (dnnl_memory_desc_create_with_strides(view.out(), blocking.ndims, dims, dnnl_f32, plain_strides) != dnnl_success) {
    throw aot::AotError("a packed layout whose plain strides oneDNN refuses");
  }
  if (dnnl_memory_desc_get_size(packed.get()) != bytes.size()) {
    throw aot::AotError("packed bytes: " + std::to_string(bytes.size()) + ", the layout holds " +
                        std::to_string(dnnl_memory_desc_get_size(packed.get())));
  }
  std::vector<uint8_t> row_major(dnnl_memory_desc_get_size(view.get()));
  if (reorder_bytes(shared_cpu_engine(), packed.get(), bytes.data(), view.get(), row_major.data()) != dnnl_success) {
    throw aot::AotError("oneDNN cannot unpack a packed layout");
  }
  return row_major;
}

}  // namespace kiln::backends::onednn
