#!/usr/bin/env bash
# tir's one entry point for a fresh Debian 12 machine (run as root, or with sudo for deps).
#
#   bash tools/setup.sh demo   install what is missing, build, import + run the demo model
#   bash tools/setup.sh test   install what is missing, build, run the whole test suite
#   bash tools/setup.sh asan   the reader, thread and memory suites under ASan + UBSan
#   bash tools/setup.sh tsan   the weight-swap, LoRA, background-checksum and concurrent-generate
#                              thread tests under ThreadSanitizer
#   bash tools/setup.sh fuzz [SECONDS]   every libFuzzer target (fuzz/) for SECONDS each
#   bash tools/setup.sh deps | build
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ meson ninja-build pkg-config libdnnl-dev libeigen3-dev libflatbuffers-dev
  flatbuffers-compiler libzstd-dev libgtest-dev libgmock-dev libbenchmark-dev libzip-dev
  nlohmann-json3-dev libcli11-dev libxxhash-dev libopenmpi-dev openmpi-bin python3-dev
  python3-numpy python3-venv graphviz ccache libpcre2-dev libicu-dev libsentencepiece-dev)
# clang finds OpenMP (which meson.build requires) in libomp-14-dev, its sanitizer and
# libFuzzer runtimes in libclang-rt-14-dev.
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev libfuzzer-14-dev libomp-14-dev)
JOBS=${JOBS:-$(nproc)}                       # test processes
BUILD_JOBS=${BUILD_JOBS:-$(($(nproc) + 1))}  # compilers: one more keeps the cores busy at links

deps() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
}

# Configure build/ once (release). ccache, when installed, keeps compiled objects between
# clones and stages (CCACHE_BASEDIR makes the cache independent of the clone's folder).
# Cache keys depend on the sources and flags, never on the folder, so a stale object cannot
# be reused for changed code.
export CCACHE_BASEDIR="$PWD"
# The sanitizer builds keep line tables (-g): without this ccache would key them on the
# clone's folder, and a fresh clone would compile everything again.
export CCACHE_NOHASHDIR=1
# build/ is a unity build: meson compiles each library's sources UNITY_SIZE at a time as one
# translation unit, so the headers they share (oneDNN, Eigen, nlohmann::json, FlatBuffers, the
# op catalogue) are parsed once per group rather than once per file. The demo's targets take
# 52 compile steps instead of 287, and half the CPU time (7.6 instead of 14.8 minutes, README).
# `test` builds the rest in the same folder, also unity.
# For editing one file at a time, `meson configure build -Dunity=off` compiles files alone.
UNITY_SIZE=${UNITY_SIZE:-8}
configure() {
  [ -f build/build.ninja ] || meson setup build --buildtype=release -Dunity=on \
    -Dunity_size="$UNITY_SIZE" "$@"
}

# The Python module needs pybind11 >= 2.12 (Debian 12's 2.10 predates NumPy 2 and makes
# arrays with zero strides there): a virtualenv from PyPI holds it, with NumPy 2, and
# tests/python runs under both that NumPy and Debian's 1.24 (python3-numpy). ml_dtypes gives
# NumPy a bfloat16 dtype (bfloat16 inputs and outputs; without it they are a clear error).
VENV=build-venv
python_venv() {
  if ! "$VENV/bin/python" -c 'import numpy, pybind11, ml_dtypes' 2>/dev/null; then
    echo "== virtualenv $VENV: numpy>=2, pybind11>=2.12, ml_dtypes (bfloat16 arrays) (PyPI)"
    /usr/bin/python3 -m venv "$VENV"  # Debian's, the Python the module is built for
    "$VENV/bin/pip" install -q --disable-pip-version-check 'numpy>=2' 'pybind11>=2.12' \
      'ml_dtypes>=0.5'
  fi
}
python_options() {
  echo "-Dpkg_config_path=$("$VENV/bin/pybind11-config" --pkgconfigdir)" \
    "-Dtest_pythons=$PWD/$VENV/bin/python"
}

# Everything: tools, tests, benchmarks, the Python module (tested under NumPy 1.x and 2.x).
build() {
  python_venv
  # shellcheck disable=SC2046
  if [ -f build/build.ninja ]; then meson configure build -Dcuda=auto $(python_options); else
    configure $(python_options); fi
  meson compile -C build -j "$BUILD_JOBS"
}

