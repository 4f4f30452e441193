#!/usr/bin/env python3
"""Chart a layer profile CSV (`tirrun --profile-layers prof.csv`) as a PNG.

    ~/.venvs/torch/bin/python tools/plot_layer_profile.py prof.csv -o prof.png

Left: median forward time per module; right: parameter and peak activation MiB.
Needs matplotlib.
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"error: {args.csv} has no rows")
    names = [r["module"] for r in rows]
    ms = [float(r["median_ms"]) for r in rows]
    mib = 1 << 20
    params = [int(r["param_bytes"]) / mib for r in rows]
    peak = [int(r["peak_activation_bytes"]) / mib for r in rows]
    y = range(len(rows))
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 0.3 * len(rows) + 1.5), sharey=True)
    a.barh(y, ms, color="tab:blue")
    a.set_xlabel("median forward time (ms)")
    a.set_yticks(list(y), names, fontsize=7)
    a.invert_yaxis()
    b.barh([i - 0.2 for i in y], params, height=0.4, label="parameters", color="tab:orange")
    b.barh([i + 0.2 for i in y], peak, height=0.4, label="peak activations", color="tab:green")
    b.set_xlabel("MiB")
    b.legend(loc="lower right")
    depth = rows[0]["depth"]
    fig.suptitle(args.title or f"{args.csv} (module depth {depth})")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)


if __name__ == "__main__":
    main()
