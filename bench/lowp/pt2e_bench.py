#!/usr/bin/env python3
"""Speed of a PT2E-quantized transformer in tir: the int8 GEMM rewrite against the reference
kernels of torch's quantize ops, torch eager, and tir on the float32 original, one run.

    ~/.venvs/torch/bin/python bench/lowp/pt2e_bench.py [--build build] [--layers 4]
        [--dim 768] [--seq 128] [--threads 2] [--reps 10] [--rounds 3] [--ir training|core]
        [--out bench/results/pt2e_int8.csv]

Model: --layers GPT-2 blocks of tests/data/gen_quant.py (nn.Linear projections, dim --dim,
12 heads), random weights, quantized by torchao's PT2E flow with the X86InductorQuantizer
(uint8 per-tensor activations, int8 per-channel weights; calibration on 4 random inputs),
exported to a temporary folder in the training IR (--ir core: after run_decompositions, where
every GEMM reads a permuted weight that tir's float32 path copies on each run).
Engines (median ms of --reps runs after one warm-up, same thread count; all engines once per
round, --rounds rounds, the median of the rounds' medians reported):
  torch-f32         the float32 model in torch eager
  torch-pt2e        the quantized GraphModule in torch eager (torch's quantized reference:
                    quantize/dequantize ops around float32 GEMMs)
  tir-f32           tir on the float32 model's export
  tir-pt2e-ref      tir on the quantized program with --no-fuse: every quantize op by its
                    reference kernel, float32 GEMMs on dequantized weights
  tir-pt2e-int8     tir on the quantized program: GEMMs rewritten to tir::quantized_linear
                    (runtime/passes/quant_rewrite.h), oneDNN int8
--cpu-time: CPU milliseconds per run on one thread instead (tirrun's CPU time over its timed
runs less that of a run without them; torch's process time per call), for a loaded machine.
Also the weight files' sizes and max |tir-pt2e-int8 - torch-pt2e| / max |torch-pt2e|.
"""
import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "data"))

import gen_quant  # noqa: E402  (the fixtures' GPT-2 block and PT2E flow)
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402
from torchao.quantization.pt2e.quantizer import x86_inductor_quantizer as xiq  # noqa: E402


class Stack(torch.nn.Module):
    def __init__(self, layers, dim):
        super().__init__()
        self.blocks = torch.nn.ModuleList(gen_quant.GPT2Block(dim, 12) for _ in range(layers))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x


CLOCK = time.perf_counter  # --cpu-time: time.process_time


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = CLOCK()
        fn()
        times.append((CLOCK() - t0) * 1e3)
    return float(np.median(times))


def children_cpu_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tir(args, tmp, name, program, x_path, extra):
    tir_path, bin_path = os.path.join(tmp, name + ".tir"), os.path.join(tmp, name + ".bin")
    if not os.path.exists(tir_path):
        subprocess.run([os.path.join(args.build, "tools", "tirc"), "import", program, "-o", tir_path,
                        "--weights", bin_path], check=True, capture_output=True)
    out_dir = os.path.join(tmp, name + "_out")

    def tirrun(repeat):
        t0 = children_cpu_s()
        r = subprocess.run([os.path.join(args.build, "tools", "tirrun"), tir_path, "-w", bin_path,
                            x_path, "-t", str(args.threads), "--repeat", str(repeat), "--json",
                            "-o", out_dir] + extra, check=True, capture_output=True, text=True)
        return json.loads(r.stdout.strip().splitlines()[-1]), children_cpu_s() - t0

    summary, cpu = tirrun(args.reps)
    if args.cpu_time:  # CPU seconds of the timed runs: those of a process without them removed
        _, cpu0 = tirrun(0)
        ms = (cpu - cpu0) * 1e3 / args.reps
    else:
        ms = summary["median_ms"]
    return ms, np.load(os.path.join(out_dir, "output_0.npy")), os.path.getsize(bin_path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ir", choices=["training", "core"], default="training")
    ap.add_argument("--cpu-time", action="store_true",
                    help="report CPU ms per run with one thread instead of wall ms (robust to a "
                         "loaded machine: time spent waiting for a core is not counted)")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "pt2e_int8.csv"))
    args = ap.parse_args()
    if args.cpu_time:
        global CLOCK
        CLOCK = time.process_time
        args.threads = 1
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = gen_quant.randomize(Stack(args.layers, args.dim)).eval()
    x = torch.randn(1, args.seq, args.dim)
    quantizer = xiq.X86InductorQuantizer()
    quantizer.set_global(xiq.get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(torch.export.export(model, (x,)).module(), quantizer)
    for _ in range(4):
        prepared(torch.randn(1, args.seq, args.dim))
    quantized = gen_quant.drop_float_weights(convert_pt2e(prepared))

    times = {}  # engine -> median ms of each round (engines interleaved round by round)
    sizes, errors = {}, {}
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        x_path = os.path.join(tmp, "x.npy")
        np.save(x_path, x.numpy())
        f32_path, q_path = os.path.join(tmp, "f32.pt2"), os.path.join(tmp, "q.pt2")
        for module, path in ((model, f32_path), (quantized, q_path)):
            ep = torch.export.export(module, (x,))
            torch.export.save(ep.run_decompositions() if args.ir == "core" else ep, path)
        ref = quantized(x).numpy()
        for _ in range(args.rounds):
            times.setdefault("torch-f32", []).append(median_ms(lambda: model(x), args.reps))
            times.setdefault("torch-pt2e", []).append(median_ms(lambda: quantized(x), args.reps))
            ms, _, sizes["tir-f32"] = tir(args, tmp, "f32", f32_path, x_path, [])
            times.setdefault("tir-f32", []).append(ms)
            for engine, extra in (("tir-pt2e-ref", ["--no-fuse"]), ("tir-pt2e-int8", [])):
                ms, out, sizes[engine] = tir(args, tmp, "q", q_path, x_path, extra)
                errors[engine] = f"{float(np.abs(out - ref).max() / np.abs(ref).max()):.3g}"
                times.setdefault(engine, []).append(ms)
    rows = [(e, float(np.median(t)), sizes.get(e, ""), errors.get(e, "")) for e, t in times.items()]
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((l.split(":", 1)[1].strip() for l in cpu.splitlines()
                       if l.startswith("Model name")), "?")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["engine", "cpu_ms_per_run" if args.cpu_time else "median_ms", "weight_file_bytes", "max_rel_err_vs_torch_pt2e",
                    "layers", "dim", "seq", "threads", "ir", "cpu"])
        for r in rows:
            w.writerow([r[0], f"{r[1]:.2f}", r[2], r[3], args.layers, args.dim, args.seq,
                        args.threads, args.ir, model_name])
    for r in rows:
        print(f"{r[0]:15s} {r[1]:9.2f} ms  {r[2]!s:>11}  {r[3]}")
    print(f"wrote {args.out} ({model_name})")


if __name__ == "__main__":
    main()
