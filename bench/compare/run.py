#!/usr/bin/env python3
"""Speed side by side: tir (`tirrun`) vs PyTorch eager vs ONNX Runtime on CPU, same inputs,
same thread count. Writes a CSV and a PNG bar chart.

    ~/.venvs/torch/bin/python bench/compare/run.py [--models gpt2_small resnet18 ...]
        [--threads 2] [--reps 10] [--rounds 3] [--warmup 2] [--build build-lead]
        [--tir-builds NAME=DIR ...] [--profile] [--out bench/models/compare]
        [--engines torch ort tir tir-bf16 tir-int8 ort-int8 et-f32 et-int8 torch-cuda tir-cuda]

Setup (once): the test-data venv plus ONNX Runtime, the ONNX exporter and matplotlib:

    python3 -m venv ~/.venvs/torch
    ~/.venvs/torch/bin/pip install -r tests/data/requirements.txt
    ~/.venvs/torch/bin/pip install onnxruntime onnx onnxscript matplotlib

For each model (random weights, fixed seed, batch 1: gpt2_small seq 128, bert_base seq 128,
resnet18 and mobilenet_v3_large 224x224):
  1. bench/export_large.py exports it with torch.export (training IR) into bench/models/
     (ignored by git) unless already there; its inputs and torch eager outputs come along;
  2. `tirc import` writes model.tir + model.bin, torch.onnx.export (dynamo exporter, from the
     same ExportedProgram) writes model.onnx, into bench/models/<model>/compare/ (each file
     only when missing: delete it to redo);
  3. for --rounds rounds, each engine runs in its own process, engines alternating (the order
     rotates each round): load, one cold run, --warmup runs, --reps timed runs.
     torch = torch.export.load(...).module() run eagerly under no_grad (the exported
     ATen graph, no compile); ort = InferenceSession, CPU provider, ORT_SEQUENTIAL;
     tir = tirrun --threads N --json. All get OMP_NUM_THREADS=N and the same thread count.
     tir-bf16 (opt-in, --engines) = the same with --dtype bf16 (GEMM/matmul in bfloat16).
     tir-int8 (opt-in) = tirrun --dtype int8 on model.int8.bin, which `tirc weights pack
     --dtype int8 --model model.tir` writes (GEMM weights int8, per-channel scales);
     ort-int8 (opt-in) = ONNX Runtime on model.int8.onnx, which
     onnxruntime.quantization.quantize_dynamic writes (int8 weights, uint8 activations).
     et-f32 / et-int8 (opt-in) = ExecuTorch with its XNNPACK delegate, float32 / PT2E int8
     (XNNPACKQuantizer: per-channel symmetric int8 weights, dynamic per-token int8
     activations), run by bench/compare/executorch_peer.py in its own venv (--et-python,
     default ~/.venvs/et/bin/python: executorch pins its torch); the .pte files are lowered
     from the model export_large.py builds, same seed and inputs. Without that venv the et
     engines are skipped with one line.
     torch-cuda (opt-in) = the torch engine on GPU 0 (torch.export's move_to_device_pass,
     inputs uploaded once, outputs copied back to the host in every timed run, as tir does);
     tir-cuda (opt-in) = tirrun --device cuda (float32, TF32 off).

Several tir builds (A/B of a change): --tir-builds NAME=DIR ... (DIR as --build, i.e. holding
tools/tirrun) replaces each of the engines tir and tir-bf16 by one engine per build,
`tir@NAME` / `tir-bf16@NAME`, which run that build's tirrun and alternate with the other
engines like any engine. Every build runs the same model.tir + model.bin (the file format is
shared), imported by one tirc: --build's when --build is given, else the first build's.

    bench/compare/run.py --engines ort tir --tir-builds old=/tmp/base-build new=build

Per model and engine the CSV has: median/p90/min/max latency over all timed runs of all rounds
(p90: 90th percentile, linear interpolation), peak RSS (max over rounds, GNU time's %M), cold
start (median over rounds of process spawn to first output: for torch that is import torch +
torch.export.load + first run) and the max abs diff of every output against torch's (nan
without torch). --profile also runs `tirrun --profile` once per model (and tir build) and keeps
trace.json + the top-N tables (profile.txt) beside the models, trace@NAME.json and
profile@NAME.txt with --tir-builds.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS_ROOT = os.path.join(REPO, "bench", "models")
ALL_MODELS = ["gpt2_small", "bert_base", "resnet18", "mobilenet_v3_large"]
ENGINES = ["torch", "ort", "tir"]
OPTIONAL_ENGINES = ["tir-bf16", "tir-int8", "ort-int8", "et-f32", "et-int8", "torch-cuda",
                    "tir-cuda"]
ET_ENGINES = ("et-f32", "et-int8")  # bench/compare/executorch_peer.py in the ExecuTorch venv
QUANTIZED_PEERS = ("ort-int8", "et-int8")
TIR_ENGINES = ("tir", "tir-bf16", "tir-int8", "tir-cuda")  # run by tirrun; with --tir-builds once per build: tir@NAME
TIME = "/usr/bin/time"  # GNU time (Debian package `time`): peak RSS of one process


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def tir_engine(engine):
    """(kind, build name) of a tirrun engine: ("tir-bf16", "new") for "tir-bf16@new", ("tir", "")
    for plain "tir" (the --build one); None for torch and ort."""
    kind, _, name = engine.partition("@")
    return (kind, name) if kind in TIR_ENGINES else None


def prepare(model, build, python, engines=(), et_python=None):
    """Exports (if needed), imports with tirc, exports ONNX when an ort engine runs (and the
    int8 weight file and int8 ONNX model when their engines run); returns the compare dir."""
    src = os.path.join(MODELS_ROOT, model, "training")
    if not os.path.exists(os.path.join(src, "program.pt2")):
        log(f"{model}: exporting with torch (bench/export_large.py)")
        subprocess.run([python, os.path.join(REPO, "bench", "export_large.py"), model], check=True,
                       stdout=subprocess.DEVNULL)
    d = os.path.join(MODELS_ROOT, model, "compare")
    os.makedirs(d, exist_ok=True)
    k = 0
    while os.path.exists(os.path.join(src, f"input_{k}.npy")):
        shutil.copyfile(os.path.join(src, f"input_{k}.npy"), os.path.join(d, f"input_{k}.npy"))
        k += 1
    pt2 = os.path.join(d, "program.pt2")
    if not os.path.exists(pt2):
        os.link(os.path.join(src, "program.pt2"), pt2)
    if not os.path.exists(os.path.join(d, "model.tir")):
        log(f"{model}: tirc import")
        subprocess.run([os.path.join(build, "tools", "tirc"), "import", pt2, "-o",
                        os.path.join(d, "model.tir"), "--weights", os.path.join(d, "model.bin")],
                       check=True, stdout=subprocess.DEVNULL)
    if any(e.startswith("ort") for e in engines) and \
            not os.path.exists(os.path.join(d, "model.onnx")):
        log(f"{model}: torch.onnx.export")
        code = ("import sys, torch; ep = torch.export.load(sys.argv[1]); "
                "torch.onnx.export(ep, (), dynamo=True).save(sys.argv[2])")
        subprocess.run([python, "-c", code, pt2, os.path.join(d, "model.onnx.tmp")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.replace(os.path.join(d, "model.onnx.tmp"), os.path.join(d, "model.onnx"))
    if any(e.startswith("tir-int8") for e in engines) and \
            not os.path.exists(os.path.join(d, "model.int8.bin")):
        log(f"{model}: tirc weights pack --dtype int8")
        subprocess.run([os.path.join(build, "tools", "tirc"), "weights", "pack",
                        os.path.join(d, "model.bin"), "-o", os.path.join(d, "model.int8.bin"),
                        "--dtype", "int8", "--model", os.path.join(d, "model.tir")],
                       check=True, stdout=subprocess.DEVNULL)
    if "ort-int8" in engines and not os.path.exists(os.path.join(d, "model.int8.onnx")):
        log(f"{model}: onnxruntime quantize_dynamic")
        code = ("import sys; from onnxruntime.quantization import quantize_dynamic, QuantType; "
                "quantize_dynamic(sys.argv[1], sys.argv[2], weight_type=QuantType.QInt8)")
        subprocess.run([python, "-c", code, os.path.join(d, "model.onnx"),
                        os.path.join(d, "model.int8.onnx")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if any(e in ET_ENGINES and not os.path.exists(os.path.join(d, f"model.{e}.pte"))
           for e in engines):
        log(f"{model}: ExecuTorch export + XNNPACK lowering (executorch_peer.py export)")
        subprocess.run([et_python, os.path.join(HERE, "executorch_peer.py"), "export", model, d],
                       check=True, stdout=subprocess.DEVNULL)
    return d


def engine_command(engine, d, args, python, out_dir):
    if tir_engine(engine):
        kind, build = tir_engine(engine)
        n_in = len([f for f in os.listdir(d) if f.startswith("input_")])
        return [args.tirrun[build], os.path.join(d, "model.tir"),
                *[os.path.join(d, f"input_{k}.npy") for k in range(n_in)],
                "--weights", os.path.join(d, "model.int8.bin" if kind == "tir-int8" else "model.bin"),
                "--threads", str(args.threads),
                "--repeat", str(args.warmup + args.reps), "--json", "-o", out_dir,
                "--dtype", {"tir-bf16": "bf16", "tir-int8": "int8"}.get(kind, "f32"),
                "--device", "cuda" if kind == "tir-cuda" else "cpu"]
    if engine in ET_ENGINES:
        return [args.et_python, os.path.join(HERE, "executorch_peer.py"), "run", engine, d,
                "--threads", str(args.threads), "--warmup", str(args.warmup),
                "--reps", str(args.reps), "--out", out_dir]
    return [python, os.path.join(HERE, "worker.py"), engine, d, "--threads", str(args.threads),
            "--warmup", str(args.warmup), "--reps", str(args.reps), "--out", out_dir]


def measure(engine, d, args, python, round_dir):
    """One process of `engine`: its timed runs, cold start and own peak RSS."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), MKL_NUM_THREADS=str(args.threads))
    cmd = engine_command(engine, d, args, python, round_dir)
    os.makedirs(round_dir, exist_ok=True)
    # A child's ru_maxrss also counts the memory of the process it was forked from (this
    # one, with numpy and outputs loaded), so /usr/bin/time, a small parent, reports it.
    rss_file = os.path.join(round_dir, "peak_rss_kb")
    if os.path.exists(TIME):
        cmd = [TIME, "-f", "%M", "-o", rss_file] + cmd
    with open(os.path.join(round_dir, "stdout"), "wb") as fo, \
            open(os.path.join(round_dir, "stderr"), "wb") as fe:
        t_spawn = time.time()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        with open(os.path.join(round_dir, "stderr"), errors="replace") as f:
            raise RuntimeError(f"{engine}: {' '.join(cmd)} failed ({p.returncode}): "
                               f"{f.read()[-2000:]}")
    with open(os.path.join(round_dir, "stdout")) as f:
        r = json.loads(f.read().strip().splitlines()[-1])
    if tir_engine(engine):
        first = r["first_output_unix_ms"] / 1e3
        times = r["times_ms"][args.warmup:]
    else:
        first, times = r["first_output_unix"], r["times_ms"]
    rss_kb = usage.ru_maxrss  # KiB on Linux
    if os.path.exists(TIME):
        with open(rss_file) as f:
            rss_kb = int(f.read().split()[-1])
    return {"cold_ms": (first - t_spawn) * 1e3, "times": times, "rss_mb": rss_kb / 1024.0}


