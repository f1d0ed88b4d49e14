"""Kiln from Python: lower a ``torch.export`` program to a ``.pte`` and run it.

    import kiln, torch, torchvision
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 224, 224)
    ep = torch.export.export(model, (x,))
    lowered = kiln.lower(ep, backends=["OneDnnBackend"])
    method = kiln.load(lowered.buffer).load_method("forward")
    (y,) = method(x)

The work is done by the same C++ library the ``kiln`` tool runs (the
extension ``kiln._kiln``): an ExportedProgram is serialized with
``torch.export.save`` to memory and read by Kiln's own ``.pt2`` reader.
"""

from __future__ import annotations

import io
import json
import os
from typing import Any, Mapping, Sequence

from ._errors import InputError, KilnError
from ._llm import LanguageModel
from ._kiln import (  # noqa: F401
    ChatTemplate,
    CompareRow,
    Comparison,
    LoweredProgram,
    MemoryPlan,
    Method,
    MethodMetadata,
    Profile,
    ProfileRow,
    ProfileTotal,
    Program,
    TensorSpec,
    Tokenizer,
    __version__,
    compare,
    load,
    manual_seed,
    profile,
    registered_backends,
    set_threads,
)
from . import _kiln

__all__ = [
    "ChatTemplate",
    "CompareRow",
    "Comparison",
    "InputError",
    "KilnError",
    "LanguageModel",
    "LoweredProgram",
    "MemoryPlan",
    "Method",
    "MethodMetadata",
    "Profile",
    "ProfileRow",
    "ProfileTotal",
    "Program",
    "TensorSpec",
    "Tokenizer",
    "__version__",
    "compare",
    "load",
    "lower",
    "manual_seed",
    "profile",
    "registered_backends",
    "set_threads",
]


def _pt2_source(program: Any) -> str | bytes:
    """A .pt2 path or bytes as they are; a torch ExportedProgram as the bytes
    torch.export.save writes."""
    if isinstance(program, (str, bytes, os.PathLike)):
        return program
    if isinstance(program, (bytearray, memoryview)):
        return bytes(program)
    if hasattr(program, "graph_signature") and hasattr(program, "state_dict"):
        import torch  # an ExportedProgram implies torch is present

        buffer = io.BytesIO()
        torch.export.save(program, buffer)
        return buffer.getvalue()
    raise InputError(
        "expected a torch.export.ExportedProgram, a .pt2 path or a .pt2's bytes, "
        f"got {type(program).__name__}"
    )


def lower(
    program: Any,
    backends: Sequence[str] = (),
    *,
    model: str = "",
    debug_record: bool = False,
    fold_constants: bool = True,
    plan_inputs: bool = True,
    plan_outputs: bool = True,
    compile_specs: Mapping[str, Mapping[str, str | bytes]] | None = None,
    constant_methods: Mapping[str, Any] | None = None,
    kiln_ops: bool = True,
    quantize_activations: bool = False,
) -> LoweredProgram:
    """Lowers a program to a ``.pte``, as ``kiln lower`` does.

    program: a ``torch.export.ExportedProgram`` (training IR or after
        ``run_decompositions()``), a ``.pt2`` path, or a ``.pt2``'s bytes.
    backends: backend ids in priority order (``registered_backends()`` lists
        them; ``"OneDnnBackend"`` is the fast CPU one); each takes the nodes
        its partitioner accepts, the rest runs on the portable kernels.
    model: the program to read from a ``.pt2`` that holds several.
    debug_record: also build the debug record (for ``kiln.profile``,
        ``kiln.compare`` and ``LoweredProgram.save(..., debug_record=PATH)``).
    fold_constants: compute what depends on weights alone at lowering.
    plan_inputs / plan_outputs: place user inputs / outputs in the planned
        arenas (ExecuTorch's ``alloc_graph_input`` / ``alloc_graph_output``).
        With ``plan_inputs=False`` the runtime reads each input where the
        caller's array is, without a copy.
    compile_specs: per backend id, ``{key: str or bytes}`` for its preprocess.
    constant_methods: extra constant methods (name -> int, float, bool, str
        or a list of them), beside those the ``.pt2`` carries.
    kiln_ops: fuse a transformer's attention, norms, rotary embeddings,
        gated activations and linears on constant weights into Kiln's own
        ops, which Kiln's kernels run (``kiln lower`` does by default);
        ``False`` keeps ATen's ops, for ExecuTorch's runtime.
    quantize_activations: the linears of weight-only quantized programs
        quantize their activations to int8 per block of 32, as llama.cpp
        does: faster, further from PyTorch's numerics.

    Raises KilnError naming the node, the op and the reason when a step
    cannot go on (the message ``kiln lower`` prints).
    """
    constant_json = None if constant_methods is None else json.dumps(dict(constant_methods))
    return _kiln._lower(
        _pt2_source(program),
        list(backends),
        model,
        debug_record,
        fold_constants,
        plan_inputs,
        plan_outputs,
        dict(compile_specs or {}),
        constant_json,
        kiln_ops,
        quantize_activations,
    )
