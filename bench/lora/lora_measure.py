"""The measuring half of bench/lora/lora_bench.py, in a Python that imports the built `tir`
module: lora_measure.py WORK THREADS REPS ADAPTER... prints one JSON object."""
import json
import os
import statistics
import sys
import time

import numpy as np

import tir


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def timed(fn):
    """(wall ms, CPU ms of this process) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - w0) * 1e3, (time.process_time() - c0) * 1e3


def main():
    work, threads, reps, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    ids = np.load(os.path.join(work, "ids.npy"))
    s = tir.Session(os.path.join(work, "gpt2s.tir"), os.path.join(work, "gpt2s.bin"),
                    threads=threads)
    r = {}
    for _ in range(3):
        s.run([ids])
    r["rss_base_mb"] = round(rss_mb(), 1)
    adapter_bytes = 0
    for n in names:
        s.load_adapter(n, os.path.join(work, n))
        adapter_bytes += os.path.getsize(os.path.join(work, n, "adapter_model.safetensors"))
    r["adapters_file_mb"] = round(adapter_bytes / 2**20, 1)
    r["rss_after_load_mb"] = round(rss_mb(), 1)
    for n in names:
        s.run([ids], adapter=n)
        s.run([ids], adapter=n)
    # Interleaved rounds (base, then each adapter), so a busy machine slows all alike; the
    # median per name of wall and CPU time.
    wall = {n: [] for n in [""] + names}
    cpu = {n: [] for n in [""] + names}
    for _ in range(reps):
        for n in [""] + names:
            w, c = timed(lambda: s.run([ids], adapter=n or None))
            wall[n].append(w)
            cpu[n].append(c)
    r["rss_after_runs_mb"] = round(rss_mb(), 1)
    for n in [""] + names:
        key = n or "base"
        r[f"{key}_wall_ms"] = round(statistics.median(wall[n]), 2)
        r[f"{key}_cpu_ms"] = round(statistics.median(cpu[n]), 2)
        r[f"{key}_cpu_ratio"] = round(statistics.median(cpu[n]) / statistics.median(cpu[""]), 3)
        r[f"{key}_wall_ratio"] = round(statistics.median(wall[n]) / statistics.median(wall[""]), 3)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
