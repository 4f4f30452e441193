#!/usr/bin/env python3
"""Generate the loop fixtures in tests/data/fixtures/loops/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_loops.py

Programs with torch's loop higher-order ops (while_loop, scan, map) and invoke_subgraph
(torch.compiler.nested_compile_region, exported with strict=True), in both dialects. Each
is run eagerly on several cases (different trip counts, a dynamic scan length); inputs and
outputs are .npy. Layout: loops/<model>/<dialect>/program.pt2 and case_<c>_input_<k>.npy /
case_<c>_output_<k>.npy, described by loops/manifest.json.
"""

import json
import os
import shutil

import numpy as np
import torch
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch.export import Dim
from torch.utils import _pytree as pytree
from functorch.experimental.control_flow import map as loop_map

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "loops")


def randn(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


class WhileCounter(torch.nn.Module):
    """A data-dependent trip count: x <- tanh(lin(x)) while i < n (n a 0-dim input)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, n, x):
        def cond_fn(i, x):
            return i < n

        def body_fn(i, x):
            return i + 1, torch.tanh(self.lin(x))

        i, y = while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))
        return i, y * 2


class WhileWithCond(torch.nn.Module):
    """A cond on data inside a while body, and a carried pair swapped each step."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)

    def forward(self, n, x, y):
        def cond_fn(i, x, y):
            return i < n

        def body_fn(i, x, y):
            z = torch.cond(x.sum() > 0, lambda t: self.a(t).relu(), lambda t: self.b(t) - 1, (x,))
            return i + 1, y.clone(), z

        return while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x, y))


class ScanRnn(torch.nn.Module):
    """An RNN cell over time with scan (dim 1, reversed), returning the last state and every
    state; the sequence length is dynamic."""

    def __init__(self):
        super().__init__()
        self.wx = torch.nn.Linear(6, 8)
        self.wh = torch.nn.Linear(8, 8, bias=False)

    def forward(self, h0, xs):
        def step(h, x):
            h = torch.tanh(self.wx(x) + self.wh(h))
            return h, h * 0.5

        return scan(step, h0, xs, dim=1, reverse=True)


class ScanCumulative(torch.nn.Module):
    """Two carries and two xs over dim 0: a running sum and a running max."""

    def forward(self, xs, ws):
        def step(carry, x):
            s, m = carry
            xv, wv = x
            s = s + xv * wv
            m = torch.maximum(m, xv)
            return (s, m), s.sum(-1)

        init = (torch.zeros_like(xs[0]), torch.full_like(xs[0], -1e9))
        return scan(step, init, (xs, ws))


