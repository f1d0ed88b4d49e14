"""Kiln's ETDump read by ExecuTorch's Inspector, and an ETDump read by `kiln profile`.

For each subject (a fixture lowered with a delegate), this script
1. lowers it with `kiln lower X.pt2 --backend B -o X.pte --debug-record X.kdbg`;
2. runs it with `kiln run X.pte --iterations N --etdump X.etdp --debug-buffer X.bin`;
3. opens X.etdp with ExecuTorch's `executorch.devtools.Inspector(etdump_path=..., debug_buffer_path=...)`
   (no ETRecord: Kiln writes none) and checks its event blocks: N runs of the method, each kernel and
   delegate call an event with N times, each backend op an event with its delegate debug identifier
   and N times, and each kernel call's logged output equal to the tensor Kiln logged;
4. runs `kiln profile --etdump X.etdp --debug-record X.kdbg` (no re-run) and checks it attributes
   the backend's ops to source ops; then the same ETDump against another subject's debug record,
   which must fail naming the mismatch.
Then, for a portable .pte (ExecuTorch's runtime has no Kiln demo backend), it runs the .pte on
ExecuTorch's runtime with `enable_etdump=True` and checks that `kiln profile --etdump` reads the
ETDump ExecuTorch wrote.

Not part of ctest: it needs the virtual environment (executorch) and a built `kiln`.

    .venv/bin/python tests/interop/check_etdump.py [--kiln build/bin/kiln] [--keep DIR]
"""

import argparse
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

# (name, fixture, backend): conv_relu_tan's elementwise ops go to DemoBackend, which logs each op
# under an integer identifier; small_cnn's convolutions go to OneDnnBackend when the build has it.
SUBJECTS = [("conv_relu_tan.demo", "conv_relu_tan/model.pt2", "DemoBackend"),
            ("small_cnn.onednn", "small_cnn/model.pt2", "OneDnnBackend")]
ITERATIONS = 3


def run(command, expect_ok=True):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if expect_ok and done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command[:2]))} exited {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()[:800]}")
    return done


def check_inspector(etdump, debug_buffer):
    """Opens the ETDump with ExecuTorch's Inspector; returns facts about its events."""
    from executorch.devtools import Inspector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inspector = Inspector(etdump_path=str(etdump), debug_buffer_path=str(debug_buffer))
    blocks = inspector.event_blocks
    if len(blocks) != 1:
        raise AssertionError(f"expected one event block (the method's runs), got {len(blocks)}")
    block = blocks[0]
    calls = [e for e in block.events if e.delegate_debug_identifier is None]
    backend_ops = [e for e in block.events if e.delegate_debug_identifier is not None]
    if not calls or not backend_ops:
        raise AssertionError(f"{len(calls)} call events and {len(backend_ops)} backend events: expected both")
    for event in block.events:
        if event.perf_data is None or len(event.perf_data.raw) != ITERATIONS:
            raise AssertionError(f"event {event.name}: {event.perf_data and len(event.perf_data.raw)} times, "
                                 f"expected {ITERATIONS}")
        if min(event.perf_data.raw) < 0:
            raise AssertionError(f"event {event.name}: a negative duration")
    if not any(e.name == "DELEGATE_CALL" for e in calls):
        raise AssertionError("no DELEGATE_CALL event")
    outputs = [e for e in block.events if e.debug_data]
    if not outputs:
        raise AssertionError("no event (kernel call or backend op) carries its logged output")
    for event in outputs:
        value = event.debug_data[0]
        if not np.all(np.isfinite(value.float().numpy())):
            raise AssertionError(f"event {event.name}: a logged output that is not finite")
    df = block.to_dataframe()
    return {"block": block.name, "calls": len(calls), "backend_ops": len(backend_ops),
            "with_output": len(outputs),
            "backend_ms": sum(e.perf_data.avg for e in backend_ops),
            "names": sorted({e.name for e in calls})[:4], "columns": len(df.columns)}


