#include "backends/onednn/aot/blob_io.h"

#include <algorithm>

#include "aot/ir/error.h"
#include "backends/onednn/graph_alignment.h"
#include "backends/onednn/onednn_blob.h"

namespace kiln::backends::onednn {

namespace fb = ::kiln::onednn;

std::vector<uint8_t> serialize_onednn_blob(const fb::GraphT& graph) {
  flatbuffers::FlatBufferBuilder builder;
  fb::FinishGraphBuffer(builder, fb::Graph::Pack(builder, &graph));
  std::vector<uint8_t> blob(kBlobHeaderSize + builder.GetSize());
  write_blob_header(blob.data(), static_cast<uint32_t>(builder.GetSize()));
  std::copy(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize(), blob.begin() + kBlobHeaderSize);
  return blob;
}

std::unique_ptr<fb::GraphT> parse_onednn_blob(const std::vector<uint8_t>& blob) {
  BlobHeader header;
  switch (parse_blob_header(blob.data(), blob.size(), &header)) {
    case BlobHeaderStatus::kOk: break;
    case BlobHeaderStatus::kTooSmall:
      throw aot::AotError("oneDNN blob of " + std::to_string(blob.size()) + " bytes is shorter than its " +
                          std::to_string(kBlobHeaderSize) + "-byte header");
    case BlobHeaderStatus::kBadMagic: throw aot::AotError("oneDNN blob does not start with the magic 'KODN'");
    case BlobHeaderStatus::kBadVersion:
      throw aot::AotError("oneDNN blob has version " + std::to_string(header.version) + ", expected " +
                          std::to_string(kOldestBlobVersion) + " to " + std::to_string(kBlobVersion));
    case BlobHeaderStatus::kBadExtent:
      throw aot::AotError("oneDNN blob's flatbuffer (offset " + std::to_string(header.flatbuffer_offset) + ", " +
                          std::to_string(header.flatbuffer_size) + " bytes) does not fit its " + std::to_string(blob.size()) + " bytes");
    case BlobHeaderStatus::kMisaligned:
      throw aot::AotError("oneDNN blob's flatbuffer (offset " + std::to_string(header.flatbuffer_offset) +
                          ") does not start on an 8-byte boundary");
  }
  const uint8_t* data = blob.data() + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(data, header.flatbuffer_size);
  if (!fb::VerifyGraphBuffer(verifier)) throw aot::AotError("oneDNN blob's flatbuffer does not verify as a kiln.onednn.Graph");
  uint32_t where = 0;
  if (const char* field = first_misaligned_vector(*fb::GetGraph(data), &where)) {
    throw aot::AotError("oneDNN blob's flatbuffer has a misaligned vector: " + std::string(field) + " at index " +
                        std::to_string(where));
  }
  return fb::UnPackGraph(data);
}

}  // namespace kiln::backends::onednn
