// kiln ops: the op table as users see it — each op Kiln runs and each core
// op (--all: every op of src/aot/ir/op_table/ops.def), whether it is core ATen, its out
// variant, the dtypes of its portable kernel and how it runs (op_support).
// `--markdown` prints docs/ops.md.
#include <algorithm>
#include <functional>
#include <iterator>
#include <iostream>
#include <string>
#include <vector>

#include "aot/delegate/backend_details.h"
#include "aot/ir/op_table/op_schema.h"
#include "cli.h"
#include "aot/passes/op_support.h"
#include "kernels/portable/register.h"
#include "runtime/kernel/operator_registry.h"

namespace kiln::cli {

namespace {

using runtime::ScalarType;

// ---- who runs an op ----

// One backend of the "runs on" column: its name and whether it runs an op,
// given the op's out variant. The portable library comes first, then every
// registered delegate backend with the ops it says it may take.
struct OpRunner {
  std::string name;
  std::function<bool(const aot::OpSchema& out_variant)> runs;
};

// The functional op an out variant belongs to ("aten::add.Tensor" for "aten::add.out").
std::string functional_of(const aot::OpSchema& out_variant) {
  for (const aot::OpSchema& op : aot::all_op_schemas()) {
    if (op.out_variant == out_variant.qualified_name()) return op.qualified_name();
  }
  return "";
}

const kernels::portable::PortableKernel* portable_kernel(const std::string& out_variant) {
  for (const kernels::portable::PortableKernel& kernel : kernels::portable::portable_kernels()) {
    if (out_variant == kernel.kernel.name) return &kernel;
  }
  return nullptr;
}

std::vector<OpRunner> op_runners() {
  std::vector<OpRunner> runners = {
      {"portable", [](const aot::OpSchema& out) { return portable_kernel(out.qualified_name()) != nullptr; }},
  };
  for (const std::string& id : aot::registered_backend_ids()) {
    const std::vector<std::string> ops = aot::get_backend(id).supported_ops();
    runners.push_back({id, [ops](const aot::OpSchema& out) {
                         return std::find(ops.begin(), ops.end(), functional_of(out)) != ops.end();
                       }});
  }
  return runners;
}

// ---- the table ----

struct OpRow {
  std::string op;           // "aten::add.Tensor"
  std::string kind;         // core ATen: "yes", "view copy" or "no"
  std::string out_variant;  // "" when the op has none
  std::string dtypes;       // of the portable kernel: "f32 f64"; "" when there is none
  std::string runs_on;      // "portable", "portable (as aten::view_copy)", "lowered by decompositions", ...
  bool runs = false;        // op_support is not kNone
};

// The dtypes in the order people read them: floats, integers, bool, the rest.
std::string dtype_list(kernels::portable::DtypeSet set) {
  constexpr ScalarType kOrder[] = {
      ScalarType::Float, ScalarType::Double, ScalarType::Half,   ScalarType::BFloat16, ScalarType::Int,
      ScalarType::Long,  ScalarType::Bool,   ScalarType::Byte,   ScalarType::Char,     ScalarType::Short,
      ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64,
  };
  std::string text;
  for (ScalarType type : kOrder) {
    if (kernels::portable::contains(set, type)) text += (text.empty() ? "" : " ") + std::string(runtime::short_name(type));
  }
  for (int code = 0; code < 64; ++code) {
    const auto type = static_cast<ScalarType>(code);
    const bool listed = std::find(std::begin(kOrder), std::end(kOrder), type) != std::end(kOrder);
    if (!listed && kernels::portable::contains(set, type)) {
      text += (text.empty() ? "" : " ") + std::string(runtime::is_valid(type) ? runtime::short_name(type) : "?");
    }
  }
  return text;
}

std::string runners_of(const aot::OpSchema& out_variant, const std::vector<OpRunner>& runners) {
  std::string names;
  for (const OpRunner& runner : runners) {
    if (runner.runs(out_variant)) names += (names.empty() ? "" : ", ") + runner.name;
  }
  return names.empty() ? "none yet" : names;
}

bool has_kernel(const std::string& name) { return runtime::registry_has_op_function(name.c_str()); }

std::vector<OpRow> op_rows(bool all) {
  const std::vector<OpRunner> runners = op_runners();
  std::vector<OpRow> rows;
  for (const aot::OpSchema& op : aot::all_op_schemas()) {
    if (op.is_out_variant()) continue;
    const aot::OpSupport support = aot::op_support(op, has_kernel);
    if (!all && support == aot::OpSupport::kNone && !op.is_core) continue;
    OpRow row;
    row.op = op.name + (op.overload.empty() ? "" : "." + op.overload);
    row.kind = op.is_core ? "yes" : op.is_view_copy ? "view copy" : "no";
    row.out_variant = op.out_variant;
    row.runs = support != aot::OpSupport::kNone;
    if (!op.out_variant.empty()) {
      if (const auto* kernel = portable_kernel(op.out_variant)) row.dtypes = dtype_list(kernel->dtypes);
    }
    switch (support) {
      case aot::OpSupport::kKernel:
        row.runs_on = op.out_variant.empty() || !has_kernel(op.out_variant)
                          ? "prim kernel"
                          : runners_of(aot::get_op_schema(op.out_variant), runners);
        break;
      case aot::OpSupport::kViewCopy: {
        const aot::OpSchema* copy = aot::view_copy_twin(op);
        row.runs_on = "as " + copy->name + ": " + runners_of(aot::get_op_schema(copy->out_variant), runners);
        break;
      }
      case aot::OpSupport::kDecomposition:
        row.runs_on = aot::functional_of_inplace(op) != nullptr ? "functionalized (as " +
                                                                      aot::functional_of_inplace(op)->qualified_name() + ")"
                                                                : "lowered by decompositions";
        break;
      case aot::OpSupport::kGraphAssert: row.runs_on = "dropped by lowering (remove_graph_asserts)"; break;
      case aot::OpSupport::kNone: {
        const std::string reason = aot::refusal_reason(op);
        row.runs_on = reason.empty() ? "not yet" : reason;
        break;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string summary(const std::vector<OpRow>& rows) {
  size_t core = 0, runs = 0, portable = 0, core_gaps = 0, functional = 0, refused = 0;
  for (const aot::OpSchema& op : aot::all_op_schemas()) functional += !op.is_out_variant();
  for (const OpRow& row : rows) {
    core += row.kind == "yes";
    runs += row.runs;
    refused += !row.runs && row.runs_on != "not yet";
    portable += !row.dtypes.empty();
    core_gaps += row.kind == "yes" && row.runs_on == "not yet";
  }
  return std::to_string(rows.size()) + " of the table's " + std::to_string(functional) + " ops: " +
         std::to_string(runs) + " run (" + std::to_string(portable) + " on a portable kernel of their own), " +
         std::to_string(refused) + " are refused with a reason, " +
         std::to_string(core) + " are core ATen, of which " + std::to_string(core_gaps) + " do not run yet.";
}

constexpr const char* kMarkdownIntro = R"(# Ops

What Kiln runs, op by op, and every core ATen op. This page is the output of
`kiln ops --markdown`, made from the op table (`src/aot/ir/op_table/ops.def`, every ATen
op of torch 2.15) and the kernel libraries; do not edit it by hand (a test
fails when it differs from the command's output). `kiln ops --all` lists the
rest of the table too: the ops that neither run nor are core.

- **core**: `yes` for core ATen (`torch.Tag.core`), `view copy` for the
  functional copies of view ops (which ExecuTorch's edge dialect accepts too),
  `no` for other ops: those with an out variant run as they are, the rest
  (the ops `torch.export.export` leaves in the training IR) are decomposed.
- **out variant**: the op's out= overload, which kernels implement.
- **portable dtypes**: the dtypes the portable kernel takes for its main input
  (its first tensor argument, or the out tensor when it has none); each is
  checked against PyTorch, case by case, by `portable_golden_test`.
- **runs on**: the backends with a kernel for the op (a delegate backend may
  still refuse a node of it for its dtypes or shapes). A view op runs as its
  copy; training-IR ops are lowered to core ATen by decompositions first, and
  in-place ops are functionalized. `not yet`: nothing runs it yet; an op Kiln
  refuses shows the reason instead, by design (`not for inference: training
  only`, `no kernel: a LAPACK-class factorization`, another device's op, a
  sparse or quantized layout, a query torch.export evaluates while tracing,
  ...) or for now (`no kernel yet: a 3-D transposed convolution`,
  antialiased resampling, special functions, `no data-dependent sizes yet`);
  lowering and `kiln run` refuse a program calling either, naming every such
  node and the reason. Every op torch.export's training IR can carry runs or
  has such a reason (`training_ir_ops_test`).

)";

constexpr const char* kMarkdownDifferences = R"(
## Where Kiln's results differ from PyTorch's

- **Ties in `sort` and `topk`.** Equal values come out in index order (a
  stable order) on the portable kernels. PyTorch's CPU order for equal values
  is whatever its selection algorithm leaves (`topk` of forty 3s returns the
  indices 28, 26, 27, 25, 29), which Kiln does not reproduce: the values are
  the same, the indices of equal values may differ. `sort(stable=True)`
  matches PyTorch exactly.
- **Complex tensors go only so far.** `_fft_r2c` and `_fft_c2r` run on
  Eigen's FFT, and their complex tensors (ComplexFloat 9, ComplexDouble 10:
  ExecuTorch's runtime numbers, which its schema file leaves commented out and
  Kiln's declares) pass through the ops that move whole elements (views,
  copies, `cat`), `view_as_real`, `view_as_complex`, `abs` and `mul` (a
  spectrum times a filter, complex or real). Other arithmetic on them (`add`
  of two spectra, say) is refused by the kernel, naming the node.
- **The FFT kernels are slow next to PyTorch's.** Eigen's FFT runs scalar
  KISS FFT butterflies: 7-8x PyTorch's vectorized pocketfft on rows of 1024
  points, 4x on rows of 1000 (`bench/kernels/results/fft.md`), and far slower
  on long prime lengths (1009 points: about 1 ms against 36 µs), where it
  falls back to O(n·p) butterflies. Debian 12 packages no permissive
  vectorized FFT (FFTW is GPL; pocketfft's header is not packaged). Eigen also
  keeps plans and scratch on the heap: the FFT pair are the only portable
  kernels that allocate while a method executes.
- **`OneDnnBackend` turns NaN into numbers** in relu, clamp/hardtanh,
  hardsigmoid, maximum/minimum, max pooling, softmax and bilinear upsampling,
  where PyTorch and the portable kernels keep the NaN (README.md, "oneDNN").
)";

void print_markdown(const std::vector<OpRow>& rows) {
  std::cout << kMarkdownIntro << summary(rows) << "\n\n";
  std::cout << "| op | core | out variant | portable dtypes | runs on |\n";
  std::cout << "|---|---|---|---|---|\n";
  const auto code = [](const std::string& text) { return text.empty() ? std::string() : "`" + text + "`"; };
  for (const OpRow& row : rows) {
    std::cout << "| " << code(row.op) << " | " << row.kind << " | " << code(row.out_variant) << " | " << row.dtypes
              << " | " << row.runs_on << " |\n";
  }
  std::cout << kMarkdownDifferences;
}

void print_text(const std::vector<OpRow>& rows) {
  const std::vector<std::string> headers = {"op", "core", "out variant", "portable dtypes", "runs on"};
  const auto cells = [](const OpRow& row) {
    return std::vector<std::string>{row.op, row.kind, row.out_variant.empty() ? "-" : row.out_variant,
                                    row.dtypes.empty() ? "-" : row.dtypes, row.runs_on};
  };
  std::vector<size_t> widths;
  for (const std::string& header : headers) widths.push_back(header.size());
  for (const OpRow& row : rows) {
    const auto texts = cells(row);
    for (size_t i = 0; i < texts.size(); ++i) widths[i] = std::max(widths[i], texts[i].size());
  }
  const auto print_line = [&](const std::vector<std::string>& texts) {
    std::string line;
    for (size_t i = 0; i < texts.size(); ++i) {
      line += texts[i];
      if (i + 1 < texts.size()) line += std::string(widths[i] - texts[i].size() + 2, ' ');
    }
    std::cout << line << "\n";
  };
  print_line(headers);
  for (const OpRow& row : rows) print_line(cells(row));
  std::cout << "\n" << summary(rows) << "\n";
}

}  // namespace

int run_ops_table(bool all, bool markdown) {
  const std::vector<OpRow> rows = op_rows(all);
  if (markdown) print_markdown(rows);
  else print_text(rows);
  return 0;
}

}  // namespace kiln::cli
