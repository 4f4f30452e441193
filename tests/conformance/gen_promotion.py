#!/usr/bin/env python3
"""The type-promotion sweep (issue 25): every binary, comparison and ternary element-wise op
on each pair of bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
as tensor-tensor, tensor-0-dim tensor and tensor-Python scalar (int, float, bool), and the
reductions and scans that take dtype= on every input dtype, exported with torch.export and
checked against torch eager: the result's dtype and values.

    ~/.venvs/torch/bin/python tests/conformance/gen_promotion.py [--dialect training] [OP ...]

One program per (op, form) computes the op on every pair torch accepts (a pair torch refuses,
such as bitwise_and on floats or sub on bools, is left out) and returns one output per pair.
Written to tests/data/promotion/: <op>-<form>.pt2 (deflated) and manifest.json in the format
of tests/data/conformance/manifest.json, each case listing its pairs ("pairs", in output
order). --dialect training keeps the training IR (no run_decompositions()) and writes to
tests/data/promotion_training/. Read by tests/conformance/promotion_test.cc, which writes the
sweep's sections of docs/conformance.md.
"""

import json
import math
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "data"))
from export_util import restore_deflated  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DIALECT = "core"
OUT = os.path.join(os.path.dirname(HERE), "data", "promotion")
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
NAMES = {d: str(d).removeprefix("torch.") for d in DTYPES}
A = [3, -2, 2, 0, 7, 1]    # first operand (uint8 wraps -2 to 254 as torch's cast does)
B = [1, 2, -1, 3, 2, -3]   # second operand: no zero, so integer division is defined
C = [2, 1, 1, -1, 0, 2]    # third operand of the ternary ops
SCALARS = {"int": 2, "float": 0.5, "bool": True}
ZERO_DIM = 3

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "floor_divide": torch.floor_divide, "remainder": torch.remainder, "fmod": torch.fmod,
    "pow": torch.pow, "maximum": torch.maximum, "minimum": torch.minimum, "atan2": torch.atan2,
    "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt,
    "ge": torch.ge, "logical_and": torch.logical_and, "bitwise_and": torch.bitwise_and,
}
# scalar forms only where torch has a Scalar overload that export keeps
SCALAR_OPS = {"add", "sub", "mul", "div", "remainder", "fmod", "pow", "eq", "ne", "lt", "le",
              "gt", "ge", "bitwise_and"}
# Reductions and scans with dtype=: every input dtype x each requested dtype (None: torch's
# default, which widens bool and integers to int64 for sum, prod and cumsum).
REDUCTION_DTYPES = [None, torch.int64, torch.float32, torch.float64, torch.bfloat16]
REDUCTIONS = {
    "sum_dtype": lambda x, d: torch.sum(x, dtype=d),
    "prod_dtype": lambda x, d: torch.prod(x, dtype=d),
    "cumsum_dtype": lambda x, d: torch.cumsum(x, 0, dtype=d),
    "mean_dtype": lambda x, d: torch.mean(x, dtype=d),
    "softmax_dtype": lambda x, d: torch.softmax(x, 0, dtype=d),
}
TERNARY = {
    "where": lambda a, b, c: torch.where(c > 0, a, b),
    "clamp": lambda a, b, c: torch.clamp(a, min=b, max=c + 4),
    "addcmul": lambda a, b, c: torch.addcmul(a, b, c),
    "addcdiv": lambda a, b, c: torch.addcdiv(a, b, c, value=0.5),
    "lerp": lambda a, b, c: torch.lerp(a, b, c),
}


def tensor(values, dtype):
    return torch.tensor(values).to(dtype)


def to_json(t):
    t = t.detach()
    flat = t.reshape(-1)
    if t.dtype == torch.bool:
        data = [bool(v) for v in flat.tolist()]
    elif t.is_floating_point():
        data = [v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
                for v in flat.double().tolist()]  # float64 exactly
    else:
        data = flat.tolist()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data": data}


class Pairs(torch.nn.Module):
    """Calls fn on each (i, j) of `pairs` over inputs xs (one tensor per dtype) and the
    second operands ys (tensors, or Python scalars baked into the program)."""

    def __init__(self, fn, pairs, ys_are_inputs, scalars=None, third=None):
        super().__init__()
        self.fn, self.pairs, self.ys_are_inputs = fn, pairs, ys_are_inputs
        self.scalars, self.third = scalars, third

    def forward(self, *args):
        n = len(DTYPES)
        xs = args[:n]
        ys = args[n:2 * n] if self.ys_are_inputs else self.scalars
        out = []
        for i, j in self.pairs:
            if self.third is None:
                out.append(self.fn(xs[i], ys[j]))
            else:
                out.append(self.fn(xs[i], ys[j], args[2 * n + j]))
        return tuple(out)


