// kiln run MODEL.pte: a program run on Kiln's runtime (see run_pte.cpp). The
// session the commands run programs with is the devtools' RuntimeSession.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "aot/ir/host_tensor.h"
#include "aot/ir/value.h"
#include "devtools/runtime_session.h"
#include "etdump_output.h"

namespace kiln::cli {

struct PteRunOptions {
  std::string path;
  std::string inputs_path;  ///< empty: inputs of ones
  std::string output_path;  ///< empty: no .npz written
  int iterations = 1;
  int warmup = 0;
  int threads = 1;    ///< the oneDNN backend's thread count
  bool json = false;  ///< also print the timings as one JSON line (kiln run --json)
  std::string chrome_trace_path;  ///< empty: no trace; else the timed calls' events as a Chrome trace
  std::string trace_path;         ///< empty: no trace; else the timed calls' events as a Kiln trace
  std::string method;             ///< empty: 'forward', else the program's first method
  EtdumpRequest etdump;           ///< the timed calls' events as an ETDump, when requested
};

using devtools::ones;
using devtools::RuntimeSession;

/// Loads, runs and prints; throws AotError naming what was wrong.
int run_pte(const PteRunOptions& options);

}  // namespace kiln::cli
