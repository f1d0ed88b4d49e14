// kiln._lower and kiln.LoweredProgram: the lowering pipeline `kiln lower`
// runs (aot::lower), on a .pt2 path or a .pt2 held in memory (the kiln
// package's lower() serializes a torch ExportedProgram with torch.export.save
// to a buffer: the C++ reader is the only front end).
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <filesystem>
#include <memory>

#include "aot/emit/constant_methods.h"
#include "aot/emit/pte_writer.h"
#include "aot/import/zip_archive.h"
#include "aot/ir/error.h"
#include "aot/pipeline/lower.h"
#include "aot/pipeline/lower_report.h"
#include "aot/pipeline/program_methods.h"
#include "bindings.h"
#include "devtools/debug_record.h"

namespace kiln::python {

namespace {

using namespace nb::literals;

/// The memory one method's plan asks for.
struct MemoryPlanSummary {
  std::string method;
  std::vector<int64_t> arena_sizes;
  int64_t total_bytes = 0;
  std::string algorithm;

  std::string repr() const {
    return "MemoryPlan(method='" + method + "', total_bytes=" + std::to_string(total_bytes) + ", arenas=" +
           std::to_string(arena_sizes.size()) + ", algorithm='" + algorithm + "')";
  }
};

MemoryPlanSummary summarize(const std::string& method, const aot::MemoryPlan& plan) {
  return {method, plan.arena_sizes, plan.total_bytes(), aot::to_string(plan.algorithm)};
}

/// The result of kiln.lower: the .pte bytes and what the lowering decided.
class LoweredProgram {
 public:
  LoweredProgram(aot::LoweredProgram lowered, std::vector<std::string> backends)
      : lowered_(std::move(lowered)), report_(aot::report_lowering(lowered_, backends)) {}

