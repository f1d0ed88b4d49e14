// FailingDataLoader (see failing_data_loader.h); built without RTTI, like the
// DataLoader it derives from.
#include "runtime/executor/test/failing_data_loader.h"

#include "runtime/core/log.h"

namespace kiln::runtime::testing {

class FailingDataLoader final : public DataLoader {
 public:
  FailingDataLoader(const DataLoader* inner, size_t fail_at) : inner_(inner), fail_at_(fail_at) {}

  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo& info) const override {
    if (calls_++ == fail_at_) return fail(offset, size);
    return inner_->load(offset, size, info);
  }
  Error load_into(size_t offset, size_t size, const SegmentInfo& info, void* buffer) const override {
    if (calls_++ == fail_at_) return fail(offset, size);
    return inner_->load_into(offset, size, info, buffer);
  }
  Result<size_t> size() const override { return inner_->size(); }

  size_t calls() const { return calls_; }

 private:
  static Error fail(size_t offset, size_t size) {
    KILN_LOG(Error, "FailingDataLoader: reading %zu bytes at offset %zu failed (on purpose)", size, offset);
    return Error::AccessFailed;
  }

  const DataLoader* inner_;
  size_t fail_at_;
  mutable size_t calls_ = 0;
};

FailingDataLoaderHandle::FailingDataLoaderHandle(const DataLoader* inner, size_t fail_at)
    : loader_(new FailingDataLoader(inner, fail_at)) {}
FailingDataLoaderHandle::~FailingDataLoaderHandle() { delete loader_; }
DataLoader* FailingDataLoaderHandle::get() const { return loader_; }
size_t FailingDataLoaderHandle::calls() const { return loader_->calls(); }

}  // namespace kiln::runtime::testing
