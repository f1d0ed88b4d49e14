#include "runtime/devtools/etdump_recorder.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "schema/etdump_generated.h"

namespace kiln::runtime {

namespace {

constexpr const char* kDelegateCall = "DELEGATE_CALL";
constexpr const char* kDefaultBlock = "Execute";

int32_t narrow(size_t value) { return value > INT32_MAX ? INT32_MAX : static_cast<int32_t>(value); }

}  // namespace

std::string program_tag(const void* pte, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  const auto* bytes = static_cast<const uint8_t*>(pte);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  char text[96];
  std::snprintf(text, sizeof text, "kiln-program %" PRIu64 " bytes fnv1a64 %016" PRIx64, static_cast<uint64_t>(size),
                hash);
  return text;
}

void EtdumpRecorder::reserve(size_t events, size_t debug_bytes) {
  events_.reserve(events);
  debug_buffer_.reserve(debug_bytes);
}

int32_t EtdumpRecorder::intern(const char* text) {
  if (text == nullptr) return -1;
  auto [it, added] = string_index_.try_emplace(text, static_cast<int32_t>(strings_.size()));
  if (added) strings_.emplace_back(text);
  return it->second;
}

void EtdumpRecorder::create_event_block(const char* name) {
  std::string label = name != nullptr && name[0] != '\0' ? name : kDefaultBlock;
  if (!program_tag_.empty()) label += " [" + program_tag_ + "]";
  runs_.push_back(intern(label.c_str()));
}

uint32_t EtdumpRecorder::current_run() {
  if (runs_.empty()) create_event_block(nullptr);
  return static_cast<uint32_t>(runs_.size() - 1);
}

void EtdumpRecorder::log_instruction(const InstructionEvent& event) {
  Event logged;
  logged.run = current_run();
  logged.chain = narrow(event.chain);
  logged.instruction = narrow(event.instruction);
  logged.name = intern(event.delegate >= 0 ? kDelegateCall : event.name);
  logged.start_ns = event.start_ns;
  logged.end_ns = event.end_ns;
  events_.push_back(logged);
  if (!log_outputs_ || event.output == nullptr) return;
  Event debug = logged;
  debug.kind = Kind::Debug;
  if (event.output->isTensor()) {
    const Tensor tensor = event.output->toTensor();
    log_tensors(debug, &tensor, 1, false);
  } else if (event.output->isTensorList()) {
    const Span<const Tensor> list = event.output->toTensorList();
    log_tensors(debug, list.data(), list.size(), true);
  }
}

void EtdumpRecorder::log_delegate_event(const DelegateEvent& event) {
  Event logged;
  logged.run = current_run();
  logged.chain = narrow(event.chain);
  logged.instruction = narrow(event.instruction);
  if (event.debug_name != nullptr) {
    logged.debug_id_str = intern(event.debug_name);
    logged.name = logged.debug_id_str;
  } else {
    logged.debug_id_int = event.debug_id < 0 || event.debug_id > INT32_MAX ? -1 : static_cast<int32_t>(event.debug_id);
    logged.name = intern(std::to_string(event.debug_id).c_str());
  }
  logged.start_ns = event.start_ns;
  logged.end_ns = event.end_ns;
  events_.push_back(logged);
  if (log_outputs_ && event.output != nullptr) {
    Event debug = logged;
    debug.kind = Kind::Debug;
    log_tensors(debug, event.output, 1, false);
  }
}

void EtdumpRecorder::log_tensors(Event event, const Tensor* tensors, size_t count, bool list) {
  event.list = list;
  event.first_tensor = static_cast<uint32_t>(tensors_.size());
  event.num_tensors = static_cast<uint32_t>(count);
  for (size_t i = 0; i < count; ++i) {
    const Tensor& tensor = tensors[i];
    LoggedTensor logged;
    logged.scalar_type = static_cast<int8_t>(tensor.scalar_type());
    logged.first_dim = static_cast<uint32_t>(dims_.size());
    logged.rank = static_cast<uint32_t>(tensor.dim());
    for (const SizesType size : tensor.sizes()) dims_.push_back(size);
    for (const StridesType stride : tensor.strides()) dims_.push_back(stride);
    const size_t start = (debug_buffer_.size() + kDebugAlignment - 1) / kDebugAlignment * kDebugAlignment;
    logged.offset = start;
    debug_buffer_.resize(start + tensor.nbytes());
    if (tensor.nbytes() != 0) std::memcpy(debug_buffer_.data() + start, tensor.const_data_ptr(), tensor.nbytes());
    tensors_.push_back(logged);
  }
  events_.push_back(event);
}

std::vector<uint8_t> EtdumpRecorder::etdump() const {
  namespace fb = ::etdump;
  flatbuffers::FlatBufferBuilder builder(1024 + events_.size() * 96);
  std::vector<flatbuffers::Offset<flatbuffers::String>> strings;
  strings.reserve(strings_.size());
  for (const std::string& text : strings_) strings.push_back(builder.CreateString(text));
  const auto string_at = [&](int32_t index) {
    return index < 0 ? flatbuffers::Offset<flatbuffers::String>() : strings[static_cast<size_t>(index)];
  };
  const auto tensor_at = [&](const LoggedTensor& tensor) {
    const int64_t* dims = dims_.data() + tensor.first_dim;
    const auto sizes = builder.CreateVector(dims, tensor.rank);
    const auto strides = builder.CreateVector(dims + tensor.rank, tensor.rank);
    return fb::CreateTensor(builder, static_cast<executorch_flatbuffer::ScalarType>(tensor.scalar_type), sizes,
                            strides, static_cast<int64_t>(tensor.offset));
  };

  std::vector<std::vector<flatbuffers::Offset<fb::Event>>> run_events(runs_.size());
  for (const Event& event : events_) {
    flatbuffers::Offset<fb::Event> written;
    if (event.kind == Kind::Profile) {
      const auto profile = fb::CreateProfileEvent(builder, string_at(event.name), event.chain, event.instruction,
                                                  event.debug_id_int, string_at(event.debug_id_str), 0,
                                                  event.start_ns, event.end_ns);
      written = fb::CreateEvent(builder, profile);
    } else {
      flatbuffers::Offset<fb::Value> value;
      if (event.list) {
        std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
        for (uint32_t i = 0; i < event.num_tensors; ++i) tensors.push_back(tensor_at(tensors_[event.first_tensor + i]));
        const auto list = fb::CreateTensorList(builder, builder.CreateVector(tensors));
        value = fb::CreateValue(builder, fb::ValueType::TensorList, 0, list);
      } else {
        const auto tensor = tensor_at(tensors_[event.first_tensor]);
        value = fb::CreateValue(builder, fb::ValueType::Tensor, tensor);
      }
      const auto debug =
          fb::CreateDebugEvent(builder, static_cast<uint64_t>(event.chain), event.instruction, value,
                               event.debug_id_int, string_at(event.debug_id_str), string_at(event.name));
      written = fb::CreateEvent(builder, 0, 0, debug);
    }
    run_events[event.run].push_back(written);
  }
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  for (size_t r = 0; r < runs_.size(); ++r) {
    const auto allocators = builder.CreateVector(std::vector<flatbuffers::Offset<fb::Allocator>>{});
    runs.push_back(fb::CreateRunData(builder, string_at(runs_[r]), -1, allocators, builder.CreateVector(run_events[r])));
  }
  const auto root = fb::CreateETDump(builder, kVersion, builder.CreateVector(runs));
  builder.FinishSizePrefixed(root, fb::ETDumpIdentifier());
  return std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

}  // namespace kiln::runtime
