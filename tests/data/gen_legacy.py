#!/usr/bin/env python3
"""Generate fixtures in the archive layouts of older torch releases (tests/data/fixtures/legacy/).

Run once under each old torch (PyPI wheels in venvs outside the repo, versions pinned in
tests/data/requirements-torch23.txt, -torch25.txt, -torch28.txt); every run rewrites only its
own fixtures/legacy/<torch version>/ folder and then rebuilds the shared
fixtures/legacy/manifest.json from the per-version manifests found there:

    python3 -m venv ~/.venvs/torch25
    ~/.venvs/torch25/bin/pip install -r tests/data/requirements-torch25.txt
    ~/.venvs/torch25/bin/python tests/data/gen_legacy.py   # torch 2.5.1: legacy zip
    ~/.venvs/torch28/bin/python tests/data/gen_legacy.py   # torch 2.8.0: PT2 archive, pickled weights
    ~/.venvs/torch23/bin/python tests/data/gen_legacy.py --small   # torch only: small models

Layouts (see /work/shared/reference/pt2-format.md §0, §1.5, §1.6):
    legacy_zip  torch 2.3-2.7: serialized_exported_program.json + serialized_state_dict.pt +
                serialized_constants.pt (torch.save zips inside the zip) + version
    pt2_pickle  torch 2.8: PT2 archive with data/weights/model.pt, data/constants/model.pt

For each model and dialect ("training" = torch.export.export, "core" = run_decompositions())
it writes <ver>/<model>/<dialect>/program.pt2, input_<k>.npy, output_<k>.npy (export_util.py,
shared with gen.py). For the MLP it also dumps every state-dict tensor as weight_<fqn>.npy so
a test can compare the bytes the importer extracts with what the old torch saved.

Models: the small ones (models_small.py, same seeds as gen.py, plus NoGradBlock) need only
torch; the families (models_families.py: GPT-2, LLaMA, BERT, ViT, MobileNetV3-small, the
configs of gen.py) need transformers and torchvision too; --small leaves them out.
MobileNetV3-small is built at width 0.25 with its first 5 blocks (every block kind, the same
ops) to keep fixtures/legacy small.
"""

import functools
import json
import os
import shutil
import sys

import torch
from torch import nn

import export_util
from export_util import layout_of
from models_small import MLP, ResNetSmall, SinCos, randn  # shared with gen.py

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "legacy")


# ----------------------------------------------------------------------------- models

class NoGradBlock(nn.Module):
    """torch.no_grad() inside forward: the training IR wraps that part in the HOP
    torch.ops.higher_order.wrap_with_set_grad_enabled."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        with torch.no_grad():
            z = torch.relu(y) * 2.0
        return z + x


# (name, module class, seed, inputs(generator) -> (args, kwargs), rtol = atol)
SMALL_MODELS = [
    ("mlp", MLP, 1, lambda g: ((randn(g, 4, 16),), {}), 1e-5),
    ("sincos", SinCos, 2, lambda g: ((randn(g, 10, 10), randn(g, 10, 10)), {}), 1e-5),
    ("resnet_small", ResNetSmall, 5, lambda g: ((randn(g, 2, 3, 32, 32),), {}), 1e-5),
    ("no_grad", NoGradBlock, 7, lambda g: ((randn(g, 4, 8),), {}), 1e-5),
]
WEIGHT_DUMP_MODELS = {"mlp"}


# ----------------------------------------------------------------------------- fixtures

def build(version_dir, spec, extra, family):
    """export_util.build into <version_dir>/, with each entry's torch version and archive
    layout plus `extra` (library versions, config notes); "ops" counts ATen ops inside
    higher-order-op subgraphs too (the importer inlines them). The families' node metadata is
    trimmed to what the importer reads (export_util.trim_node_metadata), to keep them small."""
    name = spec[0]

    def on_saved(entry, ep, path, out_dir):
        ops = dict(entry["ops"])
        for op, n in entry.pop("subgraph_ops", {}).items():
            ops[op] = ops.get(op, 0) + n
        entry["ops"] = dict(sorted(ops.items()))
        entry.update({"torch_version": torch.__version__, **extra, "layout": layout_of(path)})
        if name in WEIGHT_DUMP_MODELS and entry["dialect"] == "training":
            entry["weights"] = [
                {"name": fqn, **export_util.save_npy(os.path.join(out_dir, f"weight_{fqn}.npy"), t)}
                for fqn, t in ep.state_dict.items()]

    return export_util.build(*spec, ROOT, prefix=f"{version_dir}/", on_saved=on_saved,
                             trim_metadata=family)


def write_manifest():
    """legacy/manifest.json: the fixtures of every version folder's manifest.part.json."""
    fixtures = []
    for ver in sorted(os.listdir(ROOT)):
        part = os.path.join(ROOT, ver, "manifest.part.json")
        if os.path.isfile(part):
            with open(part, encoding="utf-8") as f:
                fixtures += json.load(f)
    export_util.write_manifest(ROOT, {"fixtures": fixtures})


def models(small_only):
    """(spec, extra entry keys, is a family) for SMALL_MODELS, then for the model families
    (gen.py's configs) unless small_only."""
    # torch 2.3's export refuses torch.no_grad() inside forward (no wrap_with_set_grad_enabled).
    old_torch = tuple(int(v) for v in torch.__version__.split("+")[0].split(".")[:2]) < (2, 4)
    out = [(spec, {}, False) for spec in SMALL_MODELS if not (old_torch and spec[0] == "no_grad")]
    if not small_only:
        import models_families  # needs transformers + torchvision in this venv

        for name, factory, *rest in models_families.MODELS:
            extra = dict(models_families.VERSIONS)
            if name == "mobilenet_v3_small":  # the same ops at a quarter of the size
                factory = functools.partial(factory, width_mult=0.25, blocks=5)
                extra["config"] = "width_mult=0.25, blocks=5"
            out.append(((name, factory, *rest), extra, True))
    return out


def main(argv):
    small_only = argv == ["--small"]
    if argv and not small_only:
        sys.exit("usage: gen_legacy.py [--small]   (--small: without the model families)")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    version_dir = torch.__version__.split("+")[0]
    vroot = os.path.join(ROOT, version_dir)
    if os.path.isdir(vroot):
        shutil.rmtree(vroot)
    os.makedirs(vroot)
    fixtures = []
    for spec, extra, family in models(small_only):
        fixtures += build(version_dir, spec, extra, family)
    with open(os.path.join(vroot, "manifest.part.json"), "w", encoding="utf-8") as f:
        json.dump(fixtures, f, indent=1)
    write_manifest()
    for e in fixtures:
        size = export_util.dir_size(os.path.join(ROOT, e["dir"])) / 1e6
        print(f"{e['model']:<18} {e['dialect']:<9} {e['layout']:<11} {size:5.2f} MB  "
              f"{', '.join(e['ops'])} {e.get('other_targets', '')}")
    print(f"wrote {vroot} ({export_util.dir_size(vroot) / 1e6:.2f} MB)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
