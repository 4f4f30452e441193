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
counts read back from the saved models/model.json).

The script is deterministic (fixed seeds) and idempotent: it rebuilds the whole
fixtures/ folder. Every saved program is reloaded with torch.export.load and
checked against the eager outputs before anything is recorded.
"""

import collections
import json
import logging
import os
import re
import shutil
import struct
import sys
import zipfile

import numpy as np
import torch
from torch import nn
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree as pytree

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DIALECTS = ("training", "core")
ZIP_ALIGN = 64  # torch's PyTorchFileWriter aligns every record's data to 64 bytes


# ----------------------------------------------------------------------------- models

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class SinCos(nn.Module):  # torch.export tutorial, first example
    def forward(self, x, y):
        return torch.sin(x) + torch.cos(y)


class ConvModule(nn.Module):  # torch.export tutorial, in-place add of a kwarg
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3)

    def forward(self, x, constant=None):
        a = self.conv(x)
        a.add_(constant)
        return self.maxpool(self.relu(a))


class Branches(nn.Module):  # torch.export tutorial's two-branch model, buffer registered
    def __init__(self):
        super().__init__()
        self.branch1 = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
        self.branch2 = nn.Sequential(nn.Linear(128, 64), nn.ReLU())
        self.register_buffer("buffer", torch.ones(32))

    def forward(self, x1, x2):
        out1 = self.branch1(x1)
        out2 = self.branch2(x2)
        return (out1 + self.buffer, out2)


def conv3x3(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = conv3x3(cin, cout, stride)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(cout, cout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNetSmall(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = conv3x3(3, 8)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, num_classes)
        with torch.no_grad():  # non-trivial eval-mode batch-norm statistics
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.5, 0.5)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


class UnsupportedOp(nn.Module):  # ops with no planned kernel: erfinv (twice), lgamma
    def forward(self, x):
        return torch.special.erfinv(x) + torch.special.erfinv(x * 0.5) + torch.lgamma(x)


def randn(gen, *shape):
    return torch.randn(*shape, generator=gen)


# (name, module class, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("mlp", MLP, 1, lambda g: ((randn(g, 4, 16),), {}), 1e-5),
    ("sincos", SinCos, 2, lambda g: ((randn(g, 10, 10), randn(g, 10, 10)), {}), 1e-5),
    ("conv_constant", ConvModule, 3,
     lambda g: ((randn(g, 1, 3, 32, 32),), {"constant": randn(g, 1, 16, 32, 32)}), 1e-5),
    ("branches", Branches, 4, lambda g: ((randn(g, 8, 64), randn(g, 8, 128)), {}), 1e-5),
    ("resnet_small", ResNetSmall, 5, lambda g: ((randn(g, 2, 3, 32, 32),), {}), 1e-5),
    ("unsupported_op", UnsupportedOp, 6,
     lambda g: ((torch.rand(3, 5, generator=g) * 0.9 + 0.05,), {}), 1e-5),
]
# Ops of unsupported_op that kernels do exist for; everything else is "unsupported".
UNSUPPORTED_MODEL_SUPPORTED_OPS = {"aten::add.Tensor", "aten::mul.Tensor"}


# ----------------------------------------------------------------------------- helpers

def op_name(target):
    """'torch.ops.aten.add.Tensor' -> 'aten::add.Tensor'; '...linear.default' -> 'aten::linear'."""
    if not target.startswith("torch.ops.aten."):
        return None
    name, overload = target[len("torch.ops.aten."):].rsplit(".", 1)
    return "aten::" + name + ("" if overload == "default" else "." + overload)


def read_model_json(path):
    with zipfile.ZipFile(path) as z:
        member = next(n for n in z.namelist() if n.split("/", 1)[-1] == "models/model.json")
        return json.loads(z.read(member))


def count_ops(path):
    """ATen op counts (and any non-ATen targets) in the saved graph."""
    graph = read_model_json(path)["graph_module"]["graph"]
    ops, other = collections.Counter(), collections.Counter()
    for node in graph["nodes"]:
        name = op_name(node["target"])
        (ops if name else other)[name or node["target"]] += 1
    return dict(sorted(ops.items())), dict(sorted(other.items()))


def save_npy(path, t):
    arr = t.detach().cpu().numpy()
    assert arr.dtype == np.float32, (path, arr.dtype)
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

def build(name, cls, seed, make_inputs, tol):
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
        rel = f"{name}/{dialect}"
        out_dir = os.path.join(ROOT, rel)
        os.makedirs(out_dir)
        path = os.path.join(out_dir, "program.pt2")
        for node in ep.graph.nodes:  # provenance holding id(graph) values: not reproducible
            node.meta.pop("from_node", None)
        torch.export.save(ep, path)

        specs = ep.graph_signature.input_specs
        user_names = [s.arg.name for s in specs if s.kind == InputKind.USER_INPUT]
        assert len(user_names) == len(flat_inputs), (rel, user_names)
        for kw, got in zip(kwargs, user_names[len(args):]):
            assert kw == got, f"{rel}: kwarg {kw} appears as user input {got}"
        n_user_out = sum(s.kind == OutputKind.USER_OUTPUT for s in ep.graph_signature.output_specs)
        assert n_user_out == len(eager), (rel, n_user_out, len(eager))

        loaded = torch.export.load(path).module()
        with torch.no_grad():
            check_close(loaded(*clone_tree(args), **clone_tree(kwargs)), eager, tol, rel)

        inputs = []
        for k, (in_name, t) in enumerate(zip(user_names, flat_inputs)):
            inputs.append({"name": in_name, **save_npy(os.path.join(out_dir, f"input_{k}.npy"), t)})
        outputs = [save_npy(os.path.join(out_dir, f"output_{k}.npy"), t)
                   for k, t in enumerate(eager)]
        ops, other = count_ops(path)
        entry = {"model": name, "dialect": dialect, "dir": rel, "inputs": inputs,
                 "outputs": outputs, "rtol": tol, "atol": tol, "ops": ops}
        if other:
            entry["other_targets"] = other
        if name == "unsupported_op":
            entry["unsupported_ops"] = {k: v for k, v in ops.items()
                                        if k not in UNSUPPORTED_MODEL_SUPPORTED_OPS}
        entries.append(entry)
    return entries


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


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)

    fixtures = []
    for spec in MODELS:
        fixtures += build(*spec)
    bad = make_bad(os.path.join(ROOT, "mlp", "training", "program.pt2"))

    manifest = {"torch_version": torch.__version__, "numpy_version": np.__version__,
                "fixtures": fixtures, "bad": bad}
    text = json.dumps(manifest, indent=1)
    text = re.sub(r"\[[\d,\s-]*\]", lambda m: "[" + ", ".join(re.findall(r"-?\d+", m.group(0))) + "]",
                  text)  # keep shapes on one line
    with open(os.path.join(ROOT, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")

    total = sum(os.path.getsize(os.path.join(d, n))
                for d, _, files in os.walk(ROOT) for n in files)
    print(f"{'fixture':<16} {'dialect':<9} ops")
    for e in fixtures:
        ops = ", ".join(f"{k}x{v}" if v > 1 else k for k, v in e["ops"].items())
        print(f"{e['model']:<16} {e['dialect']:<9} {ops}")
        if "other_targets" in e:
            print(f"{'':<26} non-aten: {e['other_targets']}")
    print(f"bad: {', '.join(b['file'] for b in bad)}")
    print(f"wrote {ROOT} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    sys.exit(main())
