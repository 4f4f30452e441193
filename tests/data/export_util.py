"""The torch-only half of the fixture generators: export a module in both dialects, save it,
reload it, record inputs and eager outputs as .npy, count the saved program's ops.

Used by gen.py (torch 2.15, fixtures/) and gen_legacy.py (older torch releases,
fixtures/legacy/); bench/export_large.py reaches it through gen.build(). It imports nothing
beyond torch and numpy, so it runs under every torch release the fixtures cover (2.3+),
and reads every archive layout those releases write (see layout_of).
"""

import collections
import copy
import json
import os
import re
import shutil
import zipfile

import numpy as np
import torch
from torch.export.graph_signature import InputKind, OutputKind
from torch.utils import _pytree as pytree

DIALECTS = ("training", "core")  # torch.export.export, then ep.run_decompositions()
NPY_DTYPES = (np.float32, np.int64, np.float16, np.float64, np.complex64, np.bool_)


# ----------------------------------------------------------------------------- archives

def archive_members(path):
    """{member path without the archive's root folder: full member name}; the legacy zip's
    top-level members (serialized_*, version) keep their name."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    out = {n: n for n in names}
    out.update({n.split("/", 1)[1]: n for n in names if "/" in n})
    return out


def layout_of(path):
    """'pt2' (torch 2.9+: raw weight blobs), 'pt2_pickle' (2.8: pickled weights) or
    'legacy_zip' (2.3-2.7: serialized_exported_program.json + torch.save zips)."""
    rel = archive_members(path)
    if "serialized_exported_program.json" in rel:
        return "legacy_zip"
    if "data/weights/model.pt" in rel:
        return "pt2_pickle"
    return "pt2"


def read_archive_json(path, rel):
    member = archive_members(path)[rel]
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read(member))


def read_program_json(path):
    rel = archive_members(path)
    name = "serialized_exported_program.json" if layout_of(path) == "legacy_zip" else "models/model.json"
    if name not in rel:
        raise RuntimeError(f"{path}: no program JSON ({name})")
    return read_archive_json(path, name)


def op_name(target):
    """'torch.ops.aten.add.Tensor' -> 'aten::add.Tensor'; '...linear.default' -> 'aten::linear'."""
    if not target.startswith("torch.ops.aten."):
        return None
    name, overload = target[len("torch.ops.aten."):].rsplit(".", 1)
    return "aten::" + name + ("" if overload == "default" else "." + overload)


def count_ops(path):
    """ATen op counts of the saved top-level graph, of the graphs nested in higher-order ops
    (all nesting levels together), and the non-ATen targets of both."""
    ops, sub, other = collections.Counter(), collections.Counter(), collections.Counter()

    def walk(graph, counter):
        for node in graph["nodes"]:
            name = op_name(node["target"])
            (counter if name else other)[name or node["target"]] += 1
            for inp in node["inputs"]:
                if "as_graph" in inp["arg"]:
                    walk(inp["arg"]["as_graph"]["graph"], sub)

    walk(read_program_json(path)["graph_module"]["graph"], ops)
    return dict(sorted(ops.items())), dict(sorted(sub.items())), dict(sorted(other.items()))


# ----------------------------------------------------------------------------- tensors

def save_npy(path, t):
    """t as .npy; bfloat16 as the 2-byte void NumPy saves ml_dtypes' bfloat16 as ('<V2')."""
    t = t.detach().cpu().contiguous()  # a view's array would be saved in Fortran order
    if t.dtype == torch.bfloat16:
        arr = t.view(torch.int16).numpy().view("<V2")
        np.save(path, arr, allow_pickle=False)
        return {"file": os.path.basename(path), "dtype": "bfloat16", "shape": list(arr.shape)}
    arr = t.numpy()
    assert arr.dtype in NPY_DTYPES, (path, arr.dtype)
    np.save(path, arr, allow_pickle=False)
    return {"file": os.path.basename(path), "dtype": str(arr.dtype), "shape": list(arr.shape)}


