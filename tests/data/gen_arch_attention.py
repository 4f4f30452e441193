#!/usr/bin/env python3
"""Fixtures of the attention architectures that ran without an error and returned wrong numbers
(issue 47: Pegasus-X, DeepSeek-V4), in both dialects, into fixtures/arch_attention/ with its
own manifest.json (tests read every fixtures/arch_*/manifest.json beside fixtures/manifest.json).

    ~/.venvs/torch/bin/python tests/data/gen_arch_attention.py

Both wrote into slices of a tensor they had just made, as the training IR keeps it (slice, then
copy_): Pegasus-X its sinusoidal position table (`pe[:, :half] = sin(...)`, inside a no_grad
block), DeepSeek-V4 its compressor's windows (`new_gate[:, :, ratio:] = ...` into a -inf
tensor, whose softmax became NaN when the write was lost). in_place_views is the op-level
regression of that mechanism: in-place ops that have kernels of their own (copy_, add_, mul_,
index_put_) through slice, select, view and transpose chains of an activation and of a
buffer. nan_inf covers the ops whose NaN/inf handling differed from torch's (softmax of a row
holding a NaN, sign(NaN), the norm of a vector holding inf) and their neighbours.

Tiny configurations, random weights (models_families.randomize_constant_tensors), eval mode;
torch's float32 outputs are within 1e-5 of a float64 run of the same models (checked here).
The manifest's "refused" lists training-IR programs that write through views in ways tir
cannot reproduce, with the words of the error the import must fail with.
"""

import copy
import os
import shutil
import sys

import torch
import torch.nn.functional as F
import transformers
from torch import nn

import export_util
import gen
from models_families import HF_COMMON, VOCAB, Logits, randomize_constant_tensors, token_ids

ROOT = os.path.join(gen.ROOT, "arch_attention")


class Seq2SeqLogits(nn.Module):
    """An encoder-decoder LM's logits for a padded batch, without a cache."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, decoder_input_ids):
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          decoder_input_ids=decoder_input_ids, use_cache=False).logits


def pegasus_x():
    """Global tokens and staggered block-local attention: 12 tokens in blocks of 4 (the second
    sequence padded), 4 global tokens."""
    cfg = transformers.PegasusXConfig(
        vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
        decoder_ffn_dim=64, max_position_embeddings=64, num_global_tokens=4, block_size=4,
        stagger_local_blocks=True, dropout=0.0, init_std=0.2, pad_token_id=0, eos_token_id=1,
        decoder_start_token_id=0)
    return Seq2SeqLogits(randomize_constant_tensors(
        transformers.PegasusXForConditionalGeneration(cfg)))


def pegasus_x_inputs(g):
    mask = torch.ones(2, 12, dtype=torch.int64)
    mask[1, 9:] = 0
    return (token_ids(g, 2, 12), mask, token_ids(g, 2, 5)), {}


def deepseek_v4():
    """A sliding-window layer with hash-routed experts, then a compressed-sparse-attention layer
    (compressor, lightning indexer, top-k) with top-k routed experts; hyper-connections."""
    cfg = transformers.DeepseekV4Config(
        vocab_size=VOCAB, hidden_size=32, moe_intermediate_size=24, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=1, head_dim=16, q_lora_rank=16,
        num_experts_per_tok=2, n_routed_experts=4, n_shared_experts=1,
        max_position_embeddings=64,
        layer_types=["sliding_attention", "compressed_sparse_attention"],
        compress_rates={"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
        hc_mult=2, hc_sinkhorn_iters=3, sliding_window=4, o_groups=2, o_lora_rank=8,
        index_n_heads=2, index_head_dim=8, index_topk=2, mlp_layer_types=["hash_moe", "moe"],
        **{**HF_COMMON, "attn_implementation": "eager"})
    return Logits(randomize_constant_tensors(transformers.DeepseekV4ForCausalLM(cfg)))


class InPlaceViews(nn.Module):
    """In-place ops with kernels of their own, written through views: torch writes the tensor
    the views view."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(3, 8))
        self.scale = nn.Parameter(torch.rand(4) + 0.5)  # a weight to stream, beside the state

    def forward(self, x):
        pe = torch.zeros(x.shape[0], 8)
        pe[:, :4] = torch.sin(x * self.scale)  # slice (dim 1), copy_
        pe[:, 4:] = torch.cos(x)
        st = torch.zeros(3, x.shape[0], 4)
        st[1] = x * 3  # select, copy_
        st[2].add_(x)  # select, add_
        y = x.clone()
        y[:, 1:3] += 5  # slice, add_
        y[0].mul_(2)  # select, mul_
        y[1:][torch.tensor([0, 2])] = -1.0  # slice, index_put_
        z = torch.full((x.shape[0], 4), float("-inf"))
        z.view(-1)[: 2 * x.shape[1]] = x[:2].reshape(-1)  # view, slice, copy_
        z.t()[1] = x[:, 0]  # t, select, copy_
        w = torch.zeros(4, x.shape[0])
        w.transpose(0, 1)[:, 3] = x[:, 1]  # transpose, select, copy_
        with torch.no_grad():  # inside wrap_with_set_grad_enabled
            q = torch.zeros(x.shape[0], 6)
            q[:, 2:] = x.exp()
        self.state[:, :4] = x[:3]  # a buffer through a slice
        u = x * 1.0
        before = u[:, :2] * 1.0  # a view of u, read before the write
        u.mul_(3.0)  # mul_ on a tensor that has views: functional too
        return (pe * 2, st + 1, y, torch.softmax(z, dim=-1), w, q, self.state * 2, u, before)


