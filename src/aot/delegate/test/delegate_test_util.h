// Helpers for the delegation tests: backends registered for tests, a
// partitioner built from a tagging function, and running programs before and
// after lowering.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aot/delegate/backend_api.h"
#include "aot/interpreter/interpreter.h"
#include "aot/ir/graph_builder.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot::testing {

/// Test backends, registered during static initialization:
///   "AllOpsBackend"   supports every op
///   "SinCosBackend"   supports aten::sin and aten::cos
///   "AddMulBackend"   supports aten::add.Tensor and aten::mul.Tensor
///   "EveryOtherBackend" supports every other op node, in graph order
/// Each one's blob lists the ops of the program it lowered ("aten::sin.default;...")
/// and its debug map gives each op node a generated identifier. A compile
/// spec with key "fail" makes preprocess throw.
inline const char* kAllOps = "AllOpsBackend";
inline const char* kSinCos = "SinCosBackend";
inline const char* kAddMul = "AddMulBackend";
inline const char* kEveryOther = "EveryOtherBackend";

/// The blob of a test backend, as text.
std::string blob_text(const LoweredBackendModule& module);

/// The names of the nodes of each group, for comparing partitions.
std::vector<std::vector<std::string>> names_of(const std::vector<std::vector<Node*>>& groups);

/// A partitioner that tags a copy of the program with `tag_nodes` and
/// declares `tags`.
class FunctionPartitioner : public Partitioner {
 public:
  FunctionPartitioner(std::function<void(ExportedProgram&)> tag_nodes,
                      std::vector<std::pair<std::string, DelegationSpec>> tags)
      : tag_nodes_(std::move(tag_nodes)), tags_(std::move(tags)) {}
  std::string name() const override { return "FunctionPartitioner"; }
  PartitionResult partition(const ExportedProgram& exported_program) const override;

 private:
  std::function<void(ExportedProgram&)> tag_nodes_;
  std::vector<std::pair<std::string, DelegationSpec>> tags_;
};

/// Tags the call_function nodes named in `names` with `tag`.
void tag_nodes(ExportedProgram& program, const std::set<std::string>& names, const std::string& tag);
/// Tags the call_function nodes whose op is one of `ops` ("aten::add.Tensor") with `tag`.
void tag_ops(ExportedProgram& program, const std::set<std::string>& ops, const std::string& tag);

/// Calls `program` on `inputs` (positional user inputs) and returns its flat outputs.
std::vector<HostTensor> run(ExportedProgram& program, const std::vector<HostTensor>& inputs);

/// Every buffer by target: the program's own and those its delegates own,
/// however deeply nested.
std::map<std::string, HostTensor> all_buffers(const ExportedProgram& program);

/// Calls `original` and `lowered` `calls` times each on copies of `inputs`
/// and expects equal outputs, equal user inputs after each call, and equal
/// buffers (wherever they live) after each call.
void expect_same_behaviour(ExportedProgram& original, ExportedProgram& lowered, const std::vector<HostTensor>& inputs,
                           int calls = 2);

/// The names of `program`'s nodes, in order.
std::vector<std::string> node_names(const ExportedProgram& program);
/// The targets of the call_function nodes, in order.
std::vector<std::string> call_targets(const ExportedProgram& program);

/// A tensor of `sizes` with values i * step + start.
HostTensor ramp(const std::vector<int64_t>& sizes, float start = 0.0f, float step = 0.25f);

/// The ids among `ids` registered in this binary: a backend's library is
/// linked only when the build has it (OneDnnBackend with KILN_WITH_ONEDNN).
std::vector<std::string> linked_backends(std::initializer_list<const char*> ids);

}  // namespace kiln::aot::testing