def clone_tree(tree):
    return pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, tree)


def as_output_tensors(leaves):
    """Output leaves as tensors: a Python int, float or bool that a model returns (torch
    folds it into the program as a constant output) as the 0-dim int64, float64 or bool
    tensor tir returns for it."""
    def one(v):
        if isinstance(v, bool):
            return torch.tensor(v, dtype=torch.bool)
        if isinstance(v, int):
            return torch.tensor(v, dtype=torch.int64)
        if isinstance(v, float):
            return torch.tensor(v, dtype=torch.float64)
        return v
    return [one(v) for v in leaves]


def check_close(got, want, tol, what):
    got = as_output_tensors(pytree.tree_leaves(got))
    want = as_output_tensors(pytree.tree_leaves(want))
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: output {i} shape/dtype"
        torch.testing.assert_close(g, w, rtol=tol, atol=tol, equal_nan=True,
                                   msg=f"{what}: output {i}")


# ----------------------------------------------------------------------------- fixtures

def restore_deflated(path):
    """Re-stores a .pt2's members deflated (same names, same bytes) with fixed member dates,
    so fixtures stay small and reruns write the same bytes."""
    tmp = path + ".tmp"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
        for info in src.infolist():
            member = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(member, src.read(info.filename), zipfile.ZIP_DEFLATED, compresslevel=9)
    os.replace(tmp, path)


def trim_node_metadata(ep):
    """Cut every node's stack_trace and nn_module_stack to their innermost entry, the only one
    the importer reads (a node's source line, module path and type), and drop source_fn_stack
    and torch_fn, which it does not read: together half of a transformer's program JSON."""
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for node in gm.graph.nodes:
            trace = node.meta.get("stack_trace")
            if trace and trace.rfind('  File "') > 0:
                node.meta["stack_trace"] = trace[trace.rfind('  File "'):]
            node.meta.pop("source_fn_stack", None)
            node.meta.pop("torch_fn", None)
            stack = node.meta.get("nn_module_stack")
            if stack and len(stack) > 1:
                node.meta["nn_module_stack"] = dict([list(stack.items())[-1]])


def build(name, make_module, seed, make_inputs, tol, root, prefix="", on_saved=None,
          trim_metadata=False):
    """Export make_module() (seeded with seed; inputs from a generator seeded 1000 + seed) in
    each dialect into root/prefix/name/dialect/: program.pt2, input_<k>.npy (user inputs in
    graph-signature order, kwargs included), output_<k>.npy (eager outputs, flattened).
    The saved program is reloaded and checked against eager before anything is recorded.
    on_saved(entry, ep, path, out_dir) may check the archive or add keys to the entry;
    trim_metadata: trim_node_metadata before saving.
    Returns the manifest entries, one per dialect."""
    torch.manual_seed(seed)
    module = make_module().eval()
    args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    with torch.no_grad():
        eager = as_output_tensors(pytree.tree_leaves(module(*clone_tree(args),
                                                           **clone_tree(kwargs))))
    flat_inputs = list(args) + list(kwargs.values())

    entries = []
    ep = torch.export.export(module, clone_tree(args), clone_tree(kwargs))
    for dialect in DIALECTS:
        if dialect == "core":
            ep = ep.run_decompositions()
        rel = f"{prefix}{name}/{dialect}"
        out_dir = os.path.join(root, rel)
        os.makedirs(out_dir)
        path = os.path.join(out_dir, "program.pt2")
        for node in ep.graph.nodes:  # provenance holding id(graph) values: not reproducible
            node.meta.pop("from_node", None)
        if trim_metadata:
            trim_node_metadata(ep)
        torch.export.save(ep, path)

        specs = ep.graph_signature.input_specs
        user_names = [s.arg.name for s in specs if s.kind == InputKind.USER_INPUT]
        assert len(user_names) == len(flat_inputs), (rel, user_names)
        for kw, got in zip(kwargs, user_names[len(args):]):
            assert kw == got, f"{rel}: kwarg {kw} appears as user input {got}"
        n_user_out = sum(s.kind == OutputKind.USER_OUTPUT for s in ep.graph_signature.output_specs)
        assert n_user_out == len(eager), (rel, n_user_out, len(eager))

        loaded = torch.export.load(path).module()
        with torch.no_grad():
            check_close(loaded(*clone_tree(args), **clone_tree(kwargs)), eager, tol, rel)

        inputs = []
        for k, (in_name, t) in enumerate(zip(user_names, flat_inputs)):
            inputs.append({"name": in_name, **save_npy(os.path.join(out_dir, f"input_{k}.npy"), t)})
        outputs = [save_npy(os.path.join(out_dir, f"output_{k}.npy"), t)
                   for k, t in enumerate(eager)]
        ops, sub, other = count_ops(path)
        entry = {"model": name, "dialect": dialect, "dir": rel, "inputs": inputs,
                 "outputs": outputs, "rtol": tol, "atol": tol, "ops": ops}
        if sub:
            entry["subgraph_ops"] = sub
        if other:
            entry["other_targets"] = other
        if on_saved:
            on_saved(entry, ep, path, out_dir)
        entries.append(entry)
    return entries


