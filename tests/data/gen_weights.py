#!/usr/bin/env python3
"""Generate the weight-source fixtures in tests/data/fixtures/weights/ with real PyTorch.

    ~/.venvs/torch/bin/python tests/data/gen_weights.py      (needs safetensors, see
                                                             requirements.txt)

One small model (the GPT-2 config of models_families.py, tied lm_head) three times:
    A.pt2                 exported with random weights from seed 0
    B.pt2                 the same model with weights from seed 1
    C.pt2                 A with one layer (PARTIAL_PREFIX) replaced by B's
    B.safetensors         B's state_dict (safetensors.torch.save_file; the tied lm_head is
                          saved as its own copy, save_file refuses shared storage)
    partial.safetensors   only B's PARTIAL_PREFIX tensors: overlay(A, partial) == C
    A_bf16.safetensors    A's float tensors as torch rounds them to bfloat16 / float16:
    A_fp16.safetensors    the expected values of `tirc weights pack --dtype bf16|fp16`
    rounding.safetensors  float32 edge cases (ties, subnormals, overflow, inf, NaN, random)
                          and torch's bfloat16 / float16 conversions of them
    input_0.npy           token ids
    {A,B,C}_output_0.npy  eager outputs of each model on input_0
and manifest.json. Deterministic; rebuilds the folder.
"""

import copy
import json
import os
import shutil

import safetensors
import safetensors.torch
import torch

import export_util
import models_families

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "weights")
PARTIAL_PREFIX = "model.transformer.h.1."
TOL = 1e-4


def make(seed):
    torch.manual_seed(seed)
    return models_families.gpt2().eval()


def export(module, ids, name):
    ep = torch.export.export(module, (ids,))
    for node in ep.graph.nodes:  # provenance holding id(graph) values: not reproducible
        node.meta.pop("from_node", None)
    export_util.trim_node_metadata(ep)
    path = os.path.join(ROOT, name + ".pt2")
    torch.export.save(ep, path)
    with torch.no_grad():
        eager = module(ids)
        export_util.check_close(torch.export.load(path).module()(ids), eager, TOL, name)
    export_util.save_npy(os.path.join(ROOT, name + "_output_0.npy"), eager)
    return {"program": name + ".pt2", "output": name + "_output_0.npy"}


def state(module):
    """state_dict with every tensor its own contiguous copy (safetensors refuses shared storage)."""
    return {k: v.detach().clone().contiguous() for k, v in module.state_dict().items()}


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    a, b = make(0), make(1)
    ids = models_families.token_ids(torch.Generator().manual_seed(7), 1, 8)
    export_util.save_npy(os.path.join(ROOT, "input_0.npy"), ids)

    sd_b = state(b)
    partial = {k: v for k, v in sd_b.items() if k.startswith(PARTIAL_PREFIX)}
    assert partial, "no tensor under " + PARTIAL_PREFIX
    c = copy.deepcopy(a)
    missing, unexpected = c.load_state_dict(partial, strict=False)
    assert not unexpected and len(missing) == len(sd_b) - len(partial), (missing, unexpected)
    # B and C really differ from A where they should, and only there.
    sd_a, sd_c = state(a), state(c)
    for k in sd_a:
        assert torch.equal(sd_c[k], sd_b[k] if k in partial else sd_a[k]), k
        assert not torch.equal(sd_a[k], sd_b[k]), "seed 0 and 1 give the same " + k

    programs = {"A": export(a, ids, "A"), "B": export(b, ids, "B"), "C": export(c, ids, "C")}
    safetensors.torch.save_file(sd_b, os.path.join(ROOT, "B.safetensors"))
    # One metadata key: the writer's metadata map has no fixed order, the file must not vary.
    safetensors.torch.save_file(partial, os.path.join(ROOT, "partial.safetensors"),
                                metadata={"layer": PARTIAL_PREFIX})
    for dtype, name in ((torch.bfloat16, "A_bf16"), (torch.float16, "A_fp16")):
        narrow = {k: v.to(dtype) for k, v in sd_a.items() if v.dtype == torch.float32}
        safetensors.torch.save_file(narrow, os.path.join(ROOT, name + ".safetensors"))

    x = torch.tensor([0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0, -70000.0, 1e-8, 3e-8, 6e-8,
                      1e-5, 6.1e-5, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8,
                      1 + 3 * 2.0 ** -8, 3.4e38, float("inf"), float("-inf"), float("nan")])
    x = torch.cat([x, torch.randn(300, generator=torch.Generator().manual_seed(3)) * 1e3,
                   torch.randn(300, generator=torch.Generator().manual_seed(4)) * 1e-5])
    safetensors.torch.save_file({"f32": x, "bf16": x.to(torch.bfloat16), "fp16": x.to(torch.float16)},
                                os.path.join(ROOT, "rounding.safetensors"))

    manifest = {
        "model": "gpt2", "torch_version": torch.__version__,
        "safetensors_version": safetensors.__version__,
        "seeds": {"A": 0, "B": 1}, "input": "input_0.npy", "programs": programs,
        "full": "B.safetensors", "partial": "partial.safetensors",
        "partial_prefix": PARTIAL_PREFIX, "partial_tensors": sorted(partial),
        "tied": {"model.lm_head.weight": "model.transformer.wte.weight"},
        "narrow": {"bf16": "A_bf16.safetensors", "fp16": "A_fp16.safetensors"},
        "rounding": "rounding.safetensors",
        "rtol": TOL, "atol": TOL,
    }
    with open(os.path.join(ROOT, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"wrote {ROOT}: {export_util.dir_size(ROOT)} bytes")


if __name__ == "__main__":
    main()
