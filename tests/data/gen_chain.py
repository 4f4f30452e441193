#!/usr/bin/env python3
"""Fixture for the interpreter-overhead benchmark (bench/interpreter_bench.cc) in
tests/data/fixtures/chain/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_chain.py

AddMulChain applies LENGTH tiny element-wise ops to an [8] float tensor, alternating
`x + 1` and `x * 0.5`, so its exported graph is LENGTH ATen nodes in a row. Running it
costs almost nothing but the per-node work of the interpreter. Written in both dialects
(add_mul/training, add_mul/core: program.pt2, input_0.npy, output_0.npy) with manifest.json
(its "ops" counts are the node count the benchmark divides by). Deterministic; rebuilds the
folder.
"""

import os
import shutil

import torch
from torch import nn

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "chain")
LENGTH = 200


class AddMulChain(nn.Module):
    def forward(self, x):
        for k in range(LENGTH):
            x = x + 1 if k % 2 == 0 else x * 0.5
        return x


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    fixtures = export_util.build("add_mul", AddMulChain, 11,
                                 lambda g: ((torch.randn(8, generator=g),), {}), 1e-6, ROOT)
    for f in fixtures:
        assert sum(f["ops"].values()) == LENGTH, f["ops"]
    export_util.write_manifest(ROOT, {"torch_version": torch.__version__, "length": LENGTH,
                                      "fixtures": fixtures})
    print(f"wrote {ROOT} ({export_util.dir_size(ROOT) / 1e3:.1f} kB)")


if __name__ == "__main__":
    main()
