// What the fusion passes read of a program's constant weights: the tensor a
// placeholder holds, torchao's dequantize_affine of constant weights taken
// apart, and the dropping of a weight nothing reads any more. Internal to
// passes/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aot/ir/exported_program.h"

namespace kiln::aot::passes {

/// The tensor a parameter's or lifted constant's placeholder holds, or null
/// (for another node, or a buffer, which the program may write).
const HostTensor* weight_of(const ExportedProgram& program, const Node* node);

/// True if `arg` is the int list `values`.
bool is_int_list(const Argument& arg, const std::vector<int64_t>& values);

/// torchao's dequantize_affine(Wq, [1, G], s, z, int8, lo, hi[, float32]) of
/// constant weights Wq [n, k] (int8 holding values in [lo, hi]: [-8, 7] for
/// 4 bits, [-128, 127] for 8), with one scale s (and zero point z, or none)
/// per row and group of G columns: w = (q - z) * s.
struct AffineWeights {
  int bits = 8;  ///< 4 or 8
  int64_t n = 0, k = 0, group = 0;
  HostTensor values;                ///< int8 [n, k], contiguous
  std::vector<float> scales;        ///< [n, k / group]
  std::vector<int8_t> zero_points;  ///< [n, k / group]; empty if all are 0
  /// The dequantize node, then the placeholders of Wq, s and z.
  std::vector<Node*> nodes;
};

/// `node` as AffineWeights, or nothing if it is not one.
std::optional<AffineWeights> affine_weights(const ExportedProgram& program, Node* node);

/// Drops `node`, the placeholder of a weight, with its input spec, its tensor
/// and the graph asserts on it, when nothing else reads it any more.
void drop_weight(ExportedProgram& program, Node* node);

}  // namespace kiln::aot::passes
