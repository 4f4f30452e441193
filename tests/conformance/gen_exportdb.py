#!/usr/bin/env python3
"""ExportDB as a suite: every example of torch._export.db.examples (PyTorch's own catalogue
of what torch.export captures), exported with the pinned torch as the example says
(its args, kwargs and dynamic shapes), saved, and run eagerly for the expected outputs.

    ~/.venvs/torch/bin/python tests/conformance/gen_exportdb.py

Writes tests/data/exportdb/<example>/program.pt2 (deflated), input_<k>.npy (the tensor
leaves of (args, kwargs) in pytree order: the program's tensor user inputs),
output_<k>.npy (the eager outputs' leaves; Python ints and bools as 0-dim int64 / bool
arrays) and manifest.json. An example torch.export refuses is listed with torch's error
("exported": false), not faked. Read by tests/conformance/exportdb_test.cc.
"""

import copy
import json
import os
import shutil
import sys
import warnings

import numpy as np
import torch
from torch.utils import _pytree as pytree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "data"))  # tests/data: export_util
from export_util import restore_deflated  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                    "exportdb")


def to_array(v):
    if isinstance(v, torch.Tensor):
        return v.detach().cpu().numpy()
    if isinstance(v, bool):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    if isinstance(v, float):
        return np.array(v, dtype=np.float32)
    raise TypeError(f"output of type {type(v).__name__}")


def save(path, v):
    arr = to_array(v)
    np.save(path, arr, allow_pickle=False)
    return {"file": os.path.basename(path), "dtype": str(arr.dtype), "shape": list(arr.shape)}


def export_one(name, case):
    entry = {"example": name, "support_level": case.support_level.name,
             "description": " ".join(case.description.split())}
    args, kwargs = case.example_args, case.example_kwargs or {}
    torch.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ep = torch.export.export(copy.deepcopy(case.model), copy.deepcopy(args),
                                     copy.deepcopy(kwargs), dynamic_shapes=case.dynamic_shapes)
    except Exception as e:  # torch refuses the example: recorded, not faked
        entry["exported"] = False
        entry["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
        return entry
    out_dir = os.path.join(ROOT, name)
    os.makedirs(out_dir)
    path = os.path.join(out_dir, "program.pt2")
    for gm in ep.graph_module.modules():
        if isinstance(gm, torch.fx.GraphModule):
            for node in gm.graph.nodes:
                node.meta.pop("from_node", None)
    torch.export.save(ep, path)
    restore_deflated(path)
    torch.manual_seed(0)
    with torch.no_grad():
        want = case.model(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    leaves = [t for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
    entry["exported"] = True
    entry["inputs"] = [save(os.path.join(out_dir, f"input_{k}.npy"), t)
                       for k, t in enumerate(leaves)]
    entry["outputs"] = [save(os.path.join(out_dir, f"output_{k}.npy"), v)
                        for k, v in enumerate(pytree.tree_leaves(want))]
    entry["random"] = any("rand" in str(n.target) for n in ep.graph.nodes)
    return entry


def main():
    from torch._export.db.examples import all_examples
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    entries = []
    for name, case in sorted(all_examples().items()):
        entries.append(export_one(name, case))
        print(name, "exported" if entries[-1]["exported"] else entries[-1]["error"])
    with open(os.path.join(ROOT, "manifest.json"), "w") as f:
        json.dump({"torch": torch.__version__, "examples": entries}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
