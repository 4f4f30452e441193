#!/usr/bin/env python3
"""Fixtures of the models in models_aten.py (issue 15: ops that stopped real imports, and
architectures beyond the first families) in both dialects, into fixtures/aten/ with its own
manifest.json (tests read it beside fixtures/manifest.json).

    ~/.venvs/torch/bin/python tests/data/gen_aten.py [NAME ...]

A model whose export fails is reported and left out. Each program.pt2 is re-stored with its
zip members deflated (the members themselves unchanged) to keep the fixtures small.
"""

import os
import shutil
import sys

import torch

import export_util
import gen
import models_aten

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from gen_conformance import restore_deflated  # noqa: E402

ROOT = os.path.join(gen.ROOT, "aten")


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    only = set(sys.argv[1:])
    if not only and os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT, exist_ok=True)
    fixtures = []
    manifest = os.path.join(ROOT, "manifest.json")
    if only and os.path.exists(manifest):
        import json
        with open(manifest) as f:
            fixtures = [e for e in json.load(f)["fixtures"] if e["model"] not in only]
    for spec in models_aten.MODELS:
        if only and spec[0] not in only:
            continue
        path = os.path.join(ROOT, spec[0])
        if os.path.isdir(path):
            shutil.rmtree(path)
        try:
            fixtures += export_util.build(*spec, ROOT, trim_metadata=True)
        except Exception as e:  # noqa: BLE001 - report and go on with the next model
            print(f"{spec[0]}: {type(e).__name__}: {str(e)[:300]}")
            if os.path.isdir(path):
                shutil.rmtree(path)
            continue
        for dialect in os.listdir(path):
            restore_deflated(os.path.join(path, dialect, "program.pt2"))
        size = export_util.dir_size(path)
        print(f"{spec[0]}: {size / 1e3:.0f} kB")
    fixtures.sort(key=lambda e: (e["model"], e["dialect"]))
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})


if __name__ == "__main__":
    sys.exit(main())
