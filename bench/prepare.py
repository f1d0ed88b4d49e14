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

The int8 rows (bench.py --int8) use the same folder, their files named
with .q8: the model is quantized as a user of PT2E does it
(torchao's prepare_pt2e with ExecuTorch's XNNPACKQuantizer, per-channel
symmetric int8 weights; activations static, calibrated on
models.calibration_inputs, or dynamic; convert_pt2e), and the converted
module is PyTorch's int8 reference (ref.q8.npz; ref.npz stays the float
model's, for context) and is exported again to model.q8.pt2, which Kiln
lowers to kiln.q8.pte and ExecuTorch to executorch.q8.pte. ONNX Runtime
quantizes the float ONNX export itself (quant_pre_process, then
quantize_static to QDQ over the same calibration batches, or
quantize_dynamic) to model.q8.onnx, which OpenVINO reads too. Quantizing
with PT2E is shared and not counted in the lowering times; ONNX Runtime's
quantization is its own and is counted (with the export).
"""
import os
import re
import subprocess
import time

import numpy as np
import torch

import models

ONEDNN = "OneDnnBackend"
INT8 = ".q8"  # inserted before the extension of the int8 rows' files


class Artefact:
    """A lowered file, how long lowering took, and what went wrong if it failed."""

    def __init__(self, path=None, lowering_s=None, mode="", error=None, note=""):
        self.path = path
        self.lowering_s = lowering_s
        self.mode = mode
        self.error = error
        self.note = note  # what its rows' note column says (e.g. Kiln's ops left to the portable kernels)

    @property
    def size_bytes(self):
        if not self.path or not os.path.exists(self.path):
            return None
        total = os.path.getsize(self.path)
        data = self.path + ".data"  # ONNX external data, if the exporter wrote one
        return total + (os.path.getsize(data) if os.path.exists(data) else 0)


class Prepared:
    """One model's shared files and numbers."""

    def __init__(self, name, directory, int8=False):
        self.name = name
        self.dir = directory
        self.int8 = int8
        self.flops = None
        self.artefacts = {}
        self.error = None
        self.quantization = None  # int8: "static" or "dynamic"
        self.reference_error = None  # int8: (max |int8 - float|, that / max |float|), PyTorch's own

    def file(self, basename):
        return os.path.join(self.dir, basename)

    def own(self, basename):
        """The file of this precision: kiln.pte, or kiln.q8.pte for the int8 rows."""
        if not self.int8:
            return self.file(basename)
        stem, extension = os.path.splitext(basename)
        return self.file(stem + INT8 + extension)


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


def kiln_error(text, limit=320):
    """The first `error:` line of kiln's output, with the distinct ops of the
    node list under it if there is one ("  name: namespace::op"), else its last
    line."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if "error:" in line), None)
    if first is None:
        return short_error(text, limit)
    ops = []
    for line in lines[first + 1:]:
        found = re.match(r"^\s+\S+: (\S+::\S+)$", line)
        if not found:
            break
        if found.group(1) not in ops:
            ops.append(found.group(1))
    message = lines[first].strip() + (" " + ", ".join(ops) if ops else "")
    return message if len(message) <= limit else message[: limit - 3] + "..."


def lower_kiln(kiln, prepared, backend=ONEDNN):
    """`kiln lower --backend OneDnnBackend -o kiln.pte`, or plain `kiln lower`
    (the portable kernels only) when backend is None (model.q8.pt2 to
    kiln.q8.pte for the int8 rows)."""
    pt2, pte = prepared.own("model.pt2"), prepared.own("kiln.pte")
    if os.path.exists(pte):
        os.remove(pte)
    mode, extra = ("onednn", ["--backend", backend]) if backend else ("portable", [])
    command = [kiln, "lower", pt2, *extra, "-o", pte]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    took = time.perf_counter() - start
    with open(prepared.own(f"kiln_lower_{mode}.log"), "w") as out:
        out.write(done.stdout + done.stderr)
    if done.returncode != 0:
        return Artefact(None, None, mode, "kiln lower: " + kiln_error(done.stderr or done.stdout))
    kept = re.search(r"Kept on the portable kernels \((\d+) ops?\)", done.stdout + done.stderr) if backend else None
    return Artefact(pte, took, mode, note=f"{kept.group(1)} ops on the portable kernels" if kept else "")


def lower_executorch(exported, prepared):
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    path = prepared.own("executorch.pte")
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


# ------------------------------------------------------------------ int8


def quantize_pt2e(model, inputs, calibration, dynamic):
    """`model` quantized with PT2E as ExecuTorch documents it for XNNPACK:
    per-channel symmetric int8 weights; activations static (observed over
    the calibration batches) or dynamic. Returns the converted module."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic)
    module = torch.export.export(model, inputs).module()
    module = prepare_pt2e(module, XNNPACKQuantizer().set_global(config))
    with torch.no_grad():
        for batch in calibration:
            module(*batch)
    return convert_pt2e(module)


def reference_error(prepared):
    """PyTorch's int8 output against its float output: (max |diff|, that / max |float|)."""
    worst, relative = 0.0, 0.0
    with np.load(prepared.file("ref.npz")) as floats, np.load(prepared.own("ref.npz")) as int8:
        for key in floats.files:
            a, b = floats[key].astype(np.float64), int8[key].astype(np.float64)
            error = float(np.max(np.abs(a - b))) if a.size else 0.0
            worst = max(worst, error)
            scale = float(np.max(np.abs(a))) if a.size else 0.0
            relative = max(relative, error / scale if scale else 0.0)
    return worst, relative


