// The OpenMP thread count for a scope (compiled_graph.h).
#include "backends/onednn/runtime/compiled_graph.h"

#include <omp.h>

namespace kiln::backends::onednn {

ScopedThreads::ScopedThreads(int threads) : before_(omp_get_max_threads()) {
  if (threads != before_) omp_set_num_threads(threads);
}

ScopedThreads::~ScopedThreads() {
  if (omp_get_max_threads() != before_) omp_set_num_threads(before_);
}

}  // namespace kiln::backends::onednn
