#!/usr/bin/env python3
"""LoRA adapters on GPT-2 small (124M, random weights): what a LoRA run costs over the base
model, what switching adapters costs, and the memory they take.

    ~/.venvs/torch/bin/pip install peft
    ~/.venvs/torch/bin/python bench/lora/lora_bench.py [--threads 2] [--reps 10]

Needs torch, transformers and peft in the running Python, a release build in build/ (or
--build DIR) and a Python with numpy that imports that build's `tir` module (--tir-python,
default /usr/bin/python3). Work files go to bench/models/lora/ (ignored); the results are
printed and written to bench/results/lora.csv.

Four PEFT adapters over one exported base (seq 64): r=8 on c_attn/c_proj/c_fc (every GEMM of
every block), r=16 on c_attn, r=4 on c_fc, r=32 on c_attn/c_proj. Measured in one process
(bench/lora/lora_measure.py): the median forward (wall and CPU time) of the base and of each
adapter over interleaved rounds (a busy machine slows them alike), and the RSS after the base
ran, after loading the adapters, and after all of them ran.
"""

import argparse
import copy
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))

import peft  # noqa: E402
import torch  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

from models_families import Logits  # noqa: E402

WORK = os.path.join(ROOT, "bench", "models", "lora")
SEQ = 64
ADAPTERS = {
    "all_r8": dict(r=8, lora_alpha=16, target_modules=["c_attn", "c_proj", "c_fc"]),
    "attn_r16": dict(r=16, lora_alpha=16, target_modules=["c_attn"]),
    "mlp_r4": dict(r=4, lora_alpha=8, target_modules=["c_fc"]),
    "attn_proj_r32": dict(r=32, lora_alpha=32, target_modules=["c_attn", "c_proj"]),
}


def prepare(build):
    os.makedirs(WORK, exist_ok=True)
    model_path = os.path.join(WORK, "gpt2s.tir")
    torch.manual_seed(0)
    base = Logits(GPT2LMHeadModel(GPT2Config())).eval()
    ids = torch.randint(0, 50257, (1, SEQ))
    if not os.path.exists(model_path):
        ep = torch.export.export(base, (ids,))
        torch.export.save(ep, os.path.join(WORK, "gpt2s.pt2"))
        subprocess.run([os.path.join(build, "tools", "tirc"), "import",
                        os.path.join(WORK, "gpt2s.pt2"), "-o", model_path, "--weights",
                        os.path.join(WORK, "gpt2s.bin")], check=True, stdout=subprocess.DEVNULL)
    import numpy as np
    np.save(os.path.join(WORK, "ids.npy"), ids.numpy())
    for seed, (name, spec) in enumerate(ADAPTERS.items(), start=1):
        path = os.path.join(WORK, name)
        if os.path.exists(path):
            continue
        m = peft.get_peft_model(copy.deepcopy(base),
                                peft.LoraConfig(fan_in_fan_out=True, lora_dropout=0.0, **spec))
        torch.manual_seed(seed)
        with torch.no_grad():
            for n, p in m.named_parameters():
                if "lora_" in n:
                    p.copy_(torch.randn_like(p) * 0.02)
        m.save_pretrained(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tir-python", default="/usr/bin/python3")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    prepare(args.build)
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build, "python"))
    out = subprocess.run([args.tir_python, os.path.join(HERE, "lora_measure.py"), WORK,
                          str(args.threads), str(args.reps), *ADAPTERS],
                         check=True, env=env, capture_output=True, text=True).stdout
    rows = json.loads(out)
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "lora.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["metric", "value"])
        for k, v in rows.items():
            w.writerow([k, v])
            print(f"{k:36s} {v}")


if __name__ == "__main__":
    main()
