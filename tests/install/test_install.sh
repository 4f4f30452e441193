#!/usr/bin/env bash
# Installs the build into a temp dir and builds examples/embed_c.c and examples/embed.cc out
# of tree against it with `pkg-config tir` (libtir.so; embed_c also against libtir.a), runs
# them on the demo model and checks that they print tirrun's output lines. Neither libtir nor
# tirrun links CUDA; in a build with CUDA the module <libdir>/tir/libtir_cuda.so is installed
# and found from the installed tirrun and libtir.so (an error naming the GPU, not the module,
# on a machine without one).
#
#   bash tests/install/test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tir_install_XXXXXX")
trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet
option() {
  meson introspect "$build" --buildoptions | python3 -c \
    'import json,sys; v=next(o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]); print(",".join(v) if isinstance(v,list) else v)' "$1"
}
prefix=$(option prefix)
libdir=$(option libdir)
# A sanitized build's libtir needs its programs built with the same sanitizers.
sanitize=$(option b_sanitize)
san_flags=()
[ "$sanitize" != none ] && san_flags=(-fsanitize="$sanitize")
case "$libdir" in /*) ;; *) libdir="$prefix/$libdir" ;; esac
root="$tmp/root"
pcdir="$root$libdir/pkgconfig"
[ -f "$pcdir/tir.pc" ] || { echo "FAIL: no tir.pc under $pcdir"; exit 1; }
# The .pc names the real prefix; point it at the DESTDIR copy.
export PKG_CONFIG_PATH="$pcdir"
pc() { pkg-config --define-variable=prefix="$root$prefix" "$@" tir; }
echo "== pkg-config: $(pc --modversion) cflags: $(pc --cflags) libs: $(pc --libs)"

for f in "$root$libdir/libtir.a" "$root$libdir/libtir.so" "$root$prefix/bin/tirc" \
  "$root$prefix/bin/tirrun" "$root$prefix/include/tir/tir.h" "$root$prefix/include/tir/runtime/exec/session.h"; do
  [ -e "$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
soname=$(objdump -p "$root$libdir/libtir.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libtir.so.$(pc --modversion | cut -d. -f1)" ] || { echo "FAIL: SONAME $soname"; exit 1; }
# Only public headers: nothing from kernels' implementations or the importer.
if find "$root$prefix/include" -name '*.cc' -o -path '*importer*' | grep -q .; then
  echo "FAIL: non-public files installed"; exit 1
fi

cd "$tmp"
cc "${san_flags[@]}" -std=c99 -Wall -Wpedantic -Werror -o embed_c "$src/examples/embed_c.c" $(pc --cflags) $(pc --libs)
c++ "${san_flags[@]}" -std=c++20 -o embed_cc "$src/examples/embed.cc" $(pc --cflags) $(pc --libs)
# Static: libtir.a with plain `pkg-config --static --libs` (kernels are registered by explicit
# calls, so the linker pulls every kernel without --whole-archive).
static_libs=$(pc --static --libs | sed -e 's/\(^\| \)-ltir\( \|$\)/ /')
cc "${san_flags[@]}" -std=c99 -o embed_c_static "$src/examples/embed_c.c" $(pc --cflags) "$root$libdir/libtir.a" $static_libs
if ldd ./embed_c_static | grep -q libtir; then echo "FAIL: embed_c_static needs libtir.so"; exit 1; fi

tirc="$root$prefix/bin/tirc"
tirrun="$root$prefix/bin/tirrun"
export LD_LIBRARY_PATH="$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$tirc" import "$src/examples/demo/resnet_small.pt2" -o model.tir --weights model.bin > /dev/null
input="$src/examples/demo/input.npy"
"$tirrun" model.tir --weights model.bin "$input" | grep '^output' > want.txt
[ -s want.txt ] || { echo "FAIL: tirrun printed no output line"; exit 1; }
status=0
for exe in embed_c embed_cc embed_c_static; do
  ./"$exe" model.tir model.bin "$input" > got_$exe.txt
  if diff -u want.txt got_$exe.txt; then
    echo "ok: $exe prints tirrun's outputs: $(cat got_$exe.txt)"
  else
    echo "FAIL: $exe differs from tirrun"; status=1
  fi
done

# No CUDA library in the installed programs and library; the CUDA module found beside them.
for f in "$tirrun" "$root$libdir/libtir.so"; do
  if ldd "$f" | grep -E "libcuda|libcublas"; then echo "FAIL: $f links CUDA"; status=1; fi
done
module="$root$libdir/tir/libtir_cuda.so"
if [ -f "$build/runtime/devices/libtir_cuda.so" ]; then
  [ -f "$module" ] || { echo "FAIL: $module not installed"; exit 1; }
  cat > device.cc <<'CC'
#include <cstdio>
#include "runtime/exec/session.h"
int main(int argc, char** argv) {
  tir::SessionOptions o;
  o.device = "cuda";
  auto s = tir::Session::open(argv[1], argv[2], o);
  std::printf("%s\n", s.ok() ? "ok" : s.status().message().c_str());
}
CC
  c++ "${san_flags[@]}" -std=c++20 -o device_cc device.cc $(pc --cflags) $(pc --libs)
  # A GPU makes the session; without one the module's own error says so.
  for run in "./device_cc model.tir model.bin" "$tirrun model.tir --weights model.bin $input --device cuda"; do
    got=$($run 2>&1 | tail -n 1) || true
    case "$got" in
      ok | output* | *"no usable GPU"*) echo "ok: the installed CUDA module is found: ${run%% *}: $got" ;;
      *) echo "FAIL: ${run%% *} --device cuda: $got"; status=1 ;;
    esac
  done
fi
exit $status
