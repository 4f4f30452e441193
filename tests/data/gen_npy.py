#!/usr/bin/env python3
""".npy files as NumPy writes them, for the reader's tests (tests/runtime/npy_test.cc): an array
saved in Fortran order (what np.save writes for a transposed view) and the same values in C
order.

    python3 tests/data/gen_npy.py
"""

import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "npy")


def main():
    os.makedirs(OUT, exist_ok=True)
    a = np.arange(24, dtype=np.float32).reshape(4, 3, 2) * 0.5 - 3
    t = a.transpose(2, 1, 0)  # [2, 3, 4], Fortran-contiguous
    assert t.flags.f_contiguous and not t.flags.c_contiguous
    np.save(os.path.join(OUT, "fortran_order.npy"), t)
    np.save(os.path.join(OUT, "c_order.npy"), np.ascontiguousarray(t))


if __name__ == "__main__":
    main()