# ----------------------------------------------------------------------------- manifests

def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, n)) for d, _, files in os.walk(path) for n in files)


def write_manifest(root, manifest):
    """root/manifest.json, indented, with every list of integers (shapes) on one line."""
    text = json.dumps(manifest, indent=1)
    text = re.sub(r"\[[\d,\s-]*\]", lambda m: "[" + ", ".join(re.findall(r"-?\d+", m.group(0))) + "]",
                  text)
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


def write_quant_manifest(root, fixtures):
    """The manifest of a quantized suite (gen_quant.py, gen_torchao.py): torch's and torchao's
    versions, the fixtures; prints what each holds and the suite's size."""
    import torchao
    write_manifest(root, {"torch": torch.__version__, "torchao": torchao.__version__,
                          "fixtures": fixtures})
    for f in fixtures:
        print(f["dir"], f.get("other_targets", {}))
    print(f"wrote {root} ({dir_size(root) / 1e6:.2f} MB)")


def float64_disagreement(make_module, seed, make_inputs):
    """max |float32 - float64| of torch eager over the outputs of make_module() (seeded as
    build seeds it) and its float64 copy: a reference is stable when this is far below the
    tolerance, so that a mismatch is the runtime's."""
    torch.manual_seed(seed)
    module = make_module().eval()
    args, kwargs = make_inputs(torch.Generator().manual_seed(1000 + seed))
    wide = copy.deepcopy(module).double()
    to64 = lambda t: t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t  # noqa: E731
    with torch.no_grad():
        want = pytree.tree_leaves(module(*clone_tree(args), **clone_tree(kwargs)))
        got = pytree.tree_leaves(wide(*pytree.tree_map(to64, args), **pytree.tree_map(to64, kwargs)))
    return max(float((w.double() - g).abs().max()) for w, g in zip(want, got))


def build_suite(root, models, trim_metadata=True):
    """Every model of `models` (build's rows) built into root/<name>/<dialect>/ afresh, each
    archive re-stored deflated, and root/manifest.json of them all."""
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    fixtures = []
    for spec in models:
        fixtures += build(*spec, root, trim_metadata=trim_metadata)
        path = os.path.join(root, spec[0])
        for dialect in os.listdir(path):
            restore_deflated(os.path.join(path, dialect, "program.pt2"))
        print(f"{spec[0]}: {dir_size(path) / 1e3:.0f} kB")
    fixtures.sort(key=lambda e: (e["model"], e["dialect"]))
    return fixtures
