// MethodMeta: what a caller must know about a method before loading it — its
// inputs and outputs, and how much planned memory to provide. Read straight
// from the program's flatbuffer; valid as long as the Program.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor_impl.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}

namespace kiln::runtime {

/// One tensor input or output.
class TensorInfo final {
 public:
  TensorInfo(Span<const int32_t> sizes, Span<const uint8_t> dim_order, ScalarType scalar_type,
             TensorShapeDynamism dynamism, bool is_memory_planned, size_t nbytes)
      : sizes_(sizes),
        dim_order_(dim_order),
        scalar_type_(scalar_type),
        dynamism_(dynamism),
        is_memory_planned_(is_memory_planned),
        nbytes_(nbytes) {}

  /// The sizes as written in the program: for a dynamic tensor, the upper bounds.
  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  ScalarType scalar_type() const { return scalar_type_; }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }
  /// True if the tensor's bytes are in planned memory (set_input copies into
  /// them); false if the caller provides them (set_input shares the caller's).
  bool is_memory_planned() const { return is_memory_planned_; }
  /// Bytes at the sizes above.
  size_t nbytes() const { return nbytes_; }

 private:
  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  ScalarType scalar_type_;
  TensorShapeDynamism dynamism_;
  bool is_memory_planned_;
  size_t nbytes_;
};

class MethodMeta final {
 public:
  /// `plan` must come from a verified program.
  explicit MethodMeta(const executorch_flatbuffer::ExecutionPlan* plan) : plan_(plan) {}

  const char* name() const;

  size_t num_inputs() const;
  /// The kind of input `index`; InvalidArgument when out of range,
  /// InvalidProgram when the value index in the program is bad.
  Result<Tag> input_tag(size_t index) const;
  /// InvalidArgument if input `index` is not a tensor.
  Result<TensorInfo> input_tensor_meta(size_t index) const;

  size_t num_outputs() const;
  Result<Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;

  /// Planned buffers the caller provides (the .pte's reserved buffer 0 is not
  /// counted).
  size_t num_memory_planned_buffers() const;
  /// Bytes of planned buffer `index`; InvalidArgument when out of range.
  Result<int64_t> memory_planned_buffer_size(size_t index) const;

  /// Delegates' backend ids, in the order the program lists the delegates
  /// (one entry per distinct id).
  size_t num_backends() const;
  Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(const char* backend_name) const;

  size_t num_instructions() const;

  /// The operators the method's kernel calls name (its operator table, in
  /// table order): what the kernel registry must provide to load it. A
  /// delegate's own ops are not among them.
  size_t num_operators() const;
  /// Writes the name of operator `index` ("aten::add.out": name, a dot, the
  /// overload; the name alone for the default overload) into `buffer` of
  /// `size` bytes.
  /// @retval InvalidArgument `index` is out of range, or the name (with its
  ///   terminating null) does not fit in `size` bytes.
  /// @retval InvalidProgram the operator has no name.
  [[nodiscard]] Error operator_name(size_t index, char* buffer, size_t size) const;

 private:
  const executorch_flatbuffer::ExecutionPlan* plan_;
};

}  // namespace kiln::runtime