def max_abs_diff(dir_a, dir_b):
    worst, k = 0.0, 0
    while os.path.exists(os.path.join(dir_b, f"output_{k}.npy")):
        a = np.load(os.path.join(dir_a, f"output_{k}.npy")).astype(np.float64)
        b = np.load(os.path.join(dir_b, f"output_{k}.npy")).astype(np.float64)
        if a.shape != b.shape:
            return float("inf")
        worst = max(worst, float(np.abs(a - b).max()))
        k += 1
    return worst


def profile_tir(model, d, args):
    """tirrun --profile once per tir build: trace[@NAME].json and profile[@NAME].txt in d."""
    for build, tirrun in args.tirrun.items():
        suffix = f"@{build}" if build else ""
        trace = os.path.join(d, f"trace{suffix}.json")
        r = subprocess.run([tirrun, os.path.join(d, "model.tir"),
                            *sorted(os.path.join(d, f) for f in os.listdir(d)
                                    if f.startswith("input_")),
                            "--weights", os.path.join(d, "model.bin"),
                            "--threads", str(args.threads),
                            "--repeat", "3", "--profile", trace, "--profile-top", "12"],
                           check=True, capture_output=True, text=True,
                           env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
        with open(os.path.join(d, f"profile{suffix}.txt"), "w") as f:
            f.write(r.stdout)
        log(f"--- {model}: tirrun{suffix} --profile ({trace})\n{r.stdout}")


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    models = list(dict.fromkeys(r["model"] for r in rows))
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    width = max(3.2, 0.75 * len(engines))
    fig, axes = plt.subplots(2, len(models), figsize=(max(4.5, width * len(models)), 6),
                             squeeze=False)  # >= 4.5: room for the title with one model
    colors = {"torch": "#ee4c2c", "ort": "#3a7bd5", "ort-int8": "#aec7e8", "tir": "#2ca02c",
              "tir-bf16": "#98df8a", "tir-int8": "#bcbd22", "torch-cuda": "#ff9896",
              "tir-cuda": "#1b5e20", "et-f32": "#9467bd", "et-int8": "#c5b0d5"}
    extra = ["#2ca02c", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"]
    for i, e in enumerate(e for e in engines if e not in colors):  # tir@NAME, tir-bf16@NAME
        colors[e] = extra[i % len(extra)]
    for j, m in enumerate(models):
        mr = [r for r in rows if r["model"] == m]
        names = [r["engine"] for r in mr]
        med = [r["median_ms"] for r in mr]
        err = [[r["median_ms"] - r["min_ms"] for r in mr], [r["max_ms"] - r["median_ms"] for r in mr]]
        axes[0][j].bar(names, med, yerr=err, color=[colors[n] for n in names], capsize=3)
        axes[0][j].set_title(m)
        axes[1][j].bar(names, [r["cold_start_ms"] for r in mr], color=[colors[n] for n in names])
        if any("@" in n for n in names):
            for ax in (axes[0][j], axes[1][j]):
                ax.tick_params(axis="x", labelrotation=30)
        if j == 0:
            axes[0][j].set_ylabel("latency ms (median, min-max)")
            axes[1][j].set_ylabel("cold start ms")
    gpu = " + GPU 0" if any(r["engine"].split("@")[0].endswith("-cuda") for r in rows) else ""
    fig.suptitle(f"CPU, {rows[0]['threads']} threads{gpu}, batch 1 (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def parse_args():
    """The CLI; besides its options, sets args.engines (tir expanded per build), args.tirrun
    ({build name: tirrun path}, "" for --build) and args.import_build (whose tirc imports)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=ALL_MODELS, choices=ALL_MODELS)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10, help="timed runs per process")
    ap.add_argument("--rounds", type=int, default=3, help="processes per engine, alternating")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--build", help="build folder with tools/tirc and tools/tirrun (default: "
                    "build-lead); with --tir-builds only its tirc is used (default: the first "
                    "build's)")
    ap.add_argument("--tir-builds", nargs="+", default=[], metavar="NAME=DIR",
                    help="compare several tir builds: engines tir@NAME (and tir-bf16@NAME) run "
                    "DIR/tools/tirrun, in place of tir (tir-bf16)")
    ap.add_argument("--out", default=os.path.join(MODELS_ROOT, "compare"),
                    help="folder for compare.csv and compare.png")
    ap.add_argument("--profile", action="store_true", help="also profile each model with tir")
    ap.add_argument("--et-python", default=os.path.expanduser("~/.venvs/et/bin/python"),
                    help="python of the ExecuTorch venv, for the engines et-f32 and et-int8")
    ap.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES + OPTIONAL_ENGINES,
                    help="engines to run (tir-bf16: tirrun --dtype bf16)")
    args = ap.parse_args()

    builds = {}
    for spec in args.tir_builds:
        name, sep, path = spec.partition("=")
        if not sep or not path or not re.fullmatch(r"[A-Za-z0-9._-]+", name):
            ap.error(f"--tir-builds {spec!r}: expected NAME=DIR, NAME of letters, digits, . _ -")
        if name in builds:
            ap.error(f"--tir-builds: {name!r} given twice")
        builds[name] = os.path.abspath(path)
    if builds and not any(e in TIR_ENGINES for e in args.engines):
        ap.error("--tir-builds needs tir or tir-bf16 among --engines")
    default_build = os.path.join(REPO, "build-lead")
    args.import_build = os.path.abspath(args.build or next(iter(builds.values()), default_build))
    args.tirrun = {name: os.path.join(path, "tools", "tirrun") for name, path in builds.items()} \
        or {"": os.path.join(args.import_build, "tools", "tirrun")}
    engines = []
    for e in args.engines:
        engines += [f"{e}@{name}" for name in builds] if builds and e in TIR_ENGINES else [e]
    args.engines = list(dict.fromkeys(engines))
    if any(e in ET_ENGINES for e in args.engines) and not os.access(args.et_python, os.X_OK):
        log(f"skipping engines {[e for e in args.engines if e in ET_ENGINES]}: no ExecuTorch "
            f"venv python {args.et_python} (see bench/compare/executorch_peer.py to make one)")
        args.engines = [e for e in args.engines if e not in ET_ENGINES]
        if not args.engines:
            ap.error("no engine left to run")
    if any(tir_engine(e) for e in args.engines):
        for tirrun in args.tirrun.values():
            if not os.access(tirrun, os.X_OK):
                ap.error(f"no executable {tirrun}")
    return args


def summarize(rows, models):
    """Prints the table and the ratios: tir vs torch/ort, bf16 vs f32, each build vs the first."""
    w = max(8, *(len(r["engine"]) for r in rows))
    print(f"{'model':20} {'engine':{w}} {'median':>9} {'p90':>9} {'min':>9} {'max':>9} "
          f"{'rss MB':>8} {'cold ms':>9} {'maxdiff':>9}")
    for r in rows:
        print(f"{r['model']:20} {r['engine']:{w}} {r['median_ms']:9.1f} {r['p90_ms']:9.1f} "
              f"{r['min_ms']:9.1f} {r['max_ms']:9.1f} {r['peak_rss_mb']:8.0f} "
              f"{r['cold_start_ms']:9.0f} {r['max_abs_diff_vs_torch']:9.2g}")
    for m in models:
        by = {r["engine"]: r for r in rows if r["model"] == m}
        tirs = [e for e in by if tir_engine(e)]
        for e in tirs:
            kind, build = tir_engine(e)
            f32 = "tir" + (f"@{build}" if build else "")
            if kind in ("tir-bf16", "tir-int8") and f32 in by:
                print(f"{m}: {e}/{f32} {by[e]['median_ms'] / by[f32]['median_ms']:.2f}x")
            peers = [p for p in QUANTIZED_PEERS if p in by]
            if kind == "tir-int8" and peers:
                for p in peers:
                    print(f"{m}: {e}/{p} {by[e]['median_ms'] / by[p]['median_ms']:.2f}x")
                fastest = min(peers, key=lambda p: by[p]["median_ms"])
                print(f"{m}: {e}/fastest quantized peer ({fastest}) "
                      f"{by[e]['median_ms'] / by[fastest]['median_ms']:.2f}x")
        for kind in TIR_ENGINES:  # A/B: median and p90 of each build against the first one
            same = [e for e in tirs if tir_engine(e)[0] == kind]
            for e in same[1:]:
                a, b = by[e], by[same[0]]
                print(f"{m}: {e}/{same[0]} median {a['median_ms'] / b['median_ms']:.3f}x, "
                      f"p90 {a['p90_ms'] / b['p90_ms']:.3f}x, "
                      f"cold start {a['cold_start_ms'] / b['cold_start_ms']:.3f}x")
        for e in (e for e in tirs if tir_engine(e)[0] == "tir-cuda"):
            if "torch-cuda" in by:
                print(f"{m}: {e}/torch-cuda {by[e]['median_ms'] / by['torch-cuda']['median_ms']:.2f}x")
        for e in (e for e in tirs if tir_engine(e)[0] == "tir"):
            parts = [f"{e}/{ref} {by[e]['median_ms'] / by[ref]['median_ms']:.2f}x"
                     for ref in ("torch", "ort", "et-f32") if ref in by]
            if "torch" in by:
                parts.append(f"cold start {e}/torch "
                             f"{by[e]['cold_start_ms'] / by['torch']['cold_start_ms']:.3f}x")
            if parts:
                print(f"{m}: " + ", ".join(parts))


def main():
    args = parse_args()
    python = sys.executable
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for model in args.models:
        d = prepare(model, args.import_build, python, args.engines, args.et_python)
        engines = args.engines
        results = {e: [] for e in engines}
        for rnd in range(args.rounds):
            order = engines[rnd % len(engines):] + engines[:rnd % len(engines)]
            for engine in order:
                res = measure(engine, d, args, python, os.path.join(d, "runs", engine))
                results[engine].append(res)
                log(f"{model} round {rnd} {engine}: median "
                    f"{statistics.median(res['times']):.1f} ms, cold {res['cold_ms']:.0f} ms, "
                    f"rss {res['rss_mb']:.0f} MB")
        torch_dir = os.path.join(d, "runs", "torch")
        for engine in engines:
            times = [t for r in results[engine] for t in r["times"]]
            rows.append({
                "model": model, "engine": engine, "threads": args.threads,
                "median_ms": round(statistics.median(times), 2),
                "p90_ms": round(float(np.percentile(times, 90)), 2),
                "min_ms": round(min(times), 2), "max_ms": round(max(times), 2),
                "peak_rss_mb": round(max(r["rss_mb"] for r in results[engine]), 1),
                "cold_start_ms": round(statistics.median(r["cold_ms"] for r in results[engine]), 1),
                "max_abs_diff_vs_torch": float(f"{max_abs_diff(os.path.join(d, 'runs', engine), torch_dir):.3g}")
                if "torch" in engines else float("nan"),
                "runs": len(times),
            })
        if args.profile:
            profile_tir(model, d, args)

    csv_path = os.path.join(args.out, "compare.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    chart(rows, os.path.join(args.out, "compare.png"))
    summarize(rows, args.models)
    print(f"wrote {csv_path} and {os.path.join(args.out, 'compare.png')}")


if __name__ == "__main__":
    sys.exit(main())
