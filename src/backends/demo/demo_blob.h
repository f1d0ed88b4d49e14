// The blob DemoBackend's preprocess writes and its runtime executes: a list
// of float32 elementwise instructions over numbered values. Written for both
// sides: C++17, no exceptions, no allocation, header-only.
//
// Layout (all fields little-endian; u32 unless noted):
//   "KDM1"                      magic
//   version                     2
//   checksum                    FNV-1a (32 bits) of every byte after this field
//   num_values, num_inputs, num_constants, num_instructions, num_outputs
//   numel[num_values]           element count of each value
//   constants[num_constants]    { value, key_length, key bytes padded to 4 }
//   instructions[num_instructions]
//                               { opcode, out, a, b, scalar (f32), debug_id (i32) }
//   outputs[num_outputs]        value index of each output, in order
//
// Values 0 .. num_inputs-1 are the delegate call's inputs in order; the next
// num_constants values are constants, whose bytes the runtime finds in the
// program's named data under `key`; every other value is written by exactly
// one instruction, before any instruction reads it. Binary instructions read
// a and b (same element count); scalar instructions read a and `scalar`; add
// and sub take alpha in `scalar` (a + alpha * b). debug_id is the delegate
// debug identifier of the instruction (-1 for none). The checksum refuses
// any change of a byte that would otherwise still parse (an opcode for
// another of its arity, a scalar, an output's index) and compute something
// else.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::backends::demo {

enum class OpCode : uint32_t {
  kSin = 1,
  kCos = 2,
  kTan = 3,
  kNeg = 4,
  kExp = 5,
  kRelu = 6,
  kAbs = 7,
  kSigmoid = 8,
  kTanh = 9,
  kAdd = 16,  // a + scalar * b
  kSub = 17,  // a - scalar * b
  kMul = 18,
  kDiv = 19,
  kAddScalar = 32,  // a + scalar
  kSubScalar = 33,  // a - scalar
  kMulScalar = 34,
  kDivScalar = 35,
};

inline constexpr char kMagic[4] = {'K', 'D', 'M', '1'};
inline constexpr uint32_t kVersion = 2;
inline constexpr size_t kHeaderSize = 32;
inline constexpr size_t kInstructionSize = 24;
inline constexpr uint32_t kNoValue = 0xffffffffu;

enum class OpArity { kUnary, kBinary, kScalar, kUnknown };

inline OpArity arity(OpCode op) {
  const auto code = static_cast<uint32_t>(op);
  if (code >= 1 && code <= 9) return OpArity::kUnary;
  if (code >= 16 && code <= 19) return OpArity::kBinary;
  if (code >= 32 && code <= 35) return OpArity::kScalar;
  return OpArity::kUnknown;
}

struct Instruction {
  OpCode op;
  uint32_t out;
  uint32_t a;
  uint32_t b;  // kNoValue unless binary
  float scalar;
  int32_t debug_id;
};

struct ConstantRef {
  uint32_t value;
  const char* key;
  uint32_t key_length;
};

/// A parsed, validated blob. It points into the bytes it was parsed from,
/// which must outlive it.
class DemoProgram {
 public:
  /// Parses and validates `size` bytes at `data`. On failure returns false
  /// and sets `*error` to a static message.
  static bool parse(const uint8_t* data, size_t size, DemoProgram* out, const char** error);

  uint32_t num_values() const { return num_values_; }
  uint32_t num_inputs() const { return num_inputs_; }
  uint32_t num_constants() const { return num_constants_; }
  uint32_t num_instructions() const { return num_instructions_; }
  uint32_t num_outputs() const { return num_outputs_; }
  uint32_t numel(uint32_t value) const { return read_u32(numels_ + 4 * value); }
  /// Constant `i` (0 .. num_constants-1): value num_inputs + i.
  ConstantRef constant(uint32_t i) const;
  Instruction instruction(uint32_t i) const;
  uint32_t output(uint32_t i) const { return read_u32(outputs_ + 4 * i); }

