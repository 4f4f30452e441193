#!/usr/bin/env python3
"""Streaming weights (tirrun --weight-budget) on a model larger than its budget.

    ~/.venvs/torch/bin/python bench/streaming/streaming_bench.py prepare   # once, ~10 min
    bash /work/notes/quiet.sh streaming ~/.venvs/torch/bin/python \\
        bench/streaming/streaming_bench.py run [--build build]

prepare: GPT-2 large shaped (36 layers, 1280 wide, 774M parameters, ~3.1 GB fp32), random
weights with a fixed seed, exported with torch.export with a dynamic seq dim (input_ids int64
[1, seq], 1..1024) and imported with `tirc import` into bench/models/streaming/ (ignored by git,
never committed), plus the same weights as safetensors for accelerate and input_ids for seq 1,
8 and 32. The .pt2 is deleted after import (disk).

run, side by side on this machine, each configuration in its own process:
  read_direct     the weight file read front to back with O_DIRECT, 8 MiB requests, one at a
                  time: the disk's cold sequential bandwidth (the issue's yardstick)
  read_direct_4_streams  the same with 4 requests in flight (4 threads)
  tir_1/4_io*     tirrun --weight-budget 1/4 of the weights, seq 1 (a decode-sized forward,
                  where reading dominates), --weight-io-threads 1, 2, 4, 8: every forward
                  reads all weights cold (O_DIRECT); per-forward time, peak RSS
  tir_1/N         1/8, 1/2, 1x at seq 1; 1/4 at seq 8 and 32; 1/4 without O_DIRECT (fadvise)
  tir_mmap        tirrun without a budget (mmap), page cache dropped for the file first
                  (posix_fadvise DONTNEED; /proc/sys/vm/drop_caches is not writable here)
  accelerate_*    Hugging Face accelerate, device_map from infer_auto_device_map with
                  max_memory {"cpu": budget}, the rest offloaded to disk (offload_folder);
                  _warm: forwards after the first (offload files in the page cache, as
                  accelerate leaves them), _cold: the offload files dropped from the page
                  cache before each forward (what tir reads every forward)
  pytorch_lit     PyTorch-LIT 0.1.7 (bench/streaming/lit_bench.py, run separately, seq 32):
                  loads each module's weights from numpy memmaps when it runs; no budget, no
                  read-ahead; memmaps dropped from the page cache first
Writes bench/results/streaming.csv and streaming.png (`replot` redraws it from the CSV).
"""

import argparse
import csv
import json
import mmap
import os
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "bench", "models", "streaming")
RESULTS = os.path.join(ROOT, "bench", "results")
SEQ = 32  # the exported sample; the program's seq dim is dynamic (1..1024)
SEQS = (1, 8, 32)  # decode-sized forwards (reading dominates) and a prompt-sized one
SEED = 5
REPEAT = 2  # timed forwards after the first


def config():
    from transformers import GPT2Config
    return GPT2Config(n_embd=1280, n_layer=36, n_head=20, attn_implementation="sdpa")


def make_model():
    import torch
    from transformers import GPT2LMHeadModel
    sys.path.insert(0, os.path.join(ROOT, "tests", "data"))
    import models_families as fam
    torch.manual_seed(SEED)
    return fam.Logits(GPT2LMHeadModel(config())).eval()


def input_ids(seq=SEQ):
    import numpy as np
    return (np.arange(seq, dtype=np.int64).reshape(1, seq) * 37) % 50257


def ids_path(seq):
    return os.path.join(WORK, f"input_ids_{seq}.npy")


def prepare(build):
    import numpy as np
    import torch
    from safetensors.torch import save_file
    os.makedirs(WORK, exist_ok=True)
    model = make_model()
    ids = torch.from_numpy(input_ids())  # seq 32: the export sample
    for seq in SEQS:
        np.save(ids_path(seq), input_ids(seq))
    sd = {k: v.contiguous() for k, v in model.model.state_dict().items()}
    sd.pop("lm_head.weight", None)  # tied to transformer.wte.weight
    save_file(sd, os.path.join(WORK, "hf.safetensors"))
    with torch.no_grad():
        ep = torch.export.export(model, (ids,), dynamic_shapes={
            "input_ids": {1: torch.export.Dim("seq", min=1, max=1024)}})
    pt2 = os.path.join(WORK, "program.pt2")
    torch.export.save(ep, pt2)
    subprocess.run([os.path.join(build, "tools", "tirc"), "import", pt2, "-o",
                    os.path.join(WORK, "m.tir"), "--weights", os.path.join(WORK, "m.bin")],
                   check=True)
    os.remove(pt2)


