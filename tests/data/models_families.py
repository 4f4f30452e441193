"""Tiny configurations of real model families (HF transformers, torchvision); see gen.py.

Random weights (the library's own initialisation, under the seed gen.py sets), eval mode.
Parameters and buffers that the library initialises to one constant (norm scales = 1, biases
and norm shifts = 0, batch-norm statistics, torchvision ViT's zero class token and head) get
random values, so a kernel that drops or swaps them cannot pass by accident. HF configs use
initializer_range = 0.2 (not 0.02) so attention is far from uniform and logits are O(1).

Each MODELS row is (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol).
SAVED_CHECKS maps a model name to a check run on each saved program.pt2.

Sizes: torchvision's resnet18 is 11.2M parameters (45 MB per dialect), far too big to commit;
it is exported by bench/export_large.py instead (resnet_small covers the same ATen ops).
mobilenet_v3_small uses the real torchvision builder with width_mult=0.5 (0.41M parameters,
2.3 MB per dialect; the full-width one is 6.8 MB per dialect): same blocks and op graph.
"""

import itertools

import torch
import torchvision
import transformers
from torch import nn
from torchvision.models.vision_transformer import VisionTransformer
from transformers import (BertConfig, BertModel, GPT2Config, GPT2LMHeadModel, LlamaConfig,
                          LlamaForCausalLM)

VOCAB = 64
HF_COMMON = dict(initializer_range=0.2, attn_implementation="sdpa",
                 bos_token_id=0, eos_token_id=0, pad_token_id=0)


def randomize_constant_tensors(module):
    """Random values for every float parameter/buffer initialised to a single constant."""
    with torch.no_grad():
        for _, t in itertools.chain(module.named_parameters(), module.named_buffers()):
            if not t.is_floating_point() or t.numel() < 2:
                continue
            flat = t.reshape(-1)
            if not bool((flat == flat[0]).all()):
                continue
            if flat[0].item() == 1.0:
                t.uniform_(0.5, 1.5)  # norm scales, running variances
            else:
                t.uniform_(-0.2, 0.2)  # biases, norm shifts, running means, zero-init heads
    return module


def check_sdpa(model):
    impl = model.config._attn_implementation
    assert impl == "sdpa", impl
    return model


class Logits(nn.Module):
    """Causal LM returning only the logits (no cache objects in the exported program)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids, use_cache=False).logits


class BertOutputs(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         token_type_ids=token_type_ids)
        return out.last_hidden_state, out.pooler_output


def gpt2():
    cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=VOCAB, n_positions=32,
                     **HF_COMMON)
    model = check_sdpa(GPT2LMHeadModel(cfg))  # lm_head tied to transformer.wte (default)
    assert model.lm_head.weight is model.transformer.wte.weight
    return Logits(randomize_constant_tensors(model))


def llama():
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=VOCAB,
                      max_position_embeddings=64, **HF_COMMON)
    return Logits(randomize_constant_tensors(check_sdpa(LlamaForCausalLM(cfg))))


def bert():
    cfg = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, vocab_size=VOCAB, **HF_COMMON)
    return BertOutputs(randomize_constant_tensors(check_sdpa(BertModel(cfg))))


def vit():
    return randomize_constant_tensors(VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
        num_classes=10))


def mobilenet_v3_small(width_mult=0.5, blocks=None):
    """blocks: keep only the first `blocks` of the 11 inverted-residual blocks (torchvision's
    own MobileNetV3 class and small config). gen_legacy.py uses width 0.25 (the residuals and
    ops of 0.5) and 5 blocks, which hold every block kind (SE or not, ReLU or Hardswish, 3x3 or
    5x5, with and without expansion and residual): the same ops at a quarter of the size."""
    if blocks is None:
        model = torchvision.models.mobilenet_v3_small(num_classes=10, width_mult=width_mult)
    else:
        from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf

        setting, last_channel = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=width_mult)
        model = MobileNetV3(setting[:blocks], last_channel, num_classes=10)
    return randomize_constant_tensors(model)


def token_ids(g, *shape):
    return torch.randint(0, VOCAB, shape, generator=g)


def bert_inputs(g):
    attention_mask = torch.ones(2, 8, dtype=torch.int64)
    attention_mask[1, 5:] = 0  # second sequence padded
    token_type_ids = torch.zeros(2, 8, dtype=torch.int64)
    token_type_ids[:, 4:] = 1
    return (token_ids(g, 2, 8), attention_mask, token_type_ids), {}


# (name, module factory, seed, inputs(generator) -> (args, kwargs), rtol = atol)
MODELS = [
    ("gpt2", gpt2, 11, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("llama", llama, 12, lambda g: ((token_ids(g, 1, 8),), {}), 1e-4),
    ("bert", bert, 13, bert_inputs, 1e-4),
    ("vit", vit, 14, lambda g: ((torch.randn(1, 3, 32, 32, generator=g),), {}), 1e-4),
    ("mobilenet_v3_small", mobilenet_v3_small, 15,
     lambda g: ((torch.randn(1, 3, 64, 64, generator=g),), {}), 1e-4),
]


def check_tied_embedding(weights_config):
    """gpt2: lm_head.weight and transformer.wte.weight are one blob in the archive."""
    cfg = weights_config["config"]
    a, b = "model.lm_head.weight", "model.transformer.wte.weight"
    assert cfg[a]["path_name"] == cfg[b]["path_name"], (cfg[a]["path_name"], cfg[b]["path_name"])


SAVED_CHECKS = {"gpt2": check_tied_embedding}

VERSIONS = {"transformers_version": transformers.__version__,
            "torchvision_version": torchvision.__version__}
