#!/usr/bin/env python3
"""Runs the code blocks of README.md and docs/guide/*.md that are marked as tested.

A block is tested when the line right before its opening fence is `<!-- tested -->`
(invisible on GitHub). Its language picks how it runs: `sh` blocks under `bash -euo pipefail`,
`python` blocks under this interpreter with the build's module on PYTHONPATH. The blocks of one
file run in order, in one fresh folder that holds links to the checkout's `build/`, `tests/`,
`examples/` and `tools/`, so a block reads as a user in the checkout would type it
(`build/tools/tirc import tests/data/fixtures/...`) and a later block sees the files an
earlier one wrote. Any block that exits non-zero fails the test, with its file, line and output.

usage: run_doc_blocks.py SOURCE_ROOT BUILD_ROOT [FILE.md ...]
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

MARK = "<!-- tested -->"
FENCE = re.compile(r"^(```+)\s*([A-Za-z0-9_+-]*)")


def blocks(path):
    """Yields (line number, language, code) of every marked block in a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        ticks, lang = fence.group(1), fence.group(2)
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith(ticks):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        if start > 0 and lines[start - 1].strip() == MARK:
            if lang not in ("sh", "python"):
                raise SystemExit(f"{path}:{start + 1}: a tested block must be sh or python, not '{lang}'")
            yield start + 1, lang, "\n".join(body) + "\n"


def run_file(md, source, build, env):
    ran = 0
    with tempfile.TemporaryDirectory(prefix="tir-doc-") as work:
        for name, target in (("build", build), ("tests", source / "tests"),
                             ("examples", source / "examples"), ("tools", source / "tools")):
            os.symlink(target, os.path.join(work, name))
        # `python3` in a sh block is this interpreter (the one with NumPy and the module).
        bin_dir = os.path.join(work, ".bin")
        os.mkdir(bin_dir)
        os.symlink(sys.executable, os.path.join(bin_dir, "python3"))
        env = dict(env, PATH=bin_dir + os.pathsep + env.get("PATH", ""))
        for line, lang, code in blocks(md):
            cmd = ["bash", "-euo", "pipefail", "-c", code] if lang == "sh" else [sys.executable, "-c", code]
            p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)
            where = f"{md.relative_to(source)}:{line} ({lang})"
            if p.returncode != 0:
                print(f"FAIL {where}: exit {p.returncode}\n--- block\n{code}--- stdout\n{p.stdout[-4000:]}"
                      f"--- stderr\n{p.stderr[-4000:]}")
                return ran, False
            print(f"ok   {where}")
            ran += 1
    return ran, True


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    source, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    files = [pathlib.Path(f).resolve() for f in sys.argv[3:]] or \
        [source / "README.md"] + sorted((source / "docs" / "guide").glob("*.md"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build / "python"), env.get("PYTHONPATH")]))
    env.setdefault("OMP_NUM_THREADS", "2")
    total, failed = 0, []
    for md in files:
        ran, ok = run_file(md, source, build, env)
        total += ran
        if not ok:
            failed.append(str(md.relative_to(source)))
    print(f"{total} tested blocks ran in {len(files)} files" + (f"; failed in {failed}" if failed else ""))
    if total == 0:
        print("no block is marked as tested: nothing was checked")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
