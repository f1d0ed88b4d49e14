#!/usr/bin/env python3
"""Writes the ops torch.export's training IR can carry, and the op aliases torch
documents, from an installed torch:

  src/aot/ir/op_table/training_ir_ops.txt  one op a line, "<qualified name> <source>"
  src/aot/ir/op_table/aliases.def          KILN_ALIAS("aten::arccos.default", "aten::acos.default")

The training IR (torch.export.export without run_decompositions) keeps an op
as the model called it when torch.export.default_decompositions() holds a
decomposition for it: those keys are the first source, "decomposition". The
second, "core", is every other core ATen op (torch.Tag.core), which both IRs
keep. The third, "export", are ops export itself writes into the graph and leaves in
it, which no decomposition table names: found by really exporting the probe
modules below (each exercising one thing export records: a tensor literal, a
data-dependent scalar, a runtime check, a dtype conversion, a full slice, a
dynamic size) and small GPT-2 and Llama configs of transformers, and keeping
every call_function target that is an OpOverload and no key; and, for the
paths no probe takes (a runtime-assert pass, constant lifting), the ATen
overloads torch's export code itself names (torch/_export, torch/export). A test
(src/aot/passes/test/training_ir_ops_test.cpp) requires each op of the list to
have a kernel, a decomposition or a named refusal in Kiln.

The aliases are torch's word: a function whose docstring says "Alias for
:func:`torch.X`" (or "Alias of"), in torch, torch.special, torch.linalg and
torch.fft. Each pair becomes one row per overload the two ATen ops share with
the same arguments, returns and defaults, pointing from the op Kiln should not
need a kernel for to the one it should: the core ATen op if one is core, else
the op outside torch's special/linalg/fft namespaces, else the one torch's
docstring names. Rerun after a torch upgrade:

  .venv/bin/python tools/ops/generate_training_ir_ops.py
"""

import pathlib
import re
import warnings

import torch

OP_TABLE = pathlib.Path(__file__).resolve().parents[2] / "src" / "aot" / "ir" / "op_table"
OPS_OUT = OP_TABLE / "training_ir_ops.txt"
ALIASES_OUT = OP_TABLE / "aliases.def"


# ---- probes: one thing export records each ----

class TensorLiteral(torch.nn.Module):
    def forward(self, x):  # lift_fresh_copy: torch.tensor(...) inside forward
        return x * torch.tensor([1.0, 2.0, 3.0]) + torch.tensor(0.5)


class ScalarFromTensor(torch.nn.Module):
    def forward(self, x, n):  # _local_scalar_dense, sym_constrain_range_for_size, _assert_scalar
        k = n.item()
        torch._check(k >= 1)
        torch._check(k <= x.shape[0])
        m = n.item()
        torch._constrain_as_size(m, 0, 4)  # sym_constrain_range_for_size
        return x[:k].sum() + x.new_zeros(m).sum()


class DataDependentShape(torch.nn.Module):
    def forward(self, x):  # nonzero's unbacked size and the runtime asserts on it
        found = torch.nonzero(x > 0)
        return found.to(x.dtype).sum() + x.new_zeros(found.shape[0]).sum()


class DtypeConversion(torch.nn.Module):
    def forward(self, x):  # _assert_tensor_metadata before .to
        return x.to(torch.float64).to("cpu", torch.float32)


class FullSlice(torch.nn.Module):
    def forward(self, x):  # alias: a view that changes nothing
        return x[:, 0:, :] + x[...]


class DynamicSizes(torch.nn.Module):
    def forward(self, x):  # sym_size, sym_numel and guards on them
        return x.reshape(x.shape[0], -1) * x.numel()


class InPlaceState(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(4))

    def forward(self, x):  # copy_, index_put_, add_ on a buffer
        self.seen.add_(x.sum(0))
        y = x.clone()
        y[:, 0] = 0.0
        return y


