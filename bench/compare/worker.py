#!/usr/bin/env python3
"""One engine in its own process, for bench/compare/run.py (not meant to be run by hand).

    worker.py {torch,torch-cuda,ort,ort-int8} MODEL_DIR --threads N --warmup W --reps R --out OUT_DIR

torch: `import torch` + torch.export.load(program.pt2).module() run eagerly under no_grad (no compile);
torch-cuda: the same moved to GPU 0 (torch.export.passes.move_to_device_pass), inputs uploaded
       once, each run's outputs copied back to the host (which waits for the GPU);
ort:   `import onnxruntime` + InferenceSession(model.onnx) on the CPU execution provider;
ort-int8: the same on model.int8.onnx (dynamically quantized by run.py).
Inputs are MODEL_DIR/input_<k>.npy (graph-signature order). Prints one JSON line on stdout:
{"first_output_unix": time.time() when the first output was ready, "times_ms": [R runs]},
and writes the first run's outputs to OUT_DIR/output_<k>.npy.
"""
import argparse
import json
import os
import sys
import time


def load_inputs(model_dir):
    import numpy as np
    inputs, k = [], 0
    while os.path.exists(os.path.join(model_dir, f"input_{k}.npy")):
        inputs.append(np.load(os.path.join(model_dir, f"input_{k}.npy")))
        k += 1
    return inputs


def torch_engine(model_dir, threads, device="cpu"):
    import torch
    torch.set_num_threads(threads)
    ep = torch.export.load(os.path.join(model_dir, "program.pt2"))
    if device != "cpu":
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, device)
    module = ep.module()
    inputs = [torch.from_numpy(x).to(device) for x in load_inputs(model_dir)]

    def run():
        with torch.no_grad():  # as gen.py; inference_mode ran 3-5x slower here
            out = module(*inputs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [o.cpu().numpy() for o in outs]
    return run


def ort_engine(model_dir, threads, model_file="model.onnx"):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(os.path.join(model_dir, model_file), so,
                                providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feed = dict(zip(names, load_inputs(model_dir)))  # the exporter keeps signature order
    return lambda: sess.run(None, feed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=["torch", "torch-cuda", "ort", "ort-int8"])
    ap.add_argument("model_dir")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.engine in ("torch", "torch-cuda"):
        run = torch_engine(a.model_dir, a.threads, "cuda" if a.engine == "torch-cuda" else "cpu")
    else:  # ort-int8: the model onnxruntime.quantization.quantize_dynamic wrote (run.py)
        run = ort_engine(a.model_dir, a.threads,
                         "model.int8.onnx" if a.engine == "ort-int8" else "model.onnx")
    outputs = run()
    first = time.time()
    import numpy as np
    os.makedirs(a.out, exist_ok=True)
    for k, o in enumerate(outputs):
        np.save(os.path.join(a.out, f"output_{k}.npy"), o)
    for _ in range(a.warmup):
        run()
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"first_output_unix": first, "times_ms": times}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
