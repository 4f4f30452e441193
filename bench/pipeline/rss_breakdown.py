#!/usr/bin/env python3
"""Where a process's resident memory goes: samples /proc/PID/smaps while a command runs.

    python3 bench/pipeline/rss_breakdown.py [--weights m.bin] [--match tirrun-mpi] -- CMD ...

Runs CMD and, every --interval seconds, reads the smaps of the processes it watches (CMD
itself, or with --match every descendant whose executable name is that, e.g. the ranks under
mpirun), splitting each one's Rss into: the weight file's mapped pages (--weights), other
mapped data files (the .tir), code (the executable and its shared libraries), and anonymous memory
(heap, thread stacks, oneDNN's packed weights and JIT code, the activation arena). Prints per
process the kernel's exact peak (VmHWM from /proc/PID/status, read at the last sample) and
the split at the sample where Rss was largest; --json prints the same as one JSON object.
Sampling misses peaks shorter than the interval; VmHWM does not.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def categories(pid, weights):
    """{category: bytes} of one process's Rss, or None once it is gone."""
    out = {"weights": 0, "data_files": 0, "code": 0, "anonymous": 0}
    try:
        with open(f"/proc/{pid}/smaps") as f:
            path = ""
            for line in f:
                head = line.split(None, 1)[0]
                if "-" in head and not head.endswith(":"):  # a mapping's header line
                    parts = line.split()
                    path = parts[5] if len(parts) > 5 else ""
                elif head == "Rss:":
                    kb = int(line.split()[1])
                    if weights and path and os.path.realpath(path) == weights:
                        key = "weights"
                    elif path.startswith("/") and (".so" in os.path.basename(path)
                                                   or path.endswith(os.path.basename(
                                                       os.readlink(f"/proc/{pid}/exe")))):
                        key = "code"
                    elif path.startswith("/"):
                        key = "data_files"
                    else:
                        key = "anonymous"  # [heap], [stack], anonymous mmaps
                    out[key] += kb * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return out


def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def descendants(root, name):
    """PIDs under `root` whose executable's name is `name`."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            todo.append(c)
            try:
                if os.path.basename(os.readlink(f"/proc/{c}/exe")) == name:
                    found.append(c)
            except OSError:
                pass
    return found


def measure(cmd, weights=None, match=None, interval=0.002, env=None):
    """Runs cmd; returns (returncode, stdout, {pid: {"peak_rss": VmHWM, "at_peak": split}})."""
    weights = os.path.realpath(weights) if weights else None
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    seen = {}
    while proc.poll() is None:
        pids = descendants(proc.pid, match) if match else [proc.pid]
        for pid in pids:
            split = categories(pid, weights)
            high = hwm(pid)
            if split is None or high is None:
                continue
            s = seen.setdefault(pid, {"peak_rss": 0, "at_peak": split})
            s["peak_rss"] = max(s["peak_rss"], high)
            if sum(split.values()) >= sum(s["at_peak"].values()):
                s["at_peak"] = split
        time.sleep(interval)
    out, err = proc.communicate()
    if proc.returncode != 0:
        sys.stderr.write(err)
    return proc.returncode, out, seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights", help="the weight file whose mapped pages to count apart")
    ap.add_argument("--match", help="watch the descendants with this executable name")
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    rc, out, seen = measure(cmd, a.weights, a.match, a.interval)
    mib = 1 << 20
    if a.json:
        print(json.dumps({"returncode": rc, "processes": [seen[p] for p in sorted(seen)]}))
    else:
        for k, p in enumerate(sorted(seen)):
            s = seen[p]
            parts = ", ".join(f"{key} {v / mib:.1f}" for key, v in s["at_peak"].items())
            print(f"process {k} (pid {p}): peak RSS {s['peak_rss'] / mib:.1f} MiB; at the "
                  f"largest sample {sum(s['at_peak'].values()) / mib:.1f} MiB: {parts}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
