#!/usr/bin/env python3
"""Import and run the large models of bench/models/ (written by export_large.py) with tir and
compare every output with torch eager's. Prints one line per model and dialect; exits 1 if
any output is outside the manifest tolerance.

    ~/.venvs/torch/bin/python bench/check_large.py [BUILD_DIR (default: build)]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build")
    tirc, tirrun = (os.path.join(build, "tools", t) for t in ("tirc", "tirrun"))
    with open(os.path.join(HERE, "models", "manifest.json")) as f:
        fixtures = json.load(f)["fixtures"]
    ok = True
    for fx in fixtures:
        d = os.path.join(HERE, "models", fx["dir"])
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.time()
            subprocess.run([tirc, "import", os.path.join(d, "program.pt2"), "-o", f"{tmp}/m.tir",
                            "--weights", f"{tmp}/m.bin"], check=True, capture_output=True)
            t_import = time.time() - t0
            args = [tirrun, f"{tmp}/m.tir", "--weights", f"{tmp}/m.bin", "-o", f"{tmp}/out"]
            for i in fx["inputs"]:
                args += ["-i", f"{i['name']}={os.path.join(d, i['file'])}"]
            run = subprocess.run(args, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{fx['dir']}: FAILED {run.stderr.strip()}")
                ok = False
                continue
            worst = []
            for k, o in enumerate(fx["outputs"]):
                got = np.load(f"{tmp}/out/output_{k}.npy")
                want = np.load(os.path.join(d, o["file"]))
                err = np.abs(got.astype(np.float64) - want)
                within = np.all(err <= fx["atol"] + fx["rtol"] * np.abs(want))
                ok &= bool(within)
                worst.append(f"max|diff| {err.max():.2e} ({'ok' if within else 'OUT OF TOLERANCE'})")
            print(f"{fx['dir']}: import {t_import:.1f} s; " + "; ".join(worst) +
                  f" [rtol=atol={fx['rtol']}]")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
