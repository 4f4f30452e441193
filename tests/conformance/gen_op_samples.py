#!/usr/bin/env python3
"""The op suite's own samples: for every op catalogue row and dtype that the conformance
sweep (gen_conformance.py) leaves without a sample, for every row and dtype an optimized
backend (cpu, cuda) lists, and for every row and dtype torch's OpInfo lists
(tests/data/opinfo_dtypes.json, gen_opinfo_dtypes.py; less the exclusions of
tests/data/opinfo_dtype_exclusions.json), a tiny program that calls the ATen overload itself,
exported by torch.export (training IR, no run_decompositions: training-IR ops such as
aten::linear stay), with torch eager's outputs. Read by tests/conformance/op_suite_test.cc.

    ~/.venvs/torch/bin/python tests/conformance/gen_op_samples.py [--tirc build/tools/tirc]
        [--ops aten::mode,aten::nll_loss]   # only these rows' cases, the others kept

The rows come from the catalogue itself (`tirc ops --json`, its "backends" field), so no
list of ops is kept here; op_sample_calls.py says how to call those whose arguments a schema
alone does not tell (CALLS). Every other op gets its schema's required arguments: tensors for Tensor
arguments (the row's dtype for the first, bool for masks and conditions, int64 for
indices), small constants for the rest. "any" rows are sampled in float32 (int64 for
bitwise ops). Inputs are seeded random tensors of a few elements.

Writes tests/data/op_suite/<case>.pt2 (deflated like the sweep's) and manifest.json in the
sweep's format; each case's "dtype" is the dtype of the op's first tensor input (the
catalogue's key), "generator" names this script. A row and dtype torch eager rejects or
torch.export cannot hold standalone is printed, not faked. Deterministic; rebuilds the
folder. The rows refused are listed in the manifest ("refused": op, dtype, why), and the op
suite gives that reason when it skips them.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "data"))  # tests/data: export_util
from export_util import restore_deflated  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_conformance as sweep  # noqa: E402
from op_sample_calls import CALLS, REWRITTEN, aten, overload_of, positive, rand  # noqa: E402

ROOT = sweep.ROOT
OUT = os.path.join(ROOT, "tests", "data", "op_suite")
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "int32": torch.int32, "bool": torch.bool, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "uint8": torch.uint8, "int8": torch.int8,
          "int16": torch.int16, "complex64": torch.complex64, "complex128": torch.complex128}
OUTPUT_DTYPES = sweep.NPY_OK | {torch.int8, torch.uint8, torch.int16, torch.float16,
                                torch.bfloat16, torch.complex64, torch.complex128}

# The ops sampled in another dtype than float32 when the row says "any".
ANY_DTYPE = {"aten::bitwise_and.Scalar": "int64", "aten::bitwise_or.Scalar": "int64",
             "aten::bitwise_xor.Scalar": "int64", "aten::bitwise_xor.Tensor": "int64"}


def default_call(op, d):
    """The schema's required arguments: tensors for tensors, small constants for the rest."""
    fn = aten(op)
    tensors, kwargs, names = [], {}, []
    first = True
    for a in fn._schema.arguments:
        t = str(a.type)
        if a.has_default_value():
            continue
        if t == "Tensor":
            dt = d if first else (torch.bool if a.name in ("mask", "condition") else
                                  torch.int64 if "index" in a.name else d)
            first = False
            tensors.append(rand((2, 3), dt) if a.name != "exponent" or dt == torch.bool
                           else positive((2, 3), dt))
            names.append(a.name)
        elif t in ("Scalar", "number"):
            kwargs[a.name] = True if d == torch.bool else 2 if not d.is_floating_point else 1.5
        elif t == "int":
            kwargs[a.name] = 1
        elif t in ("int[]", "int[1]", "int[1]?", "SymInt[]"):
            kwargs[a.name] = [1]
        elif t == "float":
            kwargs[a.name] = 0.5
        elif t == "bool" or t == "bool?":
            kwargs[a.name] = False
        elif t == "str?" and a.name == "rounding_mode":
            kwargs[a.name] = "floor"
        elif t.endswith("?"):
            kwargs[a.name] = None
        else:
            raise ValueError(f"no default for argument {a.name}: {t}")
    if fn._schema.name.endswith("_") and tensors:  # in place: on a copy of its input
        return (lambda *ts: fn(ts[0].clone(), **dict(zip(names[1:], ts[1:])), **kwargs)), tensors
    return (lambda *ts: fn(**dict(zip(names, ts)), **kwargs)), tensors


