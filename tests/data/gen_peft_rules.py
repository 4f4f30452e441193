#!/usr/bin/env python3
"""PEFT's own decisions on which module an adapter config adapts, with which rank and scale
(tests/runtime/peft_config_test.cc compares runtime/weights/peft_config.h with them).

    ~/.venvs/torch/bin/pip install peft      (0.21; as for gen_lora.py)
    ~/.venvs/torch/bin/python tests/data/gen_peft_rules.py

Writes tests/data/fixtures/lora/peft_rules.json: {"peft": version, "configs": [adapter_config
fields], "cases": [{"config": index, "key": module name, "adapted": bool, "rank", "scale"}]}
for module names of Llama- and GPT-2-shaped models against configs that use target_modules
(list and regular expression), exclude_modules, modules_to_save, layers_to_transform /
layers_pattern, rank_pattern / alpha_pattern and use_rslora. The answers are PEFT's
check_target_module_exists and get_pattern_key (what LoraModel._create_and_replace uses).
"""

import json
import os

import peft
from peft.tuners.tuners_utils import check_target_module_exists
from peft.utils.other import get_pattern_key

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "lora",
                   "peft_rules.json")
FIELDS = ("peft_type", "r", "lora_alpha", "target_modules", "exclude_modules", "modules_to_save",
          "layers_to_transform", "layers_pattern", "rank_pattern", "alpha_pattern", "use_rslora")

KEYS = [f"model.model.layers.{i}.{m}" for i in range(3)
        for m in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "mlp.up_proj",
                  "mlp.down_proj")]
KEYS += [f"model.transformer.h.{i}.{m}" for i in range(3)
         for m in ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")]
KEYS += ["model.lm_head", "lm_head", "q_proj", "model.transformer.ln_f",
         "model.model.layers.12.experts.3.w1", "model.layers.1.blocks.2.q_proj"]

CONFIGS = [
    dict(target_modules=["q_proj", "v_proj"]),
    dict(target_modules=["c_proj"], layers_to_transform=[1]),
    dict(target_modules=["c_proj"], layers_to_transform=0),
    dict(target_modules=["q_proj", "w1"], layers_to_transform=[12, 0], layers_pattern="layers"),
    dict(target_modules=["q_proj", "w1"], layers_to_transform=[3, 2],
         layers_pattern=["h", "experts", "blocks"]),
    dict(target_modules=["q_proj", "lm_head"], layers_to_transform=[1], layers_pattern="layers"),
    dict(target_modules=r".*\.(?P<which>q|v)_proj"),
    dict(target_modules=r"model\.model\.layers\.[01]\..*_proj"),
    dict(target_modules=["attn.c_proj", "mlp"], exclude_modules=["h.1.attn.c_proj"]),
    dict(target_modules=["c_attn", "c_fc"], exclude_modules=r".*\.h\.[02]\..*"),
    dict(target_modules=["q_proj", "lm_head"], modules_to_save=["lm_head"]),
    dict(target_modules=["c_fc", "c_proj"], modules_to_save=["mlp.c_fc"]),
    dict(target_modules=r".*proj", rank_pattern={"q_proj": 2, r"layers\.1\..*": 5},
         alpha_pattern={"k_proj": 3, "down_proj": 7}),
    dict(target_modules=["c_attn", "c_proj"], lora_alpha=12, use_rslora=True,
         rank_pattern={r"h\.1\.attn\.c_proj": 3, "c_proj": 6}),
]


def main():
    configs, cases = [], []
    for index, spec in enumerate(CONFIGS):
        config = peft.LoraConfig(**{"r": 4, "lora_alpha": 8, **spec})
        saved = {k: v for k, v in config.to_dict().items() if k in FIELDS}
        saved["peft_type"] = "LORA"
        saved["target_modules"] = spec["target_modules"]  # LoraConfig keeps a list as a set
        if isinstance(saved.get("exclude_modules"), set):
            saved["exclude_modules"] = spec["exclude_modules"]
        configs.append(saved)
        for key in KEYS:
            found = check_target_module_exists(config, key)
            adapted = bool(found) and type(found).__name__ != "_ExcludedModule"
            rank = config.rank_pattern.get(get_pattern_key(config.rank_pattern.keys(), key), config.r)
            alpha = config.alpha_pattern.get(get_pattern_key(config.alpha_pattern.keys(), key),
                                             config.lora_alpha)
            scale = alpha / (rank ** 0.5 if config.use_rslora else rank)
            cases.append({"config": index, "key": key, "adapted": adapted,
                          "rank": rank if adapted else 0, "scale": scale if adapted else 0})
    with open(OUT, "w") as f:
        json.dump({"peft": peft.__version__, "configs": configs, "cases": cases}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
