#!/usr/bin/env python3
"""ExecuTorch with its XNNPACK delegate as a peer of bench/compare/run.py (engines et-f32 and
et-int8). Runs in its own venv, because the executorch wheel pins its torch (1.5.1: torch 2.14.1):

    python3 -m venv ~/.venvs/et
    ~/.venvs/et/bin/pip install torch==2.14.1 torchvision executorch==1.5.1 transformers==5.23.0

    # .pte files of one model (run.py does this when they are missing):
    ~/.venvs/et/bin/python bench/compare/executorch_peer.py export gpt2_small DIR
    # one engine in its own process, the protocol of worker.py (run.py calls this):
    ~/.venvs/et/bin/python bench/compare/executorch_peer.py run et-int8 DIR --threads 2 \\
        --warmup 2 --reps 10 --out OUT

export: builds the model of bench/export_large.py (its factory, seed and inputs; the inputs
are checked against DIR/input_<k>.npy, which run.py copied from the exported program),
torch.export.export()s it and lowers it with to_edge_transform_and_lower + XnnpackPartitioner:
  DIR/model.et-f32.pte   float32 program, every op XNNPACK takes delegated to it;
  DIR/model.et-int8.pte  PT2E: XNNPACKQuantizer with get_symmetric_quantization_config(
                         is_per_channel=True, is_dynamic=True) (int8 weights, symmetric per
                         output channel; int8 activations quantized at run time, which XNNPACK
                         does per token), prepare_pt2e, one calibration run, convert_pt2e,
                         export, lowered the same way. HF GPT-2's Conv1D projections are
                         swapped for the equal nn.Linear first (the quantizer matches only
                         aten.linear; see conv1d_as_linear).
It prints which ops stayed outside the delegate (XNNPACK here has no layer_norm: ExecuTorch's
kernels run it outside the delegate, as they run the attention-mask arithmetic).
run: _unsafe_reset_threadpool(--threads) (ExecuTorch's pthreadpool, which XNNPACK uses; the
thread count it then reports is printed on stderr and in the JSON), _load_for_executorch, one
cold run whose outputs go to OUT/output_<k>.npy, --warmup runs, --reps timed runs; prints
{"first_output_unix", "times_ms", "threads"} as one JSON line.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PTE = {"et-f32": "model.et-f32.pte", "et-int8": "model.et-int8.pte"}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def model_and_inputs(name, model_dir):
    """export_large's module (seeded as export_util.build seeds it) and its inputs, checked
    against the inputs of the program the other engines run."""
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import export_large
    spec = {m[0]: m for m in export_large.MODELS}.get(name)
    if spec is None:
        sys.exit(f"error: unknown model {name!r}; known: {sorted(m[0] for m in export_large.MODELS)}")
    _, factory, seed, make_inputs, _ = spec
    torch.manual_seed(seed)
    module = factory().eval()
    args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    assert not kwargs, name
    for k, t in enumerate(args):
        saved = np.load(os.path.join(model_dir, f"input_{k}.npy"))
        if not np.array_equal(saved, t.numpy()):
            sys.exit(f"error: {model_dir}/input_{k}.npy differs from export_large's input {k}")
    return module, args


def lower(ep, path):
    """to_edge_transform_and_lower with the XNNPACK partitioner, written to path (via a
    temporary file, so a failed run leaves no .pte)."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.backends.xnnpack.utils.configs import (
        get_xnnpack_edge_compile_config, get_xnnpack_executorch_backend_config)
    from executorch.devtools.backend_debug import get_delegation_info
    from executorch.exir import to_edge_transform_and_lower
    edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()],
                                       compile_config=get_xnnpack_edge_compile_config())
    info = get_delegation_info(edge.exported_program().graph_module)
    outside = {op: n.non_delegated for op, n in info.delegation_by_operator.items()
               if n.non_delegated}
    log(f"{os.path.basename(path)}: {info.num_delegated_subgraphs} XNNPACK subgraphs, "
        f"{info.num_delegated_nodes} nodes delegated, {info.num_non_delegated_nodes} not: {outside}")
    prog = edge.to_executorch(config=get_xnnpack_executorch_backend_config())
    with open(path + ".tmp", "wb") as f:
        prog.write_to_file(f)
    os.replace(path + ".tmp", path)