class MapBody(torch.nn.Module):
    """map over the rows of xs with a weight and an extra argument."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(5, 3)

    def forward(self, xs, y):
        return loop_map(lambda x, y: self.lin(x).relu() + y, xs, y)


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.norm = torch.nn.LayerNorm(8)

    @torch.compiler.nested_compile_region
    def forward(self, x):
        return x + self.norm(self.lin(x)).relu()


class RepeatedLayers(torch.nn.Module):
    """One subgraph called per layer with that layer's weights (invoke_subgraph)."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([Layer() for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MapOfScan(torch.nn.Module):
    """Loops nested in loops: map over sequences, each a scan (a running sum through a linear)."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, xs):
        def per_sequence(x):
            def step(c, row):
                c = torch.tanh(self.lin(c + row))
                return c, c.sum()

            return scan(step, torch.zeros(3), x)[1]

        return loop_map(per_sequence, xs)


class ItemSlice(torch.nn.Module):
    """Data-dependent shapes: n = k.item() bounded by torch._check, x[:n] and a tensor of n rows."""

    def forward(self, x, k):
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= 6)
        return x[:n].cumsum(0), torch.ones(n, 2) * x.sum()


class DataDependent(torch.nn.Module):
    """Sizes from data: nonzero, masked_select, x[:k.item()] under torch._check, and the
    masked count returned as an int."""

    def forward(self, x, m, k):
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= 4)
        ms = torch.masked_select(x, m)
        return torch.nonzero(x > 0), ms * 2, x[:n], ms.shape[0] + 1


class MaskIndex(torch.nn.Module):
    """Boolean-mask indexing by masks computed at run time: over the leading dims (x[m]), on an
    inner dim (x[:, m2]) and by a comparison (x[x > 0.5])."""

    def forward(self, x, m, m2):
        return x[m] * 2, x[:, m2].sum(-1), x[x > 0.5]


class RepeatByTensor(torch.nn.Module):
    """repeat_interleave by a repeats tensor (its size depends on the values): rows of x along
    dim 1, the flattened x by one repeat value, and the indices themselves (.Tensor)."""

    def forward(self, x, reps, r1):
        return (torch.repeat_interleave(x, reps, dim=1) * 2, torch.repeat_interleave(x, r1),
                torch.repeat_interleave(reps))


class UniqueValues(torch.nn.Module):
    """torch.unique: as many values as distinct elements, with the inverse and the counts, and
    without them (their outputs are then empty)."""

    def forward(self, x, y):
        v, inv, c = torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
        return v * 2, inv, c, torch.unique(y) + 1


class SplitByTensor(torch.nn.Module):
    """tensor_split at indices held in a buffer (one negative, a decreasing pair). The training
    IR keeps the op (the buffer's values are known when tir prepares it); the core IR reads
    each index with .item() and slices, and asserts each slice's storage offset, a symbol of
    its own, is >= 0."""

    def __init__(self):
        super().__init__()
        self.register_buffer("at", torch.tensor([1, -2, 2]))

    def forward(self, x):
        return tuple(p * 2 for p in torch.tensor_split(x, self.at, dim=1))


class MaskAssign(torch.nn.Module):
    """Writes through masks computed at run time (index_put): a scalar fill (x[x < 0] = 0) and
    rows computed from the rows the mask selects (y[m] = y[m] * 2 + 1)."""

    def forward(self, x, y, m):
        x = x.clone()
        x[x < 0] = 0.0
        y = y.clone()
        y[m] = y[m] * 2 + 1
        return x, y


def mask_(seed, p, *shape):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed)) < p


def ints_(*v):
    return torch.tensor(v, dtype=torch.int64)


def n_(v):
    return torch.tensor(v, dtype=torch.int64)


T = Dim("T", min=1, max=16)
# name: (module, [case args...], dynamic_shapes, strict, tol)
MODELS = {
    "while_counter": (WhileCounter, [(n_(3), randn(1, 2, 8)), (n_(0), randn(2, 2, 8)),
                                     (n_(7), randn(3, 2, 8))], None, False, 1e-5),
    "while_cond": (WhileWithCond, [(n_(3), randn(4, 2, 4), randn(5, 2, 4)),
                                   (n_(4), -randn(6, 2, 4).abs(), randn(7, 2, 4))],
                   None, False, 1e-5),
    "scan_rnn": (ScanRnn, [(randn(8, 2, 8), randn(9, 2, 5, 6)), (randn(10, 2, 8), randn(11, 2, 1, 6)),
                           (randn(12, 2, 8), randn(13, 2, 16, 6))],
                 {"h0": None, "xs": {1: T}}, False, 1e-5),
    "scan_cumulative": (ScanCumulative, [(randn(14, 5, 3), randn(15, 5, 3))], None, False, 1e-5),
    "map_body": (MapBody, [(randn(16, 4, 5), randn(17, 3)), (randn(18, 4, 5), randn(19, 3))],
                 None, False, 1e-5),
    "map_of_scan": (MapOfScan, [(randn(25, 2, 5, 3),)], None, False, 1e-5),
    "data_dependent": (DataDependent, [(randn(26, 4, 3), mask_(27, 0.5, 4, 3), n_(2)),
                                       (randn(28, 4, 3), mask_(29, 0.2, 4, 3), n_(4)),
                                       (randn(30, 4, 3), mask_(31, 0.0, 4, 3), n_(1)),
                                       (randn(32, 4, 3), mask_(33, 0.5, 4, 3), n_(9))],
                       None, False, 1e-5),
    "mask_index": (MaskIndex, [(randn(34, 2, 5, 4), mask_(35, 0.5, 2, 5), mask_(36, 0.5, 5)),
                               (randn(37, 2, 5, 4), mask_(38, 0.9, 2, 5), mask_(39, 0.2, 5)),
                               (randn(40, 2, 5, 4), mask_(41, 0.0, 2, 5), mask_(42, 1.0, 5))],
                   None, False, 1e-5),
    "repeat_tensor": (RepeatByTensor, [(randn(43, 2, 3), ints_(1, 2, 3), ints_(2)),
                                       (randn(44, 2, 3), ints_(0, 0, 4), ints_(0)),
                                       (randn(45, 2, 3), ints_(2, 2, 2), ints_(3))],
                      None, False, 1e-5),
    "unique": (UniqueValues, [(ints_(3, 1, 3, 2, 1, 1, 5, 0).view(2, 4),
                               torch.tensor([0.5, -1.0, 0.5, 2.0])),
                              (ints_(7, 7, 7, 7, 7, 7, 7, 7).view(2, 4),
                               torch.tensor([1.0, 2.0, 3.0, 4.0])),
                              (ints_(8, 6, 4, 2, 0, -2, -4, -6).view(2, 4),
                               torch.tensor([3.0, 3.0, 3.0, 3.0]))],
               None, False, 1e-5),
    "mask_assign": (MaskAssign, [(randn(46, 3, 4), randn(47, 5, 3), mask_(48, 0.5, 5)),
                                 (randn(49, 3, 4), randn(50, 5, 3), mask_(51, 0.0, 5)),
                                 (randn(52, 3, 4).abs(), randn(53, 5, 3), mask_(54, 1.0, 5))],
                    None, False, 1e-5),
    "split_by_tensor": (SplitByTensor, [(randn(55, 2, 6),), (randn(56, 2, 6),)], None, False,
                        1e-5),
    "item_slice": (ItemSlice, [(randn(22, 6, 3), n_(2)), (randn(23, 6, 3), n_(6)),
                               (randn(24, 6, 3), n_(9))], None, False, 1e-5),
    "invoke_subgraph": (RepeatedLayers, [(randn(20, 2, 8),), (randn(21, 2, 8),)], None, True, 1e-5),
}


def save_npy(path, t):
    """export_util.save_npy, bool tensors (masks) included."""
    arr = np.array(t.detach().cpu().numpy(), order="C")  # nonzero's is column-major
    assert arr.dtype in (np.float32, np.int64, np.bool_), (path, arr.dtype)
    np.save(path, arr, allow_pickle=False)
    return {"file": os.path.basename(path), "dtype": str(arr.dtype), "shape": list(arr.shape)}


def as_tensors(outputs):
    """The output leaves; a Python int (a SymInt output) as a 0-dim int64 tensor."""
    return [torch.tensor(v) if isinstance(v, int) else v for v in pytree.tree_leaves(outputs)]


def export(name, module, cases, dynamic, strict, tol):
    entries = []
    ep = torch.export.export(module, cases[0], dynamic_shapes=dynamic, strict=strict)
    for dialect in export_util.DIALECTS:
        if dialect == "core":
            ep = ep.run_decompositions()
        rel = f"{name}/{dialect}"
        out_dir = os.path.join(ROOT, rel)
        os.makedirs(out_dir)
        path = os.path.join(out_dir, "program.pt2")
        for gm in ep.graph_module.modules():
            if isinstance(gm, torch.fx.GraphModule):
                for node in gm.graph.nodes:  # provenance holding id(graph) values
                    node.meta.pop("from_node", None)
        export_util.trim_node_metadata(ep)
        torch.export.save(ep, path)
        export_util.restore_deflated(path)
        loaded = torch.export.load(path).module()
        records = []
        for c, args in enumerate(cases):
            try:
                with torch.no_grad():
                    want = as_tensors(module(*export_util.clone_tree(args)))
            except RuntimeError as e:  # torch refuses these inputs (a torch._check fails)
                records.append({
                    "inputs": [save_npy(
                        os.path.join(out_dir, f"case_{c}_input_{k}.npy"), t)
                        for k, t in enumerate(args)],
                    "torch_error": str(e).splitlines()[0][:200]})
                continue
            with torch.no_grad():
                got = as_tensors(loaded(*export_util.clone_tree(args)))
            export_util.check_close(got, want, tol, f"{rel} case {c}")
            records.append({
                "inputs": [save_npy(os.path.join(out_dir, f"case_{c}_input_{k}.npy"), t)
                           for k, t in enumerate(args)],
                "outputs": [save_npy(os.path.join(out_dir, f"case_{c}_output_{k}.npy"), t)
                            for k, t in enumerate(want)]})
        ops, sub, other = export_util.count_ops(path)
        entries.append({"model": name, "dialect": dialect, "dir": rel, "cases": records,
                        "rtol": tol, "atol": tol, "ops": ops, "subgraph_ops": sub,
                        "other_targets": other})
    return entries


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    manifest = []
    for name, (cls, cases, dynamic, strict, tol) in MODELS.items():
        torch.manual_seed(7)
        module = cls().eval()
        manifest += export(name, module, cases, dynamic, strict, tol)
        print(name, "ok")
    with open(os.path.join(ROOT, "manifest.json"), "w") as f:
        json.dump({"torch": torch.__version__, "fixtures": manifest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