  /// FNV-1a of `size` bytes: the header's checksum over the bytes after
  /// it. Any one changed byte changes it (each step is a bijection).
  static uint32_t checksum(const uint8_t* data, size_t size) {
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 16777619u;
    return hash;
  }

  static uint32_t read_u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
           static_cast<uint32_t>(p[3]) << 24;
  }

 private:
  uint32_t num_values_ = 0, num_inputs_ = 0, num_constants_ = 0, num_instructions_ = 0, num_outputs_ = 0;
  const uint8_t* numels_ = nullptr;
  const uint8_t* constants_ = nullptr;
  const uint8_t* instructions_ = nullptr;
  const uint8_t* outputs_ = nullptr;
};

/// Runs `program`: `values[i]` points to numel(i) floats for every value
/// (inputs and constants filled in, the rest written here).
// `done(instruction)` is called after each one (to time it; a no-op by default).
template <typename Done = void (*)(const Instruction&)>
void execute(const DemoProgram& program, float* const* values, Done done = [](const Instruction&) {});

// ---- implementation ----

inline ConstantRef DemoProgram::constant(uint32_t i) const {
  const uint8_t* p = constants_;
  for (uint32_t k = 0; k < i; ++k) p += 8 + ((read_u32(p + 4) + 3u) & ~3u);
  return {read_u32(p), reinterpret_cast<const char*>(p + 8), read_u32(p + 4)};
}

inline Instruction DemoProgram::instruction(uint32_t i) const {
  const uint8_t* p = instructions_ + kInstructionSize * i;
  Instruction in;
  in.op = static_cast<OpCode>(read_u32(p));
  in.out = read_u32(p + 4);
  in.a = read_u32(p + 8);
  in.b = read_u32(p + 12);
  const uint32_t bits = read_u32(p + 16);
  std::memcpy(&in.scalar, &bits, 4);
  const uint32_t id = read_u32(p + 20);
  std::memcpy(&in.debug_id, &id, 4);
  return in;
}

inline bool DemoProgram::parse(const uint8_t* data, size_t size, DemoProgram* out, const char** error) {
  auto fail = [error](const char* message) {
    *error = message;
    return false;
  };
  if (data == nullptr || size < kHeaderSize) return fail("demo blob: shorter than its header");
  if (std::memcmp(data, kMagic, 4) != 0) return fail("demo blob: bad magic (expected KDM1)");
  if (read_u32(data + 4) != kVersion) return fail("demo blob: unsupported version");
  if (read_u32(data + 8) != checksum(data + 12, size - 12)) {
    return fail("demo blob: checksum mismatch (the blob is corrupted)");
  }
  DemoProgram p;
  p.num_values_ = read_u32(data + 12);
  p.num_inputs_ = read_u32(data + 16);
  p.num_constants_ = read_u32(data + 20);
  p.num_instructions_ = read_u32(data + 24);
  p.num_outputs_ = read_u32(data + 28);
  // 4 leading bytes per value keep the counts below from overflowing.
  if (p.num_values_ > (size - kHeaderSize) / 4) return fail("demo blob: value table past the end");
  if (static_cast<uint64_t>(p.num_inputs_) + p.num_constants_ > p.num_values_) {
    return fail("demo blob: more inputs and constants than values");
  }
  size_t offset = kHeaderSize;
  p.numels_ = data + offset;
  offset += 4 * static_cast<size_t>(p.num_values_);
  p.constants_ = data + offset;
  for (uint32_t i = 0; i < p.num_constants_; ++i) {
    if (size - offset < 8) return fail("demo blob: constant table past the end");
    const uint32_t value = read_u32(data + offset);
    const uint32_t padded = (read_u32(data + offset + 4) + 3u) & ~3u;
    if (value != p.num_inputs_ + i) return fail("demo blob: constants out of order");
    if (padded < read_u32(data + offset + 4) || size - offset - 8 < padded) {
      return fail("demo blob: constant key past the end");
    }
    offset += 8 + padded;
  }
  if ((size - offset) / kInstructionSize < p.num_instructions_) return fail("demo blob: instructions past the end");
  p.instructions_ = data + offset;
  offset += kInstructionSize * static_cast<size_t>(p.num_instructions_);
  if ((size - offset) / 4 != p.num_outputs_ || (size - offset) % 4 != 0) {
    return fail("demo blob: output table does not end the blob");
  }
  p.outputs_ = data + offset;

  // Each non-input value is written once, before it is read.
  const uint32_t first_computed = p.num_inputs_ + p.num_constants_;
  uint32_t next_computed = first_computed;
  for (uint32_t i = 0; i < p.num_instructions_; ++i) {
    const Instruction in = p.instruction(i);
    const OpArity kind = arity(in.op);
    if (kind == OpArity::kUnknown) return fail("demo blob: unknown opcode");
    if (in.out != next_computed++) return fail("demo blob: instructions must write values in order");
    if (in.out >= p.num_values_) return fail("demo blob: instruction writes past the value table");
    if (in.a >= in.out || p.numel(in.a) != p.numel(in.out)) return fail("demo blob: bad first operand");
    if (kind == OpArity::kBinary && (in.b >= in.out || p.numel(in.b) != p.numel(in.out))) {
      return fail("demo blob: bad second operand");
    }
    if (kind != OpArity::kBinary && in.b != kNoValue) return fail("demo blob: second operand on a one-input op");
  }
  if (next_computed != p.num_values_) return fail("demo blob: some values are never written");
  for (uint32_t i = 0; i < p.num_outputs_; ++i) {
    if (p.output(i) >= p.num_values_) return fail("demo blob: output past the value table");
  }
  *out = p;
  return true;
}

