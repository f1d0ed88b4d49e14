#include "backends/onednn/runtime/packed_layout.h"

namespace kiln::backends::onednn {

namespace {

// An absent vector is an empty one (flatbuffers writes no empty vector).
template <typename Vector>
bool same(const Vector* stored, const int64_t* values, int count) {
  if (stored == nullptr) return count == 0;
  if (stored->size() != static_cast<uint32_t>(count)) return false;
  for (int i = 0; i < count; ++i) {
    if (stored->Get(static_cast<uint32_t>(i)) != values[i]) return false;
  }
  return true;
}

bool same_blocking(const Blocking& a, const Blocking& b) {
  if (a.ndims != b.ndims || a.inner_nblks != b.inner_nblks) return false;
  for (int d = 0; d < a.ndims; ++d) {
    if (a.dims[d] != b.dims[d] || a.strides[d] != b.strides[d]) return false;
  }
  for (int i = 0; i < a.inner_nblks; ++i) {
    if (a.inner_blocks[i] != b.inner_blocks[i] || a.inner_indices[i] != b.inner_indices[i]) return false;
  }
  return true;
}

template <typename Vector>
bool copy_into(const Vector* stored, int64_t* out, int* count) {
  *count = stored != nullptr ? static_cast<int>(stored->size()) : 0;
  if (*count > static_cast<int>(kMaxRank)) return false;
  for (int i = 0; i < *count; ++i) out[i] = stored->Get(static_cast<uint32_t>(i));
  return true;
}


// A float32 descriptor of `wanted`'s dims in format `tag`, if it has
// `wanted`'s blocking.
bool tag_gives(int tag, const Blocking& wanted, dnnl_memory_desc_t* out) {
  dnnl_dims_t dims = {};
  for (int d = 0; d < wanted.ndims; ++d) dims[d] = wanted.dims[d];
  dnnl_memory_desc_t candidate = nullptr;
  if (dnnl_memory_desc_create_with_tag(&candidate, wanted.ndims, dims, dnnl_f32, static_cast<dnnl_format_tag_t>(tag)) !=
      dnnl_success) {
    return false;
  }
  Blocking blocking;
  const bool equal = float_blocking(candidate, &blocking) && same_blocking(blocking, wanted);
  if (equal && out != nullptr) {
    *out = candidate;
  } else {
    dnnl_memory_desc_destroy(candidate);
  }
  return equal;
}

}  // namespace

bool float_blocking(const_dnnl_memory_desc_t desc, Blocking* blocking) {
  dnnl_data_type_t type = dnnl_data_type_undef;
  dnnl_format_kind_t kind = dnnl_format_kind_undef;
  const dnnl_dims_t* dims = nullptr;
  const dnnl_dims_t* strides = nullptr;
  const dnnl_dims_t* inner_blocks = nullptr;
  const dnnl_dims_t* inner_indices = nullptr;
  if (dnnl_memory_desc_query(desc, dnnl_query_data_type, &type) != dnnl_success || type != dnnl_f32 ||
      dnnl_memory_desc_query(desc, dnnl_query_format_kind, &kind) != dnnl_success || kind != dnnl_blocked ||
      dnnl_memory_desc_query(desc, dnnl_query_ndims_s32, &blocking->ndims) != dnnl_success ||
      dnnl_memory_desc_query(desc, dnnl_query_dims, &dims) != dnnl_success ||
      dnnl_memory_desc_query(desc, dnnl_query_strides, &strides) != dnnl_success ||
      dnnl_memory_desc_query(desc, dnnl_query_inner_nblks_s32, &blocking->inner_nblks) != dnnl_success ||
      dnnl_memory_desc_query(desc, dnnl_query_inner_blks, &inner_blocks) != dnnl_success ||
      dnnl_memory_desc_query(desc, dnnl_query_inner_idxs, &inner_indices) != dnnl_success) {
    return false;
  }
  if (blocking->ndims < 1 || blocking->ndims > static_cast<int>(kMaxRank) || blocking->inner_nblks < 0 ||
      blocking->inner_nblks > static_cast<int>(kMaxRank)) {
    return false;
  }
  for (int d = 0; d < blocking->ndims; ++d) {
    blocking->dims[d] = (*dims)[d];
    blocking->strides[d] = (*strides)[d];
  }
  for (int b = 0; b < blocking->inner_nblks; ++b) {
    blocking->inner_blocks[b] = (*inner_blocks)[b];
    blocking->inner_indices[b] = (*inner_indices)[b];
  }
  return true;
}

bool blocking_of(const_dnnl_memory_desc_t desc, Blocking* blocking) {
  if (!float_blocking(desc, blocking)) return false;
  for (int tag = dnnl_a; tag < dnnl_format_tag_last; ++tag) {
    dnnl_memory_desc_t candidate = nullptr;
    if (!tag_gives(tag, *blocking, &candidate)) continue;
    // The same blocking is not yet the same layout (extra data, padding).
    const bool equal = dnnl_memory_desc_equal(candidate, desc) != 0;
    dnnl_memory_desc_destroy(candidate);
    if (equal) {
      blocking->format_tag = tag;
      return true;
    }
  }
  return false;
}

dnnl_status_t blocking_desc(const Blocking& blocking, dnnl_memory_desc_t* desc) {
  if (blocking.ndims < 1 || blocking.ndims > static_cast<int>(kMaxRank)) return dnnl_invalid_arguments;
  if (blocking.format_tag > dnnl_format_tag_any && blocking.format_tag < dnnl_format_tag_last &&
      tag_gives(blocking.format_tag, blocking, desc)) {
    return dnnl_success;
  }
  for (int tag = dnnl_a; tag < dnnl_format_tag_last; ++tag) {
    if (tag_gives(tag, blocking, desc)) return dnnl_success;
  }
  return dnnl_invalid_arguments;
}

dnnl_status_t packed_layout_desc(const fb::PackedLayout* layout, dnnl_memory_desc_t* desc) {
  Blocking blocking;
  int strides = 0, indices = 0;
  if (!copy_into(layout->dims(), blocking.dims, &blocking.ndims) ||
      !copy_into(layout->strides(), blocking.strides, &strides) || strides != blocking.ndims ||
      !copy_into(layout->inner_blocks(), blocking.inner_blocks, &blocking.inner_nblks) ||
      !copy_into(layout->inner_indices(), blocking.inner_indices, &indices) || indices != blocking.inner_nblks) {
    return dnnl_invalid_arguments;
  }
  blocking.format_tag = layout->format_tag();
  return blocking_desc(blocking, desc);
}

dnnl_status_t packed_view_desc(const fb::PackedLayout* layout, dnnl_memory_desc_t* desc) {
  const auto* stored = layout->dims();
  const auto* strides = layout->plain_strides();
  if (stored == nullptr || strides == nullptr || stored->size() < 1 || stored->size() > kMaxRank ||
      strides->size() != stored->size()) {
    return dnnl_invalid_arguments;
  }
  dnnl_dims_t dims = {}, plain = {};
  for (uint32_t d = 0; d < stored->size(); ++d) {
    dims[d] = stored->Get(d);
    plain[d] = strides->Get(d);
  }
  return dnnl_memory_desc_create_with_strides(desc, static_cast<int>(stored->size()), dims, dnnl_f32, plain);
}

bool is_packed_view(const fb::PackedLayout* layout, const_dnnl_memory_desc_t view) {
  Blocking blocking;
  return float_blocking(view, &blocking) && blocking.inner_nblks == 0 &&
         same(layout->dims(), blocking.dims, blocking.ndims) &&
         same(layout->plain_strides(), blocking.strides, blocking.ndims);
}

dnnl_status_t reorder_bytes(dnnl_engine_t engine, const_dnnl_memory_desc_t from, const void* from_data,
                            const_dnnl_memory_desc_t to, void* to_data) {
  dnnl_memory_t source = nullptr, destination = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t reorder = nullptr;
  dnnl_stream_t stream = nullptr;
  dnnl_status_t status = dnnl_memory_create(&source, from, engine, const_cast<void*>(from_data));
  if (status == dnnl_success) status = dnnl_memory_create(&destination, to, engine, to_data);
  if (status == dnnl_success) status = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, nullptr);
  if (status == dnnl_success) status = dnnl_primitive_create(&reorder, pd);
  if (status == dnnl_success) status = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  if (status == dnnl_success) {
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, destination}};
    status = dnnl_primitive_execute(reorder, stream, 2, args);
  }
  if (status == dnnl_success) status = dnnl_stream_wait(stream);
  if (stream != nullptr) dnnl_stream_destroy(stream);
  if (reorder != nullptr) dnnl_primitive_destroy(reorder);
  if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
  if (destination != nullptr) dnnl_memory_destroy(destination);
  if (source != nullptr) dnnl_memory_destroy(source);
  return status;
}

}  // namespace kiln::backends::onednn
