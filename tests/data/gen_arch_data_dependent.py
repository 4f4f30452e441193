#!/usr/bin/env python3
"""Data-dependent scalars of every type (issue 47 item 5), in both dialects, into
fixtures/arch_data_dependent/<model>/<dialect>/ with their own manifest.json
(runnable_fixtures() in tests/common/test_util.h runs each on its export inputs):

  llava_merge    LLaVA's image-token merge: a bool `.item()` checked by torch._check (the
                 training IR specialises it to True, the core IR keeps u0 in [0, 1] behind
                 sym_ite and _assert_scalar), then masked_scatter
  item_bool      a bool `.item()` as a torch.cond predicate and in torch.sym_ite's size
  nested_sizes   JetMoE's pattern: a size counted from rows another `.item()` selected
  float_item     a float `.item()` multiplying and dividing tensors, and Python arithmetic on it
  bincount       bincount, whose size is max(x) + 1

Each manifest entry also lists "runs": other inputs (in runs/<k>/input_<j>.npy) with torch's
outputs for them (runs/<k>/output_<j>.npy), or "raises": true where torch's exported program
refuses them (a failed torch._check); tests/runtime/data_dependent_test.cc runs them all.
Also REFUSED: float_as_number (a float `.item()` passed where the schema wants a number,
refused at import) and cond_nonzero (a nonzero-sized value inside a torch.cond branch, refused
at open), not in the manifest; and RANDOM: random_durations (VITS's durations from noise the
forward draws, whose sum sizes the output: the run must draw what the probe that bound the size
drew), checked for consistency, not against torch's draws.

    ~/.venvs/torch/bin/python tests/data/gen_arch_data_dependent.py
"""

import os
import sys

import torch
from torch import nn

import export_util
import gen

ROOT = os.path.join(gen.ROOT, "arch_data_dependent")
IMAGE_TOKEN = 7


class LlavaMerge(nn.Module):
    """transformers' LlavaModel.get_placeholder_mask + masked_scatter, at toy size."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.projector = nn.Linear(3, 4)

    def forward(self, input_ids, pixel_features):
        embeds = self.embed(input_ids)
        features = self.projector(pixel_features).reshape(-1, 4)
        mask = input_ids == IMAGE_TOKEN
        ok = mask.sum() * embeds.shape[-1] == features.numel()
        torch._check(ok.item(), lambda: "image features and image tokens do not match")
        mask = mask.unsqueeze(-1).expand_as(embeds)
        return embeds.masked_scatter(mask, features)


class ItemBool(nn.Module):
    def forward(self, x, flags):
        b = (flags > 0).any().item()
        k = torch.sym_ite(b, 3, 1)
        y = torch.cond(b, lambda x: x + 1.0, lambda x: x * 2.0, (x,))
        return y, x[:k] * 3.0


class NestedSizes(nn.Module):
    def forward(self, x, counts):
        n = counts.sum().item()
        torch._check_is_size(n)
        torch._check(n <= x.shape[0])
        rows = x[:n]
        m = (rows > 0).sum().item()
        torch._check_is_size(m)
        torch._check(m <= 64)
        return torch.zeros(m, 2) + 1.0, rows * 2.0


class FloatItem(nn.Module):
    def forward(self, x, scale, n):
        f = scale.item()
        g = f * 2.0 - 0.5
        return x * f, x / g, x + (-f), (x * 2) / (1.0 / (f + n.sum()))


class CondNonzero(nn.Module):
    def forward(self, x, p):
        def positive(x):
            idx = torch.nonzero(x > 0)
            return x.sum().reshape(1) + idx.shape[0]

        def other(x):
            return x.sum().reshape(1)

        return torch.cond(p.sum() > 0, positive, other, (x,))


class Bincount(nn.Module):
    """bincount's size is max(x) + 1 (at least minlength): counted from the data."""

    def forward(self, idx, w):
        return torch.bincount(idx), torch.bincount(idx, weights=w, minlength=7) * 2.0