# Only what the demo runs: tirc, tirrun and the C++ embedding example (not the tests,
# benchmarks and fuzz-replay targets that `test` builds).
DEMO_TARGETS=(tools/tirc tools/tirrun examples/tir_embed)

demo() {
  deps
  configure -Dcuda=disabled  # the demo runs on the CPU; `test` turns CUDA back to auto
  meson compile -C build -j "$BUILD_JOBS" "${DEMO_TARGETS[@]}"
  mkdir -p build/demo
  echo "== tirc import examples/demo/resnet_small.pt2"
  ./build/tools/tirc import examples/demo/resnet_small.pt2 -o build/demo/model.tir \
    --weights build/demo/model.bin
  echo "== tirrun build/demo/model.tir"
  ./build/tools/tirrun build/demo/model.tir --weights build/demo/model.bin \
    -i x=examples/demo/input.npy -o build/demo/out --repeat 20
  echo "== the same model through the C++ API (examples/embed.cc)"
  ./build/examples/tir_embed build/demo/model.tir build/demo/model.bin examples/demo/input.npy
}

run_tests() {
  deps
  build
  local rc=0
  meson test -C build --print-errorlogs --num-processes "$JOBS" || rc=$?
  python3 tools/test_summary.py build || rc=1
  return $rc
}

# One clang-14 build under ASan + UBSan serves both the sanitizer test suites and the
# libFuzzer targets (-Dfuzz=true links libFuzzer's main into fuzz/*_fuzzer), so the library
# is compiled once for both; -O1 with line tables only (what the sanitizers' reports need)
# compiles faster than -O2 -g; unity, as build/ (half the compile time).
SAN=build-asan
# The suites that exercise readers (archives, JSON, pickles, .tir, weight files, tokenizer
# files), threads and memory (sessions, weight sets, streaming, kernels, the C ABI, hostile
# inputs). The command-line, pipeline/MPI, install and Python suites run in the release build
# only.
SAN_TESTS=(ir importer runtime exec weights lowp bf16_fallback streaming kernels conformance
  c_api hostile_cli weights_cli tokenizer llm)
sanitizer_build() {
  deps "${FUZZ_PACKAGES[@]}"
  configure
  # Meson puts ccache in front of compilers it finds itself, not of ones named in CC/CXX.
  local cc=clang-14 cxx=clang++-14
  command -v ccache >/dev/null && cc="ccache clang-14" cxx="ccache clang++-14"
  [ -f "$SAN/build.ninja" ] || CC=$cc CXX=$cxx meson setup "$SAN" --buildtype=plain \
    -Doptimization=1 -Dcpp_args=-gline-tables-only -Dc_args=-gline-tables-only \
    -Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true -Dbench=disabled \
    -Dcuda=disabled -Dpython=disabled -Dunity=on -Dunity_size="$UNITY_SIZE"
  # What SAN_TESTS run (their executables and the tools they call) and the fuzzers.
  local targets
  targets=$(python3 - "$SAN" "${SAN_TESTS[@]}" <<'PY'
import json, os, subprocess, sys
build, names = sys.argv[1], set(sys.argv[2:])
tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))
missing = names - {t["name"] for t in tests}
if missing:
    sys.exit(f"tools/setup.sh: no test named {sorted(missing)} in {build}")
print(" ".join(sorted({os.path.relpath(t["cmd"][0], build) for t in tests if t["name"] in names})))
PY
)
  # shellcheck disable=SC2086
  ninja -C "$SAN" -j "$BUILD_JOBS" $targets tools/tirc tools/tirrun \
    $(printf 'fuzz/%s_fuzzer ' "${FUZZ_TARGETS[@]}")
}

asan() {
  local rc=0
  sanitizer_build
  # allocator_may_return_null: a huge allocation is a null the code must handle (the tests
  # ask for one), not an abort.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C "$SAN" --no-rebuild --print-errorlogs --num-processes "$JOBS" \
    --timeout-multiplier 4 "${SAN_TESTS[@]}" || rc=$?
  python3 tools/test_summary.py "$SAN" || rc=1
  return $rc
}

