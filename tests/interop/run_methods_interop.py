#!/usr/bin/env python3
"""Several methods in one .pte, on both runtimes: Kiln's multi-method .pte read by ExecuTorch's
runtime, and ExecuTorch's read by Kiln's.

Two small programs are exported into a temporary directory: `forward`, a key/value cache written at
the given positions (a mutated buffer), and `decode`, a linear layer and a softmax. The main .pt2
carries constant methods in its extra file kiln/constant_methods.json (as tools/llm/export.py saves
them) and a JSON file adds more, so that every kind of value is there (int, float, bool, string,
lists of ints, floats, bools and strings, an empty list).
  Kiln's .pte:  `kiln lower forward.pt2 --method decode=decode.pt2 --constant-methods extra.json -o`
  ET's .pte:    to_edge({"forward": ..., "decode": ...}, constant_methods=<the same values>)
                .to_executorch()
Each .pte then runs on both runtimes: ExecuTorch's (`executorch.runtime`: method_names, each
constant method's execute([]), forward and decode on inputs) and Kiln's (`kiln inspect`, which must
list every method with its value, and `kiln run --method NAME`, constants and programs). A
constant must read back as written (a list as one value per item, as ExecuTorch writes it), a
program method must give PyTorch's result (1e-5 of the output's scale), and each of Kiln's constant
plans must equal ExecuTorch's (values, outputs, chains, output spec).

Prints one markdown table (a row per method, a column per .pte and runtime) and every failure;
exits 1 if any. Not part of the default test suite (it needs the Python venv). Run:
  .venv/bin/python tests/interop/run_methods_interop.py [--kiln build/bin/kiln] [--keep DIR]
"""

import argparse
import ast
import copy
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
from pte_facts import read_program  # noqa: E402

TOLERANCE = 1e-5
ARCHIVE_CONSTANTS = {"get_max_seq_len": 8, "get_eos_ids": [2, 7], "use_kv_cache": True,
                     "enable_dynamic_shape": False, "get_vocab_size": 16}
FILE_CONSTANTS = {"get_temperature": 0.75, "get_name": "kv-toy", "get_scales": [0.25, -1.5],
                  "get_flags": [True, False], "get_words": ["<s>", "</s>"], "get_nothing": [], "get_prefix": "",
                  "get_vocab_size": 32}  # replaces the archive's
CONSTANTS = {**ARCHIVE_CONSTANTS, **FILE_CONSTANTS}


class Cache(torch.nn.Module):
    """A key/value cache in a buffer, written at the given positions; returns its sum over time."""

    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 8, 4))
        self.project = torch.nn.Linear(4, 4)

    def forward(self, x, positions):
        self.cache.index_copy_(1, positions, self.project(x))
        return self.cache.sum(1)


class Decode(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 16)

    def forward(self, h):
        return torch.softmax(self.head(h), dim=-1)


def export(workdir):
    """Exports both programs (the buffer as it starts) and records PyTorch's results of one call."""
    torch.manual_seed(0)
    cache, decode = Cache().eval(), Decode().eval()
    for parameter in [*cache.parameters(), *decode.parameters()]:
        parameter.requires_grad_(False)  # ExecuTorch refuses the cache's in-place write otherwise
    x, positions, h = torch.randn(1, 2, 4), torch.tensor([1, 5]), torch.randn(3, 4)
    programs = {"forward": torch.export.export(copy.deepcopy(cache), (x, positions)),
                "decode": torch.export.export(decode, (h,))}
    torch.export.save(programs["forward"], workdir / "forward.pt2",
                      extra_files={"kiln/constant_methods.json": json.dumps(ARCHIVE_CONSTANTS)})
    torch.export.save(programs["decode"], workdir / "decode.pt2")
    (workdir / "extra.json").write_text(json.dumps(FILE_CONSTANTS))
    with torch.no_grad():
        expected = {"forward": cache(x, positions), "decode": decode(h)}
    inputs = {"forward": [x, positions], "decode": [h]}
    return programs, inputs, expected


def kiln_pte(kiln, workdir):
    out = workdir / "kiln.pte"
    subprocess.run([str(kiln), "lower", str(workdir / "forward.pt2"), "--method",
                    f"decode={workdir / 'decode.pt2'}", "--constant-methods", str(workdir / "extra.json"),
                    "--no-kiln-ops", "-o", str(out)], check=True, capture_output=True, text=True)
    return out


def et_pte(programs, workdir):
    from executorch.exir import to_edge

    out = workdir / "et.pte"
    out.write_bytes(to_edge(programs, constant_methods=CONSTANTS).to_executorch().buffer)
    return out


def flat(value):
    return value if isinstance(value, list) else [value]


def close(want, got):
    scale = max(1.0, float(want.abs().max()))
    return float((want - got.to(want.dtype)).abs().max()) / scale <= TOLERANCE


# ---------------------------------------------------------------- the runtimes


