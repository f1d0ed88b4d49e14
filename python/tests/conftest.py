"""Shared paths and helpers of the Python package's tests.

The fixtures are the repository's (tests/fixtures); the kiln tool, for tests
that check the package against it, is $KILN_BIN or build/bin/kiln.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def kiln_bin() -> str | None:
    candidate = os.environ.get("KILN_BIN") or str(ROOT / "build" / "bin" / "kiln")
    return candidate if Path(candidate).is_file() and os.access(candidate, os.X_OK) else shutil.which("kiln")


def read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


def positional(arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """arr_0, arr_1, ... in order."""
    return [arrays[f"arr_{i}"] for i in range(len(arrays))]


def assert_close(actual: np.ndarray, expected: np.ndarray, tolerance: float, what: str) -> None:
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    if actual.size == 0:
        return
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        return
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    scale = max(1.0, float(np.max(np.abs(expected))))
    error = float(np.max(np.abs(actual.astype(wide) - expected.astype(wide))))
    assert error <= tolerance * scale, f"{what}: max |error| {error:g} above {tolerance:g} x {scale:g}"


def pt2_fixtures() -> list[tuple[str, list[str]]]:
    """(name, cases) of every .pt2 fixture in the manifest."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    return [(entry["name"], entry["cases"]) for entry in manifest["fixtures"]]


def pte_fixtures() -> list[dict]:
    return json.loads((FIXTURES / "pte" / "manifest.json").read_text())["files"]


@pytest.fixture(scope="session")
def kiln_tool() -> str:
    path = kiln_bin()
    if path is None:
        pytest.skip("the kiln tool is not built (set KILN_BIN)")
    return path
