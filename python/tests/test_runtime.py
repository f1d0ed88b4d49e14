"""kiln.load / Program / Method: every fixture .pte run from Python, inputs
read in place, bad inputs refused by name, the GIL released while running."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import kiln
from conftest import FIXTURES, assert_close, positional, pte_fixtures, read_npz

PTE = FIXTURES / "pte"


@pytest.mark.parametrize("entry", pte_fixtures(), ids=lambda entry: entry["file"])
def test_every_fixture_pte_matches_its_expected_outputs(entry):
    method = kiln.load(PTE / entry["file"]).load_method("forward")
    inputs = positional(read_npz(PTE / entry["inputs_npz"]))
    expected = read_npz(PTE / entry["expected_npz"])
    tolerance = max(1e-6, 4 * entry.get("et_runtime_max_difference") or 0.0)
    for call in range(entry["calls"]):
        # Fresh copies: a program may write into the inputs it mutates.
        outputs = method(*[array.copy() for array in inputs])
        prefix = "output_" if call == 0 else f"call{call}_output_"
        names = sorted((name for name in expected if name.startswith(prefix)), key=lambda n: int(n.rsplit("_", 1)[1]))
        assert len(outputs) == len(names), entry["file"]
        for index, name in enumerate(names):
            assert_close(outputs[index], expected[name], tolerance, f"{entry['file']} call {call} {name}")


def test_load_from_bytes_bytearray_and_memoryview_equals_from_path():
    data = (PTE / "add.pte").read_bytes()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = x + x
    for source in (data, bytearray(data), memoryview(data), str(PTE / "add.pte"), PTE / "add.pte"):
        (y,) = kiln.load(source).load_method()(x, x)
        np.testing.assert_array_equal(y, want)


def test_metadata_names_dtypes_shapes_and_planned_memory():
    program = kiln.load(PTE / "add.pte")
    assert program.method_names == ["forward"]
    meta = program.metadata("forward")
    assert meta.name == "forward"
    assert [(spec.dtype, spec.shape, spec.kind) for spec in meta.inputs] == [("float32", (2, 3), "tensor")] * 2
    assert [(spec.dtype, spec.shape) for spec in meta.outputs] == [("float32", (2, 3))]
    assert meta.planned_bytes == sum(meta.planned_buffers) > 0
    assert "float32" in repr(meta.inputs[0])
    dynamic = kiln.load(PTE / "dynamic_batch.pte").metadata().inputs[0]
    assert dynamic.dynamic


def test_unknown_method_and_bad_program_raise_kiln_error(tmp_path):
    program = kiln.load(PTE / "add.pte")
    with pytest.raises(kiln.KilnError, match=r"has no method 'backward' \(it has: forward\)"):
        program.load_method("backward")
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program at all")
    with pytest.raises(kiln.KilnError, match="is not a program Kiln can load"):
        kiln.load(bad)
    with pytest.raises(kiln.KilnError, match="cannot open"):
        kiln.load(tmp_path / "missing.pte")
    with pytest.raises(kiln.InputError, match="takes a path or the bytes"):
        kiln.load(42)


@pytest.fixture(scope="module")
def add():
    return kiln.load(PTE / "add.pte").load_method()


def test_wrong_count_dtype_shape_and_type_name_what_was_expected(add):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(kiln.InputError, match="takes 2 inputs, got 1"):
        add(x)
    with pytest.raises(kiln.InputError, match=r"input 0 must be f32 \(f32\[2, 3\]\), got f64"):
        add(x.astype(np.float64), x)
    with pytest.raises(kiln.InputError, match=r"input 1 dim 0 must be 2 \(f32\[2, 3\]\), got 3"):
        add(x, np.ones((3, 3), np.float32))
    with pytest.raises(kiln.InputError, match=r"input 1 must have 2 dimensions"):
        add(x, np.ones(6, np.float32))
    with pytest.raises(kiln.InputError, match=r"input 0 must be an array .* got a str"):
        add("x", x)
    # InputError is also a ValueError, and a KilnError.
    with pytest.raises(ValueError):
        add(x)
    with pytest.raises(kiln.KilnError):
        add(x)
    # The method still runs after refusing.
    np.testing.assert_array_equal(add(x, x)[0], 2 * x)


def test_dynamic_input_within_its_bound_and_refused_beyond():
    method = kiln.load(PTE / "dynamic_batch.pte").load_method()
    bound = method.metadata.inputs[0].shape
    small = np.ones((1,) + bound[1:], np.float32)
    assert method(small)[0].shape[0] == 1
    with pytest.raises(kiln.InputError, match="must be at most"):
        method(np.ones((bound[0] + 1,) + bound[1:], np.float32))


@pytest.fixture(scope="module")
def unplanned_mlp():
    """The mlp fixture lowered with its inputs left unplanned: the runtime reads
    the caller's array where it is."""
    lowered = kiln.lower(FIXTURES / "mlp" / "model.pt2", plan_inputs=False)
    return kiln.load(lowered.buffer)


