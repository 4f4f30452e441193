#!/usr/bin/env python3
"""Prints one closing line, 'gtest: N passed, M failed', summed over every gtest binary
of a meson test run (read from BUILD_DIR/meson-logs/testlog.json). Exits 1 if any test
failed or none ran. Usage: python3 tools/test_summary.py BUILD_DIR"""
import json
import re
import sys

passed = failed = 0
suites_failed = 0
with open(f"{sys.argv[1]}/meson-logs/testlog.json") as log:
    for line in log:
        entry = json.loads(line)
        out = entry.get("stdout") or ""
        ran = re.findall(r"^\[==========\] (\d+) tests? from .* ran\.", out, re.M)
        fails = re.findall(r"^\[  FAILED  \] (\d+) tests?, listed below", out, re.M)
        total = sum(map(int, ran))
        nfail = sum(map(int, fails))
        if entry.get("result") != "OK" and nfail == 0:
            nfail = 1  # crashed or timed out before gtest could report
        passed += total - min(nfail, total)
        failed += nfail
        suites_failed += entry.get("result") != "OK"
print(f"gtest: {passed} passed, {failed} failed")
sys.exit(1 if failed or suites_failed or passed == 0 else 0)
