#!/usr/bin/env python3
"""Fails naming each public name of the `tir` module (module attributes and the members of
its classes) that docs/reference/python-api.md does not mention as `name`.

usage: python_api_covered.py SOURCE_ROOT   (with the built module on PYTHONPATH)
"""
import pathlib
import sys

import tir

page = (pathlib.Path(sys.argv[1]) / "docs" / "reference" / "python-api.md").read_text(encoding="utf-8")
missing = []
for name in sorted(n for n in dir(tir) if not n.startswith("_") or n == "__version__"):
    if f"tir.{name}" not in page:
        missing.append(f"tir.{name}")
    obj = getattr(tir, name)
    if isinstance(obj, type) and obj is not tir.Error:
        for member in sorted(m for m in vars(obj) if not m.startswith("_")):
            if f"`{member}" not in page and f"{member}(" not in page:
                missing.append(f"tir.{name}.{member}")
if missing:
    print("docs/reference/python-api.md does not document:", ", ".join(missing))
    sys.exit(1)
print("every public name of tir is documented")