class Program(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *tensors):
        return self.fn(*tensors)


def rows_of(tirc):
    """(op, dtype) of every catalogue row and dtype, with the backends that list it."""
    out = {}
    for r in json.loads(subprocess.check_output([tirc, "ops", "--json"])):
        for backend, dtypes in r.get("backends", {}).items():
            for d in dtypes:
                out.setdefault((r["op"], d), set()).add(backend)
    return out


def sweep_held():
    """The (op, dtype) pairs the op suite already runs from the sweep: a passing sweep case
    labelled with the dtype (or any, for "any" rows) whose program has a node of the op with
    a first tensor input of that dtype (the registry's key)."""
    failing = set()
    with open(os.path.join(ROOT, "docs", "conformance.md")) as f:
        for line in f:
            if line.startswith("- `"):
                failing.add(line[3:line.index("`", 3)])
    held = set()
    with open(os.path.join(sweep.OUT, "manifest.json")) as f:
        cases = [c for c in json.load(f)["cases"] if c["case"] not in failing]
    for c in cases:
        ep = torch.export.load(os.path.join(sweep.OUT, c["case"] + ".pt2"))
        for n in ep.graph.nodes:
            op = n.op == "call_function" and sweep.op_name(n.target)
            first = [a for a in n.args if isinstance(a, torch.fx.Node)
                     and isinstance(a.meta.get("val"), torch.Tensor)][:1]
            if op and first and str(first[0].meta["val"].dtype) == "torch." + c["dtype"]:
                held |= {(op, c["dtype"]), (op, "any")}
    return held


def opinfo_pairs():
    """(op, dtype) of every dtype torch's OpInfo lists for a catalogue row
    (tests/data/opinfo_dtypes.json, gen_opinfo_dtypes.py) that tir stores and the exclusion
    list (tests/data/opinfo_dtype_exclusions.json) does not name."""
    data = os.path.join(ROOT, "tests", "data")
    with open(os.path.join(data, "opinfo_dtypes.json")) as f:
        table = json.load(f)["ops"]
    with open(os.path.join(data, "opinfo_dtype_exclusions.json")) as f:
        excl = json.load(f)
    skip = {(o, d) for r in excl.get("by_op", []) for o in r["ops"] for d in r["dtypes"]}
    skip_dtypes = {d for r in excl.get("by_dtype", []) for d in r["dtypes"]}
    return {(op, d) for op, v in table.items() for d in v["dtypes"]
            if d in DTYPES and d not in skip_dtypes and (op, d) not in skip}


def enc(t):
    """sweep.enc, and bfloat16 (which NumPy lacks) through float32: its values are exact."""
    if t.dtype == torch.bfloat16:
        return dict(sweep.enc(t.float()), dtype="bfloat16")
    return sweep.enc(t)


def make_case(op, dname):
    d = DTYPES[dname]
    torch.manual_seed(sum(map(ord, op + dname)))
    call = CALLS[op](overload_of(op), d) if op in CALLS else default_call(op, d)
    fn, tensors, export_options = call if len(call) == 3 else (*call, {})
    mod = fn if isinstance(fn, torch.nn.Module) else Program(fn)
    with torch.no_grad():
        want = plain_outputs(mod(*[t.clone() for t in tensors]))
    if want is None:
        raise ValueError("outputs are not plain tensors")
    ep = torch.export.export(mod, tuple(tensors), **export_options)
    ops = sorted({sweep.op_name(n.target) or qd_name(n.target) for n in ep.graph.nodes
                  if n.op == "call_function" and (sweep.op_name(n.target) or qd_name(n.target))})
    if op in REWRITTEN and all(o in ops for o in REWRITTEN[op]):
        ops.append(op)
    if op not in ops:
        raise ValueError(f"the exported program holds {ops}, not {op}")
    return ep, tensors, want, ops


