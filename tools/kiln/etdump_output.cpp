#include "etdump_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "host/host_error.h"

namespace kiln::cli {

namespace {

std::vector<uint8_t> read_all(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw HostError("cannot read '" + path + "': " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) throw HostError("cannot read '" + path + "'");
  return bytes;
}

void write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw HostError("cannot write '" + path + "': " + std::strerror(errno));
  const bool written = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int error = errno;
  if (std::fclose(file) != 0 || !written) {
    std::remove(path.c_str());
    throw HostError("cannot write '" + path + "': " + std::strerror(written ? errno : error));
  }
}

}  // namespace

std::unique_ptr<runtime::EtdumpRecorder> make_etdump_recorder(const EtdumpRequest& request,
                                                              const std::string& pte_path) {
  // The files are made now, so that a path that cannot be written is named before the run.
  write_all(request.etdump_path, {});
  if (!request.debug_buffer_path.empty()) write_all(request.debug_buffer_path, {});
  auto recorder = std::make_unique<runtime::EtdumpRecorder>(/*log_outputs=*/!request.debug_buffer_path.empty());
  const std::vector<uint8_t> pte = read_all(pte_path);
  recorder->set_program_tag(runtime::program_tag(pte.data(), pte.size()));
  return recorder;
}

void write_etdump(const EtdumpRequest& request, const runtime::EtdumpRecorder& recorder) {
  write_all(request.etdump_path, recorder.etdump());
  std::fprintf(stderr, "wrote %s: ETDump, %zu run%s, %zu events", request.etdump_path.c_str(), recorder.num_runs(),
               recorder.num_runs() == 1 ? "" : "s", recorder.num_events());
  if (!request.debug_buffer_path.empty()) {
    write_all(request.debug_buffer_path, recorder.debug_buffer());
    std::fprintf(stderr, "; %s: %zu bytes of logged tensors", request.debug_buffer_path.c_str(),
                 recorder.debug_buffer().size());
  }
  std::fprintf(stderr, "\n");
}

}  // namespace kiln::cli