def drop_file_cache(path):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def read_direct(path, chunk=8 << 20):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, chunk)
    total, t0 = 0, time.perf_counter()
    while True:
        n = os.readv(fd, [buf])
        total += n
        if n < chunk:
            break
    dt = time.perf_counter() - t0
    os.close(fd)
    return total, dt


def read_direct_parallel(path, streams=4, chunk=8 << 20):
    """The file read once by `streams` threads, each taking the next 8 MiB block: the disk's
    bandwidth with several requests in flight (what --weight-io-threads can reach)."""
    import threading
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    lock, nxt = threading.Lock(), [0]

    def worker():
        buf = mmap.mmap(-1, chunk)
        while True:
            with lock:
                off = nxt[0]
                nxt[0] += chunk
            if off >= size:
                return
            os.preadv(fd, [buf], off)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dt = time.perf_counter() - t0
    os.close(fd)
    return size, dt


def tirrun(build, seq, extra):
    cmd = [os.path.join(build, "tools", "tirrun"), os.path.join(WORK, "m.tir"), "-w",
           os.path.join(WORK, "m.bin"), "-i", "input_ids=" + ids_path(seq),
           "--repeat", str(REPEAT), "--json"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


ACCEL = r"""
import json, os, resource, sys, time
import torch
sys.path.insert(0, sys.argv[1])
import streaming_bench as b
from accelerate import init_empty_weights, infer_auto_device_map, load_checkpoint_and_dispatch
from transformers import GPT2LMHeadModel
budget = int(sys.argv[2]); off = sys.argv[3]
torch.set_num_threads(int(sys.argv[4]))
seqs = [int(x) for x in sys.argv[5].split(",")]
with init_empty_weights():
    model = GPT2LMHeadModel(b.config())
model.tie_weights()
dm = infer_auto_device_map(model, max_memory={"cpu": budget, "disk": 1 << 40},
                           no_split_module_classes=["GPT2Block"])
model = load_checkpoint_and_dispatch(model, os.path.join(b.WORK, "hf.safetensors"),
                                     device_map=dm, offload_folder=off)
model.eval()
def drop_offload():
    for d, _, files in os.walk(off):
        for f in files:
            b.drop_file_cache(os.path.join(d, f))
times, cold = {}, {}
with torch.no_grad():
    for seq in seqs:
        ids = torch.from_numpy(b.input_ids(seq))
        times[seq], cold[seq] = [], []
        for r in range(1 + b.REPEAT):
            t0 = time.perf_counter()
            model(ids, use_cache=False)
            times[seq].append((time.perf_counter() - t0) * 1e3)
        for r in range(b.REPEAT):  # the offloaded weights read from disk, as tir reads them
            drop_offload()
            t0 = time.perf_counter()
            model(ids, use_cache=False)
            cold[seq].append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"times_ms": times, "cold_ms": cold, "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "disk_modules": sum(1 for v in dm.values() if v == "disk")}))
"""


def accelerate(budget, threads, seqs):
    off = os.path.join(WORK, "offload")
    shutil.rmtree(off, ignore_errors=True)
    out = subprocess.run([sys.executable, "-c", ACCEL, HERE, str(budget), off, str(threads),
                          ",".join(map(str, seqs))],
                         check=True, capture_output=True, text=True).stdout
    shutil.rmtree(off, ignore_errors=True)
    return json.loads(out.strip().splitlines()[-1])


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "?"


def median(v):
    return sorted(v)[len(v) // 2]


KEYS = ["config", "seq", "budget_mib", "io_threads", "forward_ms", "first_ms", "peak_rss_mib",
        "arena_mib", "vs_read"]


def run(build, threads, skip_accelerate):
    wbin = os.path.join(WORK, "m.bin")
    weight_bytes = os.path.getsize(wbin)
    rows = []
    nbytes, dt = read_direct(wbin)
    bw, read_ms = nbytes / dt, dt * 1e3
    rows.append({"config": "read_direct", "forward_ms": read_ms, "first_ms": read_ms,
                 "vs_read": 1.0})
    print(f"cold sequential read: {nbytes / 2**30:.2f} GiB in {dt:.2f} s = {bw / 2**20:.0f} MiB/s",
          flush=True)

    nbytes4, dt4 = read_direct_parallel(wbin)
    rows.append({"config": "read_direct_4_streams", "forward_ms": dt4 * 1e3,
                 "first_ms": dt4 * 1e3, "vs_read": dt4 / dt})
    print(f"4 streams: {nbytes4 / dt4 / 2**20:.0f} MiB/s", flush=True)

    def tir(name, seq, frac, io_threads=4, direct=True):
        budget = weight_bytes // frac
        drop_file_cache(wbin)
        extra = ["--weight-budget", str(budget), "--threads", str(threads),
                 "--weight-io-threads", str(io_threads)]
        if not direct:
            extra.append("--no-direct-io")
        j = tirrun(build, seq, extra)
        fwd = median(j["times_ms"])
        rows.append({"config": name, "seq": seq, "budget_mib": budget / 2**20,
                     "io_threads": io_threads, "forward_ms": fwd, "first_ms": j["first_run_ms"],
                     "peak_rss_mib": j["peak_rss_kb"] / 1024,
                     "arena_mib": j["arena_bytes"] / 2**20, "vs_read": fwd / read_ms})
        print(rows[-1], flush=True)

    # Decode-sized forwards, where reading should dominate: I/O threads, then budgets.
    for io in (1, 2, 4, 8):
        tir(f"tir_1/4_io{io}", 1, 4, io)
    tir("tir_1/4", 8, 4)
    for frac in (8, 2, 1):
        tir(f"tir_1/{frac}", 1, frac)
    tir("tir_1/4_fadvise", 1, 4, direct=False)
    tir("tir_1/4", 32, 4)
    for seq in (1, 32):
        drop_file_cache(wbin)
        j = tirrun(build, seq, ["--threads", str(threads), "--no-verify"])
        rows.append({"config": "tir_mmap", "seq": seq, "forward_ms": median(j["times_ms"]),
                     "first_ms": j["first_run_ms"], "peak_rss_mib": j["peak_rss_kb"] / 1024,
                     "arena_mib": j["arena_bytes"] / 2**20,
                     "vs_read": j["first_run_ms"] / read_ms})
        print(rows[-1], flush=True)
    if not skip_accelerate:
        budget = weight_bytes // 4
        drop_file_cache(os.path.join(WORK, "hf.safetensors"))
        j = accelerate(budget, threads, (1, 32))
        for seq, times in j["times_ms"].items():
            for name, fwd in (("accelerate_1/4_cold", median(j["cold_ms"][seq])),
                              ("accelerate_1/4_warm", median(times[1:]))):
                rows.append({"config": name, "seq": int(seq), "budget_mib": budget / 2**20,
                             "forward_ms": fwd, "first_ms": times[0],
                             "peak_rss_mib": j["peak_rss_kb"] / 1024, "vs_read": fwd / read_ms})
                print(rows[-1], flush=True)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "streaming.csv"), "w", newline="") as f:
        f.write(f"# {cpu_name()}, {threads} threads, GPT-2 large shape (random), "
                f"weights {weight_bytes / 2**20:.0f} MiB, cold read {bw / 2**20:.0f} MiB/s; "
                f"forward_ms: median of {REPEAT} forwards after the first\n")
        w = csv.DictWriter(f, fieldnames=KEYS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.1f}" if isinstance(r.get(k), float) else r.get(k, ""))
                        for k in KEYS})
    plot(rows, weight_bytes, dt, threads)


