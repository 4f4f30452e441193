#!/usr/bin/env python3
"""LoRA fixtures: PEFT adapters over tiny random-weight GPT-2 and Llama, with the outputs of
PEFT's own models on them (tests/runtime/lora_test.cc, tests/python/test_lora.py).

    ~/.venvs/torch/bin/pip install peft      (0.21; not in requirements.txt: only this script)
    ~/.venvs/torch/bin/python tests/data/gen_lora.py

Per family in tests/data/fixtures/lora/<family>/:
  program.pt2              the base model (models_families: logits of input_ids), exported
                           (GPT-2: training IR, Conv1D weights [K, N]; Llama: core IR)
  input_0.npy              token ids
  base_output_0.npy        the base model's logits
  <adapter>/               PEFT save_pretrained(): adapter_config.json + adapter_model.safetensors
                           (the model card it also writes is removed)
  <adapter>_output_0.npy   logits of PEFT's merge_and_unload() model (the reference)
  <adapter>_unmerged_output_0.npy   logits of the PeftModel itself (checked equal to the merged)
and manifest.json (adapters, ranks, targets). Each family gets six adapters of different
ranks, alphas and targets (use_rslora, modules_to_save, layers_to_transform / layers_pattern,
exclude_modules, target_modules as a regular expression, rank_pattern / alpha_pattern, trained
biases); every LoRA matrix is drawn at random (PEFT starts B at zero, which would make an
adapter a no-op). tests/runtime/lora_peft_rules_test.cc derives the refused variants from them.
"""

import copy
import json
import os
import shutil

import peft
import torch

import export_util
import models_families

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "lora")
TOL = 1e-5
IDS = torch.tensor([[3, 17, 42, 5, 59, 23, 8, 61]])  # < models_families.VOCAB

ADAPTERS = {
    "gpt2": {
        "attn_r4": dict(r=4, lora_alpha=8, target_modules=["c_attn"], fan_in_fan_out=True),
        "all_r8_rslora": dict(r=8, lora_alpha=16, target_modules=["c_attn", "c_proj", "c_fc"],
                              use_rslora=True, fan_in_fan_out=True),
        "mlp_r2_save": dict(r=2, lora_alpha=4, target_modules=["c_fc"], fan_in_fan_out=True,
                            modules_to_save=["ln_f"]),
        "proj_r16": dict(r=16, lora_alpha=32, target_modules=["c_proj"], fan_in_fan_out=True),
        # PEFT's selection rules: a list matched by suffix, one layer (default index pattern),
        # an excluded suffix; the biases of the adapted layers trained and saved.
        "layer0_exclude": dict(r=4, lora_alpha=8, target_modules=["c_attn", "c_proj", "c_fc"],
                               layers_to_transform=[0], exclude_modules=["mlp.c_proj"],
                               fan_in_fan_out=True, bias="lora_only"),
        # A regular expression (full match), per-module ranks and alphas, rsLoRA.
        "regex_patterns": dict(r=4, lora_alpha=6,
                               target_modules=r".*\.h\.1\.(attn\.c_attn|mlp\.c_fc|mlp\.c_proj)",
                               rank_pattern={"c_fc": 2}, alpha_pattern={r"mlp\.c_proj": 3},
                               use_rslora=True, fan_in_fan_out=True),
    },
    "llama": {
        "qv_r4": dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
        "mlp_r8_rslora": dict(r=8, lora_alpha=16,
                              target_modules=["gate_proj", "up_proj", "down_proj"],
                              use_rslora=True),
        "ko_r2_save": dict(r=2, lora_alpha=2, target_modules=["k_proj", "o_proj"],
                           modules_to_save=["lm_head"]),
        "qkvo_r6": dict(r=6, lora_alpha=12, target_modules=["q_proj", "k_proj", "v_proj",
                                                            "o_proj"]),
        # One layer by a named pattern, rank and alpha per module.
        "layer1_patterns": dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "up_proj"],
                                layers_to_transform=1, layers_pattern="layers",
                                rank_pattern={"up_proj": 2}, alpha_pattern={"v_proj": 12}),
        # A regular expression with an excluded module (also a regular expression).
        "regex_exclude": dict(r=3, lora_alpha=5, target_modules=r".*\.(q_proj|k_proj|down_proj)",
                              exclude_modules=r".*layers\.0\.self_attn\.k_proj"),
    },
}
DIALECT = {"gpt2": "training", "llama": "core"}


