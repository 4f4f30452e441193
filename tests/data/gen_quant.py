#!/usr/bin/env python3
"""Fixtures of programs quantized by torch itself with PT2E (tests/data/fixtures/quant/).

    ~/.venvs/torch/bin/python tests/data/gen_quant.py      (needs torchao, requirements.txt)

Each model is exported, quantized with torchao's PT2E flow (prepare_pt2e with the
X86InductorQuantizer, calibration on CALIB random batches, convert_pt2e) and the quantized
GraphModule is exported again in both dialects (export_util.build). Static models quantize
activations per tensor to uint8 with the scales calibration chose (quantize_per_tensor /
dequantize_per_tensor pairs) and weights per output channel to int8 (int8 buffers read by
dequantize_per_channel); the dynamic model chooses each activation's scale and zero point
per run (choose_qparams.tensor, then the .tensor overloads). The recorded outputs are those
of the quantized GraphModule in torch eager: torch's quantized reference. The float weights
that convert_pt2e leaves unread are deleted before export (drop_float_weights).

    mlp            Linear 16-32, ReLU, Linear 32-8
    conv           Conv-BN-ReLU, Conv-ReLU, MaxPool, Conv, mean, Linear (BN folded by PT2E)
    gpt2_block     one GPT-2 block with nn.Linear projections (LayerNorm, causal SDPA,
                   GELU tanh, residuals): its four Linears are quantized
    mlp_dynamic    mlp with dynamic per-tensor activation quantization
    unsupported    quantize_per_channel of an activation, called directly (tir has no kernel
                   for it: the import must list it)

and manifest.json. Deterministic; rebuilds the folder.
"""

import os
import shutil

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed)
import torch.nn.functional as F
import torchao
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer import x86_inductor_quantizer as xiq

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "quant")
CALIB = 8
TOL = 1e-5  # the reloaded program against the GraphModule it was exported from


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(16, 32), nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv3 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(self.conv3(x).mean(dim=(2, 3)))


class GPT2Block(nn.Module):
    def __init__(self, dim=32, heads=2):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.c_attn, self.c_proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.c_fc, self.mlp_proj = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = [y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v)]
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(a.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class PerChannelActivations(nn.Module):
    """Quantizes an activation per channel (quantize_per_channel: no kernel in tir), for the
    importer's unsupported-op listing."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.05, 0.1, 0.2, 0.4], dtype=torch.float64))
        self.register_buffer("zero_points", torch.zeros(4, dtype=torch.int64))

    def forward(self, x):
        q = torch.ops.quantized_decomposed.quantize_per_channel(
            x, self.scales, self.zero_points, 1, -128, 127, torch.int8)
        return torch.ops.quantized_decomposed.dequantize_per_channel(
            q, self.scales, self.zero_points, 1, -128, 127, torch.int8)


def randomize(module):
    """Norm scales and shifts and batch-norm statistics get random values (not 1 and 0)."""
    g = torch.Generator().manual_seed(7)
    for m in module.modules():
        if isinstance(m, (nn.LayerNorm, nn.BatchNorm2d)):
            with torch.no_grad():
                m.weight.copy_(1 + 0.2 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.2 * torch.randn(m.bias.shape, generator=g))
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=g))
            m.running_var.copy_(0.5 + torch.rand(m.running_var.shape, generator=g))
    return module


def drop_float_weights(converted):
    """Deletes the float parameters convert_pt2e left behind unread (each linear's and conv's
    original weight: the graph reads the int8 copy): else the export carries both."""
    used = {n.target for n in converted.graph.nodes if n.op == "get_attr"}
    for name, _ in list(converted.named_parameters()):
        if name not in used:
            module, _, attr = name.rpartition(".")
            delattr(converted.get_submodule(module), attr)
    return converted


def quantized(cls, shape, dynamic=False):
    """make_module for export_util.build: cls() quantized by PT2E, calibrated on CALIB batches."""

    def make():
        model = randomize(cls()).eval()
        calib = torch.Generator().manual_seed(99)
        batches = [torch.randn(shape, generator=calib) for _ in range(CALIB)]
        quantizer = xiq.X86InductorQuantizer()
        quantizer.set_global(xiq.get_default_x86_inductor_quantization_config(is_dynamic=dynamic))
        graph = torch.export.export(model, (batches[0],)).module()
        prepared = prepare_pt2e(graph, quantizer)
        for x in batches:
            prepared(x)
        converted = drop_float_weights(convert_pt2e(prepared))
        # export_util.build calls .eval(), which a converted module refuses
        converted.eval = lambda: converted
        return converted

    return make


def inputs(shape):
    return lambda g: ((torch.randn(shape, generator=g),), {})


MODELS = [
    ("mlp", MLP, (4, 16), False),
    ("conv", ConvNet, (2, 3, 16, 16), False),
    ("gpt2_block", GPT2Block, (1, 8, 32), False),
    ("mlp_dynamic", MLP, (4, 16), True),
]


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    fixtures = []
    for seed, (name, cls, shape, dynamic) in enumerate(MODELS):
        fixtures += export_util.build(name, quantized(cls, shape, dynamic), seed, inputs(shape),
                                      TOL, ROOT, trim_metadata=True)
    fixtures += export_util.build("unsupported", PerChannelActivations, len(MODELS),
                                  inputs((2, 4)), TOL, ROOT)
    export_util.write_quant_manifest(ROOT, fixtures)


if __name__ == "__main__":
    main()
