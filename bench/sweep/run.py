"""Breadth sweep: every timm family, transformers architecture and diffusers model class through
torch.export -> tirc import -> tirrun, compared with torch eager (see bench/sweep/README.md).

    python bench/sweep/run.py --lib all --tirc build/tools/tirc --tirrun build/tools/tirrun \
        --out out/sweep [--limit N] [--filter REGEX] [--timeout 600]

Each model runs in its own process (one_model.py) under a timeout. Results are appended to
OUT/results.jsonl, one object per model; a model already there is skipped, so a run resumes.
Fields: lib, name, status (pass | export_fails | tir_fails | mismatch | skip | error), stage,
error (one line), rel_error, verdict (for mismatch: "tir wrong" | "unstable reference"),
torch32_vs_64, tir_vs_64, params, seconds (per stage).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ["timm", "transformers", "diffusers"]


def list_models(lib, out):
    """{"names": [...], "total": N}: what the sweep runs of a library and how many models the
    library has in all (zoo_<lib>.total()); cached in OUT/models_<lib>.json (listing timm builds
    candidates on the meta device, which takes a while)."""
    cache = os.path.join(out, f"models_{lib}.json")
    if os.path.exists(cache):
        with open(cache) as f:
            listing = json.load(f)
        return listing if isinstance(listing, dict) else {"names": listing,
                                                          "total": len(listing)}
    code = (f"import sys, json; sys.path.insert(0, {HERE!r}); import zoo_{lib} as z; "
            "names = z.list_models(); "
            "print(json.dumps({'names': names, 'total': z.total() if hasattr(z, 'total') "
            "else len(names)}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    listing = json.loads(proc.stdout.strip().splitlines()[-1])
    with open(cache, "w") as f:
        json.dump(listing, f)
    return listing


def done_models(results):
    done = set()
    if os.path.exists(results):
        with open(results) as f:
            for line in f:
                if line.strip():
                    record = json.loads(line)
                    done.add((record["lib"], record["name"]))
    return done


def sweep_one(lib, name, options):
    work = os.path.join(options.out, "work", lib, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    argv = [sys.executable, os.path.join(HERE, "one_model.py"), "--lib", lib, "--name", name,
            "--work", work, "--tirc", options.tirc, "--tirrun", options.tirrun,
            "--tool-timeout", str(options.timeout)]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    started = time.time()
    with open(os.path.join(work, "log.txt"), "w") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            code = proc.wait(timeout=options.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
    result_path = os.path.join(work, "result.json")
    if os.path.exists(result_path):
        with open(result_path) as f:
            result = json.load(f)
    else:
        stage = open(os.path.join(work, "stage")).read() if os.path.exists(
            os.path.join(work, "stage")) else "start"
        what = (f"timeout after {options.timeout} s" if code is None
                else f"worker died (exit {code})")
        status = "tir_fails" if stage in ("tirc import", "tirrun") else "error"
        if stage == "export":
            status = "export_fails"
        result = {"lib": lib, "name": name, "status": status, "stage": stage,
                  "error": f"{what} in {stage}"}
    result["wall_s"] = round(time.time() - started, 1)
    if result["status"] in ("pass", "skip") and not options.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:  # keep the log and inputs of a failure, not its (large) weights
        for big in ("model.pt2", "model.bin"):
            if os.path.exists(os.path.join(work, big)):
                os.remove(os.path.join(work, big))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=LIBS + ["all"], default="all")
    parser.add_argument("--tirc", required=True)
    parser.add_argument("--tirrun", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=0, help="at most N models per library")
    parser.add_argument("--filter", default="", help="only names matching this regex")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per model")
    parser.add_argument("--jobs", type=int, default=1, help="models run at once")
    parser.add_argument("--keep", action="store_true", help="keep work folders of passes")
    parser.add_argument("--retry", action="store_true",
                        help="run models again that results.jsonl already has")
    options = parser.parse_args()
    options.tirc = os.path.abspath(options.tirc)
    options.tirrun = os.path.abspath(options.tirrun)
    os.makedirs(options.out, exist_ok=True)
    results = os.path.join(options.out, "results.jsonl")
    done = set() if options.retry else done_models(results)
    todo = []
    for lib in LIBS if options.lib == "all" else [options.lib]:
        names = [n for n in list_models(lib, options.out)["names"] if re.search(options.filter, n)]
        if options.limit:
            names = names[:options.limit]
        todo += [(lib, name) for name in names if (lib, name) not in done]
    lock = threading.Lock()

    def one(item):
        result = sweep_one(*item, options)
        with lock:
            with open(results, "a") as f:
                f.write(json.dumps(result) + "\n")
            print(f"[{item[0]}] {item[1]}: {result['status']} {result.get('verdict', '')} "
                  f"{result.get('error', '')} ({result['wall_s']} s)", flush=True)

    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        list(pool.map(one, todo))


if __name__ == "__main__":
    main()