  nb::bytes buffer() const {
    const std::vector<uint8_t>& bytes = lowered_.buffer();
    return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

  void save(const std::filesystem::path& path, const std::optional<std::filesystem::path>& debug_record) const {
    if (debug_record && !lowered_.source_nodes) {
      throw InputError{"this program was lowered without its debug record: pass debug_record=True to kiln.lower"};
    }
    aot::pte::write_file_atomically(path.string(), lowered_.buffer());
    if (debug_record) devtools::write_debug_record(debug_record->string(), devtools::make_debug_record(lowered_));
  }

  std::optional<nb::bytes> debug_record() const {
    if (!lowered_.source_nodes) return std::nullopt;
    const std::string json = devtools::to_json(devtools::make_debug_record(lowered_));
    return nb::bytes(json.data(), json.size());
  }

  std::vector<MemoryPlanSummary> memory_plan() const {
    const aot::ExecutorchProgram& program = *lowered_.executorch;
    std::vector<MemoryPlanSummary> plans{summarize(program.method_name, program.memory_plan)};
    for (const aot::ExecutorchMethod& method : program.other_methods) {
      plans.push_back(summarize(method.name, method.memory_plan));
    }
    return plans;
  }

  std::string explain() const { return aot::format_lowering_report(report_, "the program", /*explain=*/true); }
  const aot::LoweringReport& report() const { return report_; }

 private:
  aot::LoweredProgram lowered_;
  aot::LoweringReport report_;
};

/// `specs` (backend id -> {key: str or bytes}) as the pipeline takes them.
std::map<std::string, std::vector<aot::CompileSpec>> compile_specs_of(const nb::dict& specs) {
  std::map<std::string, std::vector<aot::CompileSpec>> result;
  for (auto [backend, entries] : specs) {
    const std::string id = nb::cast<std::string>(nb::str(backend));
    if (!nb::isinstance<nb::dict>(entries)) {
      throw InputError{"compile_specs['" + id + "'] must be a dict of key -> str or bytes"};
    }
    for (auto [key, value] : nb::cast<nb::dict>(entries)) {
      aot::CompileSpec spec;
      spec.key = nb::cast<std::string>(nb::str(key));
      if (nb::isinstance<nb::bytes>(value)) {
        const nb::bytes bytes = nb::cast<nb::bytes>(value);
        const auto* data = static_cast<const uint8_t*>(bytes.data());
        spec.value.assign(data, data + bytes.size());
      } else if (nb::isinstance<nb::str>(value)) {
        spec = aot::CompileSpec::from_string(spec.key, nb::cast<std::string>(value));
      } else {
        throw InputError{"compile_specs['" + id + "']['" + spec.key + "'] must be str or bytes"};
      }
      result[id].push_back(std::move(spec));
    }
  }
  return result;
}

LoweredProgram lower(nb::handle source, const std::vector<std::string>& backends, const std::string& model,
                     bool debug_record, bool fold_constants, bool plan_inputs, bool plan_outputs,
                     const nb::dict& compile_specs, const std::optional<std::string>& constant_methods_json,
                     bool kiln_ops, bool quantize_activations) {
  if (quantize_activations && !kiln_ops) {
    throw InputError{"quantize_activations chooses how Kiln's own linears run: it cannot go with kiln_ops=False"};
  }
  aot::LowerOptions options;
  options.backends = backends;
  options.debug_record = debug_record;
  options.fold_constants = fold_constants;
  options.fuse_kiln_ops = kiln_ops;
  options.quantize_activations = quantize_activations;
  options.config.memory_planning.plan_inputs = plan_inputs;
  options.config.memory_planning.plan_outputs = plan_outputs;
  options.compile_specs = compile_specs_of(compile_specs);

  std::optional<std::string> path;
  std::shared_ptr<std::string> bytes;
  if (PyUnicode_Check(source.ptr()) || nb::hasattr(source, "__fspath__")) {
    path = nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(source));
  } else if (nb::isinstance<nb::bytes>(source)) {
    const nb::bytes data = nb::cast<nb::bytes>(source);
    bytes = std::make_shared<std::string>(data.c_str(), data.size());
  } else {
    throw InputError{std::string("kiln.lower takes a torch ExportedProgram, a .pt2 path or a .pt2's bytes, got a ") +
                     nb::inst_name(source).c_str()};
  }
  nb::gil_scoped_release release;
  aot::ProgramMethods methods;
  if (path) {
    methods = aot::load_program_methods(aot::MethodSources{*path, model, {}, ""});
  } else {
    const aot::ZipArchive archive = aot::ZipArchive::from_memory(
        {reinterpret_cast<std::byte*>(bytes->data()), bytes->size()}, bytes, "the exported program");
    methods = aot::read_program_methods(archive, model);
  }
  if (constant_methods_json) {
    for (auto& [name, value] : aot::parse_constant_methods(*constant_methods_json, "constant_methods")) {
      methods.constants.insert_or_assign(name, std::move(value));
    }
  }
  return LoweredProgram(aot::lower(std::move(methods), options), backends);
}

}  // namespace

void bind_lower(nb::module_& m) {
  nb::class_<MemoryPlanSummary>(m, "MemoryPlan", "The memory a method's plan asks for: one arena per memory id.")
      .def_ro("method", &MemoryPlanSummary::method)
      .def_ro("arena_sizes", &MemoryPlanSummary::arena_sizes, "bytes of each arena")
      .def_ro("total_bytes", &MemoryPlanSummary::total_bytes)
      .def_ro("algorithm", &MemoryPlanSummary::algorithm, "the planner that gave the smallest total")
      .def("__repr__", &MemoryPlanSummary::repr);

  nb::class_<LoweredProgram>(m, "LoweredProgram",
                             "A program lowered to a .pte by kiln.lower: its bytes, what each backend took and why "
                             "the rest stayed, its memory plan, and its debug record when asked for.")
      .def_prop_ro("buffer", &LoweredProgram::buffer, "the .pte bytes (what save writes)")
      .def("save", &LoweredProgram::save, "path"_a, "debug_record"_a = nb::none(),
           "Writes the .pte to `path` (atomically) and, given a path, the debug record beside it "
           "(what `kiln profile` and `kiln compare` read as --debug-record).")
      .def_prop_ro("debug_record", &LoweredProgram::debug_record,
                   "the debug record (JSON bytes) when lowered with debug_record=True, else None")
      .def_prop_ro("memory_plan", &LoweredProgram::memory_plan, "the memory plan of each program method")
      .def("explain", &LoweredProgram::explain,
           "What `kiln lower --explain` prints: each delegate, and for every op node of the program the delegate "
           "that took it or the portable kernels, with every backend's reason for refusing it.")
      .def_prop_ro(
          "delegated_ops",
          [](const LoweredProgram& program) {
            size_t count = 0;
            for (const aot::NodeDecision& decision : program.report().decisions) count += !decision.kept();
            return count;
          },
          "how many op nodes the backends took")
      .def_prop_ro(
          "kept_ops",
          [](const LoweredProgram& program) {
            std::vector<std::string> kept;
            for (const aot::NodeDecision& decision : program.report().decisions) {
              if (decision.kept()) kept.push_back(decision.node + " (" + decision.target + ")");
            }
            return kept;
          },
          "the op nodes left on the portable kernels");

  m.def("_lower", &lower, "source"_a, "backends"_a, "model"_a, "debug_record"_a, "fold_constants"_a, "plan_inputs"_a,
        "plan_outputs"_a, "compile_specs"_a, "constant_methods_json"_a, "kiln_ops"_a, "quantize_activations"_a);
  m.def("registered_backends", &aot::registered_backend_ids, "The ids of the backends kiln.lower can use.");
}

}  // namespace kiln::python
