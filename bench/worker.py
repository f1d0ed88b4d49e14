"""One peer runtime measured in a process of its own (bench.py starts one per
row, so each row's peak RSS is that runtime's alone).

    python worker.py RUNTIME MODEL_DIR --threads T --runs N --warmup W --output OUT.npz [--int8]

RUNTIME is eager (PyTorch), ort (ONNX Runtime), openvino (OpenVINO's CPU
plugin on the same ONNX model, float32) or executorch (ExecuTorch's runtime on
the XNNPACK-delegated .pte). MODEL_DIR holds what bench.py prepared: in.npz
(the inputs), state_dict.pt, model.onnx, executorch.pte. With --int8 the
int8 files instead: model.q8.onnx (ONNX Runtime's quantized model, which
OpenVINO reads too), executorch.q8.pte (run with ExecuTorch's quantized
kernels registered, for what XNNPACK did not take) and, for eager,
model.q8.pt2 (the PT2E-converted module, exported).
The last line printed is one JSON object: baseline_rss_kb (after the imports,
before the model is loaded), peak_rss_kb (the process's peak, VmHWM),
load_ms, first_ms (the first call: load_ms + first_ms is the time to a first
result), median_ms, min_ms, max_ms, runs.
The outputs of the last call go to OUT.npz as output_0, output_1, ...
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def status_kb(field):
    """A field of /proc/self/status in KiB: VmRSS (resident now) or VmHWM
    (this process's peak since it started; exec starts it afresh)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def artefact(model_dir, basename, int8):
    """The file a runtime reads: basename, or its .q8 twin for the int8 rows."""
    if int8:
        stem, extension = os.path.splitext(basename)
        basename = stem + ".q8" + extension
    return os.path.join(model_dir, basename)


def load_input(model_dir):
    with np.load(os.path.join(model_dir, "in.npz")) as archive:
        return [archive[f"arr_{i}"] for i in range(len(archive.files))]


def time_calls(call, runs, warmup):
    """Calls call() warmup times, then runs times timed; returns the timed
    calls' times in ms, the first call's time (warm-up or not) and the last
    call's result."""
    result, first_ms = None, None
    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        result = call()
        took = (time.perf_counter() - start) * 1e3
        first_ms = took if first_ms is None else first_ms
        if i >= warmup:
            times.append(took)
    return times, first_ms, result


# ------------------------------------------------------------------ runtimes
# Each returns (load_ms, call) where call() runs one forward pass and returns
# the outputs as a list of numpy arrays.


def load_eager(model_dir, threads, model_name, int8):
    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import models

    torch.set_num_threads(threads)
    inputs = [torch.from_numpy(a) for a in load_input(model_dir)]
    if int8:
        # The PT2E-converted module, as exported: its quantize and dequantize
        # ops run in float (torchao's import registers them).
        start = time.perf_counter()
        model = torch.export.load(artefact(model_dir, "model.pt2", int8)).module()
    else:
        model = models.build_empty(model_name)
        start = time.perf_counter()
        state = torch.load(os.path.join(model_dir, "state_dict.pt"), mmap=True, weights_only=True)
        model.load_state_dict(state, assign=True)
    load_ms = (time.perf_counter() - start) * 1e3

    def call():
        with torch.inference_mode():
            out = model(*inputs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        return [o.numpy() for o in outs]

    return load_ms, call


def load_ort(model_dir, threads, model_name, int8):
    import onnxruntime as ort

    inputs = load_input(model_dir)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    start = time.perf_counter()
    session = ort.InferenceSession(artefact(model_dir, "model.onnx", int8), options,
                                   providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - start) * 1e3
    feed = {i.name: a for i, a in zip(session.get_inputs(), inputs)}

    def call():
        return session.run(None, feed)

    return load_ms, call


def load_executorch(model_dir, threads, model_name, int8):
    import torch
    from executorch.extension.pybindings.portable_lib import _unsafe_reset_threadpool
    from executorch.runtime import Runtime

    # ExecuTorch's CPU threadpool (XNNPACK's and the optimized kernels') is a
    # process-wide singleton sized at first use; this resizes it.
    _unsafe_reset_threadpool(threads)
    inputs = [torch.from_numpy(a) for a in load_input(model_dir)]
    runtime = Runtime.get()
    start = time.perf_counter()
    program = runtime.load_program(artefact(model_dir, "executorch.pte", int8))
    method = program.load_method("forward")
    load_ms = (time.perf_counter() - start) * 1e3

    def call():
        return [o.numpy().copy() for o in method.execute(inputs)]

    return load_ms, call


def load_openvino(model_dir, threads, model_name, int8):
    import openvino as ov

    inputs = load_input(model_dir)
    core = ov.Core()
    start = time.perf_counter()
    compiled = core.compile_model(artefact(model_dir, "model.onnx", int8), "CPU", {
        "INFERENCE_NUM_THREADS": threads,
        "NUM_STREAMS": 1,
        "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_PRECISION_HINT": "f32",  # no bf16 on CPUs that have it: float32 as every other row
    })
    request = compiled.create_infer_request()
    load_ms = (time.perf_counter() - start) * 1e3

    def call():
        request.infer(inputs)
        return [request.get_output_tensor(i).data.copy() for i in range(len(compiled.outputs))]

    return load_ms, call


LOADERS = {"eager": load_eager, "ort": load_ort, "executorch": load_executorch, "openvino": load_openvino}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runtime", choices=sorted(LOADERS))
    parser.add_argument("model_dir")
    parser.add_argument("--model", required=True, help="model name (for eager: which module to build)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--output", required=True)
    parser.add_argument("--int8", action="store_true", help="run the int8 files (model.q8.onnx, executorch.q8.pte, "
                        "model.q8.pt2)")
    args = parser.parse_args()

    load = LOADERS[args.runtime]
    # The imports a runtime needs happen before the baseline is read.
    if args.runtime == "ort":
        import onnxruntime  # noqa: F401
    elif args.runtime == "executorch":
        import executorch.runtime  # noqa: F401
        if args.int8:
            import executorch.kernels.quantized  # noqa: F401 -- quantized kernels for what XNNPACK did not take
    elif args.runtime == "openvino":
        import openvino  # noqa: F401
    else:
        import torch  # noqa: F401
        if args.int8:
            import torchao.quantization.pt2e.quantize_pt2e  # noqa: F401 -- registers the quantized_decomposed ops
    baseline = status_kb("VmRSS")
    load_ms, call = load(args.model_dir, args.threads, args.model, args.int8)
    times, first_ms, outputs = time_calls(call, args.runs, args.warmup)
    np.savez(args.output, **{f"output_{i}": np.asarray(o) for i, o in enumerate(outputs)})
    print(json.dumps({
        "baseline_rss_kb": baseline,
        "peak_rss_kb": status_kb("VmHWM"),
        "load_ms": load_ms,
        "first_ms": first_ms,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "runs": len(times),
    }))


if __name__ == "__main__":
    main()
