#include "runtime/executor/test/recording_loader.h"

namespace kiln::runtime::testing {

namespace {

std::string describe(const SegmentInfo& info, const char* how) {
  static const char* const kTypes[] = {"Program", "Constant", "Backend", "Mutable", "External"};
  return std::string(how) + " " + kTypes[static_cast<int>(info.type)] + " " + std::to_string(info.segment_index);
}

}  // namespace

RecordingLoader::RecordingLoader(const std::vector<uint8_t>& bytes) : inner_(bytes.data(), bytes.size()) {}
RecordingLoader::~RecordingLoader() = default;

Result<FreeableBuffer> RecordingLoader::load(size_t offset, size_t size, const SegmentInfo& info) const {
  requests.push_back(describe(info, "load"));
  if (requests.size() > fail_after) return Error::AccessFailed;
  return inner_.load(offset, size, info);
}

Error RecordingLoader::load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const {
  requests.push_back(describe(info, "load_into"));
  if (requests.size() > fail_after) return Error::AccessFailed;
  return inner_.load_into(offset, size, info, buffer);
}

Result<size_t> RecordingLoader::size() const { return inner_.size(); }

}  // namespace kiln::runtime::testing
