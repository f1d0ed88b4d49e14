// The root of every exception the host side throws: the compiler's AotError
// (aot/ir/error.h), src/llm's LlmError, TokenizerError and ChatTemplateError,
// and OneDnnBackend's partitioner's Refusal. Each message says what was
// wrong and where. What reports errors to a user (the kiln tool, the Python
// package) catches this one class. Header-only and free of the compiler's
// types, so that every host library can include it; the runtime throws
// nothing (its errors are values).
#pragma once

#include <stdexcept>

namespace kiln {

class HostError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kiln