def cases_for(name, fn, form, ternary=False):
    xs = [tensor(A, d) for d in DTYPES]
    if form == "tensor":
        ys, ys_inputs, labels = [tensor(B, d) for d in DTYPES], True, [NAMES[d] for d in DTYPES]
    elif form == "dtype":
        ys, ys_inputs = REDUCTION_DTYPES, False
        labels = ["dtype=" + (NAMES[d] if d is not None else "None") for d in ys]
    elif form == "zero_dim":
        ys, ys_inputs = [tensor(ZERO_DIM, d) for d in DTYPES], True
        labels = ["0-dim " + NAMES[d] for d in DTYPES]
    else:
        ys, ys_inputs, labels = list(SCALARS.values()), False, list(SCALARS)
    thirds = [tensor(C, d) for d in DTYPES] if ternary else []
    pairs, want = [], []
    for i in range(len(xs)):
        for j in range(len(ys)):
            try:
                args = (xs[i], ys[j]) + ((thirds[j],) if ternary else ())
                with torch.no_grad():
                    r = fn(*args)
            except Exception:  # noqa: BLE001 - torch refuses the pair: left out
                continue
            pairs.append((i, j))
            want.append(r)
    if not pairs:
        return None
    module = Pairs(fn, pairs, ys_inputs, None if ys_inputs else ys,
                   thirds if ternary else None).eval()
    inputs = xs + (ys if ys_inputs else []) + thirds
    ep = torch.export.export(module, tuple(inputs))
    if DIALECT == "core":
        ep = ep.run_decompositions()
    case = f"{name}-{form}"
    path = os.path.join(OUT, case + ".pt2")
    torch.export.save(ep, path)
    restore_deflated(path)
    got = ep.module()(*inputs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and torch.equal(g.float().nan_to_num(7), w.float().nan_to_num(7)), case
    return {"case": case, "op": name, "dtype": form,
            "pairs": [f"{NAMES[DTYPES[i]]} x {labels[j]}" for i, j in pairs],
            "inputs": [to_json(t) for t in inputs], "outputs": [to_json(t) for t in want]}


def main():
    """With op names, only those programs are (re)generated; the manifest keeps the others."""
    global DIALECT, OUT
    torch.manual_seed(0)
    argv = sys.argv[1:]
    if argv[:1] == ["--dialect"]:
        DIALECT, argv = argv[1], argv[2:]
        if DIALECT not in ("core", "training"):
            sys.exit("--dialect is core or training")
        if DIALECT == "training":
            OUT += "_training"
    only = set(argv)
    cases = []
    manifest = os.path.join(OUT, "manifest.json")
    if only:
        with open(manifest) as f:
            cases = [c for c in json.load(f)["cases"] if c["op"] not in only]
    else:
        shutil.rmtree(OUT, ignore_errors=True)
        os.makedirs(OUT)
    # (op, fn, forms, ternary) in the manifest's order
    plan = [(n, f, ("dtype",), False) for n, f in REDUCTIONS.items()]
    plan += [(n, f, ("tensor", "zero_dim") + (("scalar",) if n in SCALAR_OPS else ()), False)
             for n, f in BINARY.items()]
    plan += [(n, f, ("tensor", "zero_dim"), True) for n, f in TERNARY.items()]
    for name, fn, forms, ternary in plan:
        if only and name not in only:
            continue
        for form in forms:
            c = cases_for(name, fn, form, ternary=ternary)
            if c:
                cases.append(c)
                print(f"{c['case']}: {len(c['pairs'])} pairs", flush=True)
    order = list(REDUCTIONS) + list(BINARY) + list(TERNARY)
    cases.sort(key=lambda c: order.index(c["op"]))
    with open(manifest, "w") as f:
        json.dump({"torch": torch.__version__, "dialect": DIALECT, "cases": cases}, f,
                  separators=(",", ":"))
    print(f"{sum(len(c['pairs']) for c in cases)} pairs in {len(cases)} programs")


if __name__ == "__main__":
    sys.exit(main())