template <typename Done>
void execute(const DemoProgram& program, float* const* values, Done done) {
  for (uint32_t i = 0; i < program.num_instructions(); ++i) {
    const Instruction in = program.instruction(i);
    const uint32_t n = program.numel(in.out);
    float* out = values[in.out];
    const float* a = values[in.a];
    const float* b = in.b == kNoValue ? nullptr : values[in.b];
    const float s = in.scalar;
    switch (in.op) {
      case OpCode::kSin: for (uint32_t k = 0; k < n; ++k) out[k] = std::sin(a[k]); break;
      case OpCode::kCos: for (uint32_t k = 0; k < n; ++k) out[k] = std::cos(a[k]); break;
      case OpCode::kTan: for (uint32_t k = 0; k < n; ++k) out[k] = std::tan(a[k]); break;
      case OpCode::kNeg: for (uint32_t k = 0; k < n; ++k) out[k] = -a[k]; break;
      case OpCode::kExp: for (uint32_t k = 0; k < n; ++k) out[k] = std::exp(a[k]); break;
      case OpCode::kRelu: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] > 0.0f || std::isnan(a[k]) ? a[k] : 0.0f; break;
      case OpCode::kAbs: for (uint32_t k = 0; k < n; ++k) out[k] = std::fabs(a[k]); break;
      case OpCode::kSigmoid: for (uint32_t k = 0; k < n; ++k) out[k] = 1.0f / (1.0f + std::exp(-a[k])); break;
      case OpCode::kTanh: for (uint32_t k = 0; k < n; ++k) out[k] = std::tanh(a[k]); break;
      case OpCode::kAdd: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] + s * b[k]; break;
      case OpCode::kSub: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] - s * b[k]; break;
      case OpCode::kMul: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] * b[k]; break;
      case OpCode::kDiv: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] / b[k]; break;
      case OpCode::kAddScalar: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] + s; break;
      case OpCode::kSubScalar: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] - s; break;
      case OpCode::kMulScalar: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] * s; break;
      case OpCode::kDivScalar: for (uint32_t k = 0; k < n; ++k) out[k] = a[k] / s; break;
    }
    done(in);
  }
}

}  // namespace kiln::backends::demo
