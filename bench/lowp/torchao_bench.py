#!/usr/bin/env python3
"""Speed of torchao-quantized programs in tir (docs/torchao.md) against torch eager, one run.

    ~/.venvs/torch/bin/python bench/lowp/torchao_bench.py [--build build] [--layers 2]
        [--dim 768] [--tokens 64] [--threads 2] [--reps 10] [--rounds 3] [--ir training|core]
        [--out bench/results/torchao_int8.csv]

Model: --layers MLP blocks (Linear dim -> 4 dim, ReLU, Linear 4 dim -> dim) on [1, --tokens,
dim], random weights, quantized with quantize_ + unwrap_tensor_subclass as
tests/data/gen_torchao.py does, exported to a temporary folder in the --ir dialect.
Engines (median ms of --reps runs after one warm-up, same thread count; every engine once per
round, --rounds rounds, the median of the rounds' medians reported):
  torch-f32       the float32 model in torch eager
  torch-dyn       Int8DynamicActivationInt8WeightConfig in torch eager (its tensor subclasses)
  torch-wo        Int8WeightOnlyConfig in torch eager
  tir-f32         tir on the float32 model's export
  tir-dyn-ref     tir on the dynamic program with --no-fuse: each _int_mm reads its weight's
                  t() view, known only at run, widened to float32 on every run
  tir-dyn         tir on the dynamic program: each _int_mm rewritten to tir::int_mm_weight
                  (runtime/passes/int_mm_rewrite.h), its weight packed once
  tir-wo          tir on the weight-only program (float32 mm on the int8 weight cast per run)
Also max |tir - torch eager| / max |torch eager| per quantized engine.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

from torchao.quantization import (Int8DynamicActivationInt8WeightConfig,  # noqa: E402
                                  Int8WeightOnlyConfig, quantize_)
from torchao.utils import unwrap_tensor_subclass  # noqa: E402


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up, self.down = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ir", choices=["training", "core"], default="training")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "torchao_int8.csv"))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = nn.Sequential(*[Block(args.dim) for _ in range(args.layers)]).eval()
    x = torch.randn(1, args.tokens, args.dim)
    models = {"f32": model}
    for name, config in (("dyn", Int8DynamicActivationInt8WeightConfig),
                         ("wo", Int8WeightOnlyConfig)):
        q = nn.Sequential(*[Block(args.dim) for _ in range(args.layers)]).eval()
        q.load_state_dict(model.state_dict())
        quantize_(q, config())
        models[name] = q
    tmp = tempfile.mkdtemp(prefix="torchao_bench_")
    x_path = os.path.join(tmp, "x.npy")
    np.save(x_path, x.numpy())
    with torch.no_grad():
        eager = {name: m(x).numpy() for name, m in models.items()}

    def tir_engine(name, fuse):
        path = os.path.join(tmp, name)
        if not os.path.exists(path + ".tir"):
            m = models[name] if name == "f32" else unwrap_tensor_subclass(models[name])
            ep = torch.export.export(m, (x,))
            if args.ir == "core":
                ep = ep.run_decompositions()
            torch.export.save(ep, path + ".pt2")
            subprocess.run([os.path.join(args.build, "tools", "tirc"), "import", path + ".pt2",
                            "-o", path + ".tir", "--weights", path + ".bin"], check=True,
                           capture_output=True)
        out = os.path.join(tmp, name + ("" if fuse else "_ref"))
        cmd = [os.path.join(args.build, "tools", "tirrun"), path + ".tir", "-w", path + ".bin",
               x_path, "-t", str(args.threads), "--repeat", str(args.reps), "--json", "-o", out]
        if not fuse:
            cmd.append("--no-fuse")
        r = subprocess.run(cmd, check=True, capture_output=True, text=True)
        summary = json.loads(r.stdout.strip().splitlines()[-1])
        y = np.load(os.path.join(out, "output_0.npy"))
        err = float(np.abs(y - eager[name]).max() / np.abs(eager[name]).max())
        return summary["median_ms"], err

    times, errors = {}, {}
    for _ in range(args.rounds):
        with torch.no_grad():
            for name in ("f32", "dyn", "wo"):
                times.setdefault("torch-" + name, []).append(
                    median_ms(lambda m=models[name]: m(x), args.reps))
        for engine, name, fuse in (("tir-f32", "f32", True), ("tir-dyn-ref", "dyn", False),
                                   ("tir-dyn", "dyn", True), ("tir-wo", "wo", True)):
            ms, err = tir_engine(name, fuse)
            times.setdefault(engine, []).append(ms)
            errors[engine] = err
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((ln.split(":", 1)[1].strip() for ln in cpu.splitlines()
                       if ln.startswith("Model name")), "unknown CPU")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["engine", "median_ms", "max_rel_err_vs_torch_eager", "cpu", "threads",
                    "layers", "dim", "tokens", "ir"])
        for engine, t in times.items():
            ms = float(np.median(t))
            w.writerow([engine, f"{ms:.3f}", f"{errors[engine]:.3g}" if engine in errors else "",
                        model_name, args.threads, args.layers, args.dim, args.tokens, args.ir])
            print(f"{engine:12s} {ms:9.3f} ms", f"err {errors[engine]:.3g}" if engine in errors
                  else "")
    print("wrote", args.out, "on", model_name)


if __name__ == "__main__":
    sys.exit(main())