def plot(rows, weight_bytes, read_s, threads):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 7))
    names = [f"{r['config']} seq {r['seq']}" if r.get("seq") not in (None, "") else r["config"]
             for r in rows]
    a.barh(names, [r["forward_ms"] / 1e3 for r in rows], color="tab:blue")
    a.axvline(read_s, color="k", ls="--", label="cold sequential read of the file")
    a.axvline(1.25 * read_s, color="tab:red", ls=":", label="1.25 x the read")
    a.invert_yaxis()
    a.set_xlabel("s per forward (tir_1/N: all weights read cold each time;\n"
                 "tir_mmap, accelerate: page cache warm after the first)")
    a.legend()
    rss = [(n, r["peak_rss_mib"]) for n, r in zip(names, rows) if r.get("peak_rss_mib") not in
           (None, "")]
    b.barh([n for n, _ in rss], [v for _, v in rss], color="tab:orange")
    b.axvline(weight_bytes / 2**20, color="k", ls="--", label="weight bytes")
    b.invert_yaxis()
    b.set_xlabel("peak RSS (MiB)")
    b.legend()
    fig.suptitle(f"Streaming weights, GPT-2 large shape, {threads} threads, {cpu_name()}")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "streaming.png"), dpi=110)


def coldstart(build, threads, reps=5):
    """GPT-2 small (124M): process start to first output with the weight file cold, resident
    (whole-file checksum pass at open, multi-threaded) vs streamed at a budget of all its
    weights (each tensor verified as read)."""
    src = os.path.join(ROOT, "..", "main", "bench", "models", "gpt2_small", "training")
    work = os.path.join(WORK, "gpt2_small")
    os.makedirs(work, exist_ok=True)
    tir, wbin = os.path.join(work, "m.tir"), os.path.join(work, "m.bin")
    if not os.path.exists(tir):
        subprocess.run([os.path.join(build, "tools", "tirc"), "import",
                        os.path.join(src, "program.pt2"), "-o", tir, "--weights", wbin],
                       check=True, capture_output=True)
    inp = os.path.join(src, "input_0.npy")
    budget = os.path.getsize(wbin)
    rows = []
    for r in range(reps):
        for name, extra in (("resident_verify_file", []),
                            ("streamed_verify_per_tensor", ["--weight-budget", str(budget)])):
            drop_file_cache(wbin)
            t0 = time.time() * 1e3
            out = subprocess.run([os.path.join(build, "tools", "tirrun"), tir, "-w", wbin, inp,
                                  "--json", "--threads", str(threads)] + extra,
                                 check=True, capture_output=True, text=True).stdout
            j = json.loads(out)
            rows.append({"config": name, "rep": r, "start_to_first_output_ms":
                         j["first_output_unix_ms"] - t0, "load_ms": j["load_ms"],
                         "first_run_ms": j["first_run_ms"], "peak_rss_mib": j["peak_rss_kb"] / 1024})
            print(rows[-1], flush=True)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "streaming_cold_start.csv"), "w", newline="") as f:
        f.write(f"# {cpu_name()}, {threads} threads, GPT-2 small (124M, random), weights "
                f"{budget / 2**20:.0f} MiB, page cache dropped for the file before each run\n")
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.1f}" if isinstance(v, float) else v) for k, v in r.items()})
    for name in ("resident_verify_file", "streamed_verify_per_tensor"):
        v = sorted(r["start_to_first_output_ms"] for r in rows if r["config"] == name)
        print(f"{name}: median {v[len(v) // 2]:.0f} ms (min {v[0]:.0f}, max {v[-1]:.0f})")


def replot(threads):
    """Redraws streaming.png from streaming.csv."""
    path = os.path.join(RESULTS, "streaming.csv")
    lines = [line for line in open(path) if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        r["forward_ms"] = float(r["forward_ms"])
        r["peak_rss_mib"] = float(r["peak_rss_mib"]) if r["peak_rss_mib"] else ""
        rows.append(r)
    read_s = rows[0]["forward_ms"] / 1e3
    weight_bytes = os.path.getsize(os.path.join(WORK, "m.bin"))
    plot(rows, weight_bytes, read_s, threads)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["prepare", "run", "coldstart", "replot"])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--skip-accelerate", action="store_true")
    a = p.parse_args()
    if a.what == "prepare":
        prepare(a.build)
    elif a.what == "replot":
        replot(a.threads)
    elif a.what == "coldstart":
        coldstart(a.build, a.threads)
    else:
        run(a.build, a.threads, a.skip_accelerate)


if __name__ == "__main__":
    main()
