"""Everything a model's rows need, made once per model in bench.py's process:
the input, PyTorch's reference output, the FLOP count, the weights for the
eager worker, and each runtime's lowered artefact with the time lowering took.

Files go to WORK/<model>/: in.npz, ref.npz, state_dict.pt, model.pt2
(torch.export.export, the training IR, as users save it), kiln.pte,
executorch.pte, model.onnx (read by ONNX Runtime and OpenVINO). Lowering times:
- Kiln: wall time of the `kiln lower` process (start-up, reading the .pt2,
  decomposition, partitioning, planning, writing the .pte);
- ExecuTorch: to_edge_transform_and_lower(XnnpackPartitioner) +
  to_executorch() + writing the .pte, in this process, from the same
  in-memory ExportedProgram (imports already done: a favour to ExecuTorch);
- ONNX Runtime: torch.onnx.export from the module (it exports the model
  again; the session's graph optimisation at load is in its load time).
A failing step records its error; the rows that need it show that error.
"""
import os
import subprocess
import time

import numpy as np
import torch

import models

ONEDNN = "OneDnnBackend"


class Artefact:
    """A lowered file, how long lowering took, and what went wrong if it failed."""

    def __init__(self, path=None, lowering_s=None, mode="", error=None):
        self.path = path
        self.lowering_s = lowering_s
        self.mode = mode
        self.error = error

    @property
    def size_bytes(self):
        if not self.path or not os.path.exists(self.path):
            return None
        total = os.path.getsize(self.path)
        data = self.path + ".data"  # ONNX external data, if the exporter wrote one
        return total + (os.path.getsize(data) if os.path.exists(data) else 0)


class Prepared:
    """One model's shared files and numbers."""

    def __init__(self, name, directory):
        self.name = name
        self.dir = directory
        self.flops = None
        self.artefacts = {}
        self.error = None

    def file(self, basename):
        return os.path.join(self.dir, basename)


def short_error(text, limit=160):
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    message = lines[-1] if lines else "failed"
    return message if len(message) <= limit else message[: limit - 3] + "..."


def save_reference(model, inputs, prepared):
    np.savez(prepared.file("in.npz"), *[x.numpy() for x in inputs])
    with torch.no_grad():
        out = model(*inputs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    np.savez(prepared.file("ref.npz"), **{f"output_{i}": o.numpy() for i, o in enumerate(outs)})
    torch.save(model.state_dict(), prepared.file("state_dict.pt"))


def lower_kiln(kiln, prepared, backend=ONEDNN):
    """`kiln lower --backend OneDnnBackend -o kiln.pte`, or plain `kiln lower`
    (the portable kernels only) when backend is None."""
    pt2, pte = prepared.file("model.pt2"), prepared.file("kiln.pte")
    if os.path.exists(pte):
        os.remove(pte)
    mode, extra = ("onednn", ["--backend", backend]) if backend else ("portable", [])
    command = [kiln, "lower", pt2, *extra, "-o", pte]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    took = time.perf_counter() - start
    with open(prepared.file(f"kiln_lower_{mode}.log"), "w") as out:
        out.write(done.stdout + done.stderr)
    if done.returncode != 0:
        return Artefact(None, None, mode, "kiln lower: " + short_error(done.stderr or done.stdout))
    return Artefact(pte, took, mode)


def lower_executorch(exported, prepared):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    path = prepared.file("executorch.pte")
    start = time.perf_counter()
    edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
    program = edge.to_executorch()
    with open(path, "wb") as out:
        program.write_to_file(out)
    return Artefact(path, time.perf_counter() - start, "xnnpack")


def export_onnx(model, inputs, prepared):
    path = prepared.file("model.onnx")
    start = time.perf_counter()
    torch.onnx.export(model, inputs, path, dynamo=True, external_data=False, verbose=False)
    return Artefact(path, time.perf_counter() - start, "cpu")


def guarded(step, mode):
    """Runs step(); an exception becomes an Artefact carrying its message."""
    try:
        return step()
    except Exception as error:  # noqa: BLE001 -- a failing peer is a row, not a crash
        return Artefact(None, None, mode, f"{type(error).__name__}: {short_error(error)}")


def prepare(name, work, kiln, runtimes, log, kiln_backend=ONEDNN):
    """Builds model `name`, writes its files under work/<name>, lowers it for
    each runtime in `runtimes`; returns a Prepared."""
    prepared = Prepared(name, os.path.join(work, name))
    os.makedirs(prepared.dir, exist_ok=True)
    try:
        model, inputs = models.build_with_inputs(name)
    except Exception as error:  # noqa: BLE001 -- a model that cannot be built is a row, not a crash
        prepared.error = f"building the model: {short_error(error)}"
        log(f"  {prepared.error}")
        for runtime in runtimes:
            prepared.artefacts[runtime] = Artefact(None, None, "", prepared.error)
        return prepared
    save_reference(model, inputs, prepared)
    prepared.flops = models.count_flops(model, inputs)
    log(f"  {prepared.flops / 1e9:.3f} GFLOP per forward pass")
    exported = None
    if "kiln" in runtimes or "executorch" in runtimes:
        try:
            start = time.perf_counter()
            exported = torch.export.export(model, inputs)
            torch.export.save(exported, prepared.file("model.pt2"))
            log(f"  torch.export + save: {time.perf_counter() - start:.1f} s")
        except Exception as error:  # noqa: BLE001
            prepared.error = f"torch.export: {short_error(error)}"
    steps = {
        "kiln": (lambda: lower_kiln(kiln, prepared, kiln_backend), "kiln"),
        "executorch": (lambda: lower_executorch(exported, prepared), "xnnpack"),
        "ort": (lambda: export_onnx(model, inputs, prepared), "cpu"),
        "openvino": (lambda: prepared.artefacts.get("ort") or export_onnx(model, inputs, prepared), "cpu"),
        "eager": (lambda: Artefact(prepared.file("state_dict.pt"), None, "eager"), "eager"),
    }
    for runtime in runtimes:
        step, mode = steps[runtime]
        if runtime in ("kiln", "executorch") and exported is None:
            prepared.artefacts[runtime] = Artefact(None, None, mode, prepared.error)
            continue
        artefact = guarded(step, mode)
        prepared.artefacts[runtime] = artefact
        took = f"{artefact.lowering_s:.1f} s" if artefact.lowering_s is not None else "-"
        log(f"  {runtime}: {'error: ' + artefact.error if artefact.error else 'lowered (' + artefact.mode + ') ' + took}")
    return prepared
