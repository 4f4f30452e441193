#!/usr/bin/env python3
"""Generate the dynamic-shape fixtures in tests/data/fixtures/dynamic/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_dynamic.py [MODEL ...]   # all, or only these

Each model is exported with torch.export Dims (both dialects) and run eagerly at several
shapes per symbol, including each symbol's min and max as torch.export records them
(range_constraints; torch raises a requested min of 0 or 1 to 2 unless told otherwise).
Layout: dynamic/<model>/<dialect>/program.pt2 and case_<c>_input_<k>.npy /
case_<c>_output_<k>.npy, described by dynamic/manifest.json (cases, range constraints).
"""

import json
import os
import shutil
import sys
import zipfile

import numpy as np
import torch
from torch.export import Dim
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils import _pytree as pytree

import models_families
import models_small
import models_spectral

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "dynamic")


class SeqMultipleOf8(torch.nn.Module):
    """Sequence length must be 8*n: a per-token linear plus a view into blocks of 8."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        b, length, d = x.shape
        blocks = x.view(b, length // 8, 8 * d)
        return torch.relu(self.fc(x)), blocks.sum(-1)


class MlpWithAssert(models_small.MLP):
    """The MLP with a runtime check that export keeps as an _assert_scalar node."""

    def forward(self, x):
        torch._check(x.shape[0] != 3)
        return super().forward(x)


class SliceByCount(torch.nn.Module):
    """An int (SymInt) user input: the first n rows, and arange(n) shifted by the batch."""

    def forward(self, x, n: int):
        return x[:n] * 2, torch.arange(n) + x.shape[0]


def randn(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def token_ids(batch, seq):
    return (models_families.token_ids(torch.Generator().manual_seed(100 * batch + seq), batch, seq),)


# Tolerance per model (default 1e-5): the transformers match torch to 1e-4, as in gen.py.
TOLERANCE = {"gpt2_dyn": 1e-4, "llama_dyn": 1e-4}


# name -> (module class, seed, example args, dynamic_shapes, export kwargs,
#          {symbol role: values to test}, make_args(values))
def specs():
    batch = Dim("batch", min=2, max=8)
    return {
        "branches_dyn": (
            models_small.Branches, 4, (randn(1, 8, 64), randn(2, 8, 128)),
            {"x1": {0: Dim("batch")}, "x2": {0: Dim("batch")}}, {},
            [2, 5, 17], lambda b: (randn(b, b, 64), randn(b + 1, b, 128))),
        "seq8": (
            SeqMultipleOf8, 7, (randn(3, 2, 16, 16),),
            {"x": {1: 8 * Dim("n", min=1, max=64)}}, {},
            [2, 5, 64], lambda n: (randn(n, 2, 8 * n, 16),)),
        "resnet_dyn": (
            models_small.ResNetSmall, 5, (randn(4, 2, 3, 32, 32),),
            {"x": {0: Dim("batch", min=1, max=16)}}, {},
            [1, 3, 16], lambda b: (randn(b, b, 3, 32, 32),)),
        "mlp_range": (
            models_small.MLP, 1, (randn(5, 4, 16),), {"x": {0: batch}}, {},
            [2, 5, 8], lambda b: (randn(b, b, 16),)),
        "mlp_assert": (
            MlpWithAssert, 1, (randn(6, 4, 16),), {"x": {0: batch}},
            {"prefer_deferred_runtime_asserts_over_guards": True},
            [2, 4, 8], lambda b: (randn(b + 10, b, 16),)),
        # torch.cond on batch > 4, a data-dependent cond nested in its false branch: the sizes
        # and shifts reach all three paths (each case records them as "branches").
        "cond_dim": (
            models_small.CondOnDim, 9, (randn(6, 6, 8),),
            {"x": {0: Dim("batch", min=1, max=16)}}, {},
            [1, 3, 4, 5, 16], lambda b: (randn(b, b, 8) + (1 if b == 3 else -1),)),
        # n is a SymInt input (saved as a 0-dim int64 .npy); cases keep n <= batch, the guard
        # torch records in guards_code (not checked by tir).
        "symint_input": (
            SliceByCount, 8, (randn(3, 6, 3), 4),
            {"x": {0: Dim("batch", min=2, max=16)}, "n": Dim.DYNAMIC}, {},
            [(2, 2), (16, 16), (9, 5), (16, 2)], lambda v: (randn(v[0], v[0], 3), v[1])),
        # Whisper's log-mel front end (stft) on a waveform of any length from 33 samples (the
        # reflect padding's bound: Dim.DYNAMIC, as torch cannot prove stft's frame-count guard).
        "log_mel_dyn": (
            models_spectral.LogMel, 13, (randn(13, 400),), {"audio": {0: Dim.DYNAMIC}}, {},
            [33, 64, 401, 1000], lambda t: (randn(t, t),)),
        # Two symbols (batch, seq): each takes its min, its max and two values between.
        "gpt2_dyn": (
            models_families.gpt2, 11, token_ids(2, 8),
            {"input_ids": {0: Dim("batch", min=1, max=4), 1: Dim("seq", min=1, max=32)}}, {},
            [(1, 32), (4, 1), (2, 7), (3, 17)], lambda v: token_ids(*v)),
        "llama_dyn": (
            models_families.llama, 12, token_ids(2, 8),
            {"input_ids": {0: Dim("batch", min=1, max=4), 1: Dim("seq", min=1, max=64)}}, {},
            [(1, 64), (4, 1), (2, 7), (3, 33)], lambda v: token_ids(*v)),
    }


def save_npy(path, t):
    a = (t if isinstance(t, torch.Tensor) else torch.tensor(t)).detach().numpy()  # int: 0-dim
    np.save(path, a)
    return {"file": os.path.basename(path), "dtype": str(a.dtype), "shape": list(a.shape)}


def read_model_json(path):
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith("models/model.json"))
        return json.loads(z.read(name))


def build(name, cls, seed, example, dynamic_shapes, export_kwargs, values, make_args):
    tol = TOLERANCE.get(name, 1e-5)
    torch.manual_seed(seed)
    module = cls().eval()
    if isinstance(module, models_small.ResNetSmall):
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    ep = torch.export.export(module, example, dynamic_shapes=dynamic_shapes, **export_kwargs)
    entries = []
    for dialect in ("training", "core"):
        if dialect == "core":
            # The math backend: the CPU flash kernel's output strides make torch's own retrace
            # of GPT-2 fail with symbolic batch and seq ("Cannot view a tensor ...").
            with sdpa_kernel(SDPBackend.MATH):
                ep = ep.run_decompositions()
        rel = f"{name}/{dialect}"
        out_dir = os.path.join(ROOT, rel)
        os.makedirs(out_dir)
        for node in ep.graph.nodes:
            node.meta.pop("from_node", None)
        path = os.path.join(out_dir, "program.pt2")
        torch.export.save(ep, path)
        loaded = torch.export.load(path).module()
        names = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
        cases = []
        for c, v in enumerate(values):
            args = make_args(v)
            with torch.no_grad():
                eager = pytree.tree_leaves(module(*args))
                again = pytree.tree_leaves(loaded(*args))
            for a, b in zip(eager, again):
                assert torch.allclose(a, b, rtol=tol, atol=tol), (rel, v)
            cases.append({
                "value": v,
                "inputs": [{"name": n, **save_npy(os.path.join(out_dir, f"case_{c}_input_{k}.npy"), t)}
                           for k, (n, t) in enumerate(zip(names, args))],
                "outputs": [save_npy(os.path.join(out_dir, f"case_{c}_output_{k}.npy"), t)
                            for k, t in enumerate(eager)],
            })
            if hasattr(module, "branches_taken"):  # torch.cond models: which branches ran
                cases[-1]["branches"] = module.branches_taken(*args)
        program = read_model_json(path)
        entries.append({"model": name, "dialect": dialect, "dir": rel, "rtol": tol, "atol": tol,
                        "range_constraints": program["range_constraints"], "cases": cases})
    return entries


def main(only):
    """Rebuilds every model, or only the models named in `only` (the other manifest entries
    are kept as they are)."""
    fixtures = []
    if only:
        with open(os.path.join(ROOT, "manifest.json")) as f:
            fixtures = [e for e in json.load(f)["fixtures"] if e["model"] not in only]
        for name in only:
            shutil.rmtree(os.path.join(ROOT, name), ignore_errors=True)
    else:
        shutil.rmtree(ROOT, ignore_errors=True)
        os.makedirs(ROOT)
    for name, spec in specs().items():
        if only and name not in only:
            continue
        fixtures += build(name, *spec)
        print(f"{name}: {fixtures[-1]['range_constraints']}")
    with open(os.path.join(ROOT, "manifest.json"), "w") as f:
        json.dump({"torch_version": torch.__version__, "fixtures": fixtures}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