# The weight-swap stress test under ThreadSanitizer (several threads run one session while
# another swaps its weights). Kernels run single-threaded there: libgomp is not
# instrumented, so TSan cannot see its synchronization.
tsan() {
  deps
  [ -f build-tsan/build.ninja ] || meson setup build-tsan --buildtype=plain -Doptimization=1 \
    -Dcpp_args=-g1 -Dc_args=-g1 -Db_sanitize=thread -Db_lundef=false -Dcuda=disabled \
    -Dbench=disabled -Dpython=disabled -Dunity=on -Dunity_size="$UNITY_SIZE"
  meson compile -C build-tsan -j "$BUILD_JOBS" tests/runtime/runtime_test tests/runtime/lora_test \
    tests/runtime/weights_test tests/llm/llm_test
  TIR_TEST_DATA="$PWD/tests/data" OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    build-tsan/tests/runtime/runtime_test --gtest_filter='*SwapWeights*'
  # checksums verified on a thread of their own while three threads run
  TIR_TEST_DATA="$PWD/tests/data" OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    build-tsan/tests/runtime/weights_test --gtest_filter='WeightSet.Background*'
  # four threads with four LoRA adapters, adapters loaded and unloaded during runs
  TIR_TEST_DATA="$PWD/tests/data" OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    build-tsan/tests/runtime/lora_test --gtest_filter='LoraThreads.*'
  # four threads calling generate on one Generator (run one after another), and a call from
  # its own token callback (refused)
  TIR_TEST_DATA="$PWD/tests/data" OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    build-tsan/tests/llm/llm_test --gtest_filter='GenerateLlama.Concurrent*:GenerateLlama.Reentrant*'
}

# libFuzzer targets under ASan + UBSan (the sanitizer build above), one per reader of
# untrusted files, each for SECONDS (default 60) from its committed seed corpus
# (fuzz/corpus/<target>) plus what earlier runs found ($SAN/corpus/<target>). A crash, leak
# or timeout fails the run and leaves the input in $SAN/crashes/<target>/: copy it to
# fuzz/regressions/<target>/ and the normal suite replays it from then on (meson test
# --suite fuzz_replay).
FUZZ_TARGETS=(pt2 pt2_json pickle sym_parse tir weight_file safetensors npy tokenizer_json
  tokenizer_model)
fuzz_dict() {
  case "$1" in
    pt2) echo "-dict=fuzz/json.dict" ;;
    sym_parse) echo "-dict=fuzz/sym.dict" ;;
    npy) echo "-dict=fuzz/npy.dict" ;;
    safetensors) echo "-dict=fuzz/safetensors.dict" ;;
    tokenizer_json) echo "-dict=fuzz/tokenizer.dict" ;;
  esac
}

# The crash regressions of a target are read as corpus too (replayed first, under sanitizers).
regressions() { [ -d "fuzz/regressions/$1" ] && echo "fuzz/regressions/$1"; true; }

fuzz() {
  local seconds=${1:-60} rc=0
  sanitizer_build
  # JOBS targets at a time, each for the whole budget (libFuzzer runs one thread).
  local pids=() t
  for t in "${FUZZ_TARGETS[@]}"; do
    mkdir -p "$SAN/corpus/$t" "$SAN/crashes/$t"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$SAN/fuzz/${t}_fuzzer" "$SAN/corpus/$t" "fuzz/corpus/$t" $(regressions "$t") \
      $(fuzz_dict "$t") -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
      -artifact_prefix="$SAN/crashes/$t/" -print_final_stats=1 \
      >"$SAN/fuzz-$t.log" 2>&1 &
    pids+=($!)
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
  done
  for i in "${!FUZZ_TARGETS[@]}"; do
    t=${FUZZ_TARGETS[$i]}
    if wait "${pids[$i]}"; then echo "== fuzz $t: ok (${seconds}s)"; else
      rc=1; echo "== fuzz $t: FAILED, input in $SAN/crashes/$t/, log $SAN/fuzz-$t.log"; fi
    grep -a -E "^#[0-9]+[[:space:]]+DONE" "$SAN/fuzz-$t.log" | tail -1 | sed 's/^/   /' || true
  done
  return $rc
}

case "${1:-}" in
  deps) deps ;;
  build) deps; build ;;
  demo) demo ;;
  test) run_tests ;;
  asan) asan ;;
  tsan) tsan ;;
  fuzz) fuzz "${2:-60}" ;;
  *) echo "usage: bash tools/setup.sh demo|test|asan|tsan|fuzz [SECONDS]|deps|build" >&2; exit 2 ;;
esac
