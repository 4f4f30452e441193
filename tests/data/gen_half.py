#!/usr/bin/env python3
"""float16 and bfloat16 programs (issue 25): every model family of models_families.py and the
architectures of models_aten.py (HALF_ATEN below), cast
with module.to(dtype) before export (weights, activations and outputs in that dtype; float
inputs too), in both dialects, into fixtures/half/<model>_<dtype>/<dialect>/ with its own
manifest.json (tests read it beside fixtures/manifest.json).

    ~/.venvs/torch/bin/python tests/data/gen_half.py [MODEL ...]   # all, or only these

Expected outputs are torch's eager CPU outputs in that dtype. bfloat16 .npy files hold the
2-byte void NumPy saves ml_dtypes' bfloat16 as ('<V2'; runtime/weights/npy.cc).

Tolerance (rtol = atol, per dtype, TOLERANCE below): tir computes each op in float32 and
rounds its result to the program's dtype, as torch's CPU kernels do, so most elements match
bit for bit; GEMM and attention sum in another order, and one rounding step of the dtype
(2^-8 relative for bfloat16, 2^-11 for float16) then propagates through the layers.
"""

import json
import os
import shutil
import sys

import torch

import export_util
import gen
import models_aten
import models_families

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
from gen_conformance import restore_deflated  # noqa: E402

ROOT = os.path.join(gen.ROOT, "half")
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}
TOLERANCE = {"float16": 1e-2, "bfloat16": 6e-2}
# models_aten.py's real architectures (its op-coverage modules stay float32).
HALF_ATEN = ("distilbert", "mistral", "t5", "hf_vit", "wav2vec2", "whisper_encoder", "convnext",
             "gptj", "codegen", "falcon_mqa", "swin", "hf_swin", "mixtral", "qwen3_moe", "bloom",
             "deberta_v2", "video_resnet", "lraspp", "fpn_backbone")


def half_spec(spec, dtype_name):
    name, make_module, seed, make_inputs, _ = spec
    dtype = DTYPES[dtype_name]

    def make():
        return make_module().to(dtype)

    def inputs(g):
        args, kwargs = make_inputs(g)
        cast = lambda t: t.to(dtype) if t.is_floating_point() else t  # noqa: E731
        return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}

    return f"{name}_{dtype_name}", make, seed, inputs, TOLERANCE[dtype_name]


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    only = set(sys.argv[1:])
    fixtures = []
    manifest = os.path.join(ROOT, "manifest.json")
    if only and os.path.exists(manifest):  # keep the others
        with open(manifest) as f:
            fixtures = [e for e in json.load(f)["fixtures"]
                        if e["model"].rsplit("_", 1)[0] not in only]
    elif os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT, exist_ok=True)
    specs = models_families.MODELS + [m for m in models_aten.MODELS if m[0] in HALF_ATEN]
    for spec in specs:
        if only and spec[0] not in only:
            continue
        for dtype_name in DTYPES:
            name, *rest = half_spec(spec, dtype_name)
            shutil.rmtree(os.path.join(ROOT, name), ignore_errors=True)
            try:
                entries = export_util.build(name, *rest, ROOT, trim_metadata=True)
            except Exception as e:  # noqa: BLE001 - report and go on with the next model
                print(f"{name}: {type(e).__name__}: {str(e)[:300]}")
                shutil.rmtree(os.path.join(ROOT, name), ignore_errors=True)
                continue
            for e in entries:
                e["dtype"] = dtype_name
            fixtures += entries
            path = os.path.join(ROOT, name)
            for dialect in os.listdir(path):
                restore_deflated(os.path.join(path, dialect, "program.pt2"))
            print(f"{name}: {export_util.dir_size(path) / 1e3:.0f} kB")
    fixtures.sort(key=lambda e: (e["model"], e["dialect"]))
    export_util.write_manifest(ROOT, {**gen.versions(), "fixtures": fixtures})


if __name__ == "__main__":
    sys.exit(main())
