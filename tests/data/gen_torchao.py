#!/usr/bin/env python3
"""Fixtures of programs quantized by torchao's quantize_ (tests/data/fixtures/torchao/).

    ~/.venvs/torch/bin/python tests/data/gen_torchao.py      (needs torchao, requirements.txt)

Each model gets quantize_(model, config), unwrap_tensor_subclass (the int8 data, scale and
zero point of each weight become plain parameters), and is exported in both dialects
(export_util.build). The training IR keeps torchao's ops (torchao::choose_qparams_affine,
quantize_affine, dequantize_affine) beside aten::_int_mm; run_decompositions() writes them
as ATen ops, aten::_int_mm stays. The recorded outputs are those of the quantized model in
torch eager (its tensor subclasses): torch's own answer for the quantized program.

    mlp_dyn        Linear 32-64, ReLU, Linear 64-64, ReLU, Linear 64-16 on [2, 5, 32] with
                   Int8DynamicActivationInt8WeightConfig (per-row symmetric int8 activations,
                   per-row int8 weights, int8 x int8 -> int32 _int_mm)
    mlp_dyn_u8     the same as torchao exports it on a CPU with AVX512-VNNI and no AMX: the
                   activation shifted to uint8 (+128), uint8 x int8 _int_mm, then the shift's
                   column sums subtracted (torchao.kernel.intmm._int_scaled_matmul_cpu); this CPU
                   is told it has VNNI while the model is quantized and exported
    mlp_wo         the MLP with Int8WeightOnlyConfig (per-row int8 weights, float32 mm on
                   the int8 weight cast to float32, then the row scales)
    mlp_wo_group   Int8WeightOnlyConfig(granularity=PerGroup(16)) (dequantize_affine of the
                   weight in groups of 16 along K, then a float32 mm)
    llama_dyn      a 2-layer Llama (hidden 32, 4 heads over 2 KV heads, RMSNorm, RoPE)
                   with Int8DynamicActivationInt8WeightConfig on every Linear, lm_head too
    llama_wo       the Llama with Int8WeightOnlyConfig

Beside torch eager's outputs (output_<k>.npy) each dialect records what torch computes running
that saved program (program_output_<k>.npy, entry "program_outputs"): the two differ where the
core IR's decomposed quantization rounds one activation the other way.

and manifest.json. Deterministic; rebuilds the folder.
"""

import contextlib
import os
import shutil

import torch
import torchao
import torchao.kernel.intmm as intmm
from torch import nn
from torchao.quantization import (Int8DynamicActivationInt8WeightConfig, Int8WeightOnlyConfig,
                                  quantize_)
from torchao.quantization.granularity import PerGroup
from torchao.utils import unwrap_tensor_subclass
from transformers import LlamaConfig, LlamaForCausalLM

import export_util

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "torchao")
# The reloaded program against the eager quantized model. The core IR runs torchao's ops as
# the ATen ops they decompose into, whose float32 steps differ from eager's (a division where
# eager multiplies by a reciprocal, ...): a value on a rounding boundary then lands one int8
# step away, and later layers carry that on (llama_dyn core: 2.1e-2 of max |output|, 7e-2
# absolute). 0.15 is tir's documented int8 bound (README, tests/runtime/int8_test.cc).
TOL = 0.15


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(32, 64), nn.Linear(64, 64), nn.Linear(64, 16)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


VOCAB = 64


class Logits(nn.Module):
    """Causal LM returning only the logits (no cache objects in the exported program)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids, use_cache=False).logits


def llama():
    """models_families.llama's configuration (not imported: that module needs torchvision),
    its RMSNorm scales random rather than all 1."""
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=VOCAB,
                      max_position_embeddings=64, initializer_range=0.2, attn_implementation="sdpa",
                      bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(cfg)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.uniform_(0.5, 1.5)
    return Logits(model)


@contextlib.contextmanager
def vnni_cpu(enabled):
    """torchao picks its CPU _int_mm form from the CPU it runs on (u8 x s8 with AVX512-VNNI and
    no AMX, else s8 x s8): `enabled` makes it take the VNNI form here."""
    saved = intmm._cpu_is_vnni_supported, intmm._cpu_is_amx_tile_supported
    if enabled:
        intmm._cpu_is_vnni_supported = lambda: True
        intmm._cpu_is_amx_tile_supported = lambda: False
    try:
        yield
    finally:
        intmm._cpu_is_vnni_supported, intmm._cpu_is_amx_tile_supported = saved


class VnniForm(nn.Module):
    """Runs (and so exports) the wrapped model under vnni_cpu(True)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        with vnni_cpu(True):
            return self.model(*args)


def quantized(make, config, vnni=False):
    """make_module for export_util.build: make() with quantize_(config), unwrapped."""

    def build():
        model = make().eval()
        quantize_(model, config())
        model = unwrap_tensor_subclass(model)
        return VnniForm(model) if vnni else model

    return build


def mlp_inputs(g):
    return (torch.randn(2, 5, 32, generator=g),), {}


def llama_inputs(g):
    return (torch.randint(0, VOCAB, (1, 8), generator=g),), {}


DYN = Int8DynamicActivationInt8WeightConfig
WO = Int8WeightOnlyConfig
MODELS = [
    ("mlp_dyn", quantized(MLP, DYN), mlp_inputs),
    ("mlp_dyn_u8", quantized(MLP, DYN, vnni=True), mlp_inputs),
    ("mlp_wo", quantized(MLP, WO), mlp_inputs),
    ("mlp_wo_group", quantized(MLP, lambda: WO(granularity=PerGroup(16))), mlp_inputs),
    ("llama_dyn", quantized(llama, DYN), llama_inputs),
    ("llama_wo", quantized(llama, WO), llama_inputs),
]


def program_outputs(seed, make_inputs):
    """on_saved for export_util.build: torch's outputs of the saved program itself."""

    def record(entry, ep, path, out_dir):
        args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
        with torch.no_grad():
            outs = torch.utils._pytree.tree_leaves(torch.export.load(path).module()(*args, **kwargs))
        entry["program_outputs"] = [
            export_util.save_npy(os.path.join(out_dir, f"program_output_{k}.npy"), t)
            for k, t in enumerate(outs)]

    return record


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    fixtures = []
    for seed, (name, make, inputs) in enumerate(MODELS):
        fixtures += export_util.build(name, make, seed, inputs, TOL, ROOT, trim_metadata=True,
                                      on_saved=program_outputs(seed, inputs))
        for dialect in ("training", "core"):
            export_util.restore_deflated(os.path.join(ROOT, name, dialect, "program.pt2"))
    export_util.write_quant_manifest(ROOT, fixtures)


if __name__ == "__main__":
    main()
