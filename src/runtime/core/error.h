// Error codes of the Kiln runtime.
//
// Runtime functions never throw: they return an `Error` or a `Result<T>`.
// Codes are grouped by category in numeric ranges (the same values ExecuTorch
// uses), so a code's category can be read from its high nibble.
#pragma once

#include <cstdint>

namespace kiln::runtime {

enum class Error : uint32_t {
  // System errors.
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  AlreadyLoaded = 0x04,

  // Logical errors: the caller asked for something invalid.
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,

  // Resource errors.
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,

  // Delegate errors.
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

/// The enumerator's name, e.g. "InvalidArgument"; "Unknown" for a value
/// outside the enum.
constexpr const char* to_string(Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::InvalidState: return "InvalidState";
    case Error::EndOfMethod: return "EndOfMethod";
    case Error::AlreadyLoaded: return "AlreadyLoaded";
    case Error::NotSupported: return "NotSupported";
    case Error::NotImplemented: return "NotImplemented";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidType: return "InvalidType";
    case Error::OperatorMissing: return "OperatorMissing";
    case Error::RegistrationExceedingMaxKernels: return "RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered: return "RegistrationAlreadyRegistered";
    case Error::NotFound: return "NotFound";
    case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::AccessFailed: return "AccessFailed";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::InvalidExternalData: return "InvalidExternalData";
    case Error::OutOfResources: return "OutOfResources";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
  }
  return "Unknown";
}

/// The category of a code: "system", "logical", "resource" or "delegate".
constexpr const char* category(Error error) {
  switch (static_cast<uint32_t>(error) >> 4) {
    case 0: return "system";
    case 1: return "logical";
    case 2: return "resource";
    case 3: return "delegate";
  }
  return "unknown";
}

}  // namespace kiln::runtime
