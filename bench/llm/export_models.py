#!/usr/bin/env python3
"""The models of bench/llm/run.py, random weights (seed 0), each written three ways:

    ~/.venvs/torch/bin/python bench/llm/export_models.py [--models gpt2_small llama_1b]

  bench/models/llm/<name>/llm.tir, llm.bin   tools/export_llm.py (transformers' export for
                                              native runtimes, training IR), `tirc import`;
                                              llm.int8.bin: `tirc weights pack --dtype int8`
                                              (llm.int4.bin and Q4 GGUFs: bench/llm/run.py)
  bench/models/llm/<name>/llm.bf16.tir, .bin  the same model exported in bfloat16 (weights,
                                              KV cache and logits bf16), as a BF16 GGUF
  bench/models/llm/<name>/hf/                 save_pretrained(), for torch eager generate()
  bench/models/llm/<name>/<name>-{F32,BF16,Q8_0}.gguf   the same weights for llama.cpp
                                              (Llama-shaped models only), written with the
                                              `gguf` package: llama.cpp's tensor names and
                                              its q/k row order for rotary embeddings

GGUF files carry a placeholder vocabulary (the benchmark feeds token ids, never text).
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from export_llm import export_programs  # noqa: E402

OUT = os.path.join(ROOT, "bench", "models", "llm")
MAX_CONTEXT = 256
MODELS = {
    "gpt2_small": dict(model_type="gpt2", vocab_size=50257, n_embd=768, n_layer=12, n_head=12,
                       n_positions=1024),
    "gpt2_medium": dict(model_type="gpt2", vocab_size=50257, n_embd=1024, n_layer=24,
                        n_head=16, n_positions=1024),
    # A small Llama (~100 M parameters: 12 layers of 768, grouped-query attention, tied
    # embeddings): int4 vs llama.cpp Q4_0 / Q4_K_M in minutes on a loaded 2-core machine.
    "llama_small": dict(model_type="llama", vocab_size=32000, hidden_size=768,
                        intermediate_size=2048, num_hidden_layers=12, num_attention_heads=12,
                        num_key_value_heads=4, max_position_embeddings=MAX_CONTEXT,
                        rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=True),
    # Llama 3.2 1B's shape: 1.24 B parameters, tied embeddings.
    "llama_1b": dict(model_type="llama", vocab_size=128256, hidden_size=2048,
                     intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                     num_key_value_heads=8, max_position_embeddings=MAX_CONTEXT,
                     rope_theta=500000.0, rms_norm_eps=1e-5, tie_word_embeddings=True),
}


def build(config):
    import transformers

    config = dict(config)
    kind = config.pop("model_type")
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(
        transformers.AutoConfig.for_model(kind, **config), dtype=torch.float32)
    return model.eval()


def export_tir(name, model, out, stem="llm"):
    programs = export_programs(model, MAX_CONTEXT, "training")
    paths = {}
    for method, ep in programs.items():
        paths[method] = os.path.join(out, method + ".pt2")
        torch.export.save(ep, paths[method])
    tirc = os.path.join(ROOT, "build", "tools", "tirc")
    subprocess.run([tirc, "import", *[f"{m}={p}" for m, p in paths.items()],
                    "-o", os.path.join(out, stem + ".tir"), "--weights",
                    os.path.join(out, stem + ".bin")], check=True)
    for p in paths.values():
        os.remove(p)
    if stem != "llm":
        return
    subprocess.run([tirc, "weights", "pack", os.path.join(out, "llm.bin"), "--dtype", "int8",
                    "--model", os.path.join(out, "llm.tir"), "-o", os.path.join(out, "llm.int8.bin")],
                   check=True)


def permute_rotary(w, heads):
    """HF's rotate-half row order of q/k projections -> llama.cpp's interleaved pairs."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_gguf(model, config, path, kind):
    import gguf

    c = model.config
    w = gguf.GGUFWriter(path, "llama")
    w.add_context_length(MAX_CONTEXT)
    w.add_embedding_length(c.hidden_size)
    w.add_block_count(c.num_hidden_layers)
    w.add_feed_forward_length(c.intermediate_size)
    w.add_head_count(c.num_attention_heads)
    w.add_head_count_kv(c.num_key_value_heads)
    w.add_rope_dimension_count(c.hidden_size // c.num_attention_heads)
    rope = getattr(c, "rope_parameters", None) or {}
    w.add_rope_freq_base(rope.get("rope_theta", getattr(c, "rope_theta", 10000.0)))
    w.add_layer_norm_rms_eps(c.rms_norm_eps)
    w.add_vocab_size(c.vocab_size)
    w.add_file_type({"F32": 0, "BF16": 32, "Q8_0": 7}[kind])
    w.add_tokenizer_model("llama")
    w.add_token_list([f"<t{i}>".encode() for i in range(c.vocab_size)])
    w.add_token_scores([0.0] * c.vocab_size)
    w.add_token_types([1] * c.vocab_size)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    names = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
             "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
             "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
             "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}
    qtype = {"F32": gguf.GGMLQuantizationType.F32, "BF16": gguf.GGMLQuantizationType.BF16,
             "Q8_0": gguf.GGMLQuantizationType.Q8_0}[kind]

    def add(name, t, matrix):
        a = t.detach().float().numpy()
        if not matrix or kind == "F32":
            w.add_tensor(name, a.astype(np.float32))
            return
        q = gguf.quants.quantize(a, qtype)
        w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=qtype)

    sd = model.state_dict()
    add("token_embd.weight", sd["model.embed_tokens.weight"], True)
    add("output_norm.weight", sd["model.norm.weight"], False)
    for i in range(c.num_hidden_layers):
        for hf, gg in names.items():
            t = sd[f"model.layers.{i}.{hf}.weight"]
            if hf == "self_attn.q_proj":
                t = permute_rotary(t, c.num_attention_heads)
            elif hf == "self_attn.k_proj":
                t = permute_rotary(t, c.num_key_value_heads)
            add(f"blk.{i}.{gg}.weight", t, t.dim() == 2)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--gguf", nargs="+", default=["F32", "BF16", "Q8_0"])
    args = p.parse_args()
    for name in args.models:
        out = os.path.join(OUT, name)
        os.makedirs(out, exist_ok=True)
        model = build(MODELS[name])
        print(name, sum(p.numel() for p in model.parameters()) / 1e6, "M parameters",
              file=sys.stderr)
        model.save_pretrained(os.path.join(out, "hf"))
        if not os.path.exists(os.path.join(out, "llm.tir")):
            export_tir(name, build(MODELS[name]), out)
        if not os.path.exists(os.path.join(out, "llm.bf16.tir")):
            export_tir(name, build(MODELS[name]).to(torch.bfloat16), out, "llm.bf16")
        if MODELS[name]["model_type"] == "llama":
            for kind in args.gguf:
                path = os.path.join(out, f"{name}-{kind}.gguf")
                if not os.path.exists(path):
                    write_gguf(model, MODELS[name], path, kind)


if __name__ == "__main__":
    main()
