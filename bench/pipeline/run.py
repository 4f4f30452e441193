#!/usr/bin/env python3
"""Pipeline benchmark: profile, partition and run GPT-2 small and ResNet-18 as N stages.

    ~/.venvs/torch/bin/python bench/pipeline/run.py [--stages 2] [--microbatches 1,2,4,8]
    ~/.venvs/torch/bin/python bench/pipeline/run.py --rss-only --stages 3 --models resnet18

For each model (exported on demand with a dynamic batch dim into bench/models/pipeline/, same
random weights as bench/export_large.py):
  1. `tirrun --profile-layers` at the micro-batch size, `tirc partition --profile`;
  2. predicted vs measured time per stage (measured: each stage's busy time in a pipeline run
     with one micro-batch, when stages do not overlap);
  3. pipeline wall time with M micro-batches vs the unpartitioned model run on the same
     micro-batches one after another, with the same threads per stage: efficiency =
     sequential / (N x pipeline), against the ideal M / (M + N - 1);
  4. `mpirun -n N tirrun-mpi`: each rank's peak RSS (VmHWM) against the stage's weight bytes
     and the bound (1/N + 10%) of the model's weights. Reported raw and less the baseline: the
     same rank of the same binary under the same mpirun running the 2-stage partition of the
     tiny resnet_small test fixture (27 KB of weights): runtime, libraries, MPI, oneDNN.
     Each for the time-balanced partition and for `--memory-cap` = the bound (the trade-off:
     its predicted/measured stage times and efficiency are rows too), with oneDNN's Winograd
     convolutions (the default) and without (TIR_CONV_WINOGRAD=0: packed weights the size of
     the plain ones instead of 1.8-4x).
Writes bench/pipeline/results.csv and bench/pipeline/pipeline.png; rows of the models, stage
counts and kinds not run now are kept from the existing CSV (--rss-only: only step 4, for N
above the core count; mpirun --oversubscribe). Run it under /work/notes/quiet.sh (it times
things). Threads: one per stage (N stages on N cores).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BUILD = os.path.join(ROOT, "build")
MODELS = os.path.join(ROOT, "bench", "models", "pipeline")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")

BATCH = {"gpt2_small": 8, "resnet18": 8}
# Profile depth: module paths "model.transformer.h.0" (a GPT-2 block), "model.layer1.0" (a
# ResNet basic block).
DEPTH = {"gpt2_small": 4, "resnet18": 3}


def export(name):
    """bench/models/pipeline/<name>/{program.pt2, input_0.npy}, batch dim dynamic."""
    out = os.path.join(MODELS, name)
    if os.path.exists(os.path.join(out, "program.pt2")):
        return out
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import export_large as el
    torch.manual_seed(0)
    model = getattr(el, name)().eval()
    b = BATCH[name]
    batch = torch.export.Dim("batch", min=1, max=64)
    if name == "gpt2_small":
        x = torch.randint(0, 50257, (b, 32), dtype=torch.int64)
    else:
        x = torch.randn(b, 3, 224, 224)
    with torch.no_grad():
        ep = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
    os.makedirs(out, exist_ok=True)
    torch.export.save(ep, os.path.join(out, "program.pt2"))
    np.save(os.path.join(out, "input_0.npy"), x.numpy())
    return out


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def tool(name):
    return os.path.join(BUILD, "tools", name)


def mpi_rss(n, staged, wbin, inp, winograd=True):
    """Peak RSS (bytes) of each of the n ranks of one tirrun-mpi run."""
    env = dict(MPI_ENV, TIR_CONV_WINOGRAD="1" if winograd else "0")
    out = run(["mpirun", "--oversubscribe", "-x", "TIR_CONV_WINOGRAD", "-n", str(n),
               os.path.join(BUILD, "tools", "tirrun-mpi"), staged, "--weights", wbin, inp,
               "--threads", "1", "--json"], env=env)
    return [int(x) for x in json.loads(out.strip().splitlines()[-1])["peak_rss_bytes"]]


def baseline_rss(n, winograd):
    """Per-rank peak RSS of the n-stage partition of the tiny resnet_small fixture."""
    work = os.path.join(MODELS, "baseline")
    os.makedirs(work, exist_ok=True)
    fix = os.path.join(ROOT, "tests", "data", "fixtures", "resnet_small", "core")
    tir, wbin = os.path.join(work, "m.tir"), os.path.join(work, "m.bin")
    staged = os.path.join(work, f"s{n}.tir")
    run([tool("tirc"), "import", os.path.join(fix, "program.pt2"), "-o", tir, "--weights", wbin])
    run([tool("tirc"), "partition", tir, "--stages", str(n), "-o", staged])
    return mpi_rss(n, staged, wbin, os.path.join(fix, "input_0.npy"), winograd)


def stage_table(table):
    predicted, weights = [], []
    for m in re.finditer(r"^stage(\d+)\s+\S+\s+([0-9.]+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+"
                         r"([0-9.]+)$", table, re.M):
        weights.append(float(m.group(2)) * (1 << 20))
        predicted.append(float(m.group(3)))
    return predicted, weights


def read_rows():
    with open(os.path.join(HERE, "results.csv")) as f:
        return [{k: (float(v) if k not in ("model", "kind") and v not in ("", None) else v)
                 for k, v in r.items()} for r in csv.DictReader(f)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--microbatches", default="1,2,4,8")
    ap.add_argument("--models", default="gpt2_small,resnet18")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--replot", action="store_true", help="only redraw the PNG from the CSV")
    ap.add_argument("--rss-only", action="store_true",
                    help="only the per-rank peak RSS rows (for N above the core count)")
    args = ap.parse_args()
    if args.replot:
        return plot(read_rows(), os.path.join(HERE, "pipeline.png"))
    n = args.stages
    ms = [int(m) for m in args.microbatches.split(",")]
    rows = []
    for name in args.models.split(","):
        d = export(name)
        work = os.path.join(MODELS, name, "work")
        os.makedirs(work, exist_ok=True)
        tir, wbin = os.path.join(work, "m.tir"), os.path.join(work, "m.bin")
        if not os.path.exists(tir):
            run([tool("tirc"), "import", os.path.join(d, "program.pt2"), "-o", tir,
                 "--weights", wbin])
        x = np.load(os.path.join(d, "input_0.npy"))
        mmax = max(ms)
        micro = os.path.join(work, "micro.npy")
        np.save(micro, x[: x.shape[0] // mmax])
        whole = os.path.join(d, "input_0.npy")
        prof = os.path.join(work, "prof.csv")
        run([tool("tirrun"), tir, "--weights", wbin, micro, "--threads", "1", "--repeat", "5",
             "--profile-layers", prof, "--depth", str(DEPTH[name])])
        run([sys.executable, os.path.join(ROOT, "tools", "plot_layer_profile.py"), prof, "-o",
             os.path.join(HERE, f"profile_{name}.png")])
        total = os.path.getsize(wbin)
        bound = int(total * (1 / n + 0.1))
        staged = os.path.join(work, f"s{n}.tir")
        table = run([tool("tirc"), "partition", tir, "--stages", str(n), "--profile", prof,
                     "-o", staged])
        print(table)
        predicted, weights = stage_table(table)
        # The same with each stage's weights capped at the RSS bound.
        capped = os.path.join(work, f"s{n}_cap.tir")
        cap_table = run([tool("tirc"), "partition", tir, "--stages", str(n), "--profile", prof,
                         "--memory-cap", str(bound), "-o", capped])
        print(cap_table)
        cap_predicted, cap_weights = stage_table(cap_table)
        if not args.rss_only:
            rows += time_rows(args, name, n, ms, x, tir, wbin, micro, staged, capped,
                              predicted, weights, cap_predicted, cap_weights)
        for winograd in (True, False):
            base = baseline_rss(n, winograd)
            for kind, path, ws in (("rss", staged, weights), ("rss_cap", capped, cap_weights)):
                peaks = mpi_rss(n, path, wbin, micro, winograd)
                for k in range(n):
                    rows.append({"model": name, "kind": kind + ("" if winograd else "_nowino"),
                                 "stages": n, "stage": k, "peak_rss_bytes": peaks[k],
                                 "baseline_rss_bytes": base[k],
                                 "weight_bytes": int(ws[k]), "weights_over_n": total // n,
                                 "bound_bytes": bound})
    keys = ["model", "kind", "stages", "microbatches", "stage", "predicted_ms", "measured_ms",
            "sequential_ms", "pipeline_ms", "efficiency", "ideal", "peak_rss_bytes",
            "baseline_rss_bytes", "weight_bytes", "weights_over_n", "bound_bytes"]
    path = os.path.join(HERE, "results.csv")
    done = {(r["model"], str(r["stages"]), r["kind"]) for r in rows}
    if os.path.exists(path):  # keep the rows of the models, N and kinds not run now
        with open(path) as f:
            rows = [r for r in csv.DictReader(f)
                    if (r["model"], r["stages"], r["kind"]) not in done] + rows
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    rows = read_rows()
    plot(rows, os.path.join(HERE, "pipeline.png"))
    for r in rows:
        print(r)


def time_rows(args, name, n, ms, x, tir, wbin, micro, staged, capped, predicted, weights,
              cap_predicted, cap_weights):
    """Predicted vs measured stage times and pipeline efficiency (threads), both partitions."""
    rows = []
    work = os.path.dirname(tir)
    mmax = max(ms)
    # Measured per-stage time at the micro-batch size (one micro-batch: no overlap).
    one = json.loads(run([tool("tirrun"), staged, "--weights", wbin, micro, "--pipeline",
                          "--threads", str(n), "--repeat", str(args.repeat), "--json"]))
    for k in range(n):
        rows.append({"model": name, "kind": "stage_time", "stages": n, "microbatches": 1,
                     "stage": k, "predicted_ms": predicted[k],
                     "measured_ms": one["busy_ms"][k], "weight_bytes": int(weights[k])})
    one = json.loads(run([tool("tirrun"), capped, "--weights", wbin, micro, "--pipeline",
                          "--threads", str(n), "--repeat", str(args.repeat), "--json"]))
    for k in range(n):
        rows.append({"model": name, "kind": "stage_time_cap", "stages": n,
                     "microbatches": 1, "stage": k, "predicted_ms": cap_predicted[k],
                     "measured_ms": one["busy_ms"][k], "weight_bytes": int(cap_weights[k])})
    # Unpartitioned, one thread, on one micro-batch (its time x M is the sequential time).
    base = json.loads(run([tool("tirrun"), tir, "--weights", wbin, micro, "--threads", "1",
                           "--repeat", str(args.repeat), "--json"]))
    for m in ms:
        inp = os.path.join(work, f"in_{m}.npy")
        np.save(inp, x[: (x.shape[0] // mmax) * m])
        pipe = json.loads(run([tool("tirrun"), staged, "--weights", wbin, inp, "--pipeline",
                               "--microbatches", str(m), "--threads", str(n), "--repeat",
                               str(args.repeat), "--json"]))
        seq = base["median_ms"] * m
        rows.append({"model": name, "kind": "efficiency", "stages": n, "microbatches": m,
                     "sequential_ms": seq, "pipeline_ms": pipe["wall_ms"],
                     "efficiency": seq / (n * pipe["wall_ms"]),
                     "ideal": m / (m + n - 1)})
        pipe = json.loads(run([tool("tirrun"), capped, "--weights", wbin, inp, "--pipeline",
                               "--microbatches", str(m), "--threads", str(n), "--repeat",
                               str(args.repeat), "--json"]))
        rows.append({"model": name, "kind": "efficiency_cap", "stages": n,
                     "microbatches": m, "sequential_ms": seq,
                     "pipeline_ms": pipe["wall_ms"],
                     "efficiency": seq / (n * pipe["wall_ms"]), "ideal": m / (m + n - 1)})
    return rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    models = sorted({r["model"] for r in rows})
    stage_counts = sorted({int(r["stages"]) for r in rows if r["kind"].startswith("rss")})
    cols = 2 + max(len(stage_counts), 1)
    fig, axes = plt.subplots(len(models), cols, figsize=(5 * cols, 4 * len(models)),
                             squeeze=False)
    for i, name in enumerate(models):
        st = [r for r in rows if r["model"] == name and r["kind"] == "stage_time"]
        a = axes[i][0]
        xs = [r["stage"] for r in st]
        a.bar([x - 0.2 for x in xs], [r["predicted_ms"] for r in st], 0.4, label="predicted")
        a.bar([x + 0.2 for x in xs], [r["measured_ms"] for r in st], 0.4, label="measured")
        a.set_title(f"{name}: time per stage (ms)")
        a.set_xticks(xs)
        a.legend()
        ef = [r for r in rows if r["model"] == name and r["kind"] == "efficiency"]
        a = axes[i][1]
        a.plot([r["microbatches"] for r in ef], [r["efficiency"] for r in ef], "o-",
               label="measured")
        a.plot([r["microbatches"] for r in ef], [r["ideal"] for r in ef], "k--",
               label="M/(M+N-1)")
        a.set_xscale("log", base=2)
        a.set_ylim(0, 1.1)
        a.set_xlabel("micro-batches M")
        a.set_title(f"{name}: pipeline efficiency")
        a.legend()
        efc = [r for r in rows if r["model"] == name and r["kind"] == "efficiency_cap"]
        if efc:
            axes[i][1].plot([r["microbatches"] for r in efc], [r["efficiency"] for r in efc],
                            "s-", label="measured, --memory-cap")
            axes[i][1].legend()
        for c, n in enumerate(stage_counts):
            plot_rss(axes[i][2 + c], [r for r in rows if r["model"] == name
                                      and r["kind"].startswith("rss") and int(r["stages"]) == n],
                     name, n)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def plot_rss(a, rows, name, n):
    """Per-rank peak RSS less the baseline, per partition and Winograd setting, and the bound."""
    if not rows:
        a.axis("off")
        return
    mib = 1 << 20
    labels = {"rss": "balanced", "rss_cap": "--memory-cap", "rss_nowino": "balanced, no Winograd",
              "rss_cap_nowino": "--memory-cap, no Winograd"}
    kinds = [k for k in labels if any(r["kind"] == k for r in rows)]
    width = 0.8 / max(len(kinds), 1)
    for j, kind in enumerate(kinds):
        rs = [r for r in rows if r["kind"] == kind]
        has_base = all(r.get("baseline_rss_bytes") not in ("", None) for r in rs)
        ys = [(r["peak_rss_bytes"] - (r["baseline_rss_bytes"] if has_base else 0)) / mib
              for r in rs]
        a.bar([r["stage"] - 0.4 + width * (j + 0.5) for r in rs], ys, width,
              label=labels[kind] + ("" if has_base else " (raw, no baseline)"))
    bound = float(rows[0]["weights_over_n"]) * n * (1 / n + 0.1)
    a.axhline(bound / mib, color="k", ls="--", label="(1/N + 10%) of weights")
    a.set_title(f"{name}, N = {n}: per-rank peak RSS - baseline (MiB)")
    a.set_xlabel("rank (stage)")
    a.set_xticks(sorted({int(r["stage"]) for r in rows}))
    a.legend(fontsize=7)


if __name__ == "__main__":
    main()
