// The commands, and the halves of commands, that need the compiler, as the
// runtime-only (device) build of the tool has them: each says it needs the
// full build and exits non-zero (main catches the HostError). The full build
// compiles the real ones instead (tools/kiln/CMakeLists.txt).
#include "command_line.h"
#include "run_pte.h"

namespace kiln::cli {

static_assert(!kWithCompiler, "without_compiler.cpp is compiled only without the compiler");

int run_demo(Args) { needs_full_build("kiln demo"); }
int run_lower(Args) { needs_full_build("kiln lower"); }
int run_ops_table(bool, bool) { needs_full_build("kiln ops (the op table; 'kiln ops --used' works here)"); }
int run_profile(Args) { needs_full_build("kiln profile"); }
int run_compare(Args) { needs_full_build("kiln compare"); }

int run_pt2_file(const RunFlags& flags) { needs_full_build("kiln run on a .pt2 (" + flags.path + ")"); }
int inspect_pt2_file(const std::string& path, const std::string&) {
  needs_full_build("kiln inspect on a .pt2 (" + path + ")");
}

// The traces of kiln run on a .pte hold host tensors (devtools' TraceRecorder);
// the device's trace is --etdump.
std::unique_ptr<RunTrace> make_run_trace(const RunFlags& flags) {
  if (!flags.trace.empty()) needs_full_build("kiln run --trace (use --etdump on the device)");
  if (!flags.chrome_trace.empty()) needs_full_build("kiln run --chrome-trace (use --etdump on the device)");
  return nullptr;
}

}  // namespace kiln::cli
