// The commands, and the halves of commands, that need the compiler, as the
// runtime-only (device) build of the tool has them: each says it needs the
// full build and exits non-zero (main catches the HostError). The full build
// compiles the real ones instead (tools/kiln/CMakeLists.txt).
#include "command_line.h"

namespace kiln::cli {

static_assert(!kWithCompiler, "without_compiler.cpp is compiled only without the compiler");

int run_demo(Args) { needs_full_build("kiln demo"); }
int run_lower(Args) { needs_full_build("kiln lower"); }
int run_ops(Args) { needs_full_build("kiln ops"); }
int run_profile(Args) { needs_full_build("kiln profile"); }
int run_compare(Args) { needs_full_build("kiln compare"); }

int run_pt2_file(const RunFlags& flags) { needs_full_build("kiln run on a .pt2 (" + flags.path + ")"); }
// The tools' runtime session (devtools/runtime_session.h: inputs from an
// .npz, checked against MethodMeta; outputs as host tensors) is built on the
// compiler's host tensors and .npz reader, so it is not in this build yet.
int run_pte_file(const RunFlags&) { needs_full_build("kiln run"); }
int inspect_pt2_file(const std::string& path, const std::string&) {
  needs_full_build("kiln inspect on a .pt2 (" + path + ")");
}

}  // namespace kiln::cli
