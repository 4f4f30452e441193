#!/usr/bin/env python3
"""Ops models compute that torch's training IR keeps whole (issue 47 item 6), in both dialects,
into fixtures/arch_training_ops/<model>/<dialect>/ (runnable_fixtures() in tests/common/test_util.h
runs each on its export inputs and compares with torch eager):

  scaled_std_conv  timm's NFNet ScaledStdConv2d: the weight standardised with
                   F.batch_norm(w, None, None, training=True) inside an eval-mode model
  classifier_loss  a classifier returning its logits and F.cross_entropy against labels (with
                   ignore_index and label smoothing), F.nll_loss with class weights, and a
                   soft-label cross entropy
  mode_vote        torch.mode over an ensemble's argmax votes
  masked_topk      DeepSeek-V3.2's sparse-attention indexer: top-k of causally masked (-inf) and
                   ReLU-zeroed scores, where ties must break as torch's CPU topk breaks them
                   (both of its paths: 128 keys, k = 2; 12 keys, k = 3)
  relative_shift   Funnel's relative-position shift: an in-place multiply through reshapes and
                   slices of an einsum's permuted output (torch's reshapes there are views, so
                   the einsum's result changes), beside a reshape torch must copy (a
                   transposed input), whose in-place write must not reach its input
  norms            OWL-ViT's torch.linalg.norm(x, dim=-1, keepdim=True) and the other vector
                   norms linalg_norm spells (no ord, a numeric ord of a vector, "fro")
  complex_to       Llama 4's rotary table: a complex tensor's .to(complex64) (the training
                   IR asserts its metadata first)
  in_place_math    in-place arithmetic on activations whose functional overload torch names
                   otherwise (DAB-DETR's floor_divide_, pow_.Scalar, pow_.Tensor)
  padded_batch     Z-Image's batching of variable-length token sequences: pad_sequence
                   (batch_first, both padding sides, a padding value) of slices of one tensor,
                   of complex rotary tables too, and LTX-2's torch.clip with number and tensor
                   bounds
  constant_outputs MaskFormer-Swin's forward returning Python numbers beside its tensors (an
                   int derived from a static shape, a float, a bool): torch folds each into
                   the output spec as a constant; tir returns 0-dim int64 / float64 / bool

    ~/.venvs/torch/bin/python tests/data/gen_arch_training_ops.py
"""

import os
import sys

import torch
import torch.nn.functional as F
from torch import nn

import export_util
import gen

ROOT = os.path.join(gen.ROOT, "arch_training_ops")


class ScaledStdConv(nn.Conv2d):
    """timm.layers.ScaledStdConv2d at toy size."""

    def __init__(self):
        super().__init__(3, 6, 3, padding=1)
        self.gain = nn.Parameter(torch.full((6, 1, 1, 1), 1.5))
        self.scale = (3 * 3 * 3) ** -0.5

    def forward(self, x):
        w = F.batch_norm(self.weight.reshape(1, self.out_channels, -1), None, None,
                         weight=(self.gain * self.scale).view(-1), training=True, momentum=0.0,
                         eps=1e-6).reshape_as(self.weight)
        return F.conv2d(x, w, self.bias, self.stride, self.padding)


class ClassifierLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 5)
        self.register_buffer("class_weight", torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0]))

    def forward(self, x, labels, soft):
        logits = self.head(x)
        return (logits,
                F.cross_entropy(logits, labels, ignore_index=2, label_smoothing=0.1),
                F.nll_loss(F.log_softmax(logits, -1), labels, weight=self.class_weight,
                           reduction="sum"),
                F.cross_entropy(logits, soft.softmax(-1), reduction="none"))


