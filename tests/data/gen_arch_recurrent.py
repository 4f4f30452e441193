#!/usr/bin/env python3
"""Recurrent architectures whose training IR writes state through views (issue 47): RWKV
(`state[:, :, i] = x`, a select then copy_), RecurrentGemma (`out[:, t] = h` in its scan) and
OLMo-hybrid (its gated-delta-rule chunk loop writes `out[:, :, i] = ...` and
`ut[..., i, :i] = ...`), tiny random configs in both dialects; and `view_writes`, a small
module with every kind of in-place write through a view the importer writes back (and views
read after a write to what they view). Into fixtures/arch_recurrent/<model>/<dialect>/ with
their own manifest.json (runnable_fixtures() in tests/common/test_util.h reads it). Also
STATE_RUNS (buffers written through views, or copied before an update, run after run; not in
the manifest: tests/runtime/session_test.cc reads them) and diagonal_write/training (a write
through a view tir refuses: tests/importer/import_test.cc).

    ~/.venvs/torch/bin/python tests/data/gen_arch_recurrent.py

Expected outputs are torch's eager CPU float32 outputs; each model's float64 run is checked
to agree with them within a tenth of the tolerance first, so the reference is stable and a
mismatch is tir's.
"""

import os
import sys

import torch
import transformers
from torch import nn

import export_util
import gen
from models_families import HF_COMMON, VOCAB, Logits, randomize_constant_tensors, token_ids

ROOT = os.path.join(gen.ROOT, "arch_recurrent")
COMMON = {k: v for k, v in HF_COMMON.items() if k != "attn_implementation"}


def rwkv():
    cfg = transformers.RwkvConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                  attention_hidden_size=32, intermediate_size=64,
                                  context_length=16, **COMMON)
    return Logits(randomize_constant_tensors(transformers.RwkvForCausalLM(cfg)))


def recurrent_gemma():
    cfg = transformers.RecurrentGemmaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, head_dim=16, lru_width=32,
        attention_window_size=8, conv1d_width=4, block_types=["recurrent", "attention"], **COMMON)
    return Logits(randomize_constant_tensors(transformers.RecurrentGemmaForCausalLM(cfg)))


def olmo_hybrid():
    cfg = transformers.OlmoHybridConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, layer_types=["linear_attention", "full_attention"], **COMMON)
    return Logits(randomize_constant_tensors(transformers.OlmoHybridForCausalLM(cfg)))


class ViewWrites(nn.Module):
    """In-place writes through every kind of view the importer writes back, on activations
    and on a buffer, each followed by reads of views taken before the write."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3, 4))

    def forward(self, x):  # x: [2, 3, 4]
        h = x * 2
        early = h[:, 1]           # taken before the writes below, read after them
        flat = h.view(2, 12)      # a view that aliases h's bytes
        h[:, 0] = x[:, 2]         # select + copy_
        h[:, 1:, 1:3] += 1.0      # slice, slice + add_
        h.transpose(1, 2)[:, 3].mul_(3.0)   # transpose, select + mul_
        h.permute(2, 0, 1)[0].relu_()       # permute, select + relu_
        a, b = h.split([1, 2], dim=1)
        b.mul_(-1.0)              # split output + mul_
        h.unbind(0)[1].add_(0.5)  # unbind output + add_
        h.unsqueeze(0)[0, 1, 2].fill_(7.0)  # unsqueeze, select, select + fill_
        scan = torch.zeros_like(x)
        state = torch.zeros_like(x[:, 0])
        for t in range(x.shape[1]):  # a recurrence writing each step into a select
            state = 0.5 * state + x[:, t]
            scan[:, t] = state
        c = h.transpose(1, 2).contiguous()  # a copy in torch: the write stays in it
        c.add_(1.0)
        g = x + 1.0
        g0 = g[0]                 # a view taken before an in-place op on g itself
        g.add_(1.0)               # add_ (a kernel of its own) on a tensor that has views
        self.state[:, 1] = x[:, 0]   # a buffer written through a view, twice
        self.state[:, 2] = self.state[:, 1] * 2.0
        return h, early, flat * 1.0, a * 1.0, scan, g0 * 1.0, c * 1.0, self.state.sum(1)


class BufferRuns(nn.Module):
    """A buffer written through views twice per run, its old value the output: each run reads
    the state the run before left (not in the manifest: its output changes run by run)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 3, 4))

    def forward(self, x):
        out = self.state.sum(1) + 0.0
        self.state[:, 1] = x[:, 0] + self.state[:, 1]
        self.state[:, 2] = self.state[:, 1] * 2.0
        return out


