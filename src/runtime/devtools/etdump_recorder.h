// EtdumpRecorder: the event tracer a device runs. It keeps each execute's
// events as one run (a kernel call's or delegate call's start and end time
// with its chain and instruction index; each event a backend logs inside a
// delegate call, under its delegate debug identifier) and, when asked, the
// value each kernel call returned and each tensor a backend showed, as raw
// bytes with dtype, sizes and strides. It writes them in ExecuTorch's ETDump
// format (schema/etdump.fbs), which ExecuTorch's Inspector reads and `kiln
// profile --etdump` / `kiln compare --etdump` attribute on a host:
//   - one RunData per execute, named "<method> [<program tag>]" so that the
//     host can tell which .pte the events come from (program_tag);
//   - a ProfileEvent per instruction: a kernel call is named by its operator
//     ("aten::add.out"), a delegate call "DELEGATE_CALL" (ExecuTorch's name);
//     a backend's event carries its identifier (delegate_debug_id_int, or
//     delegate_debug_id_str for a name) and the delegate call's instruction;
//   - with log_outputs, a DebugEvent per logged value; the tensors' bytes go
//     to the debug buffer (64-byte aligned), at the Tensor's `offset`.
//
// C++17, runtime rules apart from memory: it records into its own
// std::vectors (call reserve() first to keep allocation out of the executes
// it traces), as ExecuTorch's ETDumpGen mallocs when given no buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/event_tracer.h"

namespace kiln::runtime {

/// "kiln-program 1234 bytes fnv1a64 0123456789abcdef": which .pte the events
/// come from (its size and FNV-1a 64 hash, as a debug record holds them).
std::string program_tag(const void* pte, size_t size);

class EtdumpRecorder final : public EventTracer {
 public:
  /// The ETDump version written (ExecuTorch's runtime writes 0).
  static constexpr uint32_t kVersion = 0;
  /// Where each tensor's bytes start in the debug buffer.
  static constexpr size_t kDebugAlignment = 64;

  /// With `log_outputs`, each kernel call's output and each tensor a backend
  /// shows is kept (their bytes in the debug buffer).
  explicit EtdumpRecorder(bool log_outputs = false) : log_outputs_(log_outputs) {}

  /// Appended to each run's name: program_tag() of the .pte being run.
  void set_program_tag(std::string tag) { program_tag_ = std::move(tag); }
  /// Room for `events` events and `debug_bytes` bytes of logged tensors.
  void reserve(size_t events, size_t debug_bytes);

  void create_event_block(const char* name) override;
  void log_instruction(const InstructionEvent& event) override;
  void log_delegate_event(const DelegateEvent& event) override;
  bool wants_outputs() const override { return log_outputs_; }

  /// Runs (event blocks) so far.
  size_t num_runs() const { return runs_.size(); }
  /// Profile and debug events so far, over all runs.
  size_t num_events() const { return events_.size(); }
  /// The logged tensors' bytes: the file an ETDump's Tensor offsets point into.
  const std::vector<uint8_t>& debug_buffer() const { return debug_buffer_; }

  /// Everything recorded so far as a size-prefixed ETDump.
  std::vector<uint8_t> etdump() const;

 private:
  enum class Kind : uint8_t { Profile, Debug };
  struct Event {
    Kind kind = Kind::Profile;
    uint32_t run = 0;
    int32_t chain = 0;
    int32_t instruction = -1;
    int32_t name = -1;          // index into strings_, -1 for none
    int32_t debug_id_int = -1;
    int32_t debug_id_str = -1;  // index into strings_
    uint64_t start_ns = 0, end_ns = 0;
    bool list = false;          // a debug event's value: a TensorList (else a Tensor)
    uint32_t first_tensor = 0, num_tensors = 0;  // into tensors_
  };
  struct LoggedTensor {
    int8_t scalar_type = 0;
    uint32_t first_dim = 0, rank = 0;  // into dims_: sizes, then strides
    uint64_t offset = 0;               // into debug_buffer_
  };

  uint32_t current_run();
  int32_t intern(const char* text);
  void log_tensors(Event event, const Tensor* tensors, size_t count, bool list);

  bool log_outputs_ = false;
  std::string program_tag_;
  std::vector<int32_t> runs_;  // each run's name, an index into strings_
  std::vector<Event> events_;
  std::vector<LoggedTensor> tensors_;
  std::vector<int64_t> dims_;
  std::vector<uint8_t> debug_buffer_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int32_t> string_index_;
};

}  // namespace kiln::runtime
