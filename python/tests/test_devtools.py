"""kiln.profile and kiln.compare against `kiln profile` and `kiln compare` on
the same lowered fixture: the same rows (handles, labels, calls; timings
differ from run to run), the same comparison to the byte, the same errors;
and the results' Python side (rows, first_divergence, to_pandas)."""

from __future__ import annotations

import importlib.util
import math
import subprocess

import numpy as np
import pytest

import kiln
from conftest import FIXTURES, positional, read_npz

BACKENDS = [b for b in ("DemoBackend", "OneDnnBackend") if b in kiln.registered_backends()]
CONV_RELU_TAN = FIXTURES / "conv_relu_tan"


def run_tool(tool: str, *args, expect: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([tool, *map(str, args)], capture_output=True, text=True)
    assert result.returncode == expect, f"kiln {args[0]} exited {result.returncode}:\n{result.stdout}{result.stderr}"
    return result


def tool_error(tool: str, command: str, *args) -> str:
    """The message `kiln COMMAND` prints after 'kiln COMMAND: error: '."""
    stderr = run_tool(tool, command, *args, expect=1).stderr.strip()
    prefix = f"kiln {command}: error: "
    assert stderr.startswith(prefix), stderr
    return stderr[len(prefix) :]


@pytest.fixture(scope="module", params=BACKENDS)
def lowered_files(request, kiln_tool, tmp_path_factory):
    """conv_relu_tan lowered by the tool to a backend: (.pte, .kdbg, backend)."""
    directory = tmp_path_factory.mktemp(request.param)
    pte, record = directory / "model.pte", directory / "model.kdbg"
    run_tool(kiln_tool, "lower", CONV_RELU_TAN / "model.pt2", "--backend", request.param, "-o", pte,
             "--debug-record", record)
    return pte, record, request.param


def profile_table(text: str) -> set[tuple]:
    """(handles, source op, calls, module, ran on, op(s)) of each row of a
    profile's table, cut at the header's columns (the times left out)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("share"))
    header = lines[start]
    columns = [header.index(name) for name in ("calls", "handles", "source op", "module", "ran on", "op(s)")]
    rows = set()
    for line in lines[start + 1 :]:
        if not line.strip() or line.startswith("  ("):
            break
        calls_end = columns[1]
        fields = [line[a:b].strip() for a, b in zip(columns[1:], columns[2:] + [len(line) + 1])]
        calls = line[: calls_end].split()[-1]
        rows.add((fields[0], fields[1], calls, fields[2], fields[3], fields[4]))
    return rows


def rows_of(profile) -> set[tuple]:
    return {
        (",".join(map(str, row.handles)) or "-", row.label, f"{row.calls:.4g}", row.module, row.where, row.ops)
        for row in profile.rows
    }


def test_profile_gives_the_tools_rows(lowered_files, kiln_tool):
    pte, record, backend = lowered_files
    inputs = CONV_RELU_TAN / "case0.inputs.npz"
    printed = run_tool(kiln_tool, "profile", pte, "--debug-record", record, "--inputs", inputs, "--iterations", 3,
                       "--warmup", 0, "--top", 0, "--module-depth", 2).stdout
    profile = kiln.profile(pte, record, inputs=inputs, iterations=3, warmup=0, module_depth=2)
    assert profile.runs == 3
    assert rows_of(profile) == profile_table(printed)
    assert profile_table(str(profile)) == profile_table(printed)
    totals = printed.split("Per delegate call")[1].splitlines()[1:]
    delegates = totals[: totals.index("")]
    modules = totals[totals.index("Per module:") + 1 :]
    assert [t.name for t in profile.delegates] == [line[2:42].strip() for line in delegates]
    assert sorted(t.name for t in profile.modules) == sorted(line[2:42].strip() for line in modules if line)
    assert math.isclose(sum(row.share for row in profile.rows), 1.0, rel_tol=1e-9)
    assert any(row.where == backend for row in profile.rows)
    assert "Per module:" in str(profile)


def test_profile_takes_the_program_in_memory(lowered_files):
    pte, record, backend = lowered_files
    from_files = kiln.profile(pte, record, iterations=1)
    from_bytes = kiln.profile(pte.read_bytes(), record.read_bytes(), iterations=1)
    lowered = kiln.lower(CONV_RELU_TAN / "model.pt2", backends=[backend], debug_record=True)
    assert lowered.buffer == pte.read_bytes()  # the tool's lowering, in the process
    from_lowered = kiln.profile(lowered, iterations=1)
    inputs = positional(read_npz(CONV_RELU_TAN / "case0.inputs.npz"))
    from_arrays = kiln.profile(lowered, lowered.debug_record, inputs=inputs, iterations=1)
    assert rows_of(from_files) == rows_of(from_bytes) == rows_of(from_lowered) == rows_of(from_arrays)


def test_compare_prints_what_the_tool_prints(lowered_files, kiln_tool):
    pte, record, backend = lowered_files
    reference, inputs = CONV_RELU_TAN / "model.pt2", CONV_RELU_TAN / "case0.inputs.npz"
    printed = run_tool(kiln_tool, "compare", pte, "--debug-record", record, "--reference", reference, "--inputs",
                       inputs).stdout
    comparison = kiln.compare(pte, record, reference, inputs=inputs)
    # The tool's first line names the files; the table follows as the library formats it.
    assert printed.splitlines()[0].startswith(f"program: {pte} against {reference}")
    assert str(comparison) == printed.split("\n", 1)[1]
    strict = run_tool(kiln_tool, "compare", pte, "--debug-record", record, "--reference", reference, "--inputs",
                      inputs, "--top", 0, "--threshold", 200).stdout
    assert comparison.format(top=0, threshold_db=200) == strict.split("\n", 1)[1]
    # conv, relu, conv, relu, tan: each compared, alone or in the group its backend fused.
    assert {handle for row in comparison.rows for handle in row.handles} == {1, 2, 3, 4, 5}
    assert any(row.where == backend for row in comparison.rows)
    for row in comparison.rows:
        assert row.note == "" and row.snr_db > 60 and row.numel > 0


def test_compare_takes_inputs_and_the_reference_every_way(lowered_files):
    pte, record, backend = lowered_files
    reference = CONV_RELU_TAN / "model.pt2"
    arrays = read_npz(CONV_RELU_TAN / "case0.inputs.npz")
    expected = str(kiln.compare(pte, record, reference, inputs=CONV_RELU_TAN / "case0.inputs.npz"))
    assert str(kiln.compare(pte, record, reference, inputs=positional(arrays))) == expected
    assert str(kiln.compare(pte, record, reference.read_bytes(), inputs=arrays)) == expected
    lowered = kiln.lower(reference, backends=[backend], debug_record=True)
    assert str(kiln.compare(lowered, None, str(reference), inputs=positional(arrays))) == expected
    ones = kiln.compare(pte, record, reference)  # inputs of ones: the same ops compared
    given = kiln.compare(pte, record, reference, inputs=arrays)
    assert {row.label for row in ones.rows} == {row.label for row in given.rows}


def test_first_divergence_is_the_earliest_op_below_the_threshold(lowered_files, kiln_tool):
    pte, record, _ = lowered_files
    comparison = kiln.compare(pte, record, CONV_RELU_TAN / "model.pt2")
    assert comparison.first_divergence() is None  # every op above 60 dB
    for threshold in (60.0, 120.0, 200.0, math.inf):
        below = [r for r in comparison.rows if not r.note and r.snr_db < threshold]
        first = comparison.first_divergence(threshold_db=threshold)
        if not below:
            assert first is None
            continue
        assert first is not None and first.order == min(r.order for r in below)
        printed = run_tool(kiln_tool, "compare", pte, "--debug-record", record, "--reference",
                           CONV_RELU_TAN / "model.pt2", "--threshold", threshold).stdout
        assert f"First op in program order below {threshold:.1f} dB: {first.label} (" in printed


def test_a_record_of_another_program_is_the_tools_error(lowered_files, kiln_tool, tmp_path):
    pte, record, _ = lowered_files
    other = tmp_path / "mlp.pte"
    kiln.lower(FIXTURES / "mlp" / "model.pt2").save(other)
    message = tool_error(kiln_tool, "profile", other, "--debug-record", record)
    assert message.startswith("the debug record was written for another program")
    with pytest.raises(kiln.KilnError) as raised:
        kiln.profile(other, record)
    assert str(raised.value) == message
    with pytest.raises(kiln.KilnError) as raised:
        kiln.compare(other, record, CONV_RELU_TAN / "model.pt2")
    assert str(raised.value) == tool_error(kiln_tool, "compare", other, "--debug-record", record, "--reference",
                                           CONV_RELU_TAN / "model.pt2")


def test_another_reference_is_the_tools_error(lowered_files, kiln_tool):
    pte, record, _ = lowered_files
    reference = FIXTURES / "mlp" / "model.pt2"
    message = tool_error(kiln_tool, "compare", pte, "--debug-record", record, "--reference", reference)
    assert "is not the program the debug record was lowered from" in message
    with pytest.raises(kiln.KilnError) as raised:
        kiln.compare(pte, record, reference)
    assert str(raised.value) == message


def test_what_the_calls_refuse_before_running():
    lowered = kiln.lower(CONV_RELU_TAN / "model.pt2")
    with pytest.raises(kiln.InputError, match="has no debug record"):
        kiln.profile(lowered)
    with pytest.raises(kiln.InputError, match="needs the program's debug record"):
        kiln.profile(lowered.buffer)
    recorded = kiln.lower(CONV_RELU_TAN / "model.pt2", debug_record=True)
    with pytest.raises(kiln.InputError, match="iterations must be 1 to 100000, got 0"):
        kiln.profile(recorded, iterations=0)
    with pytest.raises(kiln.InputError, match="threads must be 1 to 256"):
        kiln.compare(recorded, None, CONV_RELU_TAN / "model.pt2", threads=0)
    with pytest.raises(kiln.InputError, match="input 0 must be f32"):
        kiln.profile(recorded, inputs=[np.ones((1, 3, 32, 32), np.int32)])
    with pytest.raises(kiln.InputError, match="takes a .pte path, its bytes or a kiln.LoweredProgram"):
        kiln.profile(3, recorded.debug_record)


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas is not installed")
def test_to_pandas_has_a_row_per_row():
    recorded = kiln.lower(CONV_RELU_TAN / "model.pt2", debug_record=True)
    profile = kiln.profile(recorded, iterations=1)
    frame = profile.to_pandas()
    assert list(frame.columns) == ["handles", "label", "ops", "module", "where", "calls", "median_ms", "total_ms",
                                   "share"]
    assert list(frame["label"]) == [row.label for row in profile.rows]
    comparison = kiln.compare(recorded, None, CONV_RELU_TAN / "model.pt2")
    frame = comparison.to_pandas()
    assert list(frame["snr_db"]) == [row.snr_db for row in comparison.rows]
    assert "max_error_quanta" in frame.columns and "note" in frame.columns


@pytest.mark.skipif(importlib.util.find_spec("pandas") is not None, reason="pandas is installed")
def test_to_pandas_without_pandas_says_so():
    recorded = kiln.lower(CONV_RELU_TAN / "model.pt2", debug_record=True)
    with pytest.raises(ImportError, match=r"Profile.to_pandas\(\) needs pandas"):
        kiln.profile(recorded, iterations=1).to_pandas()
    with pytest.raises(ImportError, match=r"Comparison.to_pandas\(\) needs pandas"):
        kiln.compare(recorded, None, CONV_RELU_TAN / "model.pt2").to_pandas()


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_compare_takes_a_torch_exported_program(lowered_files):
    import torch

    pte, record, _ = lowered_files
    reference = torch.export.load(CONV_RELU_TAN / "model.pt2")
    comparison = kiln.compare(pte, record, reference, inputs=CONV_RELU_TAN / "case0.inputs.npz")
    assert str(comparison) == str(kiln.compare(pte, record, CONV_RELU_TAN / "model.pt2",
                                               inputs=CONV_RELU_TAN / "case0.inputs.npz"))
