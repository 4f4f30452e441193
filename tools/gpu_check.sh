#!/usr/bin/env bash
# The CUDA device's checks on the GPU machine (the `device` tool's H100/H200: CUDA toolkit,
# driver and torch with CUDA, 16 cores, no network and none of the Debian libraries tir
# links), in two halves:
#
#   bash tools/gpu_check.sh bundle            # HERE, from the repository root: builds the
#       # programs the checks need in $BUILD (default build, configured with CUDA) and packs
#       # them with the shared libraries they link that are not glibc's or CUDA's into
#       # .gpu/bundle.tar.xz (the folder is git-ignored through .git/info/exclude: carry it)
#   OUT=$OUT bash tools/gpu_check.sh run      # THERE, from the repository root
#
# `run` unpacks the bundle into /tmp/tir-gpu (programs in tools/ and tests/ are wrappers that
# set LD_LIBRARY_PATH to the bundle's libraries and the machine's CUDA libraries, so Python
# and torch there keep their own), then:
# 1. records the GPU, driver and toolkit (nvidia-smi, nvcc) in $OUT/device.txt;
# 2. runs the CUDA tests: the op suite's CUDA cases (one test per catalogue row on the GPU
#    against the reference and torch), tests/cuda/cuda_test (every runnable torch fixture on
#    the GPU vs torch and the CPU, placement, copies, the out-of-range flag) and
#    tests/tools/device_cli_test -> $OUT/<test>.txt;
# 3. `tirrun --device cuda` on the gpt2 and bert fixtures, outputs compared with the CPU's;
# 4. with STEPS containing profile: tirrun --device cuda --profile on GPT-2 small and BERT-base
#    (exported there with its torch when bench/models lacks them) -> $OUT/profile_<model>.txt;
# 5. with STEPS containing bench: bench/compare/run.py on GPT-2 small and BERT-base seq 128
#    (exported there with its torch) with torch-cuda, tir-cuda, torch and tir -> $OUT/compare/.
# Every step logs to $OUT; a failed step is reported in $OUT/summary.txt and later steps still
# run. Exit status 0 when the CUDA tests passed. STEPS="test profile bench" (default) picks
# phases. The files in $OUT stay under the device tool's 8.
set -u
cd "$(dirname "$0")/.."
MODE=${1:-run}
BUNDLE=.gpu/bundle.tar.xz

if [ "$MODE" = bundle ]; then
  set -e
  BUILD=${BUILD:-build}
  ninja -C "$BUILD" tools/tirc tools/tirrun tools/tir-calibrate tests/cuda/cuda_test \
    tests/conformance/op_suite_test tests/tools/device_cli_test runtime/devices/libtir_cuda.so
  stage=.gpu/stage
  rm -rf "$stage" && mkdir -p "$stage"/{bin,lib,tools,tests}
  mkdir -p .git/info && touch .git/info/exclude
  grep -qx '/.gpu/' .git/info/exclude || echo '/.gpu/' >>.git/info/exclude
  progs="tools/tirc tools/tirrun tools/tir-calibrate tests/cuda/cuda_test
         tests/conformance/op_suite_test tests/tools/device_cli_test"
  for p in $progs; do cp "$BUILD/$p" "$stage/bin/"; done
  cp "$BUILD/runtime/devices/libtir_cuda.so" "$stage/lib/"
  # The libraries they link, less glibc's, the compiler's and CUDA's (the machine has those).
  for p in $progs; do ldd "$BUILD/$p"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas(Lt)?)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  tar -C "$stage" -cJf "$BUNDLE" .
  echo "bundle: $BUNDLE, $(du -h "$BUNDLE" | cut -f1) ($(ls "$stage/lib" | wc -l) libraries)"
  exit 0
fi

