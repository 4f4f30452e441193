"""Sweeps one model: build, eager, torch.export, tirc import, tirrun, compare, float64 oracle.

Run by run.py in its own process (a crash or hang of one model must not stop the sweep):
    one_model.py --lib timm --name resnet10t --work DIR --tirc T --tirrun R
Writes DIR/result.json (one object, see run.py for the fields) and keeps DIR/stage current so
that the driver can name the stage a killed worker was in.
"""

import argparse
import copy
import importlib
import json
import os
import subprocess
import sys
import time
import traceback

import numpy as np
import torch
import torch.utils._pytree as pytree

TOLERANCE = 1e-3  # max |tir - torch| relative to max |torch| of that output
SEED = 0


def error_line(exc):
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    return f"{type(exc).__name__}: {first}"[:300]


def tool_error(proc):
    lines = [line for line in (proc.stderr + proc.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    if errors:
        return errors[0][:300]
    if proc.returncode < 0:
        return f"killed by signal {-proc.returncode}"
    return (lines[-1] if lines else f"exit code {proc.returncode}")[:300]


def perturb(model):
    """Moves every float weight off its init so that zero-initialised branches (layer scale,
    last BatchNorm gamma, zero biases) and identity BatchNorm statistics still compute."""
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for param in model.parameters():
            if param.is_floating_point():
                param.add_(0.02 * torch.randn(param.shape, generator=gen, dtype=param.dtype))
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._NormBase):
                if module.running_mean is not None:
                    module.running_mean.copy_(0.1 * torch.randn(module.running_mean.shape,
                                                                generator=gen))
                    module.running_var.copy_(0.5 + torch.rand(module.running_var.shape,
                                                              generator=gen))


def tensors_of(tree):
    return [leaf for leaf in pytree.tree_leaves(tree) if isinstance(leaf, torch.Tensor)]


def outputs_of(tree):
    """A program's outputs as torch.export numbers them: every leaf, a Python int, float or
    bool as the 0-dim int64, float64 or bool tensor tir returns for it, None kept (not
    compared)."""
    def one(leaf):
        if isinstance(leaf, bool):
            return torch.tensor(leaf, dtype=torch.bool)
        if isinstance(leaf, int):
            return torch.tensor(leaf, dtype=torch.int64)
        if isinstance(leaf, float):
            return torch.tensor(leaf, dtype=torch.float64)
        return leaf
    return [one(leaf) for leaf in pytree.tree_leaves(tree)
            if leaf is None or isinstance(leaf, (torch.Tensor, bool, int, float))]


def relative_error(got, ref):
    """max |got - ref| / max |ref|, NaN and inf where both agree counted as equal."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    if same.all():
        return 0.0
    finite = np.isfinite(ref)
    scale = np.abs(ref[finite]).max() if finite.any() else 1.0
    diff = np.where(same, 0.0, np.abs(got - ref))
    if not np.isfinite(diff).all():
        return float("inf")
    return float(diff.max() / max(scale, 1e-6))


def compare(tir_outputs, reference):
    """Worst relative error over the outputs, and a message when shapes or counts differ."""
    if len(tir_outputs) != len(reference):
        return float("inf"), f"tir gave {len(tir_outputs)} outputs, torch {len(reference)}"
    worst, where = 0.0, ""
    for index, (got, ref) in enumerate(zip(tir_outputs, reference)):
        if ref is None:
            continue
        ref = ref.detach()
        if tuple(got.shape) != tuple(ref.shape):
            return float("inf"), f"output {index}: tir shape {got.shape}, torch {tuple(ref.shape)}"
        if ref.dtype == torch.bfloat16:
            ref = ref.float()
        if ref.is_complex():
            err = relative_error(np.abs(got - ref.numpy()), np.zeros(ref.shape))
        else:
            err = relative_error(got, ref.numpy())
        if err > worst:
            worst, where = err, f"output {index}"
    return worst, where


def to_float64(tree):
    return pytree.tree_map(
        lambda x: x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x, tree)


class Sweep:
    def __init__(self, options):
        self.options = options
        self.work = options.work
        self.result = {"lib": options.lib, "name": options.name, "status": "error",
                       "stage": "build", "error": ""}
        self.times = {}

    def stage(self, name):
        self.result["stage"] = name
        self.stage_started = time.time()
        with open(os.path.join(self.work, "stage"), "w") as f:
            f.write(name)

    def done_stage(self):
        self.times[self.result["stage"]] = round(time.time() - self.stage_started, 2)

    def run_tool(self, argv, timeout):
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, OMP_NUM_THREADS="1"))

    def fail(self, status, error):
        self.result["status"] = status
        self.result["error"] = error
        return self.result

    def run(self):
        opts = self.options
        zoo = importlib.import_module(f"zoo_{opts.lib}")
        torch.manual_seed(SEED)
        self.stage("build")
        try:
            model, args, kwargs = zoo.build(opts.name)
            model.eval()
            perturb(model)
        except Exception as exc:
            return self.fail("skip", "sweep cannot build it: " + error_line(exc))
        self.result["params"] = sum(p.numel() for p in model.parameters())
        self.done_stage()

        self.stage("eager")
        try:
            with torch.no_grad():
                eager = outputs_of(model(*copy.deepcopy(args), **copy.deepcopy(kwargs)))
        except Exception as exc:
            return self.fail("skip", "torch eager fails: " + error_line(exc))
        self.done_stage()

        self.stage("export")
        pt2 = os.path.join(self.work, "model.pt2")
        try:
            with torch.no_grad():
                program = torch.export.export(model, args, kwargs)
            torch.export.save(program, pt2)
        except Exception as exc:
            return self.fail("export_fails", error_line(exc))
        self.done_stage()

        inputs = tensors_of((args, kwargs))
        input_files = []
        for index, tensor in enumerate(inputs):
            path = os.path.join(self.work, f"input_{index}.npy")
            np.save(path, tensor.numpy())
            input_files.append(path)

        self.stage("tirc import")
        tir, weights = os.path.join(self.work, "model.tir"), os.path.join(self.work, "model.bin")
        proc = self.run_tool([opts.tirc, "import", pt2, "-o", tir, "--weights", weights],
                             opts.tool_timeout)
        if proc.returncode != 0:
            return self.fail("tir_fails", tool_error(proc))
        self.done_stage()

        self.stage("tirrun")
        out_dir = os.path.join(self.work, "out")
        proc = self.run_tool([opts.tirrun, tir, "--weights", weights, "--threads", "1",
                              "-o", out_dir] + input_files, opts.tool_timeout)
        if proc.returncode != 0:
            return self.fail("tir_fails", tool_error(proc))
        self.done_stage()

        self.stage("compare")
        tir_outputs = []
        while os.path.exists(os.path.join(out_dir, f"output_{len(tir_outputs)}.npy")):
            tir_outputs.append(np.load(os.path.join(out_dir, f"output_{len(tir_outputs)}.npy")))
        err, where = compare(tir_outputs, eager)
        self.result["rel_error"] = err
        self.done_stage()
        if err <= TOLERANCE:
            self.result["status"] = "pass"
            return self.result
        self.result["status"] = "mismatch"
        self.result["error"] = f"{where}: max relative error {err:.3g}"
        self.exported_program_check(program, args, kwargs, eager, tir_outputs)
        return self.float64_oracle(model, args, kwargs, eager, tir_outputs)

    def exported_program_check(self, program, args, kwargs, eager, tir_outputs):
        """Runs the exported program itself in torch: tir is judged against what it was given,
        so an export that already differs from eager is told apart."""
        self.stage("exported program in torch")
        try:
            with torch.no_grad():
                exported = outputs_of(program.module()(*copy.deepcopy(args),
                                                       **copy.deepcopy(kwargs)))
        except Exception as exc:
            self.result["exported_program"] = "fails in torch: " + error_line(exc)
            return
        self.result["export_vs_eager"], _ = compare([None if t is None else t.numpy() for t in eager], exported)
        self.result["tir_vs_export"], _ = compare(tir_outputs, exported)
        self.done_stage()

    def float64_oracle(self, model, args, kwargs, eager, tir_outputs):
        """Tells a wrong tir from an unstable reference: when torch float32 is itself far from
        torch float64, a tir error of the same size is the model's, not tir's. Without a
        float64 run, the exported program run by torch is the witness."""
        self.stage("float64")
        if self.result.get("tir_vs_export", float("inf")) <= TOLERANCE < self.result.get(
                "export_vs_eager", 0.0):
            self.result["verdict"] = "torch: the exported program differs from eager, tir agrees with it"
            return self.result
        try:
            with torch.no_grad():
                exact = outputs_of(model.double()(*to_float64(args), **to_float64(kwargs)))
        except Exception as exc:
            self.result["verdict"] = "float64 run fails: " + error_line(exc)
            if self.result.get("tir_vs_export", float("inf")) <= TOLERANCE:
                self.result["verdict"] += "; tir agrees with the exported program run by torch"
            return self.result
        torch_err, _ = compare([None if t is None else t.numpy() for t in eager], exact)
        tir_err, _ = compare(tir_outputs, exact)
        self.result["torch32_vs_64"] = torch_err
        self.result["tir_vs_64"] = tir_err
        if tir_err > max(TOLERANCE, 10 * torch_err):
            self.result["verdict"] = "tir wrong"
        else:
            self.result["verdict"] = "unstable reference"
        self.done_stage()
        if self.result["verdict"] == "unstable reference":
            self.float64_end_to_end(model, args, kwargs, exact)
        return self.result

    def float64_end_to_end(self, model, args, kwargs, exact):
        """Where the float32 reference is unstable (a top-k over near-equal scores picks other
        queries after a rounding), the program exported in float64 and run by tir must match
        torch float64: then tir computes the program right and only float32 rounding moved
        the answer. Status pass_float64 when it does."""
        self.stage("float64 in tir")
        opts = self.options
        pt2 = os.path.join(self.work, "model64.pt2")
        args64, kwargs64 = to_float64(args), to_float64(kwargs)
        try:
            with torch.no_grad():
                torch.export.save(torch.export.export(model.double(), args64, kwargs64), pt2)
        except Exception as exc:
            self.result["float64_in_tir"] = "export fails: " + error_line(exc)
            return
        input_files = []
        for index, tensor in enumerate(tensors_of((args64, kwargs64))):
            path = os.path.join(self.work, f"input64_{index}.npy")
            np.save(path, tensor.numpy())
            input_files.append(path)
        tir = os.path.join(self.work, "model64.tir")
        weights = os.path.join(self.work, "model64.bin")
        out_dir = os.path.join(self.work, "out64")
        proc = self.run_tool([opts.tirc, "import", pt2, "-o", tir, "--weights", weights],
                             opts.tool_timeout)
        if proc.returncode == 0:
            proc = self.run_tool([opts.tirrun, tir, "--weights", weights, "--threads", "1",
                                  "-o", out_dir] + input_files, opts.tool_timeout)
        if proc.returncode != 0:
            self.result["float64_in_tir"] = "tir fails: " + tool_error(proc)
            return
        outputs = []
        while os.path.exists(os.path.join(out_dir, f"output_{len(outputs)}.npy")):
            outputs.append(np.load(os.path.join(out_dir, f"output_{len(outputs)}.npy")))
        err, where = compare(outputs, exact)
        self.result["tir64_vs_64"] = err
        if err <= TOLERANCE:
            self.result["status"] = "pass_float64"
        else:
            # Still apart in float64: is torch float64 itself stable? Its run at 2 threads
            # (other reduction splits) against its run at 1.
            torch.set_num_threads(2)
            try:
                with torch.no_grad():
                    again = outputs_of(model(*copy.deepcopy(args64), **copy.deepcopy(kwargs64)))
            finally:
                torch.set_num_threads(1)
            self.result["torch64_threads"], _ = compare(
                [None if t is None else t.numpy() for t in exact], again)
            if err <= max(TOLERANCE, 10 * self.result["torch64_threads"]):
                self.result["verdict"] = "unstable reference, also in float64"
            else:
                self.result["verdict"] = "tir wrong in float64"
        self.done_stage()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--tirc", required=True)
    parser.add_argument("--tirrun", required=True)
    parser.add_argument("--tool-timeout", type=float, default=300)
    options = parser.parse_args()
    torch.set_num_threads(1)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sweep = Sweep(options)
    try:
        result = sweep.run()
    except subprocess.TimeoutExpired as exc:
        result = sweep.fail("tir_fails", f"timeout after {exc.timeout:.0f} s")
    except Exception as exc:
        traceback.print_exc()
        result = sweep.fail("error", f"sweep error in {sweep.result['stage']}: " + error_line(exc))
    result["seconds"] = sweep.times
    with open(os.path.join(options.work, "result.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