def transformer_probes():
    """(name, module, args, kwargs) for small GPT-2 and Llama configs; none
    when transformers is missing."""
    try:
        import transformers
    except ImportError:
        return []
    transformers.logging.set_verbosity_error()
    gpt2 = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2)).eval()
    llama = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=16)).eval()
    ids = torch.randint(0, 64, (1, 6))
    kwargs = {"use_cache": False, "attention_mask": torch.ones(1, 6, dtype=torch.long)}
    return [("gpt2", gpt2, (ids,), kwargs), ("llama", llama, (ids,), kwargs)]


def probes():
    x = torch.randn(4, 3, 5)
    batch = torch.export.Dim("batch", min=2, max=8)
    yield "tensor_literal", TensorLiteral(), (torch.randn(2, 3),), {}, None
    yield "scalar_from_tensor", ScalarFromTensor(), (torch.randn(4, 3), torch.tensor(2)), {}, None
    yield "data_dependent_shape", DataDependentShape(), (torch.randn(5),), {}, None
    yield "dtype_conversion", DtypeConversion(), (torch.randn(2, 3),), {}, None
    yield "full_slice", FullSlice(), (x,), {}, None
    yield "dynamic_sizes", DynamicSizes(), (x,), {}, ({0: batch},)
    yield "in_place_state", InPlaceState(), (torch.randn(3, 4),), {}, None
    for name, module, args, kwargs in transformer_probes():
        yield name, module, args, kwargs, None


def core_ops():
    """Every core ATen overload (torch.Tag.core): the training IR keeps those as called."""
    for name in torch._C._dispatch_get_all_op_names():
        namespace, _, rest = name.partition("::")
        if namespace != "aten":
            continue
        op_name, _, overload = rest.partition(".")
        op = getattr(getattr(torch.ops.aten, op_name), overload or "default")
        if torch.Tag.core in op.tags:
            yield op


# ATen overloads as torch's own export code names them: torch.ops.aten.<op>.<overload>.
EXPORT_CODE = ("_export", "export")
ATEN_REFERENCE = re.compile(r"\baten\.(\w+)\.(\w+)")


def ops_export_code_names():
    """qualified name -> the files of torch's export code that name it (the
    TorchScript converter, _export/converter.py, is another path: left out)."""
    root = pathlib.Path(torch.__file__).parent
    found = {}
    for folder in EXPORT_CODE:
        for path in sorted((root / folder).rglob("*.py")):
            if path.name == "converter.py":
                continue
            for match in ATEN_REFERENCE.finditer(path.read_text()):
                name, overload = match.groups()
                packet = aten_packet(name)
                if packet is not None and overload in packet.overloads():
                    found.setdefault(qualified(getattr(packet, overload)), set()).add(
                        "torch/" + str(path.relative_to(root)))
    return found


def qualified(op):
    """"aten::add.Tensor" for torch.ops.aten.add.Tensor."""
    schema = op._schema
    return f"{schema.name}.{schema.overload_name or 'default'}"


def exported_ops():
    """qualified name -> the probes whose training IR calls it."""
    found = {}
    for name, module, args, kwargs, dynamic_shapes in probes():
        program = torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes)
        for node in program.graph.nodes:
            if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                found.setdefault(qualified(node.target), set()).add(name)
    return found


# ---- aliases ----

# Python namespace -> the prefix of its functions' ATen names.
ALIAS_NAMESPACES = {"torch": "", "torch.special": "special_", "torch.linalg": "linalg_", "torch.fft": "fft_"}
ALIAS_DOC = re.compile(r"Alias (?:for|of) :func:`torch\.(?:(special|linalg|fft)\.)?(\w+)`")


def documented_aliases():
    """(alias ATen name, canonical ATen name) as torch's docstrings state them."""
    pairs = set()
    for module_name, prefix in ALIAS_NAMESPACES.items():
        module = eval(module_name)  # noqa: S307 - a fixed module path
        for name in dir(module):
            doc = getattr(getattr(module, name, None), "__doc__", None)
            match = ALIAS_DOC.search(doc) if isinstance(doc, str) else None
            if match:
                target_prefix = "" if match.group(1) is None else match.group(1) + "_"
                pairs.add((prefix + name, target_prefix + match.group(2)))
    return sorted(pairs)