def keep_integer_scalars(gm):
    """prepare_pt2e turns scalar operands into float tensor attributes (`arange + 0` becomes
    `arange + tensor(0.)`), which makes the integer index arithmetic of transformers' attention
    masks float ("tensors used as indices must be long"): give such attributes their user's
    integer dtype again."""
    import torch
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        owner, _, attr = node.target.rpartition(".")
        owner = gm.get_submodule(owner) if owner else gm
        value = getattr(owner, attr)
        if not isinstance(value, torch.Tensor) or value.dim() != 0 or not value.is_floating_point():
            continue
        dtypes = {u.meta["val"].dtype for u in node.users if isinstance(u.meta.get("val"), torch.Tensor)}
        if len(dtypes) == 1 and not next(iter(dtypes)).is_floating_point and value == value.round():
            setattr(owner, attr, value.to(next(iter(dtypes))))
    return gm


def conv1d_as_linear(module):
    """HF GPT-2 computes its projections with transformers' Conv1D (addmm on an [in, out]
    weight), which XNNPACKQuantizer's patterns (aten.linear) do not match: left as it is, only
    lm_head would be int8. Each Conv1D becomes the nn.Linear holding the transposed weight (the
    same function), so ExecuTorch's int8 quantizes the same GEMMs tir int8 does."""
    import torch
    from transformers.pytorch_utils import Conv1D
    swapped = 0
    for parent in list(module.modules()):
        for child_name, child in list(parent.named_children()):
            if isinstance(child, Conv1D):
                n_in, n_out = child.weight.shape
                linear = torch.nn.Linear(n_in, n_out)
                linear.weight = torch.nn.Parameter(child.weight.detach().t().contiguous())
                linear.bias = child.bias
                setattr(parent, child_name, linear)
                swapped += 1
    return swapped


def export(name, model_dir, engines):
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    module, args = model_and_inputs(name, model_dir)
    with torch.no_grad():
        if "et-f32" in engines:
            t0 = time.time()
            lower(torch.export.export(module, args), os.path.join(model_dir, PTE["et-f32"]))
            log(f"{name}: et-f32 lowered in {time.time() - t0:.0f} s")
        if "et-int8" not in engines:
            return
        t0 = time.time()
        swapped = conv1d_as_linear(module)
        if swapped:
            log(f"{name}: {swapped} transformers Conv1D modules as nn.Linear for the quantizer")
        quantizer = XNNPACKQuantizer().set_global(
            get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True))
        prepared = keep_integer_scalars(
            prepare_pt2e(torch.export.export(module, args).module(), quantizer))
        prepared(*args)  # dynamic activations: this only runs the weight observers' inputs
        converted = convert_pt2e(prepared)
        lower(torch.export.export(converted, args), os.path.join(model_dir, PTE["et-int8"]))
        log(f"{name}: et-int8 lowered in {time.time() - t0:.0f} s")


def run(engine, model_dir, threads, warmup, reps, out):
    import numpy as np
    import torch
    from executorch.extension.pybindings.portable_lib import (
        _load_for_executorch, _threadpool_get_thread_count, _unsafe_reset_threadpool)
    torch.set_num_threads(threads)  # ops left outside the delegate (portable kernels)
    _unsafe_reset_threadpool(threads)
    used = _threadpool_get_thread_count()
    log(f"{engine}: ExecuTorch threadpool {used} threads")
    inputs, k = [], 0
    while os.path.exists(os.path.join(model_dir, f"input_{k}.npy")):
        inputs.append(torch.from_numpy(np.load(os.path.join(model_dir, f"input_{k}.npy"))))
        k += 1
    module = _load_for_executorch(os.path.join(model_dir, PTE[engine]))
    outputs = module.forward(inputs)
    first = time.time()
    os.makedirs(out, exist_ok=True)
    for k, o in enumerate(outputs):
        np.save(os.path.join(out, f"output_{k}.npy"), o.numpy())
    for _ in range(warmup):
        module.forward(inputs)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        module.forward(inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"first_output_unix": first, "times_ms": times, "threads": used}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write DIR/model.et-f32.pte and DIR/model.et-int8.pte")
    e.add_argument("model")
    e.add_argument("model_dir")
    e.add_argument("--engines", nargs="+", choices=sorted(PTE), default=sorted(PTE),
                   help="which .pte files to write (default: both)")
    r = sub.add_parser("run", help="time one engine (worker.py's protocol)")
    r.add_argument("engine", choices=sorted(PTE))
    r.add_argument("model_dir")
    r.add_argument("--threads", type=int, required=True)
    r.add_argument("--warmup", type=int, default=2)
    r.add_argument("--reps", type=int, default=10)
    r.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "export":
        export(a.model, a.model_dir, a.engines)
    else:
        run(a.engine, a.model_dir, a.threads, a.warmup, a.reps, a.out)


if __name__ == "__main__":
    sys.exit(main())
