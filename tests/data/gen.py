#!/usr/bin/env python3
"""Generate the committed test fixtures in tests/data/fixtures/ with real PyTorch.

Run from anywhere (needs the versions pinned in tests/data/requirements.txt):

    ~/.venvs/torch/bin/python tests/data/gen.py

For each model and each dialect ("training" = torch.export.export, "core" =
ep.run_decompositions()) it writes fixtures/<model>/<dialect>/:
    program.pt2       torch.export.save(ep, ...)
    input_<k>.npy     user inputs in graph-signature order (kwargs included)
    output_<k>.npy    eager outputs of the original module (tuple outputs flattened)
plus fixtures/bad/*.pt2 (corrupted copies of mlp/training for rejection tests) and
fixtures/manifest.json describing everything (names, shapes, tolerances, ATen op
counts read back from the saved models/model.json: "ops" for the top-level graph,
"subgraph_ops" for graphs nested in higher-order ops, "other_targets" for non-ATen
targets such as torch.ops.higher_order.wrap_with_set_grad_enabled).

Models: models_small.py (hand-written) and models_families.py (tiny HF transformers and
torchvision configurations). Inputs are float32 or int64 (token ids, attention masks).

The script is deterministic (fixed seeds) and idempotent: it rebuilds everything it owns
under fixtures/ (not legacy/ or dynamic/: gen_legacy.py, gen_dynamic.py). Every saved program is
reloaded with torch.export.load and checked against the eager outputs before anything is
recorded. bench/export_large.py reuses build() for the large benchmark models. The torch-only
part (export, reload check, .npy files, op counts) is export_util.py, shared with gen_legacy.py.
"""

import json
import logging
import os
import shutil
import struct
import sys
import zipfile

import numpy as np
import torch

import export_util
import models_families
import models_small
from export_util import dir_size, write_manifest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
ZIP_ALIGN = 64  # torch's PyTorchFileWriter aligns every record's data to 64 bytes

MODELS = models_small.MODELS + models_families.MODELS
UNSUPPORTED_MODEL_SUPPORTED_OPS = models_small.UNSUPPORTED_MODEL_SUPPORTED_OPS
SAVED_CHECKS = models_families.SAVED_CHECKS


# ----------------------------------------------------------------------------- fixtures

def build(name, cls, seed, make_inputs, tol, root=ROOT):
    """export_util.build plus this script's checks of each saved archive (SAVED_CHECKS) and
    the unsupported-op model's list of ops without a kernel."""
    def on_saved(entry, ep, path, out_dir):
        if name in SAVED_CHECKS:
            SAVED_CHECKS[name](export_util.read_archive_json(
                path, "data/weights/model_weights_config.json"))
        if name == "unsupported_op":
            entry["unsupported_ops"] = {k: v for k, v in entry["ops"].items()
                                        if k not in UNSUPPORTED_MODEL_SUPPORTED_OPS}

    return export_util.build(name, cls, seed, make_inputs, tol, root, on_saved=on_saved)


def write_zip(path, members):
    """Write members [(ZipInfo-like name, date_time, bytes)] ZIP_STORED, data 64-byte aligned
    the way torch's writer does it (an 'FB' extra field padded with 'Z')."""
    with open(path, "wb") as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        for name, date_time, data in members:
            info = zipfile.ZipInfo(name, date_time=date_time)
            info.compress_type = zipfile.ZIP_STORED
            start = f.tell() + 30 + len(name.encode()) + 4
            pad = -start % ZIP_ALIGN
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            z.writestr(info, data)


def rewrite(src, dst, edit):
    """Copy the archive src to dst, passing each (member, bytes) through edit();
    edit returns new bytes, or None to drop the member."""
    members = []
    with zipfile.ZipFile(src) as z:
        for info in z.infolist():
            data = edit(info.filename, z.read(info))
            if data is not None:
                members.append((info.filename, info.date_time, data))
    write_zip(dst, members)


def rel_member(name):
    return name.split("/", 1)[1]  # strip the archive's root folder


def make_bad(src):
    out_dir = os.path.join(ROOT, "bad")
    os.makedirs(out_dir)
    bad = []

    def emit(fname, expect):
        bad.append({"file": f"bad/{fname}", "expect": expect})
        return os.path.join(out_dir, fname)

    with open(emit("not_a_zip.pt2", "not a zip"), "wb") as f:
        f.write(b"this is a text file, not a torch.export archive\n")

    rewrite(src, emit("no_model.pt2", "models/model.json"),
            lambda n, d: None if rel_member(n).startswith("models/") else d)

    def bump_schema(n, d):
        if rel_member(n) != "models/model.json":
            return d
        doc = json.loads(d)
        doc["schema_version"]["major"] = 9
        return json.dumps(doc).encode()
    rewrite(src, emit("schema_major_9.pt2", "schema version 9"), bump_schema)

    rewrite(src, emit("short_weight.pt2", "weight_0"),
            lambda n, d: d[: len(d) // 2] if rel_member(n) == "data/weights/weight_0" else d)

    # Sanity: torch itself must reject each one (its fallback logs a warning; mute it).
    logging.getLogger("torch.export").setLevel(logging.CRITICAL)
    for b in bad:
        try:
            torch.export.load(os.path.join(ROOT, b["file"]))
        except Exception:  # noqa: BLE001 - any rejection is fine here
            continue
        raise AssertionError(f"torch.export.load accepted {b['file']}")
    return bad


def print_summary(fixtures, root):
    print(f"{'fixture':<20} {'dialect':<9} {'MB':>6}  ops")
    for e in fixtures:
        ops = ", ".join(f"{k}x{v}" if v > 1 else k for k, v in e["ops"].items())
        size = dir_size(os.path.join(root, e["dir"])) / 1e6
        print(f"{e['model']:<20} {e['dialect']:<9} {size:6.2f}  {ops}")
        if "subgraph_ops" in e:
            print(f"{'':<38} in subgraphs: {e['subgraph_ops']}")
        if "other_targets" in e:
            print(f"{'':<38} non-aten: {e['other_targets']}")


def versions():
    return {"torch_version": torch.__version__, "numpy_version": np.__version__,
            **models_families.VERSIONS}


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    os.makedirs(ROOT, exist_ok=True)
    # Remove only what this script writes: fixtures/legacy/ (gen_legacy.py) and
    # fixtures/dynamic/ (gen_dynamic.py) belong to other scripts.
    for entry in [spec[0] for spec in MODELS] + ["bad", "manifest.json"]:
        path = os.path.join(ROOT, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)

    fixtures = []
    for spec in MODELS:
        fixtures += build(*spec)
    bad = make_bad(os.path.join(ROOT, "mlp", "training", "program.pt2"))
    write_manifest(ROOT, {**versions(), "fixtures": fixtures, "bad": bad})

    print_summary(fixtures, ROOT)
    print(f"bad: {', '.join(b['file'] for b in bad)}")
    total = dir_size(ROOT)
    print(f"wrote {ROOT} ({total / 1e6:.2f} MB in all, other scripts' folders included)")


if __name__ == "__main__":
    sys.exit(main())