def aten_packet(name):
    return getattr(torch.ops.aten, name, None) if hasattr(torch.ops.aten, name) else None


def same_call(a, b):
    """Whether two schemas take and return the same things (argument names included:
    a call's kwargs carry over)."""
    def args(schema):
        return [(x.name, str(x.type), x.kwarg_only, repr(x.default_value)) for x in schema.arguments]
    return args(a) == args(b) and [str(r.type) for r in a.returns] == [str(r.type) for r in b.returns]


def namespaced(name):
    return name.startswith(("special_", "linalg_", "fft_"))


def alias_rows():
    """(from, to) qualified overload names, directed as the module docstring says."""
    rows = []
    for alias, canonical in documented_aliases():
        a, c = aten_packet(alias), aten_packet(canonical)
        if a is None or c is None:
            continue
        for overload in a.overloads():
            if overload not in c.overloads():
                continue
            op_a, op_c = getattr(a, overload), getattr(c, overload)
            # An out overload runs as its functional op: only those are rewritten.
            if any(x.is_out for x in op_a._schema.arguments) or not same_call(op_a._schema, op_c._schema):
                continue
            core_a, core_c = torch.Tag.core in op_a.tags, torch.Tag.core in op_c.tags
            if core_a != core_c:
                forward = core_c
            elif namespaced(alias) != namespaced(canonical):
                forward = namespaced(alias)
            else:
                forward = True
            pair = (qualified(op_a), qualified(op_c))
            rows.append(pair if forward else pair[::-1])
    # special_psi -> special_digamma -> digamma: each straight to the end of its chain.
    target = dict(rows)
    def end(op):
        while op in target:
            op = target[op]
        return op
    return sorted({(a, end(b)) for a, b in rows})


ALIASES_HEADER = """\
// Ops torch documents as aliases of one another ("Alias for :func:`torch.X`"),
// one row per shared overload with the same arguments, returns and defaults:
//
//   KILN_ALIAS("op Kiln rewrites", "op it becomes")
//
// Generated by tools/ops/generate_training_ir_ops.py from torch {version};
// rerun it, do not edit this file. Include it with KILN_ALIAS defined.
"""

OPS_HEADER = """\
# The ops torch.export's training IR can carry (torch {version}), one a line:
#   <qualified op name> <source>
# source: "decomposition" (a key of torch.export.default_decompositions()), "core"
# (another core ATen op, torch.Tag.core) or "export" (an op export writes and
# leaves; the probe programs that call it follow).
# Generated by tools/ops/generate_training_ir_ops.py; rerun it, do not edit.
# src/aot/passes/test/training_ir_ops_test.cpp requires each to run or be refused by name.
"""


def main():
    torch.manual_seed(0)
    version = torch.__version__.split("+")[0]
    keys = {qualified(k) for k in torch.export.default_decompositions()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = exported_ops()
    core = {qualified(op) for op in core_ops()} - keys
    lines = [f"{op} decomposition" for op in sorted(keys)]
    lines += [f"{op} core" for op in sorted(core)]
    for op, files in ops_export_code_names().items():
        found.setdefault(op, set()).update(files)
    left = {op: where for op, where in found.items() if op not in keys and op not in core}
    lines += [f"{op} export {','.join(sorted(left[op]))}" for op in sorted(left)]
    OPS_OUT.write_text(OPS_HEADER.format(version=version) + "\n".join(lines) + "\n")
    aliases = alias_rows()
    text = ALIASES_HEADER.format(version=version)
    text += "".join(f'KILN_ALIAS("{a}", "{b}")\n' for a, b in aliases)
    ALIASES_OUT.write_text(text)
    print(f"wrote {OPS_OUT}: {len(keys)} decomposition keys, {len(left)} ops left by export "
          f"({', '.join(sorted(left))}); {ALIASES_OUT}: {len(aliases)} aliases")


if __name__ == "__main__":
    main()
