#!/usr/bin/env python3
"""Fixtures for the runtime's GEMM/conv + activation fusion (runtime/passes/fusion.h,
tests/runtime/fusion_test.cc) in tests/data/fixtures/fusion/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_fusion.py

activations: every activation the pass fuses, each right after a linear, mm or conv
(silu, sigmoid, tanh, gelu(tanh), relu, hardswish, hardsigmoid), so each kind is fused and
compared with torch in both dialects. escape: relu(linear(x)) where linear(x) is also
returned; shared: relu(linear(x)) + linear(x). Neither may be fused (an intermediate is a
graph output / used outside the group). conv_bn*, residual_*, inverted_residual: see their
classes. Writes <name>/{training,core}/ (program.pt2, .npy inputs/outputs), manifest.json.
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


def randomize_batch_norm(bn, g):
    """Non-trivial eval statistics (and affine params when present)."""
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn(bn.num_features, generator=g) * 0.5)
        bn.running_var.copy_(torch.rand(bn.num_features, generator=g) * 1.5 + 0.25)
        if bn.affine:
            bn.weight.copy_(torch.randn(bn.num_features, generator=g))
            bn.bias.copy_(torch.randn(bn.num_features, generator=g))


class ConvBn(nn.Module):
    """Eval batch norms (random running stats and affine params) the runtime folds into the
    conv before them: conv+BN+relu, depthwise conv(bias=False)+BN+hardswish, 1x1
    conv(bias=False)+BN, grouped conv+BN(affine=False)+relu."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ModuleList([
            nn.Conv2d(4, 8, 3, padding=1),
            nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False),  # depthwise
            nn.Conv2d(8, 6, 1, bias=False),
            nn.Conv2d(6, 6, 3, padding=1, groups=2),
        ])
        self.bn = nn.ModuleList([nn.BatchNorm2d(8), nn.BatchNorm2d(8), nn.BatchNorm2d(6),
                                 nn.BatchNorm2d(6, affine=False)])
        g = torch.Generator().manual_seed(24)
        for bn in self.bn:
            randomize_batch_norm(bn, g)

    def forward(self, x):
        x = F.relu(self.bn[0](self.conv[0](x)))
        x = F.hardswish(self.bn[1](self.conv[1](x)))
        x = self.bn[2](self.conv[2](x))
        return F.relu(self.bn[3](self.conv[3](x)))


class ConvBnEscape(nn.Module):
    """The conv output is also returned: its batch norm may not be folded."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        randomize_batch_norm(self.bn, torch.Generator().manual_seed(25))

    def forward(self, x):
        y = self.conv(x)
        return torch.relu(self.bn(y)), y


class ResidualBlock(nn.Module):
    """Two ResNet BasicBlocks (eval batch norms with random statistics): the first downsamples
    (stride 2, a 1x1 conv + BN on the identity, computed after conv2 + bn2 as torchvision
    does), the second adds its input; `out += identity` then an in-place relu, so the training
    IR has add_ and relu_. The runtime folds each add (+ relu) into the conv before it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ModuleList([
            nn.Conv2d(4, 8, 3, stride=2, padding=1, bias=False),
            nn.Conv2d(8, 8, 3, padding=1, bias=False),
            nn.Conv2d(4, 8, 1, stride=2, bias=False),  # downsample
            nn.Conv2d(8, 8, 3, padding=1, bias=False),
            nn.Conv2d(8, 8, 3, padding=1, bias=False),
        ])
        self.bn = nn.ModuleList(nn.BatchNorm2d(8) for _ in range(5))
        g = torch.Generator().manual_seed(26)
        for bn in self.bn:
            randomize_batch_norm(bn, g)

    def forward(self, x):
        out = F.relu(self.bn[0](self.conv[0](x)), inplace=True)
        out = self.bn[1](self.conv[1](out))
        identity = self.bn[2](self.conv[2](x))
        out += identity
        x = F.relu(out, inplace=True)
        out = F.relu(self.bn[3](self.conv[3](x)), inplace=True)
        out = self.bn[4](self.conv[4](out))
        out += x
        return F.relu(out, inplace=True)


class InvertedResidual(nn.Module):
    """MobileNetV3's inverted residual: 1x1 expand conv + BN + relu, depthwise conv + BN +
    hardswish, 1x1 project conv + BN, then `x + result` (no activation; the identity is the
    add's first operand)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ModuleList([
            nn.Conv2d(6, 12, 1, bias=False),
            nn.Conv2d(12, 12, 3, padding=1, groups=12, bias=False),
            nn.Conv2d(12, 6, 1, bias=False),
        ])
        self.bn = nn.ModuleList(nn.BatchNorm2d(c) for c in (12, 12, 6))
        g = torch.Generator().manual_seed(27)
        for bn in self.bn:
            randomize_batch_norm(bn, g)

    def forward(self, x):
        y = F.relu(self.bn[0](self.conv[0](x)))
        y = F.hardswish(self.bn[1](self.conv[1](y)))
        return x + self.bn[2](self.conv[2](y))


class ResidualNoFuse(nn.Module):
    """Adds that may not be folded into the conv before them: the conv + BN result is also
    returned (conv + BN still fold), and a conv plus a broadcast [C, 1, 1] tensor."""

    def __init__(self):
        super().__init__()
        self.conv = nn.ModuleList([nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1)])
        self.bn = nn.BatchNorm2d(4)
        randomize_batch_norm(self.bn, torch.Generator().manual_seed(28))
        self.shift = nn.Parameter(torch.randn(4, 1, 1, generator=torch.Generator().manual_seed(29)))

    def forward(self, x):
        y = self.bn(self.conv[0](x))
        return torch.relu(y + x), y, torch.relu(self.conv[1](x) + self.shift)


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
    fixtures += export_util.build("conv_bn", ConvBn, 24,
                                  lambda g: ((torch.randn(2, 4, 7, 7, generator=g),), {}), 1e-4,
                                  ROOT)
    fixtures += export_util.build("conv_bn_escape", ConvBnEscape, 25,
                                  lambda g: ((torch.randn(1, 3, 6, 6, generator=g),), {}), 1e-4,
                                  ROOT)
    fixtures += export_util.build("residual_block", ResidualBlock, 26,
                                  lambda g: ((torch.randn(2, 4, 8, 8, generator=g),), {}), 1e-4,
                                  ROOT)
    fixtures += export_util.build("inverted_residual", InvertedResidual, 27,
                                  lambda g: ((torch.randn(2, 6, 5, 5, generator=g),), {}), 1e-4,
                                  ROOT)
    fixtures += export_util.build("residual_no_fuse", ResidualNoFuse, 28,
                                  lambda g: ((torch.randn(1, 4, 6, 6, generator=g),), {}), 1e-4,
                                  ROOT)
    export_util.write_manifest(ROOT, {"torch_version": torch.__version__, "fixtures": fixtures})
    print(f"wrote {ROOT} ({export_util.dir_size(ROOT) / 1e3:.1f} kB)")


if __name__ == "__main__":
    main()
