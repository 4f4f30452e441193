#!/usr/bin/env python3
"""Programs that write their own inputs (torch's user_input_mutation, issue 47 item 4), in
both dialects, into fixtures/arch_mutation/<model>/<dialect>/ with their own manifest.json:

  add_in_place   x.add_(y) on an input, then a read of the new x
  kv_write       a KV cache passed by the caller, written at a position (index_copy_) and
                 through an indexed assignment (index_put_), then attended over
  slice_write    an in-place multiply through a slice (a view) of an input
  two_written    two inputs written (one through copy_ of a computed value), one only read

Torch's eager module writes the tensors it is given. Each manifest entry lists "runs": the
export inputs passed to the exported program RUNS times in a row (each call sees what the
previous one wrote), with per call the outputs (runs/<k>/output_<j>.npy) and the value of
every written input after it (runs/<k>/written_<i>.npy, i its signature position);
tests/runtime/input_mutation_test.cc runs them through the C++ API, the C ABI and tirrun.

    ~/.venvs/torch/bin/python tests/data/gen_arch_mutation.py
"""

import os
import sys

import torch
from torch import nn

import export_util
import gen

ROOT = os.path.join(gen.ROOT, "arch_mutation")
RUNS = 3


class AddInPlace(nn.Module):
    def forward(self, x, y):
        x.add_(y)
        return x * 2.0


class KvWrite(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, k_cache, v_cache, pos, k, v):
        k_cache.index_copy_(2, pos, k)
        v_cache[:, :, pos] = v
        q = self.q(k)
        att = torch.softmax(q @ k_cache.transpose(-1, -2), dim=-1)
        return att @ v_cache


class SliceWrite(nn.Module):
    def forward(self, x):
        x[:, 1:3].mul_(0.5)
        return x.sum(dim=1)


class TwoWritten(nn.Module):
    def forward(self, acc, x, state):
        acc.add_(x)
        state.copy_(torch.tanh(state + acc))
        return acc.mean(), state * 1.0


MODELS = [
    ("add_in_place", AddInPlace, 91,
     lambda g: ((torch.randn(2, 3, generator=g), torch.randn(2, 3, generator=g)), {}), 1e-5),
    ("kv_write", KvWrite, 92,
     lambda g: ((torch.zeros(1, 2, 6, 4), torch.zeros(1, 2, 6, 4), torch.tensor([2]),
                 torch.randn(1, 2, 1, 4, generator=g), torch.randn(1, 2, 1, 4, generator=g)), {}),
     1e-5),
    ("slice_write", SliceWrite, 93, lambda g: ((torch.randn(3, 5, generator=g),), {}), 1e-5),
    ("two_written", TwoWritten, 94,
     lambda g: ((torch.randn(4, generator=g), torch.randn(4, generator=g),
                 torch.randn(4, generator=g)), {}), 1e-5),
]


def write_runs(entry, args, root):
    """RUNS calls of the saved program (loaded afresh) on one set of inputs; the inputs it
    writes are those whose values the first call changed (the core IR also names them in
    USER_INPUT_MUTATION outputs; the training IR keeps the in-place ops)."""
    module = torch.export.load(os.path.join(root, entry["dir"], "program.pt2")).module()
    first = list(export_util.clone_tree(args))
    args = list(export_util.clone_tree(args))
    runs, positions = [], None
    for k in range(RUNS):
        out_dir = os.path.join(root, entry["dir"], "runs", str(k))
        os.makedirs(out_dir)
        with torch.no_grad():
            outs = torch.utils._pytree.tree_leaves(module(*args))
        if positions is None:
            positions = [i for i, (a, b) in enumerate(zip(first, args)) if not torch.equal(a, b)]
            assert positions, f"{entry['dir']}: the program writes none of its inputs"
        runs.append({
            "outputs": [export_util.save_npy(os.path.join(out_dir, f"output_{j}.npy"), t)
                        for j, t in enumerate(outs)],
            "written": {str(i): export_util.save_npy(os.path.join(out_dir, f"written_{i}.npy"),
                                                     args[i]) for i in positions}})
    entry["written_inputs"] = positions
    entry["runs"] = runs


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    fixtures = export_util.build_suite(ROOT, MODELS)
    by_name = {m[0]: m for m in MODELS}
    for entry in fixtures:
        spec = by_name[entry["model"]]
        args, _ = spec[3](torch.Generator().manual_seed(1000 + spec[2]))
        write_runs(entry, args, ROOT)
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})


if __name__ == "__main__":
    sys.exit(main())
