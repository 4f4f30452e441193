#!/usr/bin/env python3
"""Goldens for the scattering kernels index_copy(_) and index_put(_)
(tests/data/fixtures/kernels/scatter.json, read by tests/kernels/scatter_test.cc).

    ~/.venvs/torch/bin/python tests/data/gen_kernel_scatter.py

Each case names the op, its arguments in schema order (tensors as dtype/shape/flat data,
None for an absent index) and torch eager's result. The in-place forms are run on a clone,
so `want` is both the returned tensor and the mutated self.
"""

import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "kernels")
DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool"}


def enc(t):
    if t is None:
        return None
    return {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data": t.flatten().tolist()}


def rand(g, *shape, dtype=torch.float32):
    if dtype == torch.int64:
        return torch.randint(-50, 50, shape, generator=g)
    return torch.randn(shape, generator=g)


def index_copy(name, g, shape, dim, index, dtype=torch.float32, in_place=False):
    self = rand(g, *shape, dtype=dtype)
    index = torch.tensor(index)
    src_shape = list(shape)
    src_shape[dim] = index.numel()
    source = rand(g, *src_shape, dtype=dtype)
    want = self.clone().index_copy_(dim, index, source) if in_place else \
        torch.index_copy(self, dim, index, source)
    op = "aten::index_copy_" if in_place else "aten::index_copy"
    return {"name": name, "op": op, "self": enc(self), "dim": dim, "index": enc(index),
            "source": enc(source), "want": enc(want)}


def index_put(name, g, shape, indices, values_shape, accumulate=False, in_place=False,
              dtype=torch.float32):
    self = rand(g, *shape, dtype=dtype)
    indices = [None if i is None else i if isinstance(i, torch.Tensor) else torch.tensor(i)
               for i in indices]
    values = rand(g, *values_shape, dtype=dtype)
    if in_place:  # the aten ops take None entries, the Python methods do not
        want = torch.ops.aten.index_put_.default(self.clone(), indices, values, accumulate)
    else:
        want = torch.ops.aten.index_put.default(self, indices, values, accumulate)
    op = "aten::index_put_" if in_place else "aten::index_put"
    return {"name": name, "op": op, "self": enc(self), "indices": [enc(i) for i in indices],
            "values": enc(values), "accumulate": accumulate, "want": enc(want)}


def main():
    g = torch.Generator().manual_seed(0)
    cases = [
        # the KV-cache write of the training IR: cache[1, heads, max_len, d], dim 2
        index_copy("kv_cache_prefill", g, (1, 2, 8, 4), 2, [0, 1, 2], in_place=True),
        index_copy("kv_cache_decode", g, (1, 2, 8, 4), 2, [5], in_place=True),
        index_copy("negative_dim_unordered", g, (3, 4, 5), -1, [4, 0, 2]),
        index_copy("int64_dim0", g, (6, 3), 0, [5, 1], dtype=torch.int64),
        index_copy("index_0d", g, (4, 3), 0, 2),
        # the KV-cache write of the core IR: cache[None, None, pos] = values
        index_put("kv_cache_prefill", g, (1, 2, 8, 4), [None, None, [0, 1, 2]], (1, 2, 3, 4)),
        index_put("kv_cache_decode", g, (1, 2, 8, 4), [None, None, [6]], (1, 2, 1, 4)),
        index_put("in_place_negative", g, (5, 3), [[-1, 0]], (2, 3), in_place=True),
        index_put("accumulate_duplicates", g, (5, 3), [[1, 3, 1, 1]], (4, 3), accumulate=True),
        index_put("accumulate_int64", g, (4, 2), [[0, 0, 3]], (3, 2), accumulate=True,
                  dtype=torch.int64),
        index_put("broadcast_indices_values", g, (4, 5, 6), [[[0], [3]], [4, 1, 0]], (6,)),
        index_put("non_adjacent_scalar", g, (3, 4, 5), [[2, 0], None, [1, 4]], ()),
        index_put("in_place_accumulate_middle", g, (2, 4, 3), [None, [3, 3]], (2, 1, 3),
                  accumulate=True, in_place=True),
        index_put("bool_mask", g, (3, 4, 2), [torch.rand((3, 4), generator=g) < 0.4], (2,)),
    ]
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "scatter.json"), "w") as f:
        body = ",\n".join(json.dumps(c) for c in cases)  # one case a line
        f.write(f'{{"torch_version": "{torch.__version__}", "cases": [\n{body}\n]}}\n')
    print("wrote", len(cases), "cases to", OUT)


if __name__ == "__main__":
    main()
