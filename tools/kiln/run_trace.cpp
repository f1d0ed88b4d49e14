// kiln run's --trace and --chrome-trace (run_pte.h): the devtools'
// TraceRecorder, whose events hold host tensors, so the full build only.
#include <cstdio>

#include "aot/emit/pte_writer.h"
#include "devtools/program_id.h"
#include "devtools/trace_recorder.h"
#include "run_pte.h"

namespace kiln::cli {

namespace {

void write_text(const std::string& path, const std::string& text) {
  aot::pte::write_file_atomically(path, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

class HostRunTrace final : public RunTrace {
 public:
  explicit HostRunTrace(const RunFlags& flags) : flags_(flags) {}

  runtime::EventTracer& tracer() override { return recorder_; }
  void end_run() override { recorder_.end_run(); }

  void write() override {
    if (!flags_.chrome_trace.empty()) {
      write_text(flags_.chrome_trace, recorder_.chrome_trace_json());
      std::printf("wrote %s: %zu calls, %zu backend events (chrome://tracing or ui.perfetto.dev)\n",
                  flags_.chrome_trace.c_str(), recorder_.instructions().size(), recorder_.delegate_events().size());
    }
    if (!flags_.trace.empty()) {
      const std::string pte = read_file(flags_.path, "program");
      recorder_.set_program(devtools::program_id({reinterpret_cast<const uint8_t*>(pte.data()), pte.size()}));
      write_text(flags_.trace, recorder_.kiln_trace_json());
      std::printf("wrote %s: %zu runs, %zu calls, %zu backend events ('kiln profile --trace')\n",
                  flags_.trace.c_str(), recorder_.runs(), recorder_.instructions().size(),
                  recorder_.delegate_events().size());
    }
  }

 private:
  RunFlags flags_;
  devtools::TraceRecorder recorder_;
};

}  // namespace

std::unique_ptr<RunTrace> make_run_trace(const RunFlags& flags) {
  if (flags.trace.empty() && flags.chrome_trace.empty()) return nullptr;
  return std::make_unique<HostRunTrace>(flags);
}

}  // namespace kiln::cli
