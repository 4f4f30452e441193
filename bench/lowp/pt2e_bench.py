#!/usr/bin/env python3
"""Speed of a PT2E-quantized transformer in tir: the int8 GEMM rewrite against the reference
kernels of torch's quantize ops, torch eager, and tir on the float32 original, one run.

    ~/.venvs/torch/bin/python bench/lowp/pt2e_bench.py [--build build] [--layers 4]
        [--dim 768] [--seq 128] [--threads 2] [--reps 10] [--out bench/results/pt2e_int8.csv]

Model: --layers GPT-2 blocks of tests/data/gen_quant.py (nn.Linear projections, dim --dim,
12 heads), random weights, quantized by torchao's PT2E flow with the X86InductorQuantizer
(uint8 per-tensor activations, int8 per-channel weights; calibration on 4 random inputs),
exported in the core IR (the dialect tir's other benchmarks use) to a temporary folder.
Engines (median ms of --reps runs after one warm-up, same thread count):
  torch-f32         the float32 model in torch eager
  torch-pt2e        the quantized GraphModule in torch eager (torch's quantized reference:
                    quantize/dequantize ops around float32 GEMMs)
  tir-f32           tir on the float32 model's export
  tir-pt2e-ref      tir on the quantized program with --no-fuse: every quantize op by its
                    reference kernel, float32 GEMMs on dequantized weights
  tir-pt2e-int8     tir on the quantized program: GEMMs rewritten to tir::quantized_linear
                    (runtime/quant_rewrite.h), oneDNN int8
Also the weight files' sizes and max |tir-pt2e-int8 - torch-pt2e| / max |torch-pt2e|.
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


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def tir(args, tmp, name, program, x_path, extra):
    tir_path, bin_path = os.path.join(tmp, name + ".tir"), os.path.join(tmp, name + ".bin")
    if not os.path.exists(tir_path):
        subprocess.run([os.path.join(args.build, "tools", "tirc"), "import", program, "-o", tir_path,
                        "--weights", bin_path], check=True, capture_output=True)
    out_dir = os.path.join(tmp, name + "_out")
    r = subprocess.run([os.path.join(args.build, "tools", "tirrun"), tir_path, "-w", bin_path, x_path,
                        "-t", str(args.threads), "--repeat", str(args.reps), "--json", "-o", out_dir]
                       + extra, check=True, capture_output=True, text=True)
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    return summary["median_ms"], np.load(os.path.join(out_dir, "output_0.npy")), os.path.getsize(bin_path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "pt2e_int8.csv"))
    args = ap.parse_args()
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

    rows = []
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        x_path = os.path.join(tmp, "x.npy")
        np.save(x_path, x.numpy())
        f32_path, q_path = os.path.join(tmp, "f32.pt2"), os.path.join(tmp, "q.pt2")
        torch.export.save(torch.export.export(model, (x,)).run_decompositions(), f32_path)
        torch.export.save(torch.export.export(quantized, (x,)).run_decompositions(), q_path)
        ref = quantized(x).numpy()
        rows.append(("torch-f32", median_ms(lambda: model(x), args.reps), "", ""))
        rows.append(("torch-pt2e", median_ms(lambda: quantized(x), args.reps), "", ""))
        ms, _, size = tir(args, tmp, "f32", f32_path, x_path, [])
        rows.append(("tir-f32", ms, size, ""))
        for engine, extra in (("tir-pt2e-ref", ["--no-fuse"]), ("tir-pt2e-int8", [])):
            ms, out, size = tir(args, tmp, "q", q_path, x_path, extra)
            err = float(np.abs(out - ref).max() / np.abs(ref).max())
            rows.append((engine, ms, size, f"{err:.3g}"))
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((l.split(":", 1)[1].strip() for l in cpu.splitlines()
                       if l.startswith("Model name")), "?")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["engine", "median_ms", "weight_file_bytes", "max_rel_err_vs_torch_pt2e",
                    "layers", "dim", "seq", "threads", "cpu"])
        for r in rows:
            w.writerow([r[0], f"{r[1]:.2f}", r[2], r[3], args.layers, args.dim, args.seq,
                        args.threads, model_name])
    for r in rows:
        print(f"{r[0]:15s} {r[1]:9.2f} ms  {r[2]!s:>11}  {r[3]}")
    print(f"wrote {args.out} ({model_name})")


if __name__ == "__main__":
    main()
