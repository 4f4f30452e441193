#!/usr/bin/env python3
"""The dtypes torch says each catalogue row's op takes on the CPU, from torch's own OpInfo
database (torch.testing._internal.common_methods_invocations.op_db): writes
tests/data/opinfo_dtypes.json, which tests/conformance/op_suite_test.cc checks every catalogue
row against (each torch dtype is implemented or excluded with a reason,
tests/conformance/dtype_exclusions.json) and gen_op_samples.py samples.

    ~/.venvs/torch/bin/python tests/conformance/gen_opinfo_dtypes.py [--tirc build/tools/tirc]

An OpInfo entry names a Python function (torch.cos, nn.functional.layer_norm), not an ATen
overload, so the overloads are found two ways:
- traced: per entry and dtype of supported_dtypes("cpu"), its first samples run under a
  TorchDispatchMode that records each ATen overload they call and the dtype of its first
  tensor argument (the catalogue's key; the output's for ops without one). The mode sees the
  overloads after CompositeImplicit decomposition (native_layer_norm, addmm, cos.default).
- named: a row no trace reached (CompositeImplicit ops the training IR keeps, such as
  aten::layer_norm and aten::linear) takes the dtypes of the entries whose aten_name, name or
  alias is the row's op name; a name that several entries share takes their union.
A row neither way reaches has no OpInfo dtypes ("source": "none") and nothing to check.
Deterministic (seeded); rewrites the file.
"""

import argparse
import json
import os
import re
import subprocess
import warnings

import torch
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "data", "opinfo_dtypes.json")
SAMPLES = 2  # samples traced per entry and dtype


def dname(d):
    return str(d).replace("torch.", "")


def op_key(func):
    """"aten::cos", "aten::add.Tensor" (the catalogue's spelling) of an OpOverload."""
    ns = func.namespace
    name = func._schema.name.split("::", 1)[1]
    overload = func._overloadname
    return f"{ns}::{name}" + ("" if overload == "default" else "." + overload)


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = set()  # (op, dtype of its first tensor argument)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        first = None
        for a in list(args) + list(kwargs.values()):
            ts = [a] if isinstance(a, torch.Tensor) else (
                [t for t in a if isinstance(t, torch.Tensor)] if isinstance(a, (list, tuple))
                else [])
            if ts:
                first = ts[0]
                break
        if first is None:
            outs = out if isinstance(out, (list, tuple)) else [out]
            first = next((t for t in outs if isinstance(t, torch.Tensor)), None)
        if first is not None:
            self.seen.add((op_key(func), dname(first.dtype)))
        return out


def entry_name(opinfo):
    return opinfo.name + ("." + opinfo.variant_test_name if opinfo.variant_test_name else "")


def trace(opinfo, dtype):
    """The (op, dtype) pairs the entry's first samples in `dtype` call."""
    rec = Recorder()
    try:
        samples = opinfo.sample_inputs("cpu", dtype, requires_grad=False)
        for i, s in enumerate(samples):
            if i >= SAMPLES:
                break
            torch.manual_seed(i)
            with rec, torch.no_grad():
                opinfo.op(s.input, *s.args, **s.kwargs)
    except Exception:  # noqa: BLE001 - a sample torch itself rejects records what ran
        pass
    return rec.seen


def names_of(opinfo):
    """The op names an entry answers to: "layer_norm" for nn.functional.layer_norm."""
    out = {opinfo.name.split(".")[-1] if opinfo.name.startswith(("nn.functional.", "special.",
                                                                 "linalg.", "fft."))
           else opinfo.name.split(".")[0]}
    if opinfo.aten_name:
        out.add(opinfo.aten_name)
    for a in getattr(opinfo, "aliases", ()) or ():
        out.add(str(getattr(a, "name", a)).split(".")[-1])
    return out


# The names of a schema's first tensor argument when it holds the data an OpInfo entry's
# dtype describes (not a condition, repeats or indices).
DATA_ARGUMENTS = {"self", "input", "x", "x1", "tensors", "a", "input1"}


def first_tensor_argument(op):
    """The name of the first Tensor argument of a catalogue op's schema, or None."""
    ns, rest = op.split("::", 1)
    name, _, overload = rest.partition(".")
    try:
        fn = getattr(getattr(getattr(torch.ops, ns), name), overload or "default")
    except (AttributeError, RuntimeError):
        return None
    for a in fn._schema.arguments:
        if str(a.type).startswith("Tensor"):
            return a.name
    return None


def catalogue_ops(tirc):
    """Every catalogue row's op: `tirc ops --json`, or where tirc is not built the rows of
    kernels/ops/*.cc themselves."""
    if os.path.exists(tirc):
        return sorted({r["op"] for r in json.loads(subprocess.check_output([tirc, "ops",
                                                                             "--json"]))})
    ops = set()
    folder = os.path.join(ROOT, "kernels", "ops")
    for name in os.listdir(folder):
        if name.endswith(".cc"):
            with open(os.path.join(folder, name)) as f:
                ops |= set(re.findall(r'^\s*\{"([a-z_]+::[^"]+)",', f.read(), re.M))
    return sorted(ops)


def main():
    from torch.testing._internal.common_methods_invocations import op_db
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tirc", default=os.path.join(ROOT, "build", "tools", "tirc"))
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    rows = catalogue_ops(args.tirc)
    traced = {}  # op -> dtype -> entries
    named = {}   # name -> dtype -> entries
    for opinfo in op_db:
        name = entry_name(opinfo)
        dtypes = sorted(opinfo.supported_dtypes("cpu"), key=dname)
        for n in names_of(opinfo):
            for d in dtypes:
                named.setdefault(n, {}).setdefault(dname(d), set()).add(name)
        for d in dtypes:
            for op, got in trace(opinfo, d):
                traced.setdefault(op, {}).setdefault(got, set()).add(name)
        print(name, flush=True)
    table = {}
    for op in rows:
        base = op.split("::", 1)[1].split(".")[0]
        if op in traced:
            src, dt = "traced", traced[op]
        elif base in named or base.rstrip("_") in named:
            first = first_tensor_argument(op)
            if first not in DATA_ARGUMENTS:  # the entries' dtypes are not this key's
                table[op] = {"source": "none", "dtypes": [], "entries": [],
                             "why": f"named, but its first tensor argument is '{first}'"}
                continue
            src, dt = "named", named.get(base) or named[base.rstrip("_")]
        else:
            table[op] = {"source": "none", "dtypes": [], "entries": []}
            continue
        entries = sorted(set().union(*dt.values()))
        table[op] = {"source": src, "dtypes": sorted(dt), "entries": entries[:8]}
    with open(OUT, "w") as f:
        f.write('{"torch": ' + json.dumps(torch.__version__) + ', "ops": {\n')
        f.write(",\n".join(json.dumps(op) + ": " + json.dumps(v, separators=(",", ":"))
                           for op, v in table.items()))
        f.write("\n}}\n")
    counts = {}
    for v in table.values():
        counts[v["source"]] = counts.get(v["source"], 0) + 1
    print(len(table), "rows:", counts)


if __name__ == "__main__":
    main()