class NanInf(nn.Module):
    """NaN and infinities where torch defines the answer: a softmax row with a NaN is NaN, a
    fully masked (-inf) row is NaN, a partly masked one is finite; sign(NaN) is 0; a norm
    over an infinite element is inf; exp(-inf) is 0 and exp(-100) subnormal (so the core IR's
    logsumexp of a masked row is -inf); max pooling propagates NaN and keeps -inf; reductions,
    clamps and max/min propagate NaN."""

    def forward(self, x, mask):
        nan, inf = float("nan"), float("inf")
        mask = mask.bool()
        with_nan = torch.where(mask, nan, x)
        masked = x.masked_fill(mask, -inf)
        return (torch.softmax(with_nan, -1), torch.softmax(masked, -1),
                torch.log_softmax(masked, -1), torch.softmax(masked.transpose(0, 1), 0),
                torch.sign(with_nan), torch.linalg.vector_norm(torch.where(mask, inf, x), dim=-1),
                torch.logsumexp(masked, -1), with_nan.amax(-1), with_nan.clamp(-0.5, 0.5),
                torch.maximum(with_nan, x * 0.5), torch.where(mask, inf, x) * 0.0,
                torch.log(torch.exp(masked - 90.0)),
                F.max_pool2d(with_nan[None, None], 2, 1), F.max_pool2d(masked[None, None], 2, 1))


def nan_inf_inputs(g):
    mask = torch.tensor([[1, 1, 1, 1, 1], [0, 1, 0, 0, 1], [0, 0, 0, 0, 0], [1, 0, 1, 0, 0]])
    return (torch.randn(4, 5, generator=g), mask), {}


def in_place_views():
    return InPlaceViews()


def in_place_views_inputs(g):
    return (torch.randn(5, 4, generator=g),), {}


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("pegasus_x", pegasus_x, 71, pegasus_x_inputs, 1e-4),
    ("deepseek_v4", deepseek_v4, 72, lambda g: ((token_ids(g, 1, 10),), {}), 1e-4),
    ("in_place_views", in_place_views, 73, in_place_views_inputs, 1e-5),
    ("nan_inf", NanInf, 74, nan_inf_inputs, 1e-5),
    ("stale_view_read", lambda: StaleViewRead(), 75, in_place_views_inputs, 1e-5),
    ("write_through_permute", lambda: WriteThroughPermute(), 76, in_place_views_inputs, 1e-5),
]


class StaleViewRead(nn.Module):
    """A slice taken, then its base written in place, then the slice read: torch's slice sees
    the write (tir takes the view again from the written tensor)."""

    def forward(self, x):
        y = x * 1.0
        s = y[:, :2]
        y.add_(1.0)
        return s * 2


class WriteThroughPermute(nn.Module):
    """copy_ through select of a permute (written back through the inverse permute)."""

    def forward(self, x):
        y = x * 1.0
        y.permute(1, 0)[0] = x[:, 1]
        return y


class WriteThroughDiagonal(nn.Module):
    """fill_ through diagonal, a view no scatter op writes back."""

    def forward(self, x):
        y = x[:4] * 1.0
        y.diagonal().fill_(0.0)
        return y


# Training-IR programs tir refuses at import instead of running wrong: (name, module, the
# error's words). Their core IR is functional and runs (not recorded).
REFUSED = [
    ("write_through_diagonal", WriteThroughDiagonal, "a view made by aten::diagonal"),
]


def build_refused(name, cls, error):
    """refused/<name>/program.pt2 (training IR) and its manifest entry."""
    out_dir = os.path.join(ROOT, "refused", name)
    os.makedirs(out_dir)
    ep = torch.export.export(cls(), (torch.randn(5, 4),))
    export_util.trim_node_metadata(ep)
    path = os.path.join(out_dir, "program.pt2")
    torch.export.save(ep, path)
    export_util.restore_deflated(path)
    return {"model": name, "dir": f"refused/{name}", "error": error}


def eager_experts(module):
    """transformers' grouped_mm experts take float32/bf16/fp16 only: eager experts in float64."""
    for sub in module.modules():
        if isinstance(getattr(sub, "config", None), transformers.PretrainedConfig):
            sub.config._experts_implementation = "eager"
    return module


def check_float64(name, make_module, seed, make_inputs, tol):
    """The float32 reference is stable: a float64 run of the same model agrees within tol/10."""
    torch.manual_seed(seed)
    module = make_module().eval()
    args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    wide = eager_experts(copy.deepcopy(module).double())
    with torch.no_grad():
        want = module(*export_util.clone_tree(args), **kwargs)
        got = wide(*[a.double() if a.is_floating_point() else a for a in args], **kwargs)
    for w, g in zip(*(torch.utils._pytree.tree_leaves(t) for t in (want, got))):
        torch.testing.assert_close(w.double(), g.double(), rtol=tol / 10, atol=tol / 10,
                                   equal_nan=True,
                                   msg=lambda m: f"{name}: float32 vs float64: {m}")


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    fixtures = []
    for spec in MODELS:
        check_float64(*spec)
        fixtures += export_util.build(*spec, ROOT, trim_metadata=True)
        path = os.path.join(ROOT, spec[0])
        for dialect in os.listdir(path):
            export_util.restore_deflated(os.path.join(path, dialect, "program.pt2"))
        print(f"{spec[0]}: {export_util.dir_size(path) / 1e3:.0f} kB")
    fixtures.sort(key=lambda e: (e["model"], e["dialect"]))
    refused = [build_refused(*spec) for spec in REFUSED]
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures, "refused": refused})


if __name__ == "__main__":
    sys.exit(main())
