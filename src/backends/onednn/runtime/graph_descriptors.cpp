// The GraphBuilder's memory descriptors: a value's oneDNN data type, plain
// (row-major), `any` and channels-last descriptors, broadcast dims.
#include "backends/onednn/runtime/graph_builder.h"

namespace kiln::backends::onednn {

using runtime::Error;

dnnl_data_type_t data_type_of(const fb::Value* value) {
  switch (value->dtype()) {
    case fb::DataType::Int8: return dnnl_s8;
    case fb::DataType::UInt8: return dnnl_u8;
    default: return dnnl_f32;
  }
}

Error GraphBuilder::plain_desc(const int64_t* dims, uint32_t rank, MemoryDesc* out, dnnl_data_type_t type) {
  dnnl_dims_t d = {1}, strides = {1};
  const int ndims = rank == 0 ? 1 : static_cast<int>(rank);
  for (uint32_t i = 0; i < rank; ++i) d[i] = dims[i];
  for (int i = ndims - 1; i >= 0; --i) strides[i] = i == ndims - 1 ? 1 : strides[i + 1] * d[i + 1];
  return check(dnnl_memory_desc_create_with_strides(out->out(), ndims, d, type, strides),
               "dnnl_memory_desc_create_with_strides");
}

Error GraphBuilder::plain_desc_of(int32_t v, MemoryDesc* out) {
  const fb::Value* val = value(v);
  return plain_desc(dims_of(val), rank_of(val), out, data_type_of(val));
}

Error GraphBuilder::any_desc(const int64_t* dims, uint32_t rank, MemoryDesc* out, dnnl_data_type_t type) {
  dnnl_dims_t d = {1};
  for (uint32_t i = 0; i < rank; ++i) d[i] = dims[i];
  return check(dnnl_memory_desc_create_with_tag(out->out(), rank == 0 ? 1 : static_cast<int>(rank), d, type,
                                                dnnl_format_tag_any),
               "dnnl_memory_desc_create_with_tag(any)");
}

Error GraphBuilder::dst_desc_of(int32_t v, MemoryDesc* out) {
  const fb::Value* val = value(v);
  return any_desc(dims_of(val), rank_of(val), out, data_type_of(val));
}

void GraphBuilder::broadcast_dims(int32_t v, uint32_t rank, int64_t* dims) const {
  const fb::Value* val = value(v);
  const uint32_t own = rank_of(val);
  for (uint32_t i = 0; i < rank; ++i) dims[i] = i + own < rank ? 1 : val->sizes()->Get(i + own - rank);
}

Error GraphBuilder::channels_last_desc_of(int32_t v, MemoryDesc* out) {
  static constexpr dnnl_format_tag_t kChannelsLast[] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
  const fb::Value* val = value(v);
  const uint32_t rank = rank_of(val);
  if (val->kind() == fb::ValueKind::Output || rank < 3 || rank > 5) return plain_desc_of(v, out);
  dnnl_dims_t dims;
  for (uint32_t d = 0; d < rank; ++d) dims[d] = val->sizes()->Get(d);
  return check(dnnl_memory_desc_create_with_tag(out->out(), static_cast<int>(rank), dims, data_type_of(val),
                                                kChannelsLast[rank - 3]),
               "dnnl_memory_desc_create_with_tag(channels last)");
}

}  // namespace kiln::backends::onednn
