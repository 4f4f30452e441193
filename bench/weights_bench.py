#!/usr/bin/env python3
"""Weights as data on GPT-2 small (124M, random weights): what changing weights costs.

    ~/.venvs/torch/bin/python bench/weights_bench.py [--threads 2] [--reps 20]

Needs the packages of tests/data/requirements.txt plus safetensors and matplotlib in that
venv, and a release build in build-lead/ (or --build DIR). Work files go to
bench/models/weights/ (ignored); results to bench/results/weights.csv and weights.png.

Side by side, in one run on this machine:
  torch_export_s         torch.export.export of the model (the re-export tir avoids)
  tirc_import_s          tirc import of the saved program (once per model)
  torch_load_state_dict_s  safetensors.torch.load_file + model.load_state_dict (torch's swap)
  tir_open_ms            WeightSet::open of the new file alone (mmap, read the index)
  tir_full_swap_ms       WeightSet::open (mmap, no checksum pass) + Session::swap_weights
  tir_full_swap_verify_ms  the same with every tensor's xxh3 checked
  tir_partial_swap_ms    one transformer block (a tir delta file, packed from safetensors) as
                         an overlay on the base; _verify_ms with its checksums checked
  tir_run_ms, first_run_after_*  a steady prefill forward vs the first one after a swap
  file sizes and peak RSS of a two-method model (prefill seq 128 + decode seq 1, one weight
  file) vs the two imported separately / one method alone.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

import models_families as fam  # noqa: E402

WORK = os.path.join(HERE, "models", "weights")
RESULTS = os.path.join(HERE, "results")


def make_model(seed):
    torch.manual_seed(seed)
    m = fam.Logits(fam.check_sdpa(GPT2LMHeadModel(GPT2Config(attn_implementation="sdpa"))))
    return m.eval()


def state_dict_untied(model):
    """The state dict as safetensors wants it: tied lm_head.weight left out (tir keeps it as
    an alias of wte.weight, so either name binds)."""
    sd = {k: v.contiguous() for k, v in model.state_dict().items()}
    sd.pop("model.lm_head.weight", None)
    return sd


def run(cmd, **kw):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-lead"))
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(RESULTS, exist_ok=True)
    tirc = os.path.join(a.build, "tools", "tirc")
    bench = os.path.join(a.build, "bench", "bench_weights")
    p = lambda name: os.path.join(WORK, name)  # noqa: E731
    row = {}

    model = make_model(0)
    prefill_ids = torch.randint(0, 50257, (1, 128), generator=torch.Generator().manual_seed(0))
    decode_ids = prefill_ids[:, :1].clone()
    with torch.no_grad():
        t0 = time.perf_counter()
        prefill = torch.export.export(model, (prefill_ids,))
        row["torch_export_s"] = time.perf_counter() - t0
        torch.export.save(prefill, p("prefill.pt2"))
        torch.export.save(torch.export.export(model, (decode_ids,)), p("decode.pt2"))
    np.save(p("prefill_ids.npy"), prefill_ids.numpy())
    np.save(p("decode_ids.npy"), decode_ids.numpy())
    print(f"torch.export: {row['torch_export_s']:.2f} s", flush=True)

    row["tirc_import_s"] = run([tirc, "import", p("prefill.pt2"), "-o", p("prefill.tir"),
                                "--weights", p("prefill.bin")])
    run([tirc, "import", p("decode.pt2"), "-o", p("decode.tir"), "--weights", p("decode.bin")])
    run([tirc, "import", "prefill=" + p("prefill.pt2"), "decode=" + p("decode.pt2"),
         "-o", p("llm.tir"), "--weights", p("llm.bin")])
    print(f"tirc import: {row['tirc_import_s']:.2f} s", flush=True)

    # New weights (another seed): a full safetensors file, and one block of it.
    new = state_dict_untied(make_model(1))
    save_file(new, p("new.safetensors"))
    save_file({k: v for k, v in new.items() if k.startswith("model.transformer.h.0.")},
              p("block0.safetensors"))
    run([tirc, "weights", "pack", p("new.safetensors"), "-o", p("new.bin")])
    # The same block as a tir delta (with checksums), to show verification scales with it.
    run([tirc, "weights", "pack", p("block0.safetensors"), "-o", p("block0.bin")])

    t0 = time.perf_counter()
    model.load_state_dict(load_file(p("new.safetensors")), strict=False)
    row["torch_load_state_dict_s"] = time.perf_counter() - t0

    out = subprocess.run([bench, p("llm.tir"), "--weights", p("llm.bin"), "--swap", p("new.bin"),
                          "--delta", p("block0.bin"),
                          "--input", "prefill=" + p("prefill_ids.npy"),
                          "--input", "decode=" + p("decode_ids.npy"),
                          "--reps", str(a.reps), "--threads", str(a.threads)],
                         check=True, capture_output=True, text=True).stdout
    both = json.loads(out)
    one = json.loads(subprocess.run(
        [bench, p("prefill.tir"), "--weights", p("prefill.bin"),
         "--input", "forward=" + p("prefill_ids.npy"), "--threads", str(a.threads)],
        check=True, capture_output=True, text=True).stdout)
    for k in ("open_ms", "full_swap_ms", "full_swap_verify_ms", "partial_swap_ms",
              "partial_swap_verify_ms", "run_ms", "first_run_after_full_swap_ms",
              "first_run_after_partial_swap_ms"):
        row["tir_" + k] = both[k]
    row["weights_mb_one_method"] = os.path.getsize(p("prefill.bin")) / 2**20
    row["weights_mb_two_separate"] = (os.path.getsize(p("prefill.bin")) +
                                      os.path.getsize(p("decode.bin"))) / 2**20
    row["weights_mb_two_methods"] = os.path.getsize(p("llm.bin")) / 2**20
    row["rss_mb_one_method"] = one["peak_rss_mb"]
    row["rss_mb_two_methods"] = both["peak_rss_mb"]
    row["threads"] = a.threads

    with open(os.path.join(RESULTS, "weights.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["metric", "value"])
        for k, v in row.items():
            w.writerow([k, f"{v:.4f}" if isinstance(v, float) else v])
    for k, v in row.items():
        print(f"{k:34s} {v:.4f}" if isinstance(v, float) else f"{k:34s} {v}")
    plot(row)


def plot(row):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = ["torch.export", "tirc import", "torch load_state_dict", "tir full swap",
              "tir full swap\n+ verify", "tir one-block swap", "tir one-block swap\n+ verify"]
    ms = [row["torch_export_s"] * 1e3, row["tirc_import_s"] * 1e3,
          row["torch_load_state_dict_s"] * 1e3, row["tir_full_swap_ms"],
          row["tir_full_swap_verify_ms"], row["tir_partial_swap_ms"],
          row["tir_partial_swap_verify_ms"]]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.barh(labels, ms)
    ax.set_xscale("log")
    ax.set_xlabel("ms (log scale)")
    ax.set_title("GPT-2 small: changing weights")
    for i, v in enumerate(ms):
        ax.text(v, i, f" {v:.3g} ms", va="center")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "weights.png"), dpi=100)


if __name__ == "__main__":
    main()
