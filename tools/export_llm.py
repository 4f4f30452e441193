#!/usr/bin/env python3
"""Exports a transformers decoder-only LLM for tir the way transformers exports it for native
runtimes (transformers.integrations.executorch.TorchExportableModuleForDecoderOnlyLM): a static
KV cache held in buffers, inputs `input_ids` [1, seq] and `cache_position` [seq], output the
logits [1, seq, vocab].

    python tools/export_llm.py --from-pretrained PATH --out DIR [--max-context 256]
    python tools/export_llm.py --model-config config.json --out DIR [--seed 0]
    python tools/export_llm.py --from-pretrained PATH --out DIR --dtype bfloat16

writes DIR/prefill.pt2 (seq dynamic in [1, max-context - 1]) and DIR/decode.pt2 (seq 1),
then import both into one model; its methods share the weights and the cache:

    tirc import prefill=DIR/prefill.pt2 decode=DIR/decode.pt2 -o llm.tir --weights llm.bin

--model-config builds the model from a config.json (its `model_type` names the architecture)
with random weights (--seed), for tests and benchmarks. --dtype bfloat16 (or float16) exports a
half-precision program: weights, cache and logits in that dtype, half the bytes of float32. --dialect core also applies
run_decompositions() (core ATen); the default keeps the training IR. Needs torch and
transformers (tests/data/requirements.txt).
"""

import argparse
import json
import os
import sys

import torch


def load_model(args):
    import transformers

    if args.from_pretrained:
        model = transformers.AutoModelForCausalLM.from_pretrained(args.from_pretrained,
                                                                  dtype=torch.float32)
    else:
        with open(args.model_config) as f:
            config = json.load(f)
        kind = config.pop("model_type")
        torch.manual_seed(args.seed)
        model = transformers.AutoModelForCausalLM.from_config(
            transformers.AutoConfig.for_model(kind, **config))
    return model.to(getattr(torch, args.dtype)).eval()


def exportable(model, max_context):
    from transformers import GenerationConfig
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    model.generation_config = GenerationConfig(
        use_cache=True, cache_implementation="static", max_length=max_context,
        cache_config={"batch_size": 1, "max_cache_len": max_context})
    return TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=max_context)


def export_programs(model, max_context, dialect):
    """{"prefill": ExportedProgram, "decode": ExportedProgram} of `model`."""
    programs = {}
    seq = torch.export.Dim("seq", min=1, max=max_context - 1)
    for name, length in (("prefill", 2), ("decode", 1)):
        wrapper = exportable(model, max_context)  # a fresh cache per program
        ids = torch.zeros(1, length, dtype=torch.long)
        pos = torch.arange(length, dtype=torch.long)
        dynamic = {"input_ids": {1: seq}, "cache_position": {0: seq}} if name == "prefill" else None
        ep = wrapper.export(input_ids=ids, cache_position=pos, dynamic_shapes=dynamic)
        programs[name] = ep.run_decompositions() if dialect == "core" else ep
    return programs


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-pretrained", metavar="PATH", help="a local transformers model folder")
    src.add_argument("--model-config", metavar="JSON", help="config.json; random weights")
    p.add_argument("--out", required=True, help="folder for prefill.pt2 and decode.pt2")
    p.add_argument("--max-context", type=int, default=256, help="KV cache length (tokens)")
    p.add_argument("--dialect", choices=["training", "core"], default="training")
    p.add_argument("--seed", type=int, default=0, help="--model-config: weight seed")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32",
                   help="the program's dtype (weights, KV cache, logits)")
    args = p.parse_args(argv)
    if args.max_context < 2:
        p.error("--max-context must be at least 2")
    model = load_model(args)
    os.makedirs(args.out, exist_ok=True)
    for name, ep in export_programs(model, args.max_context, args.dialect).items():
        path = os.path.join(args.out, name + ".pt2")
        tmp = os.path.join(args.out, f".{name}.partial.pt2")
        torch.export.save(ep, tmp)
        os.replace(tmp, path)  # never a half-written program
        print(f"wrote {path}", file=sys.stderr)
    print(f"tirc import prefill={args.out}/prefill.pt2 decode={args.out}/decode.pt2 "
          f"-o llm.tir --weights llm.bin", file=sys.stderr)


if __name__ == "__main__":
    main()