OUT=${OUT:-/tmp/gpu_check}
STEPS=${STEPS:-test profile bench}
PY=${PYTHON:-python3}
JOBS=$(nproc)
wants() { [[ " $STEPS " == *" $1 "* ]]; }
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
status=0
log() { echo "[gpu_check $(date -u +%H:%M:%S)] $*" | tee -a "$OUT/summary.txt"; }
LOGS=/tmp/tir-gpu-logs  # step logs; $OUT keeps device.txt, summary.txt, the tests' and profiles'
rm -rf "$LOGS" && mkdir -p "$LOGS"
step() {  # step NAME LOGFILE CMD...: runs CMD with its output in LOGFILE, logs the outcome
  local name=$1 file=$2
  shift 2
  case $file in /*) ;; *) file="$LOGS/$file" ;; esac
  local t0=$SECONDS
  if "$@" >"$file" 2>&1; then
    log "ok    $name ($((SECONDS - t0)) s, $(basename "$file"))"
    return 0
  fi
  log "FAIL  $name ($((SECONDS - t0)) s, $(basename "$file")): $(tail -n 3 "$file" | tr '\n' ' ')"
  return 1
}

[ -f "$BUNDLE" ] || { log "stop: no $BUNDLE (make it with 'tools/gpu_check.sh bundle', carry .gpu)"; exit 1; }
B=/tmp/tir-gpu
rm -rf "$B" && mkdir -p "$B/real" && tar -C "$B/real" -xJf "$BUNDLE"
cublas=$(find /usr/local/cuda/ /usr/local/cuda*/ /opt /usr/lib -name 'libcublasLt.so.1*' 2>/dev/null | head -1)
cudart=$(find /usr/local/cuda/ /usr/local/cuda*/ /opt /usr/lib -name 'libcudart.so.1*' 2>/dev/null | head -1)
libpath="$B/real/lib:$(dirname "${cublas:-/x/x}"):$(dirname "${cudart:-/x/x}")"
mkdir -p "$B/tools" "$B/tests"
for f in "$B"/real/bin/*; do
  n=$(basename "$f")
  case $n in tirc | tirrun | tir-calibrate) w="$B/tools/$n" ;; *) w="$B/tests/$n" ;; esac
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libpath" "$f" >"$w"
  chmod +x "$w"
done
export TIR_CUDA_BACKEND="$B/real/lib/libtir_cuda.so"
export TIR_TEST_DATA="$PWD/tests/data" TIR_SOURCE_ROOT="$PWD" TIRC="$B/tools/tirc" \
  TIRRUN="$B/tools/tirrun" TIR_CALIBRATE="$B/tools/tir-calibrate"

log "start: $(hostname), $JOBS cores, cuBLAS ${cublas:-not found}, cudart ${cudart:-not found}"
{ nvidia-smi; echo; nvcc --version; echo; lscpu | head -20; echo; ldd "$B/real/lib/libtir_cuda.so"; } \
  >"$OUT/device.txt" 2>&1
log "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
LD_LIBRARY_PATH=$libpath ldd "$TIR_CUDA_BACKEND" | grep -E 'not found|cu' | tee -a "$OUT/summary.txt"

if wants test; then
  for t in op_suite_test cuda_test device_cli_test; do
    filter='*'
    [ $t = op_suite_test ] && filter='*_cuda_*'
    step "$t" "$OUT/$t.txt" timeout 300 "$B/tests/$t" --gtest_filter="$filter" || status=1
    log "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$OUT/$t.txt" | tr '\n' ' ')"
  done
  if grep -q "needs a usable GPU\|no CUDA device" "$OUT/cuda_test.txt" "$OUT/op_suite_test.txt"; then
    log "FAIL  GPU tests skipped: $(grep -h -m1 -o 'needs a usable GPU.*\|no CUDA device.*' \
      "$OUT/cuda_test.txt" "$OUT/op_suite_test.txt" | head -1)"
    status=1
  fi
  # tirrun on the transformer fixtures, CPU and GPU outputs side by side.
  fx=/tmp/tir-gpu/fixtures
  mkdir -p "$fx"
  for m in gpt2 bert; do
    d=tests/data/fixtures/$m/core
    step "import $m" "import_$m.log" "$TIRC" import "$d/program.pt2" -o "$fx/$m.tir" \
      --weights "$fx/$m.bin" || continue
    for dev in cpu cuda; do
      step "tirrun --device $dev $m" "tirrun_${m}_$dev.txt" "$TIRRUN" "$fx/$m.tir" \
        --weights "$fx/$m.bin" "$d"/input_*.npy --device $dev -o "$fx/$m.$dev" || status=1
    done
    grep -v '^  ' "$LOGS/tirrun_${m}_cuda.txt" | head -n 8 >>"$OUT/summary.txt"
    "$PY" -c "import numpy as np, glob, sys
for a in sorted(glob.glob('$fx/$m.cpu/*.npy')):
    x, y = np.load(a), np.load(a.replace('.cpu/', '.cuda/'))
    print('$m', a.split('/')[-1], x.shape, 'max |cpu - cuda| =', float(np.abs(x.astype('f8') - y).max()))
" 2>&1 | tee -a "$OUT/summary.txt"
  done
fi

if wants bench; then
  # bench/compare/run.py wants a build folder with tools/tirc and tools/tirrun: the wrappers.
  step "bench/compare" compare.log timeout 420 "$PY" bench/compare/run.py --build "$B" \
    --models gpt2_small bert_base --engines torch-cuda tir-cuda torch tir --threads "$JOBS" \
    --reps 20 --rounds 2 --warmup 3 --out "$OUT/compare"
  tail -n 20 "$OUT/compare.log" >>"$OUT/summary.txt"
fi
if wants profile; then
  # tirrun --profile on the GPU (each GPU node synchronized, so its time is its own).
  for m in gpt2_small bert_base; do
    d=bench/models/$m/compare
    if [ ! -f "$d/model.tir" ]; then
      [ -f "bench/models/$m/training/program.pt2" ] ||
        step "export $m" "export_$m.log" "$PY" bench/export_large.py "$m" || continue
      mkdir -p "$d" && cp bench/models/$m/training/input_*.npy "$d/"
      step "import $m" "import_$m.log" "$TIRC" import "bench/models/$m/training/program.pt2" \
        -o "$d/model.tir" --weights "$d/model.bin" || continue
    fi
    step "profile $m" "$OUT/profile_$m.txt" "$TIRRUN" "$d/model.tir" --weights "$d/model.bin" \
      "$d"/input_*.npy --device cuda --repeat 20 --profile "$LOGS/trace_$m.json" --profile-top 15
  done
fi
log "done (status $status)"
exit $status
