// The threads kernels may run on: one process-wide pool that a kernel splits
// its work over with parallel_for, sized by set_kernel_threads (what `kiln run
// --threads`, `kiln generate --threads` and an app's set_backend_threads call
// set). Made for a language model's decode step, a few hundred calls of tens
// of microseconds each, on machines other processes share:
// - tasks are claimed one at a time from a counter, so a worker the OS has
//   descheduled holds up nothing: the others, the caller too, take its share;
// - between calls the workers spin a short while (with a pause, then
//   yielding the core), then sleep, so that they neither miss the next call
//   of a step nor burn a core the machine needs once the step is over.
// Starting and stopping threads allocates: only set_kernel_threads does it,
// never parallel_for. C++17, no exceptions.
#pragma once

#include <cstdint>

namespace kiln::runtime {

/// Sets the threads parallel_for runs on, the calling thread included (1: it
/// alone; values below 1 count as 1). Starts or stops workers to match; not
/// to be called while a parallel_for runs.
void set_kernel_threads(int threads);

/// The threads set_kernel_threads set (1 until it is called).
int kernel_threads();

/// A task of parallel_for: `task` is 0 to tasks - 1.
using ParallelTask = void (*)(void* context, int64_t task);

/// Runs run(context, t) for every t in [0, tasks) and returns when all are
/// done: the calling thread and the pool's workers each claim the next task
/// until none is left. Runs every task on the calling thread when the pool
/// has no workers, from inside a task, or while another thread's
/// parallel_for holds the pool.
void parallel_for(int64_t tasks, ParallelTask run, void* context);

}  // namespace kiln::runtime
