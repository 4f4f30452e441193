#!/usr/bin/env python3
"""Generate fixtures in the archive layouts of older torch releases (tests/data/fixtures/legacy/).

Run once under each old torch (CPU wheels from PyPI, see the venvs below); every run rewrites
only its own fixtures/legacy/<torch version>/ folder and then rebuilds the shared
fixtures/legacy/manifest.json from the per-version manifests found there:

    ~/.venvs/torch25/bin/python tests/data/gen_legacy.py   # torch 2.5.1: legacy zip
    ~/.venvs/torch28/bin/python tests/data/gen_legacy.py   # torch 2.8.0: PT2 archive, pickled weights

Layouts (see /work/shared/reference/pt2-format.md §0, §1.5, §1.6):
    legacy_zip  torch 2.3-2.7: serialized_exported_program.json + serialized_state_dict.pt +
                serialized_constants.pt (torch.save zips inside the zip) + version
    pt2_pickle  torch 2.8: PT2 archive with data/weights/model.pt, data/constants/model.pt

For each model and dialect ("training" = torch.export.export, "core" = run_decompositions())
it writes <ver>/<model>/<dialect>/program.pt2, input_<k>.npy, output_<k>.npy. For the MLP it
also dumps every state-dict tensor as weight_<fqn>.npy so a test can compare the bytes the
importer extracts with what the old torch saved. The models come from models_small.py (shared
with gen.py, same seeds); it imports nothing beyond torch, so it runs under old releases.
"""

import collections
import json
import os
import re
import shutil
import sys
import zipfile

import numpy as np
import torch
from torch import nn
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree as pytree

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "legacy")
DIALECTS = ("training", "core")


# ----------------------------------------------------------------------------- models

from models_small import MLP, ResNetSmall, SinCos, randn  # noqa: E402 (shared with gen.py)


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
MODELS = [
    ("mlp", MLP, 1, lambda g: ((randn(g, 4, 16),), {}), 1e-5),
    ("sincos", SinCos, 2, lambda g: ((randn(g, 10, 10), randn(g, 10, 10)), {}), 1e-5),
    ("resnet_small", ResNetSmall, 5, lambda g: ((randn(g, 2, 3, 32, 32),), {}), 1e-5),
    ("no_grad", NoGradBlock, 7, lambda g: ((randn(g, 4, 8),), {}), 1e-5),
]
WEIGHT_DUMP_MODELS = {"mlp"}


# ----------------------------------------------------------------------------- helpers

def layout_of(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    rel = {n.split("/", 1)[-1] for n in names} | set(names)
    if "serialized_exported_program.json" in rel:
        return "legacy_zip"
    if "data/weights/model.pt" in rel:
        return "pt2_pickle"
    return "pt2"


def read_program_json(path):
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            tail = n.split("/", 1)[-1]
            if n == "serialized_exported_program.json" or tail == "models/model.json":
                return json.loads(z.read(n))
    raise RuntimeError(f"{path}: no program JSON")


def op_name(target):
    if not target.startswith("torch.ops.aten."):
        return None
    name, overload = target[len("torch.ops.aten."):].rsplit(".", 1)
    return "aten::" + name + ("" if overload == "default" else "." + overload)


def count_ops(path):
    ops, other = collections.Counter(), collections.Counter()

    def walk(graph):
        for node in graph["nodes"]:
            name = op_name(node["target"])
            (ops if name else other)[name or node["target"]] += 1
            for arg in node["inputs"]:
                sub = arg.get("arg", {}).get("as_graph")
                if sub:
                    walk(sub["graph"])

    walk(read_program_json(path)["graph_module"]["graph"])
    return dict(sorted(ops.items())), dict(sorted(other.items()))


def save_npy(path, t):
    arr = t.detach().cpu().numpy()
    np.save(path, arr, allow_pickle=False)
    return {"file": os.path.basename(path), "dtype": str(arr.dtype), "shape": list(arr.shape)}


def clone_tree(tree):
    return pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, tree)


