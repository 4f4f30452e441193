#!/usr/bin/env python3
"""Fixtures whose outputs torch cannot pin down element by element (issue 26), into
fixtures/random/<model>/<dialect>/ (training = torch.export.export, core = run_decompositions()):

  random_ops   torch.rand, randn, randperm, rand_like and randn_like in one program; the tests
               (tests/runtime/random_program_test.cc) check tir's outputs by distribution and
               shape, and reproducibility per seed (kernels/random.h).
  stale_view   a view taken before an in-place write through a slice of the tensor it views,
               read afterwards: tir takes it again from the written tensor
               (importer/view_tracking.cc).

    ~/.venvs/torch/bin/python tests/data/gen_random.py

Each directory holds program.pt2, input_0.npy and shapes.json (the outputs' dtypes and shapes
as torch computes them); stale_view's also output_<k>.npy (its values are not random: both IRs
match them).
"""

import json
import os
import shutil
import sys

import numpy as np
import torch
from torch import nn

import gen

ROOT = os.path.join(gen.ROOT, "random")


class RandomOps(nn.Module):
    def forward(self, x):
        u = torch.rand(4, 4096)
        z = torch.randn(4, 4096)
        p = torch.randperm(257)
        return u, z, p, torch.rand_like(x) + 0 * x, torch.randn_like(x)


class StaleView(nn.Module):
    def forward(self, x):
        m = x.new_zeros(4, 4)
        col = m[:, 0]  # a view of m, taken before the write below
        m[1:3] = 1.0   # slice + fill_ in the training IR
        return m + x, col * 2


MODELS = [("random_ops", RandomOps, lambda: torch.randn(3, 5)),
          ("stale_view", StaleView, lambda: torch.randn(4, 4))]


def main():
    torch.manual_seed(26)
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    for name, cls, make_input in MODELS:
        x = make_input()
        ep = torch.export.export(cls().eval(), (x,))
        for dialect in ("training", "core"):
            if dialect == "core":
                ep = ep.run_decompositions()
            out_dir = os.path.join(ROOT, name, dialect)
            os.makedirs(out_dir)
            for node in ep.graph.nodes:
                node.meta.pop("from_node", None)
            path = os.path.join(out_dir, "program.pt2")
            torch.export.save(ep, path)
            gen.export_util.restore_deflated(path)
            np.save(os.path.join(out_dir, "input_0.npy"), x.numpy())
            outs = torch.export.load(path).module()(x)
            shapes = [{"dtype": str(o.dtype).replace("torch.", ""), "shape": list(o.shape)}
                      for o in outs]
            if name == "stale_view":
                for k, o in enumerate(cls()(x)):
                    np.save(os.path.join(out_dir, f"output_{k}.npy"), o.numpy())
            with open(os.path.join(out_dir, "shapes.json"), "w") as f:
                json.dump({"outputs": shapes}, f, indent=1)
            print(name, dialect, sorted({str(n.target) for n in ep.graph.nodes
                                         if n.op == "call_function"}))


if __name__ == "__main__":
    sys.exit(main())