def on_executorch(pte, inputs, expected):
    """method -> 'ok' or why not, on ExecuTorch's runtime."""
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(str(pte))
    names = set(program.method_names)
    results = {}
    for name in ["forward", "decode", *CONSTANTS]:
        if name not in names:
            results[name] = "missing"
            continue
        try:
            got = program.load_method(name).execute(inputs[name] if name in inputs else [])
        except Exception as error:  # noqa: BLE001 - any failure is a row's result
            results[name] = f"fails: {str(error).splitlines()[0]}"
            continue
        if name in expected:
            results[name] = "ok" if close(expected[name], got[0]) else f"differs from PyTorch: {got[0]}"
        else:
            results[name] = "ok" if list(got) == flat(CONSTANTS[name]) else f"reads {list(got)}"
    extra = names - set(results)
    if extra:
        results["(other methods)"] = f"unexpected: {sorted(extra)}"
    return results


OUTPUT_LINE = re.compile(r"^output_(\d+): (.*)$", re.M)
METHOD_LINE = re.compile(r"^  (\S+): constant (.*)$", re.M)


def on_kiln(kiln, pte, inputs, expected, workdir):
    """method -> 'ok' or why not, on Kiln's runtime (kiln inspect, then kiln run --method)."""
    results = {}
    listed = subprocess.run([str(kiln), "inspect", str(pte)], capture_output=True, text=True)
    if listed.returncode != 0:
        return {"(inspect)": f"kiln inspect exited {listed.returncode}: {listed.stderr.strip()}"}
    values = dict(METHOD_LINE.findall(listed.stdout.split("\n\n")[0]))
    for name in ["forward", "decode", *CONSTANTS]:
        command = [str(kiln), "run", str(pte), "--method", name]
        if name in inputs:
            np.savez(workdir / f"{name}.inputs.npz", *[t.numpy() for t in inputs[name]])
            command += ["--inputs", str(workdir / f"{name}.inputs.npz"), "--output",
                        str(workdir / f"{name}.kiln.npz")]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            results[name] = f"kiln run exited {done.returncode}: {done.stderr.strip().splitlines()[0]}"
            continue
        if name in expected:
            with np.load(workdir / f"{name}.kiln.npz") as data:
                got = torch.from_numpy(data["output_0"])
            results[name] = "ok" if close(expected[name], got) else "differs from PyTorch"
            continue
        got = [ast.literal_eval(text) for _, text in sorted(OUTPUT_LINE.findall(done.stdout),
                                                             key=lambda m: int(m[0]))]
        want = CONSTANTS[name]
        shown = values.get(name)
        if got != flat(want):
            results[name] = f"kiln run reads {got}"
        elif shown is None or json.loads(shown) != want:
            results[name] = f"kiln inspect shows {shown}"
        else:
            results[name] = "ok"
    return results


def plans_equal(kiln, et):
    """method -> 'same' or what differs, for each constant method of the two files."""
    ours = {plan.name: plan for plan in read_program(kiln.read_bytes()).execution_plan}
    theirs = {plan.name: plan for plan in read_program(et.read_bytes()).execution_plan}
    results = {}
    for name in CONSTANTS:
        a, b = ours.get(name), theirs.get(name)
        if a is None or b is None:
            results[name] = "missing"
            continue
        fields = ("values", "inputs", "outputs", "chains", "operators", "delegates", "non_const_buffer_sizes",
                  "container_meta_type")
        differs = [f for f in fields if getattr(a, f) != getattr(b, f)]
        results[name] = "same" if not differs else "differs: " + ", ".join(differs)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kiln", default=str(ROOT / "build" / "bin" / "kiln"))
    parser.add_argument("--keep", help="write the files into this directory and keep them")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        workdir = pathlib.Path(arguments.keep or temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        programs, inputs, expected = export(workdir)
        kiln_file, et_file = kiln_pte(arguments.kiln, workdir), et_pte(programs, workdir)
        columns = {
            "Kiln .pte on ExecuTorch": on_executorch(kiln_file, inputs, expected),
            "Kiln .pte on Kiln": on_kiln(arguments.kiln, kiln_file, inputs, expected, workdir),
            "ET .pte on Kiln": on_kiln(arguments.kiln, et_file, inputs, expected, workdir),
            "ET .pte on ExecuTorch": on_executorch(et_file, inputs, expected),
            "constant plan Kiln = ET": plans_equal(kiln_file, et_file),
        }
    rows = sorted({name for column in columns.values() for name in column},
                  key=lambda n: (n not in ("forward", "decode"), n))
    print("| method | value | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    failures = []
    for name in rows:
        value = "program" if name in ("forward", "decode") else json.dumps(CONSTANTS.get(name))
        cells = []
        for title, column in columns.items():
            cell = column.get(name, "")
            cells.append(cell)
            if cell not in ("ok", "same", ""):
                failures.append(f"{name}, {title}: {cell}")
        print(f"| {name} | {value} | " + " | ".join(cells) + " |")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{len(rows)} methods, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
