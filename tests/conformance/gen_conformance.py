#!/usr/bin/env python3
"""The conformance sweep's fixtures: one-op programs exported from PyTorch's own OpInfo
samples (torch.testing._internal.common_methods_invocations.op_db), with torch eager's
outputs, for every op whose core-ATen program (ep.run_decompositions()) has only core ATen
ops. Read by tests/conformance/conformance_test.cc, which writes docs/conformance.md.

    ~/.venvs/torch/bin/python tests/conformance/gen_conformance.py [ENTRY ...]

With OpInfo entry names (as docs/conformance.md lists them), only those entries are
(re)generated; the other cases of the manifest stay as they are.

Per OpInfo entry (name plus variant) and dtype (float32, int64, int32 where the op takes
them) the first samples whose tensors are small are kept (SAMPLES_PER_DTYPE). Each case is
tests/data/conformance/<case>.pt2 (torch.export.save; its zip members re-stored with
deflate to keep the sweep small, the members themselves unchanged); manifest.json lists the
cases with their inputs and torch's outputs (dtype, shape, flat data; NaN and infinities as
the strings "nan", "inf", "-inf"). Random ops (outputs differ between two eager runs) and
samples whose outputs are not plain tensors are left out.
"""

import json
import os
import shutil
import sys
import warnings
import zipfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "data"))  # tests/data: export_util
from export_util import restore_deflated  # noqa: E402
from torch.utils import _pytree as pytree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "data", "conformance")
DTYPES = {torch.float32: "float32", torch.int64: "int64"}
SAMPLES_PER_DTYPE = {torch.float32: 2, torch.int64: 1}
# OpInfo entries outside torch.* whose ATen op is core (the torch.* ones are found by name).
FUNCTIONAL = {"nn.functional.pad", "nn.functional.interpolate", "nn.functional.conv1d",
              "nn.functional.conv2d", "nn.functional.avg_pool2d", "nn.functional.avg_pool3d",
              "nn.functional.max_pool2d", "nn.functional.adaptive_avg_pool2d",
              "nn.functional.group_norm", "nn.functional.layer_norm", "nn.functional.leaky_relu",
              "nn.functional.elu", "nn.functional.relu", "nn.functional.relu6",
              "nn.functional.hardtanh", "nn.functional.hardswish", "nn.functional.hardsigmoid",
              "nn.functional.silu", "nn.functional.gelu", "nn.functional.softmax",
              "nn.functional.log_softmax", "nn.functional.embedding", "nn.functional.linear",
              "nn.functional.grid_sample", "nn.functional.pixel_shuffle", "nn.functional.glu",
              "nn.functional.mish", "nn.functional.softplus", "nn.functional.selu",
              "nn.functional.celu", "nn.functional.logsigmoid", "nn.functional.normalize",
              "nn.functional.cosine_similarity", "nn.functional.pairwise_distance",
              "nn.functional.unfold", "nn.functional.fold", "nn.functional.upsample_nearest",
              "nn.functional.upsample_bilinear", "nn.functional.prelu", "nn.functional.tanhshrink",
              "nn.functional.hardshrink", "nn.functional.softshrink", "nn.functional.threshold",
              "nn.functional.mse_loss", "nn.functional.l1_loss", "nn.functional.smooth_l1_loss",
              "nn.functional.one_hot", "nn.functional.local_response_norm",
              "nn.functional.adaptive_avg_pool3d", "nn.functional.max_pool3d", "cdist",
              "nn.functional.pdist", "nn.functional.embedding_bag", "nn.functional.batch_norm",
              "nn.functional.instance_norm"}
MAX_ELEMENTS = 160  # inputs and outputs of one sample together
# Entries whose smallest OpInfo samples are larger: their own budget.
MAX_ELEMENTS_OF = {"nn.functional.max_pool3d": 400, "nn.functional.grid_sample": 400,
                   "grid_sampler_2d": 1400, "_native_batch_norm_legit": 400,
                   "nn.functional.batch_norm.without_cudnn": 400}
