#!/usr/bin/env python3
"""LLM generation side by side, one run, one machine, batch 1: tir (`tirrun generate`),
llama.cpp (llama-cpp-python, the same weights as GGUF) and torch eager `generate()`; plus the
machine's read bandwidth measured in the same run, so decode can be read as a fraction of it.

    ~/.venvs/torch/bin/python bench/llm/export_models.py          # once
    ~/.venvs/llama/bin/python bench/llm/run.py --threads 2 --rounds 3

Engines run in turns within each round (tir, llama.cpp, torch), each in its own process, so
machine noise falls on all of them. `--tir-isa avx2` adds tir with its own kernels capped at
AVX2 (TIR_MAX_CPU_ISA) as engine `tir-avx2`, to read what the AVX-512 variants give. Per (model, engine, precision): median time to first
token, prefill tokens/s (the prompt through the prefill), decode tokens/s (the new tokens
after the first), and decode GB/s = bytes of weights read per token x decode tokens/s. Greedy,
a fixed random prompt of --prompt tokens, --new tokens. Writes bench/results/llm.csv and .png.
torch runs in the torch virtualenv (--torch-python), llama.cpp in this one.

Precision int4: tir's `tirc weights pack --dtype int4` (groups of 32, symmetric: llama.cpp's
Q4_0 rule; embedding and lm_head int8), made here when missing, next to llama.cpp's Q4_0 and
Q4_K_M, quantized here from the F32 GGUF by llama.cpp itself (llama_model_quantize, its default
tensor types). Accuracy columns, each engine against its own float32 run on the same prompt:
greedy_agree_f32 = how many of the --new greedy tokens equal the f32 run's, position by
position; max_abs_logit_diff_f32 = max |logit - f32 logit| over the vocabulary at the prompt's
last position (the first generated token's logits).
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = os.path.join(ROOT, "bench", "models", "llm")
TIRRUN = os.path.join(ROOT, "build", "tools", "tirrun")
# tir --dtype -> the GGUF files of the same precision
PRECISIONS = {"f32": ["F32"], "bf16": ["BF16"], "int8": ["Q8_0"], "int4": ["Q4_0", "Q4_K_M"]}
# llama.cpp's llama_ftype numbers of the GGUFs quantized here from the F32 one
LLAMA_FTYPES = {"Q4_0": 2, "Q4_K_M": 15}
PYTHON_TIR = os.path.join(ROOT, "build", "python")


def read_bandwidth(threads, gib=2, repeats=5):
    """GB/s of a read-only pass over `gib` GiB by `threads` threads (NumPy's SIMD max, which
    releases the GIL; a sum is slower than memory here): the floor a bandwidth-bound decode
    step sits on."""
    a = np.ones(gib * (1 << 30) // 4, dtype=np.float32)
    parts = np.array_split(a, threads)
    best = 0.0
    for _ in range(repeats):
        ts = [threading.Thread(target=np.max, args=(p,)) for p in parts]
        t0 = time.perf_counter()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        best = max(best, a.nbytes / (time.perf_counter() - t0) / 1e9)
    return best


def weight_bytes_per_token(model_dir, precision):
    """Bytes of weights one decode step reads: every matrix but the embedding table (one row),
    plus the tied output projection (all of it) — from the HF config."""
    with open(os.path.join(model_dir, "hf", "config.json")) as f:
        c = json.load(f)
    total = 0
    from safetensors import safe_open
    with safe_open(os.path.join(model_dir, "hf", "model.safetensors"), "np") as f:
        for name in f.keys():
            n = int(np.prod(f.get_slice(name).get_shape()))
            total += n
    # Q8_0: 34 bytes per 32; int4: 16 bytes of codes + a float32 scale per 32 (tir) or
    # 18 bytes per 32 (Q4_0); the (int8) embedding and lm_head counted as the rest
    elem = {"f32": 4, "bf16": 2, "int8": 1.0625, "int4": 0.5625}[precision]
    return total * elem


def run_tir(model_dir, prompt, new, threads, precision, isa=None):
    # int8: the weight file packed int8 ahead (`tirc weights pack --dtype int8`), as a Q8_0
    # GGUF is quantized ahead; f32 from the float32 file.
    # bf16: the model exported in bfloat16 (export_models.py), weights stored bf16 as in a BF16
    # GGUF; its GEMMs read them as stored on any CPU.
    model, weights, flags = "llm.tir", "llm.bin", ["--dtype", precision]
    if precision == "int8":
        weights = "llm.int8.bin"
    elif precision == "int4":  # the GEMMs read the int4 storage whatever --dtype says
        weights, flags = "llm.int4.bin", ["--dtype", "f32"]
    elif precision == "bf16" and os.path.exists(os.path.join(model_dir, "llm.bf16.tir")):
        model, weights, flags = "llm.bf16.tir", "llm.bf16.bin", []
    cmd = [TIRRUN, "generate", os.path.join(model_dir, model), "-w",
           os.path.join(model_dir, weights), "--prompt-ids", ",".join(map(str, prompt)),
           "-n", str(new), "--ignore-eos", "-t", str(threads), *flags, "--json"]
    env = dict(os.environ, TIR_MAX_CPU_ISA=isa) if isa else None
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    j = json.loads(out.stdout)
    return {"ttft_ms": j["time_to_first_token_ms"], "prefill_tps": j["prefill_tokens_per_s"],
            "decode_tps": j["decode_tokens_per_s"], "tokens": j["tokens"],
            "compute": j["dtype"]}


def tir_weights(model_dir, precision):
    return os.path.join(model_dir, {"int8": "llm.int8.bin", "int4": "llm.int4.bin"}.get(
        precision, "llm.bin"))


def ensure_packed(model_dir, precision):
    """llm.int4.bin from llm.bin when missing (`tirc weights pack --dtype int4`)."""
    out = tir_weights(model_dir, precision)
    if precision == "int4" and not os.path.exists(out):
        subprocess.run([os.path.join(ROOT, "build", "tools", "tirc"), "weights", "pack",
                        os.path.join(model_dir, "llm.bin"), "--dtype", "int4", "--group-size",
                        "32", "--model", os.path.join(model_dir, "llm.tir"), "-o", out],
                       check=True)


def ensure_gguf(model_dir, name, kind):
    """<name>-<kind>.gguf, quantized from the F32 GGUF by llama.cpp when it is a kind
    llama_model_quantize makes here (Q4_0, Q4_K_M); the path, or None."""
    path = os.path.join(model_dir, f"{name}-{kind}.gguf")
    src = os.path.join(model_dir, f"{name}-F32.gguf")
    if os.path.exists(path) or kind not in LLAMA_FTYPES or not os.path.exists(src):
        return path if os.path.exists(path) else None
    import llama_cpp
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = LLAMA_FTYPES[kind]
    params.nthread = 2
    rc = llama_cpp.llama_model_quantize(src.encode(), path.encode(), params)
    if rc != 0:
        raise RuntimeError(f"llama_model_quantize {kind} failed ({rc})")
    return path


TIR_LOGITS = r"""
import json, sys, numpy as np, tir
model, weights, prompt, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
s = tir.Session(model, weights, method="prefill", threads=2)
ids = np.array([prompt], dtype=np.int64)
logits = s.run({"input_ids": ids, "cache_position": np.arange(len(prompt), dtype=np.int64)})[0]
np.save(out, np.asarray(logits, dtype=np.float32).reshape(-1, logits.shape[-1])[-1])
"""

LLAMA_LOGITS = r"""
import json, sys, numpy as np
from llama_cpp import Llama
path, prompt, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
llm = Llama(path, n_ctx=256, n_threads=2, n_batch=len(prompt), logits_all=True, verbose=False)
llm.eval(prompt)
np.save(out, np.array(llm.scores[len(prompt) - 1], dtype=np.float32))
"""


def last_logits(engine, model_dir, gguf, precision, prompt):
    """The logits at the prompt's last position, as float32, or None where not measured."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "logits.npy")
        if engine == "tir":
            env = dict(os.environ, PYTHONPATH=PYTHON_TIR)
            r = subprocess.run(["/usr/bin/python3", "-c", TIR_LOGITS,
                                os.path.join(model_dir, "llm.tir"),
                                tir_weights(model_dir, precision), json.dumps(prompt), out],
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:  # e.g. a build without the Python module
                print("tir logits not measured:", r.stderr.strip().splitlines()[-1:],
                      file=sys.stderr)
                return None
        elif engine == "llama.cpp":
            subprocess.run([sys.executable, "-c", LLAMA_LOGITS, gguf, json.dumps(prompt), out],
                           check=True, capture_output=True)
        else:
            return None
        return np.load(out)


LLAMA_CPP = r"""
import json, sys, time
from llama_cpp import Llama
path, prompt, new, threads = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
llm = Llama(path, n_ctx=256, n_threads=threads, n_threads_batch=threads, n_batch=len(prompt),
            verbose=False)
t0 = time.perf_counter()
tokens, times = [], []
for tok in llm.generate(prompt, top_k=1, temp=0.0, repeat_penalty=1.0, reset=True):
    tokens.append(tok)
    times.append(time.perf_counter())
    if len(tokens) == new:
        break
ttft = times[0] - t0
print(json.dumps({"ttft_ms": ttft * 1e3, "prefill_tps": len(prompt) / ttft,
                  "decode_tps": (new - 1) / (times[-1] - times[0]), "tokens": tokens}))
"""

TORCH = r"""
import json, sys, time, torch, transformers
path, prompt, new, threads = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
class Clock(transformers.generation.streamers.BaseStreamer):
    def __init__(self): self.times = []
    def put(self, value): self.times.append(time.perf_counter())
    def end(self): pass
clock = Clock()
ids = torch.tensor([prompt])
with torch.no_grad():
    t0 = time.perf_counter()
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                         min_new_tokens=new, do_sample=False, streamer=clock, pad_token_id=0)
times = clock.times[1:]  # the first put() is the prompt
ttft = times[0] - t0
print(json.dumps({"ttft_ms": ttft * 1e3, "prefill_tps": len(prompt) / ttft,
                  "decode_tps": (new - 1) / (times[-1] - times[0]),
                  "tokens": out[0, len(prompt):].tolist()}))
"""


def run_script(python, script, *args):
    out = subprocess.run([python, "-c", script, *map(str, args)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def engines(name, model_dir, args):
    """(engine, precision, format, callable, gguf) for what this model has; format names
    the stored weights (tir: its precision; llama.cpp: the GGUF type)."""
    out = []
    for p in args.precisions:
        ensure_packed(model_dir, p)
        out.append(("tir", p, p, lambda p=p: run_tir(model_dir, args.prompt_ids, args.new,
                                                     args.threads, p), None))
        for isa in args.tir_isa if p in ("int8", "int4") else []:
            # the same, tir's own kernels capped (kernels/cpu/cpu_isa.h; int8/int4 have variants)
            out.append((f"tir-{isa}", p, p, lambda p=p, isa=isa: run_tir(
                model_dir, args.prompt_ids, args.new, args.threads, p, isa), None))
        for kind in PRECISIONS[p] if not args.no_llama_cpp else []:
            gguf = ensure_gguf(model_dir, name, kind)
            if gguf:
                out.append(("llama.cpp", p, kind, lambda g=gguf: run_script(
                    sys.executable, LLAMA_CPP, g, json.dumps(args.prompt_ids), args.new,
                    args.threads), gguf))
    if not args.no_torch:
        out.append(("torch", "f32", "f32", lambda: run_script(
            args.torch_python, TORCH, os.path.join(model_dir, "hf"),
            json.dumps(args.prompt_ids), args.new, args.threads), None))
    return out


def accuracy(name, model_dir, runs, results, args):
    """Per (engine, format): greedy tokens agreeing with the engine's f32 run, and max |logit -
    f32 logit| at the prompt's last position (None where the engine has no f32 run)."""
    ref_tokens = {e: results[(e, f)][0]["tokens"] for e, p, f, _, _ in runs if p == "f32"}
    ref_logits, out = {}, {}
    for e, p, f, _, gguf in runs:
        if p == "f32" and e != "torch":
            ref_logits[e] = last_logits(e, model_dir, gguf, p, args.prompt_ids)
    for e, p, f, _, gguf in runs:
        agree = diff = None
        if e in ref_tokens:
            toks = results[(e, f)][0]["tokens"]
            agree = sum(a == b for a, b in zip(toks, ref_tokens[e]))
        if ref_logits.get(e) is not None:
            got = ref_logits[e] if p == "f32" else last_logits(e, model_dir, gguf, p,
                                                                 args.prompt_ids)
            diff = float(np.max(np.abs(got - ref_logits[e])))
        out[(e, f)] = (agree, diff)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=["gpt2_small", "llama_1b"])
    p.add_argument("--precisions", nargs="+", default=["f32", "int8"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--prompt", type=int, default=64)
    p.add_argument("--new", type=int, default=64)
    p.add_argument("--torch-python", default=os.path.expanduser("~/.venvs/torch/bin/python"))
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-llama-cpp", action="store_true")
    p.add_argument("--tir-isa", nargs="*", default=[],
                   help="also run tir with TIR_MAX_CPU_ISA set to each of these (e.g. avx2: "
                        "the AVX2 kernels next to the AVX-512 ones, same run)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "llm"))
    args = p.parse_args()
    rng = np.random.default_rng(0)
    prompt_ids = [int(x) for x in rng.integers(3, 50000, args.prompt)]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if "model name" in l), "?")
    bandwidth = [read_bandwidth(args.threads)]
    rows = []
    for name in args.models:
        model_dir = os.path.join(MODELS, name)
        with open(os.path.join(model_dir, "hf", "config.json")) as f:
            vocab = json.load(f)["vocab_size"]
        args.prompt_ids = [x % vocab for x in prompt_ids]  # the same ids where vocab >= 50000
        runs = engines(name, model_dir, args)
        results = {(e, f): [] for e, _, f, _, _ in runs}
        for r in range(args.rounds):
            for e, pr, f, fn, _ in runs:
                results[(e, f)].append(fn())
                print(name, e, f, r, {k: v for k, v in results[(e, f)][-1].items()
                                       if k != "tokens"}, file=sys.stderr, flush=True)
            bandwidth.append(read_bandwidth(args.threads))
        acc = accuracy(name, model_dir, runs, results, args)
        for e, pr, f, _, _ in runs:
            rs = results[(e, f)]
            tps = statistics.median(x["decode_tps"] for x in rs)
            gbs = tps * weight_bytes_per_token(model_dir, pr) / 1e9
            agree, diff = acc[(e, f)]
            rows.append({"model": name, "engine": e, "precision": pr, "format": f,
                         "greedy_agree_f32": "" if agree is None else f"{agree}/{args.new}",
                         "max_abs_logit_diff_f32": "" if diff is None else f"{diff:.4g}",
                         "threads": args.threads,
                         "prompt_tokens": args.prompt, "new_tokens": args.new,
                         "ttft_ms": statistics.median(x["ttft_ms"] for x in rs),
                         "prefill_tokens_per_s": statistics.median(x["prefill_tps"] for x in rs),
                         "decode_tokens_per_s": tps, "decode_GB_per_s": gbs,
                         "tokens_head": " ".join(map(str, rs[0]["tokens"][:8])), "cpu": cpu})
    bw = statistics.median(bandwidth)
    for row in rows:
        row["read_bandwidth_GB_per_s"] = bw
        row["decode_fraction_of_bandwidth"] = row["decode_GB_per_s"] / bw
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for row in rows:
        print(f"{row['model']:12} {row['engine']:9} {row['format']:6} ttft {row['ttft_ms']:8.1f} ms"
              f"  prefill {row['prefill_tokens_per_s']:8.1f} tok/s  decode {row['decode_tokens_per_s']:7.2f}"
              f" tok/s  {row['decode_GB_per_s']:5.1f} GB/s ({row['decode_fraction_of_bandwidth']:.0%} of {bw:.1f})"
              f"  agree {row['greedy_agree_f32'] or '-'}  max|dlogit| {row['max_abs_logit_diff_f32'] or '-'}")
    try:
        plot(rows, args.out + ".png")
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    labels = [f"{r['model']}\n{r['engine']} {r['format']}" for r in rows]
    for ax, key, title in ((axes[0], "prefill_tokens_per_s", "prefill tokens/s"),
                           (axes[1], "decode_tokens_per_s", "decode tokens/s")):
        ax.barh(labels, [r[key] for r in rows])
        ax.set_title(title)
    fig.suptitle(f"{rows[0]['cpu']}, {rows[0]['threads']} threads, batch 1")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


if __name__ == "__main__":
    main()