def test_inputs_that_fit_are_read_in_place(unplanned_mlp):
    method = unplanned_mlp.load_method()
    expected = read_npz(FIXTURES / "mlp" / "case0.expected.npz")["output_0"]
    x = read_npz(FIXTURES / "mlp" / "case0.inputs.npz")["arr_0"].copy()
    (y,) = method(x)
    assert method.input_data_ptr(0) == x.ctypes.data
    assert method.last_input_copies == 0
    assert_close(y, expected, 1e-5, "mlp in place")

    # Any DLPack producer: an object with __dlpack__ only.
    class Producer:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    (y,) = method(Producer(x))
    assert method.input_data_ptr(0) == x.ctypes.data
    assert_close(y, expected, 1e-5, "mlp from a DLPack producer")

    # Read-only arrays are read in place too.
    frozen = x.copy()
    frozen.flags.writeable = False
    (y,) = method(frozen)
    assert method.input_data_ptr(0) == frozen.ctypes.data


def test_inputs_laid_out_otherwise_are_copied_and_still_right(unplanned_mlp):
    method = unplanned_mlp.load_method()
    expected = read_npz(FIXTURES / "mlp" / "case0.expected.npz")["output_0"]
    x = read_npz(FIXTURES / "mlp" / "case0.inputs.npz")["arr_0"]
    fortran = np.asfortranarray(x)
    (y,) = method(fortran)
    assert method.last_input_copies == 1
    assert method.input_data_ptr(0) != fortran.ctypes.data
    assert_close(y, expected, 1e-5, "mlp from a column-major array")
    stepped = np.repeat(x, 2, axis=1)[:, ::2]
    (y,) = method(stepped)
    assert method.last_input_copies == 1
    assert_close(y, expected, 1e-5, "mlp from a strided view")


def test_planned_inputs_are_copied_by_the_runtime_into_its_arena(add):
    x = np.ones((2, 3), np.float32)
    add(x, x)
    assert add.last_input_copies == 0  # the binding made no copy ...
    assert add.input_data_ptr(0) != x.ctypes.data  # ... the planned input lives in the arena


def test_output_views_live_in_the_method_and_keep_it_alive():
    method = kiln.load(PTE / "add.pte").load_method()
    x = np.ones((2, 3), np.float32)
    (view,) = method.execute([x, x], copy_outputs=False)
    (copy,) = method.execute([x, x])
    np.testing.assert_array_equal(view, 2 * x)
    (again,) = method.execute([3 * x, x], copy_outputs=False)
    assert again.ctypes.data == view.ctypes.data != copy.ctypes.data
    np.testing.assert_array_equal(view, 4 * x)  # the next call wrote over it
    np.testing.assert_array_equal(copy, 2 * x)  # a copy stays
    del method
    np.testing.assert_array_equal(view, 4 * x)  # the view keeps the method alive


def test_buffers_keep_their_state_across_calls_and_methods_are_separate():
    entry = next(entry for entry in pte_fixtures() if entry["file"] == "buffer_mutation.pte")
    program = kiln.load(PTE / entry["file"])
    inputs = positional(read_npz(PTE / entry["inputs_npz"]))
    expected = read_npz(PTE / entry["expected_npz"])
    first, second = program.load_method(), program.load_method()
    assert_close(first(*inputs)[0], expected["output_0"], 1e-6, "first call")
    assert_close(first(*inputs)[0], expected["call1_output_0"], 1e-6, "second call")
    # Another method has buffers of its own.
    assert_close(second(*inputs)[0], expected["output_0"], 1e-6, "another method's first call")


def _slow_method():
    """A method whose call takes long enough to see other threads run."""
    program = kiln.lower(FIXTURES / "small_cnn" / "model.pt2")
    method = kiln.load(program.buffer).load_method()
    x = positional(read_npz(FIXTURES / "small_cnn" / "case0.inputs.npz"))
    return method, x


def test_two_threads_run_two_methods_at_once():
    # The GIL is released while a method runs: calls on two threads overlap
    # (with the GIL held through execute, at most one would run at a time).
    method_a, x = _slow_method()
    method_b, _ = _slow_method()
    (want,) = method_a(*x)
    results: dict[str, list] = {"a": [], "b": []}
    errors: list[BaseException] = []
    stop = threading.Event()

    def run(method, key):
        try:
            while not stop.is_set() and len(results[key]) < 20000:
                results[key].append(method(*x)[0])
        except BaseException as error:  # reported below
            errors.append(error)

    from kiln import _kiln

    _kiln._most_running_calls()
    threads = [threading.Thread(target=run, args=(m, k)) for m, k in ((method_a, "a"), (method_b, "b"))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    most = 0
    while most < 2 and time.monotonic() < deadline and any(t.is_alive() for t in threads):
        time.sleep(0.01)
        most = max(most, _kiln._most_running_calls())
    stop.set()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert most == 2, "two methods never ran at once"
    for key in "ab":
        assert results[key]
        for result in results[key]:
            np.testing.assert_array_equal(result, want)


def test_one_method_from_two_threads_runs_one_call_at_a_time():
    method, x = _slow_method()
    (want,) = method(*x)
    outputs: list = []
    threads = [threading.Thread(target=lambda: outputs.extend(method(*x)[0] for _ in range(30))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outputs) == 60
    for output in outputs:
        np.testing.assert_array_equal(output, want)


def test_set_threads_refuses_out_of_range():
    with pytest.raises(kiln.InputError, match="threads must be 1 to 256"):
        kiln.set_threads(0)
    kiln.set_threads(1)
