#!/usr/bin/env python3
"""Fixtures of decoder-only LLMs exported as transformers exports them for native runtimes
(tools/export_llm.py: TorchExportableModuleForDecoderOnlyLM, a static KV cache in non-persistent
buffers the program mutates), with the tokens transformers' own generate() picks.

    ~/.venvs/torch/bin/python tests/data/gen_llm.py

Per family (GPT-2, Llama, Qwen3, Gemma, Phi-3; tiny configs, random weights, seed 0) in
tests/data/fixtures/llm/<family>/:
  core/prefill.pt2, core/decode.pt2  run_decompositions(): index_put + BUFFER_MUTATION outputs
  training/prefill.pt2               training IR: copy_ / index_copy_ / add_ into the buffers
prefill takes a dynamic sequence length (1 .. MAX_CONTEXT - 1), so the training program also
decodes. manifest.json holds each family's prompt, the NEW_TOKENS greedy tokens of
model.generate() (static cache, eager) and the prompt's last-position logits; the generator
checks that the exported programs, run as a prefill/decode loop, pick the same tokens.
"""

import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
from export_llm import export_programs  # noqa: E402
from export_util import restore_deflated, trim_node_metadata  # noqa: E402

OUT = os.path.join(HERE, "fixtures", "llm")
MAX_CONTEXT, NEW_TOKENS = 48, 32
PROMPT = [3, 17, 42, 5, 99, 23, 8, 61]
SMALL = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
             initializer_range=0.5)
FAMILIES = {
    "gpt2": dict(model_type="gpt2", vocab_size=128, n_embd=32, n_layer=2, n_head=4,
                 n_positions=64, initializer_range=0.5),
    "llama": dict(SMALL, model_type="llama"),
    "qwen3": dict(SMALL, model_type="qwen3", head_dim=8),
    "gemma": dict(SMALL, model_type="gemma", head_dim=8),
    "phi3": dict(SMALL, model_type="phi3", pad_token_id=0),
}


def build_model(config):
    import transformers

    config = dict(config)
    kind = config.pop("model_type")
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(
        transformers.AutoConfig.for_model(kind, **config))
    return model.eval()


def generate_tokens(model):
    """transformers' greedy generate() with the static cache: the reference tokens."""
    ids = torch.tensor([PROMPT])
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=NEW_TOKENS,
                         min_new_tokens=NEW_TOKENS, do_sample=False,
                         cache_implementation="static", pad_token_id=0)
    return out[0, len(PROMPT):].tolist()


def program_tokens(prefill, decode):
    """The exported programs run as a prefill/decode loop, greedy; and the prompt's logits."""
    run_prefill = prefill.module()
    run_decode = run_prefill if decode is prefill else decode.module()
    with torch.no_grad():
        logits = run_prefill(input_ids=torch.tensor([PROMPT]),
                             cache_position=torch.arange(len(PROMPT)))
        first = logits[0, -1].clone()
        if run_decode is not run_prefill:  # two modules: the decode one takes over the cache
            for name, buffer in run_prefill.named_buffers():
                run_decode.get_buffer(name).copy_(buffer)
        tokens = [int(logits[0, -1].argmax())]
        for step in range(NEW_TOKENS - 1):
            logits = run_decode(input_ids=torch.tensor([[tokens[-1]]]),
                                cache_position=torch.tensor([len(PROMPT) + step]))
            tokens.append(int(logits[0, -1].argmax()))
    return tokens, first


def save(ep, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    trim_node_metadata(ep)
    torch.export.save(ep, path)
    restore_deflated(path)


def main():
    manifest = {"torch_version": torch.__version__, "max_context": MAX_CONTEXT,
                "prompt": PROMPT, "families": []}
    for family, config in FAMILIES.items():
        model = build_model(config)
        want = generate_tokens(model)
        entry = {"family": family, "config": config, "tokens": want}
        for dialect in ("core", "training"):
            programs = export_programs(build_model(config), MAX_CONTEXT, dialect)
            names = ["prefill", "decode"] if dialect == "core" else ["prefill"]
            paths = [os.path.join(OUT, family, dialect, name + ".pt2") for name in names]
            for name, path in zip(names, paths):  # before any run mutates the cache buffers
                save(programs[name], path)
            # What was saved, run as a prefill/decode loop (the training program decodes too:
            # seq 1 is in its range).
            loaded = [torch.export.load(path) for path in paths]
            got, logits = program_tokens(loaded[0], loaded[-1])
            if got != want:
                sys.exit(f"{family} {dialect}: the exported programs pick {got}, generate() {want}")
            entry["last_logits"] = [round(float(x), 6) for x in logits]
        manifest["families"].append(entry)
        print(family, "tokens", want, file=sys.stderr)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
