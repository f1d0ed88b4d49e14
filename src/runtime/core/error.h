// Error codes of the Kiln runtime.
//
// Runtime functions never throw: they return an `Error` or a `Result<T>`.
// Codes are grouped by category in numeric ranges (the same values ExecuTorch
// uses), so a code's category can be read from its high nibble.
#pragma once

#include <cstdint>

namespace kiln::runtime {

/// Every function that can fail returns one; ignoring it is a compile
/// warning (an error with KILN_WERROR). Whoever returns a code other than Ok
/// has logged one line saying why (log.h), so the caller only passes it on.
enum class [[nodiscard]] Error : uint32_t {
  // System errors.
  /// Success.
  Ok = 0x00,
  /// A broken invariant inside the runtime or a backend (a bug, or a library
  /// call that failed for no reason the caller could have avoided).
  Internal = 0x01,
  /// The object is not in a state that allows the call (e.g. a Method that
  /// failed to load, a tensor resized past its bound).
  InvalidState = 0x02,
  /// Execution reached the end of the method's instructions.
  EndOfMethod = 0x03,
  /// The thing was loaded already.
  AlreadyLoaded = 0x04,

  // Logical errors: the caller asked for something invalid.
  /// Valid, but not something this build or this machine does (an op
  /// argument the kernel does not implement, a backend not available here).
  NotSupported = 0x10,
  /// A feature that is declared but has no implementation yet.
  NotImplemented = 0x11,
  /// An argument is out of range or inconsistent (a wrong shape, dtype,
  /// count or index).
  InvalidArgument = 0x12,
  /// A value of the wrong kind (an EValue that is not the tag asked for).
  InvalidType = 0x13,
  /// A kernel the program calls is not registered.
  OperatorMissing = 0x14,
  /// The kernel registry is full.
  RegistrationExceedingMaxKernels = 0x15,
  /// A kernel or backend of that name is registered already.
  RegistrationAlreadyRegistered = 0x16,

  // Resource errors.
  /// A file, method, key or name does not exist.
  NotFound = 0x20,
  /// An allocator (the method, planned or temp memory) had no room.
  MemoryAllocationFailed = 0x21,
  /// A file or data could not be read (a loader's failure).
  AccessFailed = 0x22,
  /// The .pte is malformed: truncated, inconsistent or out of bounds.
  InvalidProgram = 0x23,
  /// External data (named data of a program) is missing or malformed.
  InvalidExternalData = 0x24,
  /// A fixed-size table or pool is full (the backend registry, a thread pool).
  OutOfResources = 0x25,

  // Delegate errors.
  /// A backend refused its blob: another version, malformed, or made for
  /// something this backend cannot run.
  DelegateInvalidCompatibility = 0x30,
  /// A backend's init found no room in the method allocator.
  DelegateMemoryAllocationFailed = 0x31,
  /// A delegate handle is null or not the backend's own.
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
