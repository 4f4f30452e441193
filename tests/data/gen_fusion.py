#!/usr/bin/env python3
"""Fixtures for the runtime's GEMM/conv + activation fusion (runtime/fusion.h,
tests/runtime/fusion_test.cc) in tests/data/fixtures/fusion/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_fusion.py

activations: every activation the pass fuses, each right after a linear, mm or conv
(silu, sigmoid, tanh, gelu(tanh), relu, hardswish, hardsigmoid), so each kind is fused and
compared with torch in both dialects. escape: relu(linear(x)) where linear(x) is also
returned; shared: relu(linear(x)) + linear(x). Neither may be fused (an intermediate is a
graph output / used outside the group). Writes <name>/{training,core}/ (program.pt2,
input_0.npy, output_<k>.npy) and manifest.json. Deterministic; rebuilds the folder.
"""

import os
import shutil

import torch
from torch import nn
import torch.nn.functional as F

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "fusion")


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.ModuleList(nn.Linear(16, 16) for _ in range(4))
        self.w = nn.Parameter(torch.randn(16, 16) * 0.3)
        self.conv = nn.ModuleList(nn.Conv2d(4, 4, 3, padding=1) for _ in range(3))

    def forward(self, x, img):
        x = F.silu(self.fc[0](x))
        x = torch.sigmoid(self.fc[1](x)) * 4 - 2
        x = torch.tanh(self.fc[2](x)) * 3
        x = F.gelu(self.fc[3](x), approximate="tanh")
        x = torch.relu(x @ self.w)
        y = F.hardswish(self.conv[0](img))
        y = F.hardsigmoid(self.conv[1](y))
        y = F.relu(self.conv[2](y))
        return x, y


class Escape(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return torch.relu(y), y


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        return torch.relu(y) + y


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    fixtures = export_util.build(
        "activations", Activations, 21,
        lambda g: ((torch.randn(3, 16, generator=g), torch.randn(1, 4, 6, 6, generator=g)), {}),
        1e-5, ROOT)
    for name, cls, seed in (("escape", Escape, 22), ("shared", Shared, 23)):
        fixtures += export_util.build(name, cls, seed,
                                      lambda g: ((torch.randn(2, 8, generator=g),), {}), 1e-5,
                                      ROOT)
    export_util.write_manifest(ROOT, {"torch_version": torch.__version__, "fixtures": fixtures})
    print(f"wrote {ROOT} ({export_util.dir_size(ROOT) / 1e3:.1f} kB)")


if __name__ == "__main__":
    main()