def executorch_etdump(kiln, work, failures):
    """A portable .pte run on ExecuTorch's runtime with its ETDump on; kiln profile reads it."""
    from executorch.runtime import Runtime
    import torch

    pte, record = work / "mlp.pte", work / "mlp.kdbg"
    run([kiln, "lower", FIXTURES / "mlp/model.pt2", "-o", pte, "--debug-record", record])
    program = Runtime.get().load_program(pte.read_bytes(), enable_etdump=True, debug_buffer_size=1 << 20)
    method = program.load_method("forward")
    inputs = np.load(FIXTURES / "mlp/case0.inputs.npz")
    method.execute([torch.from_numpy(inputs[k]) for k in inputs.files])
    etdump, debug = work / "mlp.et.etdp", work / "mlp.et.bin"
    program.write_etdump_result_to_file(str(etdump), str(debug))
    done = run([kiln, "profile", "--etdump", etdump, "--debug-record", record, "--top", "0"], expect_ok=False)
    ok = done.returncode == 0 and "linear" in done.stdout
    if not ok:
        failures.append(f"kiln profile of ExecuTorch's ETDump: exit {done.returncode}: "
                        f"{(done.stderr or done.stdout).strip()[:300]}")
    rows = sum(1 for line in done.stdout.splitlines() if "%" in line and "portable" in line)
    return ok, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", default=str(ROOT / "build" / "bin" / "kiln"))
    parser.add_argument("--keep", help="keep the files in this directory")
    args = parser.parse_args()
    kiln = Path(args.kiln)
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(args.keep or temporary)
        work.mkdir(parents=True, exist_ok=True)
        failures, rows, records = [], [], {}
        for name, fixture, backend in SUBJECTS:
            pte, record = work / f"{name}.pte", work / f"{name}.kdbg"
            etdump, debug = work / f"{name}.etdp", work / f"{name}.bin"
            lowered = run([kiln, "lower", FIXTURES / fixture, "--backend", backend, "-o", pte,
                           "--debug-record", record], expect_ok=False)
            if lowered.returncode != 0 and "unknown backend" in (lowered.stderr + lowered.stdout).lower():
                rows.append(f"| {name} | {backend} not in this build | - | - | - | - | skipped |")
                continue
            try:
                if lowered.returncode != 0:
                    raise RuntimeError(f"kiln lower: {(lowered.stderr or lowered.stdout).strip()[:300]}")
                records[name] = record
                run([kiln, "run", pte, "--iterations", ITERATIONS, "--etdump", etdump, "--debug-buffer", debug])
                facts = check_inspector(etdump, debug)
                profile = run([kiln, "profile", "--etdump", etdump, "--debug-record", record, "--top", "0"])
                if f"{ITERATIONS} runs" not in profile.stdout or backend not in profile.stdout:
                    raise AssertionError(f"kiln profile --etdump printed no {backend} rows for {ITERATIONS} runs")
                rows.append(f"| {name} | {backend} | {facts['calls']} calls, {facts['backend_ops']} backend ops, "
                            f"{ITERATIONS} times each | {facts['with_output']} | {facts['backend_ms']:.4f} ms | "
                            f"yes | ok |")
            except Exception as error:  # noqa: BLE001 - every failure is reported, then the exit code says it
                failures.append(f"{name}: {error}")
                rows.append(f"| {name} | {backend} | - | - | - | - | FAILED |")
        # Another program's debug record: refused, naming the mismatch.
        names = [n for n in records if (work / f"{n}.etdp").exists()]
        if len(names) >= 1:
            other = work / "other.kdbg"
            run([kiln, "lower", FIXTURES / "mlp/model.pt2", "-o", work / "other.pte", "--debug-record", other])
            done = run([kiln, "profile", "--etdump", work / f"{names[0]}.etdp", "--debug-record", other],
                       expect_ok=False)
            mismatch = done.returncode != 0 and "another program" in done.stderr
            if not mismatch:
                failures.append(f"an ETDump against another program's record: exit {done.returncode}, "
                                f"{done.stderr.strip()[:300]}")
        else:
            mismatch = False
        et_ok, et_rows = executorch_etdump(kiln, work, failures)

    print("| subject | backend | Inspector: events | outputs logged | backend ops' time (avg per run) |"
          " kiln profile --etdump | status |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nAnother program's debug record refused, naming the mismatch: {'yes' if mismatch else 'NO'}")
    print(f"ExecuTorch's runtime's ETDump of a Kiln .pte read by kiln profile: "
          f"{'yes' if et_ok else 'NO'} ({et_rows} rows on the portable kernels)")
    for failure in failures:
        print(f"FAILED {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