def ids(*rows):
    return torch.tensor(rows)


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol,
#  other inputs(generator) -> [args, ...])
MODELS = [
    ("llava_merge", LlavaMerge, 81,
     lambda g: ((ids([1, 7, 7, 2]), torch.randn(1, 2, 3, generator=g)), {}), 1e-5,
     lambda g: [(ids([7, 3, 3, 7]), torch.randn(1, 2, 3, generator=g)),
                (ids([7, 7, 7, 7]), torch.randn(1, 2, 3, generator=g)),
                (ids([1, 7, 2, 2]), torch.randn(1, 2, 3, generator=g))]),
    ("item_bool", ItemBool, 82,
     lambda g: ((torch.randn(5, 3, generator=g), torch.tensor([0, 1])), {}), 1e-5,
     lambda g: [(torch.randn(5, 3, generator=g), torch.tensor([0, 0])),
                (torch.randn(5, 3, generator=g), torch.tensor([2, 1]))]),
    ("nested_sizes", NestedSizes, 83,
     lambda g: ((torch.randn(6, 3, generator=g), torch.tensor([1, 2])), {}), 1e-5,
     lambda g: [(torch.randn(6, 3, generator=g), torch.tensor([4, 2])),
                (torch.randn(6, 3, generator=g), torch.tensor([0, 0])),
                (torch.randn(6, 3, generator=g), torch.tensor([5, 2]))]),
    ("float_item", FloatItem, 84,
     lambda g: ((torch.randn(2, 3, generator=g), torch.tensor(2.5), torch.tensor([1, 2])), {}),
     1e-5,
     lambda g: [(torch.randn(2, 3, generator=g), torch.tensor(-0.75), torch.tensor([3, 0])),
                (torch.randn(2, 3, generator=g), torch.tensor(4.0), torch.tensor([0, 0]))]),
    ("bincount", Bincount, 86,
     lambda g: ((torch.tensor([1, 3, 3, 0]), torch.rand(4, generator=g)), {}), 1e-5,
     lambda g: [(torch.tensor([9, 0, 2, 2]), torch.rand(4, generator=g)),
                (torch.tensor([0, 0, 0, 0]), torch.rand(4, generator=g)),
                (torch.tensor([1, -1, 0, 0]), torch.rand(4, generator=g))]),
]


def write_runs(entry, ep, others, root):
    """runs/<k>/ of `others` beside the entry's program: torch's outputs, or raises."""
    module = ep.module()
    runs = []
    for k, args in enumerate(others):
        out_dir = os.path.join(root, entry["dir"], "runs", str(k))
        os.makedirs(out_dir)
        run = {"inputs": [export_util.save_npy(os.path.join(out_dir, f"input_{j}.npy"), t)
                          for j, t in enumerate(args)]}
        try:
            with torch.no_grad():
                outs = torch.utils._pytree.tree_leaves(module(*export_util.clone_tree(args)))
            run["outputs"] = [export_util.save_npy(os.path.join(out_dir, f"output_{j}.npy"), t)
                              for j, t in enumerate(outs)]
        except Exception as e:  # noqa: BLE001 - a failed torch._check: the run must fail
            run["raises"] = True
            run["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
        runs.append(run)
    entry["runs"] = runs


class FloatAsNumber(nn.Module):
    """A float `.item()` where the schema wants a number: refused at import (one line)."""

    def forward(self, x, s):
        return x.clamp(max=s.item())


# Programs the importer or the session refuses with one line (not in the manifest; each in
# <name>/training/program.pt2, tests/runtime/data_dependent_test.cc).
REFUSED = [
    ("float_as_number", FloatAsNumber, (torch.randn(3), torch.tensor(0.5))),
    ("cond_nonzero", CondNonzero, (torch.randn(5, 3), torch.tensor([1.0]))),
]


class RandomDurations(nn.Module):
    """VITS's stochastic duration predictor at toy size: durations from noise the forward
    draws itself; their sum sizes the output (`.item()`, repeat_interleave)."""

    def forward(self, log_w, h):
        noise = torch.randn_like(log_w) * 0.5
        w = torch.ceil(torch.exp(log_w + noise))
        frames = torch.repeat_interleave(h, w.long(), dim=0)
        positions = torch.arange(w.long().sum().item())
        return noise, w, frames, positions


# Programs whose outputs are random (torch's draws are not tir's): each in
# <name>/<dialect>/program.pt2, checked for consistency by tests/runtime/data_dependent_test.cc.
RANDOM = [
    ("random_durations", RandomDurations, (torch.zeros(5), torch.randn(5, 3))),
]


def write_random():
    for name, cls, args in RANDOM:
        ep = torch.export.export(cls(), args)
        for dialect in ("training", "core"):
            out_dir = os.path.join(ROOT, name, dialect)
            os.makedirs(out_dir)
            path = os.path.join(out_dir, "program.pt2")
            torch.export.save(ep if dialect == "training" else ep.run_decompositions(), path)
            export_util.restore_deflated(path)


def write_refused():
    for name, cls, args in REFUSED:
        out_dir = os.path.join(ROOT, name, "training")
        os.makedirs(out_dir)
        path = os.path.join(out_dir, "program.pt2")
        torch.export.save(torch.export.export(cls(), args), path)
        export_util.restore_deflated(path)


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    specs = [m[:5] for m in MODELS]
    fixtures = export_util.build_suite(ROOT, specs)
    by_name = {m[0]: m for m in MODELS}
    for entry in fixtures:
        spec = by_name[entry["model"]]
        path = os.path.join(ROOT, entry["dir"], "program.pt2")
        others = spec[5](torch.Generator().manual_seed(2000 + spec[2]))
        write_runs(entry, torch.export.load(path), others, ROOT)
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})
    write_refused()
    write_random()


if __name__ == "__main__":
    sys.exit(main())