class ModeVote(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.Linear(6, 4 * 5)

    def forward(self, x):
        votes = self.heads(x).reshape(x.shape[0], 5, 4).argmax(-1)
        value, index = torch.mode(votes, dim=1)
        return value, index


class MaskedTopk(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(self, x, long_x):
        def pick(h, k):
            n = h.shape[1]
            scores = torch.relu(self.q(h) @ h.transpose(-1, -2))
            causal = torch.ones(n, n, dtype=torch.bool).tril()
            top = scores.masked_fill(~causal, float("-inf")).topk(k, dim=-1)
            return top.indices, torch.gather(h[:, :, 0].unsqueeze(1).expand(-1, n, -1), 2,
                                             top.indices)
        return (*pick(x, 3), *pick(long_x, 2))


class RelativeShift(nn.Module):
    def forward(self, q, k, mask, x):
        scores = torch.einsum("binh,tnh->bnit", q, k)  # [1, 4, 12, 24], a permuted layout
        shifted = scores.reshape(1, 4, 24, 12)[:, :, 1:].reshape(1, 4, 12, 23)[..., :12]
        shifted.mul_(mask)
        t = x.transpose(0, 1)
        flat = t.reshape(-1)  # a copy in torch: t's strides have no view of this shape
        flat.mul_(3.0)
        return scores.sum(-1), shifted, t + 0.0, flat


class Norms(nn.Module):
    def forward(self, x, v):
        return (x / torch.linalg.norm(x, dim=-1, keepdim=True), torch.linalg.norm(x),
                torch.linalg.norm(x, "fro", dim=(0, 1)), torch.linalg.norm(v, ord=1),
                torch.linalg.norm(x, ord=3, dim=0))


class ComplexTo(nn.Module):
    def forward(self, t, x):
        freqs = torch.polar(torch.ones_like(t), t).to(torch.complex64)
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs).flatten(-2)


class InPlaceMath(nn.Module):
    def forward(self, x, y):
        t = x * 7.0
        t.floor_divide_(y)
        u = x + 1.0
        u.pow_(2)
        v = y * 0.5
        v.pow_(x.abs())
        return t, u, v


class ConstantOutputs(nn.Module):
    """MaskFormer-Swin's backbone returns its feature maps with the stage count and flags."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 6)

    def forward(self, x):
        h = self.proj(x)
        return h, x.shape[-1] // 2 + 1, 0.25, h.shape[0] > 1


class PaddedBatch(nn.Module):
    def forward(self, x, lo, hi):
        parts = [x[:5], x[5:7], x[7:10]]
        right = torch.nn.utils.rnn.pad_sequence(parts, batch_first=True, padding_value=-1.5)
        left = torch.nn.utils.rnn.pad_sequence(parts, padding_side="left")
        z = torch.view_as_complex(x.reshape(10, 2, 2))  # Z-Image pads complex rotary tables
        padded = torch.nn.utils.rnn.pad_sequence([z[:4], z[4:]], batch_first=True)
        return (right, left, torch.clip(x, -0.5, 0.75), torch.clip(x, lo, hi),
                torch.view_as_real(padded))


MODELS = [
    ("scaled_std_conv", ScaledStdConv, 101,
     lambda g: ((torch.randn(2, 3, 8, 8, generator=g),), {}), 1e-4),
    ("classifier_loss", ClassifierLoss, 102,
     lambda g: ((torch.randn(6, 8, generator=g), torch.tensor([0, 2, 4, 1, 3, 2]),
                 torch.randn(6, 5, generator=g)), {}), 1e-5),
    ("mode_vote", ModeVote, 103, lambda g: ((torch.randn(7, 6, generator=g),), {}), 0),
    ("masked_topk", MaskedTopk, 105,
     lambda g: ((torch.randn(2, 12, 8, generator=g), torch.randn(1, 128, 8, generator=g)), {}),
     1e-5),
    ("relative_shift", RelativeShift, 106,
     lambda g: ((torch.randn(1, 12, 4, 8, generator=g), torch.randn(24, 4, 8, generator=g),
                 torch.rand(1, 4, 12, 12, generator=g), torch.randn(3, 5, generator=g)), {}),
     1e-5),
    ("norms", Norms, 107,
     lambda g: ((torch.randn(3, 5, generator=g), torch.randn(6, generator=g)), {}), 1e-5),
    ("complex_to", ComplexTo, 108,
     lambda g: ((torch.randn(4, 3, generator=g), torch.randn(2, 4, 6, generator=g)), {}), 1e-5),
    ("in_place_math", InPlaceMath, 104,
     lambda g: ((torch.randn(3, 4, generator=g), torch.rand(3, 4, generator=g) + 0.5), {}), 1e-5),
    ("padded_batch", PaddedBatch, 110,
     lambda g: ((torch.randn(10, 4, generator=g), torch.full((4,), -0.25), torch.rand(4, generator=g)), {}),
     0),
    ("constant_outputs", ConstantOutputs, 109, lambda g: ((torch.randn(3, 4, generator=g),), {}),
     1e-5),
]


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    fixtures = export_util.build_suite(ROOT, MODELS)
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})


if __name__ == "__main__":
    sys.exit(main())