class BufferCopyRuns(nn.Module):
    """Copies of a buffer made before an in-place update of it (index_copy_; in the core IR
    index_put + a BUFFER_MUTATION that runs in place) and read after it: torch's repeat, cat,
    roll and flip are new tensors, which the update must not reach."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(4, 3))

    def forward(self, x, pos):
        old = torch.cat([self.state.repeat(1, 1)])
        rolled = self.state.roll(0, 1)
        flipped = self.state[None].flip(0)
        self.state.index_copy_(0, pos, x)
        return old + 0.0, rolled + 0.0, flipped + 0.0


class ParameterRescale(nn.Module):
    """A parameter the program divides in place under no_grad at every call (RWKV's
    _rescale_layers in eval mode, whose Python guard is read once, at export): div_ inside
    wrap_with_set_grad_enabled in the training IR, a PARAMETER_MUTATION in the core IR."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 3)

    def forward(self, x):
        with torch.no_grad():
            self.proj.weight.div_(2.0)
        return self.proj(x)


def rwkv_rescaled():
    """RWKV whose second layer's output weights are halved by _rescale_layers (rescale_every
    1): the exported program halves them again at every call."""
    torch.manual_seed(77)
    cfg = transformers.RwkvConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                                  attention_hidden_size=32, intermediate_size=64,
                                  context_length=16, **{**COMMON, "rescale_every": 1})
    return Logits(randomize_constant_tensors(transformers.RwkvForCausalLM(cfg))).eval()


def write_state_runs(runs=3):
    """fixtures/arch_recurrent/<name>/<dialect>/ of the STATE_RUNS modules: program.pt2,
    input_<k>.npy and run_<k>_<j>.npy, output j of the k-th call of the saved program's module
    (torch.export.load(...).module(): its buffers and parameters as the calls before left
    them)."""
    for name, make_module, inputs in STATE_RUNS:
        args = inputs(torch.Generator().manual_seed(75))
        ep = torch.export.export(make_module(), args)
        for dialect in export_util.DIALECTS:
            if dialect == "core":
                ep = ep.run_decompositions()
            out_dir = os.path.join(ROOT, name, dialect)
            os.makedirs(out_dir)
            path = os.path.join(out_dir, "program.pt2")
            torch.export.save(ep, path)
            export_util.restore_deflated(path)
            for k, a in enumerate(args):
                export_util.save_npy(os.path.join(out_dir, f"input_{k}.npy"), a)
            module = torch.export.load(path).module()
            with torch.no_grad():
                for k in range(runs):
                    outs = module(*args)
                    for j, o in enumerate(outs if isinstance(outs, tuple) else (outs,)):
                        export_util.save_npy(os.path.join(out_dir, f"run_{k}_{j}.npy"), o)


class DiagonalWrite(nn.Module):
    """A write through a view tir cannot write back (diagonal): refused with one line."""

    def forward(self, x):
        h = x * 2
        h.diagonal().mul_(3.0)
        return h


def write_refused():
    """fixtures/arch_recurrent/diagonal_write/training/program.pt2 (tests/importer)."""
    out_dir = os.path.join(ROOT, "diagonal_write", "training")
    os.makedirs(out_dir)
    path = os.path.join(out_dir, "program.pt2")
    torch.export.save(torch.export.export(DiagonalWrite(), (torch.randn(3, 3),)), path)
    export_util.restore_deflated(path)


# Programs whose buffer changes run by run (not in the manifest: FixtureSession expects the
# same outputs every run; tests/runtime/session_test.cc runs them).
STATE_RUNS = [
    ("buffer_runs", BufferRuns, lambda g: (torch.randn(2, 3, 4, generator=g),)),
    ("buffer_copy_runs", BufferCopyRuns,
     lambda g: (torch.randn(1, 3, generator=g), torch.tensor([2]))),
    ("parameter_rescale", ParameterRescale, lambda g: (torch.randn(2, 4, generator=g),)),
    ("rwkv_rescaled", rwkv_rescaled, lambda g: (token_ids(g, 1, 7),)),
]


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("rwkv", rwkv, 71, lambda g: ((token_ids(g, 1, 7),), {}), 1e-4),
    ("recurrent_gemma", recurrent_gemma, 72, lambda g: ((token_ids(g, 1, 7),), {}), 1e-4),
    ("olmo_hybrid", olmo_hybrid, 73, lambda g: ((token_ids(g, 1, 7),), {}), 1e-4),
    ("view_writes", ViewWrites, 74, lambda g: ((torch.randn(2, 3, 4, generator=g),), {}), 1e-5),
]


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    for name, make_module, seed, make_inputs, tol in MODELS:
        diff = export_util.float64_disagreement(make_module, seed, make_inputs)
        assert diff < tol / 10, f"{name}: torch float32 vs float64 {diff}"
    fixtures = export_util.build_suite(ROOT, MODELS)
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})
    write_state_runs()
    write_refused()


if __name__ == "__main__":
    sys.exit(main())
