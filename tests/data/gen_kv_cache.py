#!/usr/bin/env python3
"""Fixture of an LLM decoding with a KV cache held in registered buffers
(tests/data/fixtures/kv_cache/).

    ~/.venvs/torch/bin/python tests/data/gen_kv_cache.py

TinyCachedLM keeps each layer's keys and values in buffers `k_cache`/`v_cache`
[1, heads, max_len, head_dim] and writes the current positions with `index_copy_`, then
attends over the whole cache with a mask of the positions written so far. Two programs are
exported from one model: `prefill` (the 8-token prompt, positions 0..7) and `decode` (one
token at position p), each to its own .pt2, and (core IR) both into one archive, core/both.pt2,
with package_pt2's several-models form. In the training IR the cache update stays an in-place `index_copy_`
on the buffer; after run_decompositions() it becomes `index_put` plus a BUFFER_MUTATION
output. Both dialects are written.

Torch eager produces the reference: the prompt's logits, then STEPS greedy decode steps,
each step's input token, position and logits. A runtime must carry the buffers from call to
call (and from the prefill method to the decode method) to reproduce them.
"""

import copy
import json
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.export.pt2_archive._package import package_pt2

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "kv_cache")
PROMPT, STEPS, MAX_LEN = 8, 5, 16


class Layer(nn.Module):
    def __init__(self, dim, heads, max_len):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc, self.proj = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)
        self.register_buffer("k_cache", torch.zeros(1, heads, max_len, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, heads, max_len, self.head_dim))

    def forward(self, x, pos, mask):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = [y.view(b, t, self.heads, self.head_dim).transpose(1, 2) for y in (q, k, v)]
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        a = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, c))
        return x + self.proj(F.gelu(self.fc(self.ln2(x))))


class TinyCachedLM(nn.Module):
    def __init__(self, vocab=64, dim=32, heads=2, layers=2, max_len=MAX_LEN):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, dim), nn.Embedding(max_len, dim)
        self.layers = nn.ModuleList([Layer(dim, heads, max_len) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)
        self.register_buffer("steps", torch.arange(max_len), persistent=False)

    def forward(self, ids, pos):
        x = self.emb(ids) + self.pos(pos)
        mask = self.steps[None, :] <= pos[:, None]  # [t, max_len]: written positions only
        for layer in self.layers:
            x = layer(x, pos, mask)
        return self.head(self.ln(x))


def save(path, t):
    np.save(path, t.detach().numpy())


def main():
    torch.manual_seed(0)
    model = TinyCachedLM().eval()
    prompt = torch.randint(0, 64, (1, PROMPT), generator=torch.Generator().manual_seed(1))
    prompt_pos = torch.arange(PROMPT)
    os.makedirs(OUT, exist_ok=True)
    with torch.no_grad():
        # Export copies, so the eager model below starts from the same empty caches.
        programs = {
            "prefill": torch.export.export(copy.deepcopy(model), (prompt, prompt_pos)),
            "decode": torch.export.export(copy.deepcopy(model),
                                          (prompt[:, :1], torch.tensor([PROMPT]))),
        }
        core = {}
        for name, ep in programs.items():
            core[name] = ep.run_decompositions()
            for dialect, prog in (("training", ep), ("core", core[name])):
                d = os.path.join(OUT, dialect)
                os.makedirs(d, exist_ok=True)
                torch.export.save(prog, os.path.join(d, name + ".pt2"))
        # Both programs in one archive (the several-models form of package_pt2).
        package_pt2(os.path.join(OUT, "core", "both.pt2"), exported_programs=core)
        assert all(float(b.abs().sum()) == 0 for n, b in model.named_buffers() if "cache" in n)
        # Eager reference: prompt, then greedy steps, the caches carried along.
        logits = model(prompt, prompt_pos)
        save(os.path.join(OUT, "prefill_ids.npy"), prompt)
        save(os.path.join(OUT, "prefill_pos.npy"), prompt_pos)
        save(os.path.join(OUT, "prefill_logits.npy"), logits)
        token = logits[:, -1:].argmax(-1)
        steps = []
        for i in range(STEPS):
            pos = torch.tensor([PROMPT + i])
            out = model(token, pos)
            save(os.path.join(OUT, f"decode_{i}_ids.npy"), token)
            save(os.path.join(OUT, f"decode_{i}_pos.npy"), pos)
            save(os.path.join(OUT, f"decode_{i}_logits.npy"), out)
            steps.append(int(token))
            token = out[:, -1:].argmax(-1)
    manifest = {"torch_version": torch.__version__, "prompt": PROMPT, "steps": STEPS,
                "max_len": MAX_LEN, "decode_tokens": steps, "rtol": 1e-4, "atol": 1e-4,
                "dialects": ["training", "core"]}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("wrote", OUT, "decode tokens", steps)


if __name__ == "__main__":
    main()