def quantize_model(model, inputs, prepared, log):
    """Quantizes the model (models.quantization: static or dynamic), writes
    ref.q8.npz (the converted module's outputs) and model.q8.pt2; returns
    the ExportedProgram of the converted module."""
    prepared.quantization = models.quantization(prepared.name)
    start = time.perf_counter()
    converted = quantize_pt2e(model, inputs, models.calibration_inputs(prepared.name),
                              prepared.quantization == "dynamic")
    with torch.no_grad():
        out = converted(*inputs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    np.savez(prepared.own("ref.npz"), **{f"output_{i}": o.numpy() for i, o in enumerate(outs)})
    prepared.reference_error = reference_error(prepared)
    exported = torch.export.export(converted, inputs)
    torch.export.save(exported, prepared.own("model.pt2"))
    log(f"  PT2E {prepared.quantization} int8 + torch.export + save: {time.perf_counter() - start:.1f} s; "
        f"PyTorch int8 vs float: max |diff| {prepared.reference_error[0]:.3g} "
        f"({prepared.reference_error[1]:.2%} of max |float|)")
    return exported


def cpu_has_vnni():
    """Whether this CPU has the 8-bit dot product instructions (AVX512-VNNI or AVX-VNNI)."""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line.split(":", 1)[1].split() for line in info if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


def calibration_reader(input_names, batches):
    """An ONNX Runtime CalibrationDataReader feeding the batches by input name."""
    from onnxruntime.quantization import CalibrationDataReader

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.feeds = iter([{name: x.numpy() for name, x in zip(input_names, batch)} for batch in batches])

        def get_next(self):
            return next(self.feeds, None)

    return Reader()


def quantize_onnx(model, inputs, prepared):
    """The float ONNX export quantized by ONNX Runtime's tools to model.q8.onnx:
    quant_pre_process (shape inference and optimisation, which ONNX Runtime
    asks for), then for a static model quantize_static in QDQ format,
    per-channel int8 weights, uint8 activations (what its guide gives for x86;
    weights reduced to 7 bits on CPUs without VNNI), MinMax calibration on the
    same batches as PT2E's; for a dynamic one quantize_dynamic (ONNX
    Runtime's advice for transformers: per-channel int8 weights, the ops it
    quantizes by default, MatMul only with a constant B)."""
    import onnx
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    exported = export_onnx(model, inputs, prepared)
    start = time.perf_counter()
    staged, path = prepared.file("model.pre.onnx"), prepared.own("model.onnx")
    quant_pre_process(exported.path, staged)
    if models.quantization(prepared.name) == "dynamic":
        quantize_dynamic(staged, path, per_channel=True, weight_type=QuantType.QInt8)
        mode = "dynamic"
    else:
        names = [i.name for i in onnx.load(staged, load_external_data=False).graph.input]
        reader = calibration_reader(names, models.calibration_inputs(prepared.name))
        reduce_range = not cpu_has_vnni()
        quantize_static(staged, path, reader, quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=reduce_range)
        mode = "qdq-u8s8" + ("-7bit" if reduce_range else "")
    os.remove(staged)
    return Artefact(path, exported.lowering_s + time.perf_counter() - start, mode)


def guarded(step, mode):
    """Runs step(); an exception becomes an Artefact carrying its message."""
    try:
        return step()
    except Exception as error:  # noqa: BLE001 -- a failing peer is a row, not a crash
        return Artefact(None, None, mode, f"{type(error).__name__}: {short_error(error)}")


def export_program(model, inputs, prepared, log):
    """torch.export.export of the float model, saved to model.pt2."""
    start = time.perf_counter()
    exported = torch.export.export(model, inputs)
    torch.export.save(exported, prepared.file("model.pt2"))
    log(f"  torch.export + save: {time.perf_counter() - start:.1f} s")
    return exported


def prepare(name, work, kiln, runtimes, log, kiln_backend=ONEDNN, int8=False):
    """Builds model `name`, writes its files under work/<name>, lowers it for
    each runtime in `runtimes` (its int8 version with int8); returns a Prepared."""
    prepared = Prepared(name, os.path.join(work, name), int8)
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
    # int8: every row needs PyTorch's int8 reference; the eager row runs model.q8.pt2.
    if int8 or "kiln" in runtimes or "executorch" in runtimes:
        try:
            make = quantize_model if int8 else export_program
            exported = make(model, inputs, prepared, log)
        except Exception as error:  # noqa: BLE001
            prepared.error = f"{'PT2E quantization' if int8 else 'torch.export'}: {short_error(error)}"
            log(f"  {prepared.error}")

    def onnx_step():
        return (quantize_onnx if int8 else export_onnx)(model, inputs, prepared)

    eager_file = prepared.own("model.pt2") if int8 else prepared.file("state_dict.pt")
    steps = {
        "kiln": (lambda: lower_kiln(kiln, prepared, kiln_backend), "kiln"),
        "executorch": (lambda: lower_executorch(exported, prepared), "xnnpack"),
        "ort": (onnx_step, "cpu"),
        "openvino": (lambda: prepared.artefacts.get("ort") or onnx_step(), "cpu"),
        "eager": (lambda: Artefact(eager_file, None, "pt2e" if int8 else "eager"), "eager"),
    }
    for runtime in runtimes:
        step, mode = steps[runtime]
        if exported is None and (runtime in ("kiln", "executorch") or int8):
            prepared.artefacts[runtime] = Artefact(None, None, mode, prepared.error)
            continue
        artefact = guarded(step, mode)
        prepared.artefacts[runtime] = artefact
        took = f"{artefact.lowering_s:.1f} s" if artefact.lowering_s is not None else "-"
        log(f"  {runtime}: {'error: ' + artefact.error if artefact.error else 'lowered (' + artefact.mode + ') ' + took}")
    return prepared
