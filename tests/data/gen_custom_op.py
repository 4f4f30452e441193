#!/usr/bin/env python3
"""Generate the custom-op fixtures in tests/data/fixtures/custom_op/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_custom_op.py

A program that calls a user's torch.library op, mylib::scaled_add(x, y, alpha=1.0) = x + alpha*y
(with a register_fake), once with alpha given and once left at its default (torch.export then
omits it), exported in both dialects: the custom op survives run_decompositions(). The C++
kernel in tests/runtime/custom_op_test.cc (and the C one in tests/capi/c_custom_op_test.c)
computes the same thing. Layout: custom_op/<model>/<dialect>/program.pt2, input_<k>.npy,
output_<k>.npy (torch eager), described by custom_op/manifest.json.
"""

import os
import shutil

import torch

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "custom_op")


@torch.library.custom_op("mylib::scaled_add", mutates_args=())
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    return x + alpha * y


@scaled_add.register_fake
def _(x, y, alpha=1.0):
    torch._check(x.shape == y.shape)
    return torch.empty_like(x)


class ScaledAddNet(torch.nn.Module):
    """linear -> mylib::scaled_add(., y, 0.5) -> relu -> mylib::scaled_add(., y) (alpha left at
    its default, so the program omits it) -> linear."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 6)
        self.b = torch.nn.Linear(6, 3)

    def forward(self, x, y):
        h = torch.relu(scaled_add(self.a(x), y, 0.5))
        return self.b(scaled_add(h, y))


def inputs(g):
    return (torch.randn(4, 6, generator=g), torch.randn(4, 6, generator=g)), {}


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    entries = export_util.build("scaled_add", ScaledAddNet, 0, inputs, 1e-5, ROOT,
                                trim_metadata=True)
    for e in entries:
        export_util.restore_deflated(os.path.join(ROOT, e["dir"], "program.pt2"))
        assert e.get("other_targets", {}).get("torch.ops.mylib.scaled_add.default") == 2, e
    export_util.write_manifest(ROOT, {"torch": torch.__version__, "fixtures": entries})
    print(f"wrote {len(entries)} fixtures, {export_util.dir_size(ROOT)} bytes")


if __name__ == "__main__":
    main()
