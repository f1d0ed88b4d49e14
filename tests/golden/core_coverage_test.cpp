// Every forward core ATen op of the op table (torch.Tag.core) runs on Kiln:
// a portable kernel of its own, its view's `_copy` twin, or a decomposition
// (op_support). The ops that do not yet are pinned here by name, so that a
// kernel added removes its op from the list and a new torch that tags another
// op core fails the test until the op runs or joins the list.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "aot/ir/op_table/infer_meta.h"
#include "aot/ir/op_table/op_schema.h"
#include "aot/passes/op_support.h"
#include "kernels/portable/register.h"
#include "kernels/prim/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::kernels::golden {
namespace {

// The forward core ops without a kernel or a decomposition yet: none.
const std::set<std::string> kNotYetSupported = {};

bool has_kernel(const std::string& name) {
  (void)portable::register_portable_kernels();
  (void)prim::register_prim_kernels();
  return runtime::registry_has_op_function(name.c_str());
}

TEST(CoreOpCoverage, EveryForwardCoreOpRunsButThePinnedGaps) {
  std::set<std::string> gaps;
  for (const aot::OpSchema& schema : aot::all_op_schemas()) {
    if (!schema.is_core || schema.is_out_variant() || aot::is_training_only(schema)) continue;
    if (aot::op_support(schema, has_kernel) == aot::OpSupport::kNone) gaps.insert(schema.qualified_name());
  }
  EXPECT_EQ(gaps, kNotYetSupported);
  std::string text;
  for (const std::string& gap : gaps) text += "    \"" + gap + "\",\n";
  if (gaps != kNotYetSupported) std::printf("the gaps now:\n%s", text.c_str());
}

// Passes build nodes of the ops that run (decompositions, lowering), and the
// graph builder infers each node's meta: every op whose out variant or view
// twin has a kernel has a rule (prim ops, whose kernels carry the op's own
// name, give numbers, not tensors).
TEST(CoreOpCoverage, EveryOpWithAKernelHasAMetaRule) {
  std::set<std::string> missing;
  for (const aot::OpSchema& schema : aot::all_op_schemas()) {
    if (schema.is_out_variant() || has_kernel(schema.qualified_name()) ||
        (schema.overload.empty() && has_kernel(schema.name))) {
      continue;
    }
    const aot::OpSupport support = aot::op_support(schema, has_kernel);
    const bool runs = support == aot::OpSupport::kKernel || support == aot::OpSupport::kViewCopy;
    if (runs && !aot::has_meta_rule(schema.qualified_name())) missing.insert(schema.qualified_name());
  }
  EXPECT_EQ(missing, std::set<std::string>{});
}

}  // namespace
}  // namespace kiln::kernels::golden