def check_close(got, want, tol, what):
    got, want = pytree.tree_leaves(got), pytree.tree_leaves(want)
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: output {i} shape/dtype"
        torch.testing.assert_close(g, w, rtol=tol, atol=tol, msg=f"{what}: output {i}")


# ----------------------------------------------------------------------------- fixtures

def build(version_dir, name, cls, seed, make_inputs, tol):
    torch.manual_seed(seed)
    module = cls().eval()
    args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    with torch.no_grad():
        eager = pytree.tree_leaves(module(*clone_tree(args), **clone_tree(kwargs)))
    flat_inputs = list(args) + list(kwargs.values())

    entries = []
    ep = torch.export.export(module, clone_tree(args), clone_tree(kwargs))
    for dialect in DIALECTS:
        if dialect == "core":
            ep = ep.run_decompositions()
        rel = f"{version_dir}/{name}/{dialect}"
        out_dir = os.path.join(ROOT, rel)
        os.makedirs(out_dir)
        path = os.path.join(out_dir, "program.pt2")
        for node in ep.graph.nodes:
            node.meta.pop("from_node", None)
        torch.export.save(ep, path)

        specs = ep.graph_signature.input_specs
        user_names = [s.arg.name for s in specs if s.kind == InputKind.USER_INPUT]
        assert len(user_names) == len(flat_inputs), (rel, user_names)
        n_user_out = sum(s.kind == OutputKind.USER_OUTPUT for s in ep.graph_signature.output_specs)
        assert n_user_out == len(eager), (rel, n_user_out, len(eager))

        loaded = torch.export.load(path).module()
        with torch.no_grad():
            check_close(loaded(*clone_tree(args), **clone_tree(kwargs)), eager, tol, rel)

        inputs = [{"name": n, **save_npy(os.path.join(out_dir, f"input_{k}.npy"), t)}
                  for k, (n, t) in enumerate(zip(user_names, flat_inputs))]
        outputs = [save_npy(os.path.join(out_dir, f"output_{k}.npy"), t)
                   for k, t in enumerate(eager)]
        ops, other = count_ops(path)
        entry = {"model": name, "dialect": dialect, "dir": "/".join(rel.split("/")),
                 "inputs": inputs, "outputs": outputs, "rtol": tol, "atol": tol, "ops": ops,
                 "torch_version": torch.__version__, "layout": layout_of(path)}
        if other:
            entry["other_targets"] = other
        if name in WEIGHT_DUMP_MODELS and dialect == "training":
            entry["weights"] = [{"name": fqn, **save_npy(os.path.join(out_dir, f"weight_{fqn}.npy"), t)}
                                for fqn, t in ep.state_dict.items()]
        entries.append(entry)
    return entries


def write_manifest():
    fixtures = []
    for ver in sorted(os.listdir(ROOT)):
        part = os.path.join(ROOT, ver, "manifest.part.json")
        if os.path.isfile(part):
            with open(part, encoding="utf-8") as f:
                fixtures += json.load(f)
    text = json.dumps({"fixtures": fixtures}, indent=1)
    text = re.sub(r"\[[\d,\s-]*\]", lambda m: "[" + ", ".join(re.findall(r"-?\d+", m.group(0))) + "]",
                  text)
    with open(os.path.join(ROOT, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    version_dir = torch.__version__.split("+")[0]
    vroot = os.path.join(ROOT, version_dir)
    if os.path.isdir(vroot):
        shutil.rmtree(vroot)
    os.makedirs(vroot)
    fixtures = []
    for spec in MODELS:
        fixtures += build(version_dir, *spec)
    with open(os.path.join(vroot, "manifest.part.json"), "w", encoding="utf-8") as f:
        json.dump(fixtures, f, indent=1)
    write_manifest()
    total = sum(os.path.getsize(os.path.join(d, n)) for d, _, files in os.walk(vroot) for n in files)
    for e in fixtures:
        print(f"{e['model']:<14} {e['dialect']:<9} {e['layout']:<11} "
              f"{', '.join(e['ops'])} {e.get('other_targets', '')}")
    print(f"wrote {vroot} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    sys.exit(main())