# Non-core ops that run_decompositions() itself emits for the inference forms of core ops
# (embedding_bag without gradients, eval-mode _native_batch_norm_legit); kept like core ones.
EMITTED = {"aten::_embedding_bag_forward_only", "aten::_native_batch_norm_legit_functional"}
NPY_OK = {torch.float32, torch.float64, torch.int64, torch.int32, torch.bool}
# Families with no inference meaning or no core-ATen lowering worth a fixture.
SKIP_PREFIXES = ("linalg.", "sparse.", "_refs.", "to_sparse", "nn.functional.dropout",
                 "bernoulli", "normal", "rand", "multinomial", "empty", "new_empty", "uniform",
                 "cauchy", "exponential", "geometric", "log_normal", "nn.functional.feature_alpha",
                 "nn.functional.alpha_dropout", "nn.functional.rrelu", "jiterator", "svd",
                 "pca", "lobpcg", "cholesky", "lu", "qr", "pinv", "matrix_exp", "det", "eig",
                 "inverse", "logdet", "slogdet", "triangular_solve", "ormqr", "geqrf",
                 "nn.functional.ctc_loss", "item", "nonzero_static", "tolist", "resize",
                 "signal.", "fft.", "special.", "cdouble", "cfloat", "chalf", "view_as_complex",
                 "view_as_real", "complex", "polar", "histc", "bincount", "unique", "nonzero",
                 "masked_select", "combinations", "argwhere", "repeat_interleave",
                 "sparse_", "torch.ops.aten._efficient",
                 "nn.functional.scaled_dot_product_attention",
                 "nanquantile", "quantile", "searchsorted", "bucketize", "kthvalue", "median",
                 "nanmedian", "mode", "index_reduce", "put", "take", "stft", "istft")


def core_ops():
    path = os.path.join(ROOT, "importer", "core_aten_ops.inc")
    with open(path) as f:
        return {l.strip().strip(",").strip('"') for l in f if l.startswith('"')}


def op_name(target):
    s = str(target)
    if not s.startswith("aten."):
        return None
    name, overload = s[len("aten."):].rsplit(".", 1)
    return "aten::" + name + ("" if overload == "default" else "." + overload)


class OneOp(torch.nn.Module):
    def __init__(self, fn, spec, consts):
        super().__init__()
        self.fn, self.spec, self.consts = fn, spec, consts

    def forward(self, *tensors):
        it = iter(tensors)
        leaves = [next(it) if c is None else c for c in self.consts]
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.fn(*args, **kwargs)


def plain_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else [out]
    if not outs or not all(isinstance(t, torch.Tensor) for t in outs):
        return None
    if any(t.dtype not in NPY_OK for t in outs):
        return None
    return [t.detach().contiguous() for t in outs]


def same(a, b):
    return len(a) == len(b) and all(
        x.shape == y.shape and torch.equal(torch.nan_to_num(x.double(), 7.0),
                                           torch.nan_to_num(y.double(), 7.0)) for x, y in zip(a, b))