def plain_outputs(out):
    """The sweep's plain tensor outputs, and the quantize ops' int8 and uint8 ones."""
    outs = out if isinstance(out, (tuple, list)) else [out]
    if not outs or not all(isinstance(t, torch.Tensor) for t in outs):
        return None
    if any(t.dtype not in OUTPUT_DTYPES for t in outs):
        return None
    return [t.detach().contiguous() for t in outs]


def qd_name(target):
    """The op name of a quantized_decomposed or torchao op (sweep.op_name: ATen's)."""
    s = str(target)
    ns = next((n for n in ("quantized_decomposed", "torchao") if s.startswith(n + ".")), None)
    if ns is None:
        return None
    name, overload = s[len(ns) + 1:].rsplit(".", 1)
    return ns + "::" + name + ("" if overload == "default" else "." + overload)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tirc", default=os.path.join(ROOT, "build", "tools", "tirc"))
    ap.add_argument("--ops", help="comma-separated rows to (re)make; the other cases are kept")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    only = set(args.ops.split(",")) if args.ops else None
    rows = rows_of(args.tirc)
    cases, refused, made = [], [], set()
    if only is None:
        held = sweep_held()
        if os.path.isdir(OUT):
            shutil.rmtree(OUT)
        os.makedirs(OUT)
    else:  # keep the other rows' cases; every dtype of these is sampled
        held = set()
        with open(os.path.join(OUT, "manifest.json")) as f:
            old = json.load(f)
        for c in old["cases"]:
            if c["op"] not in only:
                cases.append(c)
            elif os.path.exists(os.path.join(OUT, c["case"] + ".pt2")):
                os.remove(os.path.join(OUT, c["case"] + ".pt2"))
        refused = [r for r in old["refused"] if r["op"] not in only]
        rows = {k: v for k, v in rows.items() if k[0] in only}
    wanted = {(op, d): backends for (op, d), backends in rows.items()
              if (op, d) not in held or backends & {"cpu", "cuda"}}
    for pair in opinfo_pairs():  # every dtype torch's OpInfo lists, sampled once
        if only is None or pair[0] in only:
            wanted.setdefault(pair, set())
    for (op, dname), backends in sorted(wanted.items()):
        sample_dtype = ANY_DTYPE.get(op, "float32") if dname == "any" else dname
        if (op, sample_dtype) in made:
            continue
        made.add((op, sample_dtype))
        try:
            ep, tensors, want, ops = make_case(op, sample_dtype)
        except Exception as e:  # noqa: BLE001 - reported, never faked
            refused.append({"op": op, "dtype": dname, "reason": str(e).splitlines()[0][:200]})
            continue
        case = (op.replace("::", "-").replace(".", "-") + "-" + sample_dtype)
        path = os.path.join(OUT, case + ".pt2")
        torch.export.save(ep, path)
        restore_deflated(path)
        cases.append({"case": case, "op": op, "dtype": sample_dtype,
                      "generator": "gen_op_samples.py",
                      "core_ops": ops, "inputs": [enc(t) for t in tensors],
                      "outputs": [enc(t) for t in want]})
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        f.write('{"torch": ' + json.dumps(torch.__version__) + ', "cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n], \"refused\": " + json.dumps(refused) + "}\n")
    print(len(cases), "cases")
    for r in refused:
        print("refused:", r["op"], r["dtype"], r["reason"])


if __name__ == "__main__":
    main()
