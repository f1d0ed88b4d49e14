// RecordingLoader: a DataLoader over a byte vector that records what it is
// asked for and can fail on request. Its member functions are compiled
// without RTTI like the runtime (recording_loader.cpp), since DataLoader's
// type information exists only in a build with RTTI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/loader/buffer_data_loader.h"

namespace kiln::runtime::testing {

class RecordingLoader final : public DataLoader {
 public:
  explicit RecordingLoader(const std::vector<uint8_t>& bytes);
  ~RecordingLoader() override;

  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override;
  Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const override;
  Result<size_t> size() const override;

  /// One entry per request: "load Constant 0", "load_into Mutable 1", ...
  mutable std::vector<std::string> requests;
  /// Requests after this many fail with AccessFailed.
  size_t fail_after = SIZE_MAX;

 private:
  BufferDataLoader inner_;
};

}  // namespace kiln::runtime::testing