def number(x, floating):
    if not floating:
        return int(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(str(x))  # shortest text that reads back as the same value


def enc(t):
    dtype = str(t.dtype).replace("torch.", "")
    if t.is_complex():  # its parts, real then imaginary, element by element
        t = torch.view_as_real(t.resolve_conj().contiguous())
    a = t.numpy().reshape(-1)
    floating = t.dtype.is_floating_point
    return {"dtype": dtype, "shape": list(t.shape), "data": [number(x, floating) for x in a]}


def try_sample(opinfo, sample, core, max_elements=MAX_ELEMENTS):
    args = (sample.input,) + tuple(sample.args)
    leaves, spec = pytree.tree_flatten((args, dict(sample.kwargs)))
    tensors, consts = [], []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            if leaf.dtype not in NPY_OK or leaf.is_complex():
                return None, "input dtype"
            tensors.append(leaf.detach().contiguous().clone())
            consts.append(None)
        else:
            consts.append(leaf)
    if not tensors:
        return None, "no tensor input"
    mod = OneOp(opinfo.op, spec, consts)
    with torch.no_grad():
        try:
            want = plain_outputs(mod(*[t.clone() for t in tensors]))
            again = plain_outputs(mod(*[t.clone() for t in tensors]))
        except Exception as e:  # noqa: BLE001 - samples that torch itself rejects
            return None, f"eager: {type(e).__name__}"
    if want is None:
        return None, "outputs"
    if not same(want, again):
        return None, "random"
    n = sum(t.numel() for t in tensors) + sum(t.numel() for t in want)
    if n > max_elements:
        return None, "large"
    try:
        ep = torch.export.export(mod, tuple(tensors)).run_decompositions()
    except Exception as e:  # noqa: BLE001
        return None, f"export: {type(e).__name__}"
    ops = sorted({op_name(n.target) for n in ep.graph.nodes
                  if n.op == "call_function" and op_name(n.target)})
    if not ops:
        return None, "no aten op"
    if any(o not in core for o in ops):
        return None, "not core"
    return (ep, tensors, want, ops), None


def main():
    from torch.testing._internal.common_methods_invocations import op_db
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    core = core_ops() | EMITTED
    only = set(sys.argv[1:])
    cases = []
    if only and os.path.exists(os.path.join(OUT, "manifest.json")):
        with open(os.path.join(OUT, "manifest.json")) as f:
            for c in json.load(f)["cases"]:
                if c["op"] not in only:
                    cases.append(c)
                elif os.path.exists(os.path.join(OUT, c["case"] + ".pt2")):
                    os.remove(os.path.join(OUT, c["case"] + ".pt2"))
    else:
        if os.path.isdir(OUT):
            shutil.rmtree(OUT)
        os.makedirs(OUT)
    core_names = {o.split("::")[1].split(".")[0] for o in core}
    for opinfo in op_db:
        name = opinfo.name + ("." + opinfo.variant_test_name if opinfo.variant_test_name else "")
        if only and name not in only:
            continue
        if name.startswith(SKIP_PREFIXES):
            continue
        if opinfo.name not in FUNCTIONAL and opinfo.name.replace("_", "") not in {
                n.replace("_", "") for n in core_names} and opinfo.aten_name not in core_names:
            continue
        supported = opinfo.supported_dtypes("cpu")
        for dtype, dname in DTYPES.items():
            if dtype not in supported:
                continue
            kept = 0
            try:
                samples = list(opinfo.sample_inputs("cpu", dtype, requires_grad=False))
            except Exception:  # noqa: BLE001
                continue
            for i, sample in enumerate(samples):
                if kept >= SAMPLES_PER_DTYPE[dtype] or i >= 40:
                    break
                torch.manual_seed(i)
                got, _ = try_sample(opinfo, sample, core, MAX_ELEMENTS_OF.get(name, MAX_ELEMENTS))
                if got is None:
                    continue
                ep, tensors, want, ops = got
                case = f"{name}-{dname}-{i}".replace("/", "_")
                path = os.path.join(OUT, case + ".pt2")
                torch.export.save(ep, path)
                restore_deflated(path)
                cases.append({"case": case, "op": name, "dtype": dname, "sample": i,
                              "core_ops": ops, "inputs": [enc(t) for t in tensors],
                              "outputs": [enc(t) for t in want]})
                kept += 1
        print(name, sum(1 for c in cases if c["op"] == name), flush=True)
        write_manifest(cases)  # after every op, so an interrupted run keeps what it made
    print(len(cases), "cases")


def write_manifest(cases):
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        f.write('{"torch": ' + json.dumps(torch.__version__) + ', "cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