def export_base(model, path, dialect):
    ep = torch.export.export(model, (IDS,))
    if dialect == "core":
        ep = ep.run_decompositions()
    for node in ep.graph.nodes:  # provenance holding id(graph) values: not reproducible
        node.meta.pop("from_node", None)
    export_util.trim_node_metadata(ep)
    torch.export.save(ep, path)
    with torch.no_grad():
        export_util.check_close(torch.export.load(path).module()(IDS), model(IDS), TOL, path)


def randomize_adapter(peft_model, seed):
    """Random LoRA matrices and a perturbed copy of each module to save."""
    torch.manual_seed(seed)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_A" in name or "lora_B" in name:
                p.copy_(torch.randn_like(p) * 0.3)
            elif "modules_to_save" in name:
                p.add_(torch.randn_like(p) * 0.2)
            elif p.requires_grad and name.endswith("bias"):  # bias="lora_only" or "all"
                p.add_(torch.randn_like(p) * 0.2)


def make_adapter(family, base, name, spec, seed, out_dir):
    config = peft.LoraConfig(**{"lora_dropout": 0.0, "bias": "none", **spec})
    model = peft.get_peft_model(copy.deepcopy(base), config)
    randomize_adapter(model, seed)
    model.eval()
    path = os.path.join(out_dir, name)
    model.save_pretrained(path)
    os.remove(os.path.join(path, "README.md"))  # PEFT's model card template
    with torch.no_grad():
        unmerged = model(IDS)
        merged_model = model.merge_and_unload()
        merged = merged_model(IDS)
    export_util.check_close(unmerged, merged, 1e-4, f"{family}/{name} merged vs unmerged")
    export_util.save_npy(os.path.join(out_dir, f"{name}_unmerged_output_0.npy"), unmerged)
    export_util.save_npy(os.path.join(out_dir, f"{name}_output_0.npy"), merged)
    with open(os.path.join(path, "adapter_config.json")) as f:
        saved = json.load(f)
    targets = saved["target_modules"]  # a list, or a regular expression
    targets = targets if isinstance(targets, str) else sorted(targets)
    return {"name": name, "dir": name, "output": f"{name}_output_0.npy", "r": saved["r"],
            "lora_alpha": saved["lora_alpha"], "target_modules": targets,
            "modules_to_save": saved.get("modules_to_save")}


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    manifest = {"torch": torch.__version__, "peft": peft.__version__, "tolerance": TOL,
                "families": []}
    for family, adapters in ADAPTERS.items():
        out_dir = os.path.join(ROOT, family)
        os.makedirs(out_dir)
        torch.manual_seed(0)
        base = getattr(models_families, family)().eval()
        export_base(base, os.path.join(out_dir, "program.pt2"), DIALECT[family])
        export_util.save_npy(os.path.join(out_dir, "input_0.npy"), IDS)
        with torch.no_grad():
            export_util.save_npy(os.path.join(out_dir, "base_output_0.npy"), base(IDS))
        entry = {"family": family, "dir": f"lora/{family}", "dialect": DIALECT[family],
                 "input": "input_0.npy", "base_output": "base_output_0.npy", "adapters": []}
        for seed, (name, spec) in enumerate(adapters.items(), start=1):
            entry["adapters"].append(make_adapter(family, base, name, spec, seed, out_dir))
        manifest["families"].append(entry)
    with open(os.path.join(ROOT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
