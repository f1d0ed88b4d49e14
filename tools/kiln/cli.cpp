// Flag parsing and the errors every command shares (command_line.h).
#include "command_line.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kiln::cli {

const std::string& Args::value(const std::string& flag) {
  if (done()) throw UsageError(flag + " needs a value");
  return take();
}

void Args::unknown(const std::string& arg) const {
  if (!arg.empty() && arg[0] == '-') throw UsageError("unknown option '" + arg + "' for 'kiln " + command_ + "'");
  throw UsageError("unexpected argument '" + arg + "' for 'kiln " + command_ + "'");
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw HostError("cannot open the " + what + " " + path + " (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void needs_full_build(const std::string& what) {
  throw HostError(what + " needs the compiler, and this kiln is the runtime-only (device) build: build Kiln with "
                  "KILN_BUILD_AOT=ON (the default; `make`) for it");
}

int64_t parse_integer(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < min || value > max) {
    throw UsageError(flag + " expects an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got '" + text + "'");
  }
  return value;
}

}  // namespace kiln::cli
