#!/usr/bin/env python3
"""PyTorch-LIT (pytorch-lit 0.1.7 from PyPI) on the model of streaming_bench.py: its
prepare_params writes the weights as numpy memmaps; LitModule loads each module's parameters
when it runs (no read-ahead, no budget). Prints one JSON line: per-forward times, peak RSS.

    ~/.venvs/torch/bin/python bench/streaming/lit_bench.py
"""
import json
import os
import resource
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import streaming_bench as b  # noqa: E402
from pytorch_lit import LitModule, prepare_params  # noqa: E402
from safetensors.torch import load_file  # noqa: E402
from transformers import GPT2LMHeadModel  # noqa: E402

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
params = os.path.join(b.WORK, "lit_params")
if not os.path.isdir(params):
    sd = load_file(os.path.join(b.WORK, "hf.safetensors"))
    sd["lm_head.weight"] = sd["transformer.wte.weight"]
    prepare_params(sd, params, progress=False)
    del sd
    sys.exit("prepared " + params + "; run again to measure (cold, without the preparation)")
for f in os.listdir(params):  # cold: its memmaps dropped from the page cache
    b.drop_file_cache(os.path.join(params, f))
model = LitModule.from_params(params, lambda: GPT2LMHeadModel(b.config()), device="cpu")
ids = torch.from_numpy(b.input_ids())
times = []
with torch.no_grad():
    for _ in range(1 + b.REPEAT):
        t0 = time.perf_counter()
        model(ids, use_cache=False)
        times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"times_ms": times,
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
