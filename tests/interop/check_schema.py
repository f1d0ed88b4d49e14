#!/usr/bin/env python3
"""Checks Kiln's .pte schema (src/schema/*.fbs) against the one the executorch
wheel ships: every table, enum and union with the same fields, in the same
order, of the same types. Field order is the wire format, so any difference
is a bug. Needs flatc and the venv (scripts/setup-venv.sh).

Usage: .venv/bin/python tests/interop/check_schema.py
"""
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def definitions(fbs: pathlib.Path) -> dict:
    """The JSON-schema definitions flatc derives from `fbs`, by type name."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(["flatc", "--jsonschema", "-o", out, str(fbs)], check=True)
        schema = json.loads((pathlib.Path(out) / (fbs.stem + ".schema.json")).read_text())
    return schema["definitions"]


def main() -> int:
    import executorch

    theirs_dir = pathlib.Path(list(executorch.__path__)[0]) / "schema"
    ours = definitions(ROOT / "src/schema/program.fbs")
    theirs = definitions(theirs_dir / "program.fbs")
    problems = []
    for name in sorted(set(ours) | set(theirs)):
        if name not in ours:
            problems.append(f"{name}: missing from Kiln's schema")
        elif name not in theirs:
            problems.append(f"{name}: not in the published schema")
        elif json.dumps(ours[name]) != json.dumps(theirs[name]):
            ours_fields = list(ours[name].get("properties", {}))
            theirs_fields = list(theirs[name].get("properties", {}))
            problems.append(f"{name}: differs\n  Kiln:      {ours_fields}\n  published: {theirs_fields}")
    for problem in problems:
        print(problem)
    print(f"{len(ours)} definitions compared: {'OK' if not problems else str(len(problems)) + ' differ'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
