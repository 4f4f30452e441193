#!/usr/bin/env bash
# The CUDA device's checks in ONE command, for a session that holds the GPU machine (the
# `device` tool's H100/H200: same Debian image and CUDA toolkit, 16 cores, no network):
#
#   OUT=$OUT bash tools/gpu_check.sh          # run from the repository root
#
# 1. records the GPU, driver and toolkit (nvidia-smi, nvcc) in $OUT/device.txt;
# 2. configures build-gpu with -Dcuda=enabled and builds only what the checks need (tirc,
#    tirrun, tests/cuda/cuda_test and the CUDA module runtime/devices/libtir_cuda.so, which
#    tirrun and the test load from the build tree) on all cores;
# 3. runs the CUDA tests (tests/cuda/cuda_test.cc: every runnable torch fixture on the GPU vs
#    torch and vs the CPU, placement, copies, the out-of-range flag) -> $OUT/cuda_test.txt and
#    $OUT/cuda_test.xml; then `tirrun --device cuda` on the gpt2 and bert fixtures;
# 4. benchmarks: with a Python that has torch with CUDA (PYTHON, default ~/.venvs/torch),
#    bench/compare/run.py on GPT-2 small and BERT-base seq 128 with torch-cuda, tir-cuda, torch
#    and tir -> $OUT/compare/; without one, tirrun --repeat on the fixtures, CPU vs CUDA only
#    (tiny models: a smoke timing, not a speed claim) -> $OUT/bench_fixtures.txt.
# Every step logs to $OUT; a failed step is reported in $OUT/summary.txt and the later steps
# still run where they can. Exit status: 0 when the build and the CUDA tests passed.
# STEPS="build test bench" (the default) picks phases, to split the work over several device
# calls of at most 10 minutes each: "build" alone, then "test", then "bench" (a later call
# finds the build done on a warm machine; a phase builds what is missing anyway).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_check}
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
PY=${PYTHON:-$HOME/.venvs/torch/bin/python}
STEPS=${STEPS:-build test bench}
wants() { [[ " $STEPS " == *" $1 "* ]]; }
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
status=0

log() { echo "[gpu_check $(date -u +%H:%M:%S)] $*" | tee -a "$OUT/summary.txt"; }
step() {  # step NAME LOGFILE CMD...: runs CMD with its output in LOGFILE, logs the outcome
  local name=$1 file=$2
  shift 2
  local t0=$SECONDS
  if "$@" >"$OUT/$file" 2>&1; then
    log "ok    $name ($((SECONDS - t0)) s, $file)"
    return 0
  fi
  log "FAIL  $name ($((SECONDS - t0)) s, $file): $(tail -n 3 "$OUT/$file" | tr '\n' ' ')"
  return 1
}

log "start: $(hostname), $JOBS cores, build $BUILD, out $OUT"
{ nvidia-smi; echo; nvidia-smi -q | head -40; echo; nvcc --version; echo; lscpu | head -20; } \
  >"$OUT/device.txt" 2>&1
log "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"

if [ -d "$BUILD" ]; then
  step configure configure.log meson setup --reconfigure "$BUILD" -Dcuda=enabled -Dgpu_archs=90
else
  step configure configure.log meson setup "$BUILD" --buildtype=release -Dcuda=enabled \
    -Dgpu_archs=90 -Dpython=disabled
fi || { log "stop: configure failed"; exit 1; }
step build build.log ninja -C "$BUILD" -j "$JOBS" tools/tirc tools/tirrun tests/cuda/cuda_test \
  runtime/devices/libtir_cuda.so || { log "stop: build failed"; exit 1; }
grep -i "warning" "$OUT/build.log" >"$OUT/build_warnings.txt" || true
log "build warnings: $(wc -l <"$OUT/build_warnings.txt")"
# Only the module links CUDA; tirrun loads it when --device cuda asks for it.
ldd "$BUILD/tools/tirrun" >"$OUT/ldd_tirrun.txt" 2>&1
ldd "$BUILD/runtime/devices/libtir_cuda.so" >"$OUT/ldd_cuda_module.txt" 2>&1
log "CUDA libraries linked: tirrun $(grep -cE 'libcu(da|blas)' "$OUT/ldd_tirrun.txt")," \
  "libtir_cuda.so $(grep -cE 'libcu(da|blas)' "$OUT/ldd_cuda_module.txt")"

export TIR_TEST_DATA="$PWD/tests/data" TIRRUN="$PWD/$BUILD/tools/tirrun"
if ! wants test && ! wants bench; then
  log "done (status $status; steps: $STEPS)"
  exit $status
fi
if wants test; then
  if ! step cuda_test cuda_test.txt timeout 540 "$BUILD/tests/cuda/cuda_test" \
      --gtest_output="xml:$OUT/cuda_test.xml"; then
    status=1
  fi
  log "cuda_test: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$OUT/cuda_test.txt" |
    tr '\n' ' ')"
  if grep -q "needs a usable GPU" "$OUT/cuda_test.txt"; then
    log "FAIL  the GPU tests skipped: $(grep -m1 -o 'needs a usable GPU.*' "$OUT/cuda_test.txt")"
    status=1
  fi
fi

# tirrun on the transformer fixtures: the load summary names what stayed on the CPU.
fx="$OUT/fixtures"
mkdir -p "$fx"
for m in gpt2 bert; do
  d=tests/data/fixtures/$m/core
  step "import $m" "import_$m.log" "$BUILD/tools/tirc" import "$d/program.pt2" -o "$fx/$m.tir" \
    --weights "$fx/$m.bin" || continue
  step "tirrun --device cuda $m" "tirrun_$m.txt" "$BUILD/tools/tirrun" "$fx/$m.tir" \
    --weights "$fx/$m.bin" "$d"/input_*.npy --device cuda -o "$fx/$m.out"
done

# Benchmark.
if ! wants bench; then
  log "bench skipped (steps: $STEPS)"
elif [ -x "$PY" ] && "$PY" -c "import torch, sys; ok = torch.cuda.is_available(); \
print('torch', torch.__version__, 'cuda available:', ok); sys.exit(0 if ok else 1)" \
    >"$OUT/python_torch.txt" 2>&1; then
  step "bench/compare" compare.log timeout 560 "$PY" bench/compare/run.py --build "$BUILD" \
    --models gpt2_small bert_base --engines torch-cuda tir-cuda torch tir --threads "$JOBS" \
    --reps 20 --rounds 2 --warmup 3 --out "$OUT/compare"
else
  log "no Python with CUDA torch at $PY ($(tail -n 1 "$OUT/python_torch.txt" 2>/dev/null)):" \
    "timing the fixtures with tirrun only"
  for m in gpt2 bert; do
    [ -f "$fx/$m.tir" ] || continue
    d=tests/data/fixtures/$m/core
    for dev in cpu cuda; do
      step "tirrun $m $dev x200" "bench_${m}_$dev.json" "$BUILD/tools/tirrun" "$fx/$m.tir" \
        --weights "$fx/$m.bin" "$d"/input_*.npy --device "$dev" --repeat 200 --json \
        --threads "$JOBS"
      log "  $m $dev: $(grep -o '"median_ms": [0-9.e-]*' "$OUT/bench_${m}_$dev.json")"
    done
  done
fi
log "done (status $status)"
exit $status
