// kiln.profile and kiln.compare: `kiln profile` and `kiln compare` in the
// process, through the same library calls (devtools::profile_session,
// devtools::compare_program), on a .pte given as a path, its bytes or a
// kiln.LoweredProgram, and its debug record as a path, JSON bytes or the
// lowered program's own. The record is checked against the .pte's bytes
// before anything runs, with the tool's message.
//
// The GIL is released while programs load and run; Python values (inputs,
// the reference's bytes) are read into Kiln's before that.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "aot/import/npz.h"
#include "aot/import/pt2_reader.h"
#include "aot/import/zip_archive.h"
#include "aot/ir/error.h"
#include "devtools/compare_program.h"
#include "aot/pipeline/reference_call.h"
#include "bindings.h"
#include "devtools/compare.h"
#include "devtools/debug_record.h"
#include "devtools/debug_record_for.h"
#include "devtools/divergence.h"
#include "devtools/profile.h"
#include "devtools/profile_session.h"
#include "devtools/runtime_session.h"
#include "runtime/backend/backend_interface.h"

namespace kiln::python {

namespace {

using namespace nb::literals;

bool is_path(nb::handle value) { return PyUnicode_Check(value.ptr()) || nb::hasattr(value, "__fspath__"); }

std::string path_of(nb::handle value) {
  return nb::cast<std::string>(nb::module_::import_("os").attr("fspath")(value));
}

/// A copy of the bytes of `value` (bytes, bytearray, memoryview, any buffer),
/// or nullopt when it has no buffer.
std::optional<std::string> buffer_bytes(nb::handle value) {
  Py_buffer view;
  if (PyObject_GetBuffer(value.ptr(), &view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    return std::nullopt;
  }
  std::string bytes(static_cast<const char*>(view.buf), static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  return bytes;
}

std::string read_program_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw aot::AotError("cannot open the program " + path + " (" + std::strerror(errno) + ")");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

void check_range(const char* name, int64_t value, int64_t min, int64_t max) {
  if (value < min || value > max) {
    throw InputError{std::string(name) + " must be " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                     std::to_string(value)};
  }
}

/// The .pte a devtools call runs, and the debug record matched to its bytes.
struct RecordedProgram {
  std::shared_ptr<const std::string> pte;
  std::string label;
  devtools::DebugRecord record;

  std::span<const uint8_t> bytes() const { return {reinterpret_cast<const uint8_t*>(pte->data()), pte->size()}; }

  /// A session on the record's method (GIL released by the caller).
  std::unique_ptr<devtools::RuntimeSession> session() const {
    auto program = devtools::LoadedProgram::from_bytes(pte->data(), pte->size(), pte, label);
    return std::make_unique<devtools::RuntimeSession>(std::move(program), record.method);
  }
};

/// `program` (a .pte path, its bytes or a kiln.LoweredProgram) and
/// `debug_record` (a path, JSON bytes, or None for the lowered program's).
RecordedProgram recorded_program(nb::handle program, nb::handle debug_record, nb::handle lowered_type,
                                 const char* function) {
  RecordedProgram result;
  const bool lowered = nb::isinstance(program, lowered_type);
  std::optional<std::string> program_path;
  if (is_path(program)) {
    program_path = path_of(program);
    result.label = *program_path;
  } else if (lowered) {
    result.pte = std::make_shared<const std::string>(*buffer_bytes(program.attr("buffer")));
    result.label = "the lowered program";
  } else if (std::optional<std::string> bytes = buffer_bytes(program)) {
    result.pte = std::make_shared<const std::string>(std::move(*bytes));
    result.label = "the program's bytes";
  } else {
    throw InputError{std::string(function) + " takes a .pte path, its bytes or a kiln.LoweredProgram, got a " +
                     nb::inst_name(program).c_str()};
  }

  nb::object record = nb::borrow(debug_record);
  if (record.is_none() && lowered) {
    record = program.attr("debug_record");
    if (record.is_none()) {
      throw InputError{"the lowered program has no debug record: lower it with kiln.lower(..., debug_record=True)"};
    }
  } else if (nb::isinstance(record, lowered_type)) {
    record = record.attr("debug_record");
  }
  if (record.is_none()) {
    throw InputError{std::string(function) +
                     " needs the program's debug record (a path, its bytes, or kiln.lower(..., debug_record=True))"};
  }
  std::optional<std::string> record_path;
  std::optional<std::string> record_text;
  if (is_path(record)) record_path = path_of(record);
  else record_text = buffer_bytes(record);
  if (!record_path && !record_text) {
    throw InputError{"debug_record must be a path or the record's JSON bytes, got a " +
                     std::string(nb::inst_name(record).c_str())};
  }

  nb::gil_scoped_release release;
  // In the tool's order: the record read first, then checked against the program.
  result.record = record_path ? devtools::read_debug_record(*record_path)
                              : devtools::parse_debug_record(*record_text, "the debug record");
  if (program_path) result.pte = std::make_shared<const std::string>(read_program_file(*program_path));
  result.record.check_matches(result.bytes(), result.label);
  return result;
}

std::vector<aot::HostTensor> host_tensors(const nb::sequence& values) {
  std::vector<aot::HostTensor> tensors;
  for (size_t i = 0; i < nb::len(values); ++i) {
    tensors.push_back(to_host_tensor(values[i], "input " + std::to_string(i)));
  }
  return tensors;
}

// ---------------------------------------------------------------- profile

devtools::Profile profile(nb::handle program, nb::handle debug_record, nb::handle inputs, int iterations, int warmup,
                          int threads, int module_depth, nb::handle lowered_type) {
  check_range("iterations", iterations, 1, 100000);
  check_range("warmup", warmup, 0, 100000);
  check_range("threads", threads, 1, 256);
  check_range("module_depth", module_depth, 1, 64);
  const RecordedProgram recorded = recorded_program(program, debug_record, lowered_type, "kiln.profile");
  std::optional<std::string> inputs_path;
  std::optional<std::vector<aot::HostTensor>> tensors;
  if (is_path(inputs)) {
    inputs_path = path_of(inputs);
  } else if (!inputs.is_none()) {
    if (!nb::isinstance<nb::sequence>(inputs)) {
      throw InputError{"inputs must be an .npz path or a sequence of arrays, got a " +
                       std::string(nb::inst_name(inputs).c_str())};
    }
    tensors = host_tensors(nb::borrow<nb::sequence>(inputs));
  }
  nb::gil_scoped_release release;
  runtime::set_backend_threads(threads);
  const std::unique_ptr<devtools::RuntimeSession> session = recorded.session();
  try {
    if (tensors) session->set_inputs(std::move(*tensors));
    else session->set_inputs_from(inputs_path.value_or(""));
  } catch (const aot::AotError& error) {
    throw InputError{error.what()};
  }
  return devtools::profile_session(*session, recorded.record, iterations, warmup, static_cast<size_t>(module_depth));
}

// ---------------------------------------------------------------- compare

/// The reference as a program: a .pt2 path, its bytes, or a torch
/// ExportedProgram (saved to memory with torch.export.save).
struct Reference {
  std::optional<std::string> path;
  std::shared_ptr<std::string> bytes;
  std::string label;

  aot::ExportedProgram load(const std::string& model) const {
    if (path) return aot::load_pt2(*path, model);
    const aot::ZipArchive archive =
        aot::ZipArchive::from_memory({reinterpret_cast<std::byte*>(bytes->data()), bytes->size()}, bytes, label);
    return aot::read_pt2(archive, model);
  }
};

Reference reference_of(nb::handle reference) {
  Reference result;
  if (is_path(reference)) {
    result.path = path_of(reference);
    result.label = *result.path;
    return result;
  }
  nb::object bytes = nb::borrow(reference);
  result.label = "the reference program";
  if (nb::hasattr(reference, "graph_signature") && nb::hasattr(reference, "state_dict")) {
    nb::object buffer = nb::module_::import_("io").attr("BytesIO")();
    nb::module_::import_("torch.export").attr("save")(reference, buffer);
    bytes = buffer.attr("getvalue")();
    result.label = "the reference ExportedProgram";
  }
  std::optional<std::string> data = buffer_bytes(bytes);
  if (!data) {
    throw InputError{"reference must be a .pt2 path, its bytes or a torch ExportedProgram, got a " +
                     std::string(nb::inst_name(reference).c_str())};
  }
  result.bytes = std::make_shared<std::string>(std::move(*data));
  return result;
}

/// The user's inputs, unless `inputs` is None: an .npz path or a mapping
/// (arrays named as the program's inputs, or arr_<i>), ordered by
/// order_inputs; or a sequence, the flattened user inputs in order.
struct UserInputs {
  std::optional<std::string> npz_path;
  std::optional<std::vector<std::pair<std::string, aot::HostTensor>>> named;
  std::optional<std::vector<aot::Value>> leaves;

  std::optional<std::vector<aot::Value>> order(const aot::ExportedProgram& reference) && {
    if (npz_path) return aot::order_inputs(reference, aot::read_npz(*npz_path), *npz_path);
    if (named) return aot::order_inputs(reference, std::move(*named), "inputs");
    return std::move(leaves);
  }
};

UserInputs user_inputs(nb::handle inputs) {
  UserInputs result;
  if (inputs.is_none()) return result;
  if (is_path(inputs)) {
    result.npz_path = path_of(inputs);
  } else if (nb::isinstance<nb::dict>(inputs) || nb::hasattr(inputs, "keys")) {
    result.named.emplace();
    for (nb::handle key : inputs.attr("keys")()) {
      const std::string name = nb::cast<std::string>(nb::str(key));
      result.named->emplace_back(name, to_host_tensor(inputs.attr("__getitem__")(key), "input '" + name + "'"));
    }
  } else if (nb::isinstance<nb::sequence>(inputs)) {
    result.leaves.emplace();
    for (aot::HostTensor& tensor : host_tensors(nb::borrow<nb::sequence>(inputs))) {
      result.leaves->emplace_back(std::move(tensor));
    }
  } else {
    throw InputError{"inputs must be an .npz path, a mapping of name -> array or a sequence of arrays, got a " +
                     std::string(nb::inst_name(inputs).c_str())};
  }
  return result;
}

devtools::Comparison compare(nb::handle program, nb::handle debug_record, nb::handle reference, nb::handle inputs,
                             int threads, const std::string& model, nb::handle lowered_type) {
  check_range("threads", threads, 1, 256);
  const RecordedProgram recorded = recorded_program(program, debug_record, lowered_type, "kiln.compare");
  const Reference source = reference_of(reference);
  UserInputs given = user_inputs(inputs);
  nb::gil_scoped_release release;
  aot::ExportedProgram reference_program = source.load(model);
  std::optional<std::vector<aot::Value>> leaves = std::move(given).order(reference_program);
  runtime::set_backend_threads(threads);
  const std::unique_ptr<devtools::RuntimeSession> session = recorded.session();
  return devtools::compare_program(recorded.record, *session, std::move(reference_program), source.label,
                              std::move(leaves));
}

// ---------------------------------------------------------------- pandas

nb::list int_list(const std::vector<int64_t>& values) {
  nb::list list;
  for (int64_t value : values) list.append(value);
  return list;
}

/// `rows` as a pandas DataFrame of `columns`, each row's record made by
/// `record` (pandas is imported here; `what` names the call without it).
template <typename Row, typename Record>
nb::object frame(const char* what, const std::vector<Row>& rows, std::initializer_list<const char*> columns,
                 Record record) {
  nb::object pandas;
  try {
    pandas = nb::module_::import_("pandas");
  } catch (nb::python_error& error) {
    if (!error.matches(PyExc_ImportError)) throw;
    throw nb::import_error((std::string(what) + " needs pandas, which is not installed (pip install pandas)").c_str());
  }
  nb::list records;
  for (const Row& row : rows) records.append(record(row));
  nb::list names;
  for (const char* name : columns) names.append(name);
  return pandas.attr("DataFrame")(records, "columns"_a = names);
}

nb::object profile_frame(const devtools::Profile& profile) {
  return frame("Profile.to_pandas()", profile.rows,
               {"handles", "label", "ops", "module", "where", "calls", "median_ms", "total_ms", "share"},
               [](const devtools::ProfileRow& row) {
                 return nb::make_tuple(int_list(row.handles), row.label, row.ops, row.module, row.where, row.calls,
                                       row.median_ms, row.total_ms, row.share);
               });
}

nb::object comparison_frame(const devtools::Comparison& comparison) {
  return frame("Comparison.to_pandas()", comparison.rows,
               {"handles", "label", "ops", "module", "where", "order", "numel", "max_abs_error", "max_abs_reference",
                "snr_db", "max_error_quanta", "note"},
               [](const devtools::CompareRow& row) {
                 return nb::make_tuple(int_list(row.handles), row.label, row.ops, row.module, row.where, row.order,
                                       row.numel, row.max_abs_error, row.max_abs_reference, row.snr_db,
                                       row.max_error_quanta, row.note);
               });
}

std::string shorten(std::string text) { return text.size() <= 40 ? text : text.substr(0, 37) + "..."; }

void bind_profile(nb::module_& m, nb::handle lowered_type) {
  nb::class_<devtools::ProfileRow>(m, "ProfileRow", "One group of source ops and the time its events took.")
      .def_ro("handles", &devtools::ProfileRow::handles, "the source ops' debug handles (empty for a row of none)")
      .def_ro("label", &devtools::ProfileRow::label, "the source ops' names, or what the row is")
      .def_ro("ops", &devtools::ProfileRow::ops, "their ops, short ('convolution + relu')")
      .def_ro("module", &devtools::ProfileRow::module, "the module path the ops share")
      .def_ro("where", &devtools::ProfileRow::where, "'portable', or the backend(s) that ran it")
      .def_ro("calls", &devtools::ProfileRow::calls, "events per run")
      .def_ro("median_ms", &devtools::ProfileRow::median_ms, "median over runs of the row's time in a run")
      .def_ro("total_ms", &devtools::ProfileRow::total_ms, "over all runs")
      .def_ro("share", &devtools::ProfileRow::share, "of all calls' time, 0 to 1")
      .def("__repr__", [](const devtools::ProfileRow& row) {
        return "ProfileRow(label='" + shorten(row.label) + "', where='" + row.where + "', calls=" +
               nb::cast<std::string>(nb::repr(nb::float_(row.calls))) +
               ", median_ms=" + nb::cast<std::string>(nb::repr(nb::float_(row.median_ms))) + ")";
      });

  nb::class_<devtools::ProfileTotal>(m, "ProfileTotal", "The time of one delegate call or one module.")
      .def_ro("name", &devtools::ProfileTotal::name)
      .def_ro("median_ms", &devtools::ProfileTotal::median_ms)
      .def_ro("share", &devtools::ProfileTotal::share)
      .def("__repr__", [](const devtools::ProfileTotal& total) {
        return "ProfileTotal(name='" + shorten(total.name) +
               "', median_ms=" + nb::cast<std::string>(nb::repr(nb::float_(total.median_ms))) + ")";
      });

  nb::class_<devtools::Profile>(m, "Profile",
                                "Where a program's time went, per op of the user's program (what `kiln profile` "
                                "prints): rows most time first, then the time per delegate call and per module.")
      .def_ro("rows", &devtools::Profile::rows)
      .def_ro("delegates", &devtools::Profile::delegates, "per delegate call: its backend and time")
      .def_ro("modules", &devtools::Profile::modules, "per module path, cut at module_depth")
      .def_ro("runs", &devtools::Profile::runs, "the traced runs")
      .def_ro("median_run_ms", &devtools::Profile::median_run_ms, "median over runs of all calls' time")
      .def("format", &devtools::format_profile, "top"_a = 25,
           "The table: the first `top` rows (0: all), then the totals.")
      .def("__str__", [](const devtools::Profile& profile) { return devtools::format_profile(profile, 25); })
      .def("__repr__",
           [](const devtools::Profile& profile) {
             return "Profile(runs=" + std::to_string(profile.runs) + ", rows=" + std::to_string(profile.rows.size()) +
                    ", median_run_ms=" + nb::cast<std::string>(nb::repr(nb::float_(profile.median_run_ms))) + ")";
           })
      .def("to_pandas", &profile_frame, "The rows as a pandas DataFrame (pandas is imported here, not before).");

  m.def(
      "profile",
      [lowered_type](nb::handle program, nb::handle debug_record, nb::handle inputs, int iterations, int warmup,
                     int threads, int module_depth) {
        return profile(program, debug_record, inputs, iterations, warmup, threads, module_depth, lowered_type);
      },
      "program"_a, "debug_record"_a.none() = nb::none(), "inputs"_a.none() = nb::none(), "iterations"_a = 10,
      "warmup"_a = 2, "threads"_a = 1, "module_depth"_a = 1,
      "Runs a .pte traced and attributes the time to the ops of the user's program, as `kiln profile` does.\n\n"
      "program: a .pte path, its bytes, or a kiln.LoweredProgram. debug_record: the record written with it (a path "
      "or its JSON bytes); None takes a LoweredProgram's own (kiln.lower(..., debug_record=True)). inputs: an .npz "
      "path or the method's inputs in order; None runs on ones. iterations traced runs follow warmup untraced ones; "
      "threads sets the oneDNN backend's thread count (for the process); module_depth cuts the per-module totals. "
      "Raises KilnError when the record was written for another program.");
}

void bind_compare(nb::module_& m, nb::handle lowered_type) {
  nb::class_<devtools::CompareRow>(m, "CompareRow",
                                   "One group of source ops: the run's result against the reference's.")
      .def_ro("handles", &devtools::CompareRow::handles)
      .def_ro("label", &devtools::CompareRow::label, "the source ops' names")
      .def_ro("ops", &devtools::CompareRow::ops, "short op names")
      .def_ro("module", &devtools::CompareRow::module, "the module path its ops share")
      .def_ro("where", &devtools::CompareRow::where, "'portable', or the backend")
      .def_ro("order", &devtools::CompareRow::order, "the reference op's position in program order")
      .def_ro("numel", &devtools::CompareRow::numel)
      .def_ro("max_abs_error", &devtools::CompareRow::max_abs_error)
      .def_ro("max_abs_reference", &devtools::CompareRow::max_abs_reference)
      .def_ro("snr_db", &devtools::CompareRow::snr_db, "10 log10(sum ref^2 / sum err^2); inf when equal")
      .def_ro("max_error_quanta", &devtools::CompareRow::max_error_quanta,
              "max_abs_error in quanta of the op's grid; negative for an op without one")
      .def_ro("note", &devtools::CompareRow::note, "why it was not compared (empty when it was)")
      .def("__repr__", [](const devtools::CompareRow& row) {
        return "CompareRow(label='" + shorten(row.label) + "', where='" + row.where +
               "', snr_db=" + nb::cast<std::string>(nb::repr(nb::float_(row.snr_db))) +
               ", max_abs_error=" + nb::cast<std::string>(nb::repr(nb::float_(row.max_abs_error))) + ")";
      });

  nb::class_<devtools::Comparison>(m, "Comparison",
                                   "A lowered program's intermediate results against the reference interpreter's on "
                                   "the program it was lowered from (what `kiln compare` prints): rows worst first.")
      .def_ro("rows", &devtools::Comparison::rows)
      .def(
          "first_divergence",
          [](const devtools::Comparison& comparison, double threshold_db) -> std::optional<devtools::CompareRow> {
            const devtools::CompareRow* row = devtools::first_divergence(comparison, threshold_db);
            return row ? std::optional(*row) : std::nullopt;
          },
          "threshold_db"_a = 60.0,
          "The earliest compared op in program order whose SNR is below threshold_db (where an error enters; the "
          "ops after it inherit it), or None.")
      .def("format", &devtools::format_comparison, "top"_a = 25, "threshold_db"_a = 60.0,
           "The table: the first `top` rows (0: all), then the first op below threshold_db.")
      .def("__str__",
           [](const devtools::Comparison& comparison) { return devtools::format_comparison(comparison, 25, 60); })
      .def("__repr__",
           [](const devtools::Comparison& comparison) {
             return "Comparison(rows=" + std::to_string(comparison.rows.size()) + ")";
           })
      .def("to_pandas", &comparison_frame, "The rows as a pandas DataFrame (pandas is imported here, not before).");

  m.def(
      "compare",
      [lowered_type](nb::handle program, nb::handle debug_record, nb::handle reference, nb::handle inputs,
                     int threads, const std::string& model) {
        return compare(program, debug_record, reference, inputs, threads, model, lowered_type);
      },
      "program"_a, "debug_record"_a.none(), "reference"_a, "inputs"_a.none() = nb::none(), "threads"_a = 1,
      "model"_a = "",
      "Finds where a lowered program's numbers part from the program it was lowered from, as `kiln compare` does: "
      "runs the .pte once with every intermediate output logged and the reference interpreter on the reference, "
      "and compares each source op's result.\n\n"
      "program and debug_record: as kiln.profile takes them (debug_record None for a LoweredProgram's own). "
      "reference: the .pt2 the program was lowered from (a path or its bytes) or the torch ExportedProgram. "
      "inputs: the user's inputs, flattened as torch.export flattens them (a sequence), a mapping of input name "
      "(or arr_<i>) -> array, or an .npz path; None uses ones (inputs of static shape only). model: the program "
      "in a .pt2 that holds several. Raises KilnError when the record or the reference is another program's.");
}

}  // namespace

void bind_devtools(nb::module_& m) {
  const nb::handle lowered_type = m.attr("LoweredProgram");
  bind_profile(m, lowered_type);
  bind_compare(m, lowered_type);
}

}  // namespace kiln::python
