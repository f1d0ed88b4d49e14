"""kiln.lower: the fixtures' .pt2 programs lowered in-process (to the portable
kernels and to OneDnnBackend) and run, the result's reports, and errors. The
tests that need torch (a live ExportedProgram) run where torch is installed."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import kiln
from conftest import FIXTURES, assert_close, positional, pt2_fixtures, read_npz

HAS_ONEDNN = "OneDnnBackend" in kiln.registered_backends()
BACKENDS = [()] + ([("OneDnnBackend",)] if HAS_ONEDNN else [])


def _expected_outputs(expected: dict[str, np.ndarray]) -> list[np.ndarray]:
    names = sorted((n for n in expected if n.startswith("output_")), key=lambda n: int(n.rsplit("_", 1)[1]))
    return [expected[n] for n in names]


@pytest.mark.parametrize("backends", BACKENDS, ids=lambda b: ",".join(b) or "portable")
@pytest.mark.parametrize("fixture", pt2_fixtures(), ids=lambda f: f[0])
def test_every_fixture_pt2_lowers_and_matches_pytorch(fixture, backends):
    name, cases = fixture
    lowered = kiln.lower(FIXTURES / name / "model.pt2", backends=backends)
    method = kiln.load(lowered.buffer).load_method()
    tolerance = 1e-5 if not backends else 1e-3
    # The cases run in order on one method: a program's buffers carry from
    # one to the next, as in PyTorch's run that made them.
    for case in cases:
        inputs = positional(read_npz(FIXTURES / name / f"{case}.inputs.npz"))
        expected = read_npz(FIXTURES / name / f"{case}.expected.npz")
        outputs = method(*[array.copy() for array in inputs])
        want = _expected_outputs(expected)
        # The program's first outputs are the user inputs it mutates (their
        # new values, as ExecuTorch orders them), then the user outputs.
        mutated = outputs[: len(outputs) - len(want)]
        for index, actual in enumerate(mutated):
            candidates = [expected[n] for n in expected if n.startswith("input_")]
            assert any(
                c.shape == actual.shape and np.allclose(actual, c, rtol=tolerance, atol=tolerance) for c in candidates
            ), f"{name} {case}: mutated input {index} matches no input's new value"
        for index, (actual, value) in enumerate(zip(outputs[len(mutated) :], want)):
            if isinstance(actual, np.ndarray):
                assert_close(actual, value, tolerance, f"{name} {case} output {index}")
            else:
                np.testing.assert_allclose(actual, value)


def test_lowering_bytes_and_path_give_the_same_program():
    path = FIXTURES / "small_cnn" / "model.pt2"
    assert kiln.lower(path).buffer == kiln.lower(path.read_bytes()).buffer == kiln.lower(str(path)).buffer


def test_the_result_reports_decisions_memory_and_debug_record(tmp_path):
    path = FIXTURES / "small_cnn" / "model.pt2"
    backends = ["OneDnnBackend"] if HAS_ONEDNN else ["DemoBackend"]
    lowered = kiln.lower(path, backends=backends, debug_record=True)
    explained = lowered.explain()
    assert "Decisions (" in explained and backends[0] in explained
    assert lowered.delegated_ops > 0
    (plan,) = lowered.memory_plan
    assert plan.method == "forward" and plan.total_bytes == sum(plan.arena_sizes) > 0
    assert kiln.load(lowered.buffer).metadata().planned_bytes == plan.total_bytes
    record = json.loads(lowered.debug_record)
    assert record  # the JSON `kiln profile --debug-record` reads
    lowered.save(tmp_path / "m.pte", debug_record=tmp_path / "m.kdbg")
    assert (tmp_path / "m.pte").read_bytes() == lowered.buffer
    assert json.loads((tmp_path / "m.kdbg").read_text()) == record

    plain = kiln.lower(path)
    assert plain.debug_record is None
    with pytest.raises(kiln.InputError, match="without its debug record"):
        plain.save(tmp_path / "n.pte", debug_record=tmp_path / "n.kdbg")


def test_the_same_bytes_as_kiln_lower(tmp_path, kiln_tool):
    import subprocess

    path = FIXTURES / "mlp" / "model.pt2"
    subprocess.run([kiln_tool, "lower", str(path), "-o", str(tmp_path / "cli.pte")], check=True, capture_output=True)
    assert kiln.lower(path).buffer == (tmp_path / "cli.pte").read_bytes()


def test_kiln_ops_are_chosen_as_kiln_lower_chooses_them(tmp_path, kiln_tool):
    import subprocess

    path = FIXTURES / "llm" / "tiny_llama_int4wo" / "model.pt2"
    for flags, options in [([], {}), (["--no-kiln-ops"], {"kiln_ops": False}),
                           (["--quantize-activations"], {"quantize_activations": True})]:
        subprocess.run([kiln_tool, "lower", str(path), "-o", str(tmp_path / "cli.pte")] + flags, check=True,
                       capture_output=True)
        assert kiln.lower(path, **options).buffer == (tmp_path / "cli.pte").read_bytes(), flags
    assert "kiln::linear" in kiln.lower(path).explain() or b"kiln::linear" in kiln.lower(path).buffer
    assert b"kiln::linear" not in kiln.lower(path, kiln_ops=False).buffer
    with pytest.raises(kiln.InputError, match="cannot go with kiln_ops=False"):
        kiln.lower(path, kiln_ops=False, quantize_activations=True)


def test_constant_methods_are_written_beside_forward():
    lowered = kiln.lower(FIXTURES / "mlp" / "model.pt2", constant_methods={"get_answer": 42, "get_ids": [1, 2]})
    program = kiln.load(lowered.buffer)
    assert set(program.method_names) == {"forward", "get_answer", "get_ids"}
    assert program.load_method("get_answer")() == [42]
    assert program.load_method("get_ids")() == [1, 2]


def test_errors_name_what_was_wrong(tmp_path):
    path = FIXTURES / "mlp" / "model.pt2"
    with pytest.raises(kiln.KilnError, match=r"NoSuchBackend.*DemoBackend"):
        kiln.lower(path, backends=["NoSuchBackend"])
    with pytest.raises(kiln.KilnError, match="cannot open"):
        kiln.lower(tmp_path / "missing.pt2")
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(kiln.KilnError, match="bad.pt2"):
        kiln.lower(bad)
    with pytest.raises(kiln.InputError, match="got int"):
        kiln.lower(42)
    with pytest.raises(kiln.InputError, match="compile_specs"):
        kiln.lower(path, backends=["DemoBackend"], compile_specs={"DemoBackend": {"key": 3}})


# ---------------------------------------------------------------- with torch

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


@needs_torch
def test_a_live_exported_program_lowers_and_runs_on_torch_tensors():
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            y = torch.relu(self.conv(x)).mean(dim=(2, 3))
            return self.fc(y)

    torch.manual_seed(0)
    model = Net().eval()
    x = torch.randn(2, 3, 16, 16)
    ep = torch.export.export(model, (x,))
    backends = ["OneDnnBackend"] if HAS_ONEDNN else []
    method = kiln.load(kiln.lower(ep, backends=backends).buffer).load_method()
    (y,) = method(x)
    np.testing.assert_allclose(y, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    # A tensor that requires grad is read through detach(), without a copy.
    (y,) = method(x.clone().requires_grad_(True))
    np.testing.assert_allclose(y, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


@needs_torch
def test_torch_tensors_are_read_in_place():
    import torch

    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 2

    x = torch.randn(4, 5)
    lowered = kiln.lower(torch.export.export(Scale(), (x,)), plan_inputs=False)
    method = kiln.load(lowered.buffer).load_method()
    (y,) = method(x)
    assert method.input_data_ptr(0) == x.data_ptr() and method.last_input_copies == 0
    np.testing.assert_array_equal(y, (x * 2).numpy())
    (y,) = method(x.t().contiguous().t())  # column-major: copied into the input's layout
    assert method.last_input_copies == 1
    np.testing.assert_array_equal(y, (x * 2).numpy())


@needs_torch
def test_a_partitioner_refusal_and_a_lowering_error_from_torch():
    import torch

    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.tan(x) + 1

    ep = torch.export.export(Net(), (torch.randn(2, 3),))
    backends = ["OneDnnBackend"] if HAS_ONEDNN else ["DemoBackend"]
    lowered = kiln.lower(ep, backends=backends)
    assert "tan" in lowered.explain()
    with pytest.raises(kiln.InputError):
        kiln.load(lowered.buffer).load_method()(torch.randn(3, 3))


def test_sampling_draws_what_pytorch_draws_after_the_same_seed():
    # tests/fixtures/sampling: rand, randn_like, randint, randperm, uniform_ and
    # a random mask; its outputs are PyTorch's after torch.manual_seed(seed).
    directory = FIXTURES / "sampling"
    seed = json.loads((directory / "seed.json").read_text())["seed"]
    inputs = positional(read_npz(directory / "case0.inputs.npz"))
    want = _expected_outputs(read_npz(directory / "case0.expected.npz"))
    method = kiln.load(kiln.lower(directory / "model.core.pt2").buffer).load_method()
    kiln.manual_seed(seed)
    outputs = method(*[array.copy() for array in inputs])
    for index, (actual, expected) in enumerate(zip(outputs, want, strict=True)):
        assert_close(actual, expected, 1e-5, f"output_{index}")
    kiln.manual_seed(seed + 1)
    other = method(*[array.copy() for array in inputs])
    assert not np.array_equal(other[3], want[3]) or not np.array_equal(other[0], want[0])
