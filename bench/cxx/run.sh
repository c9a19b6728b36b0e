#!/usr/bin/env bash
# Speed of the C++ frontend, measured against peers in the same run (no timing is asserted).
#  1. One LibTorch TU: `streamlint check` vs `clang++-19 -fsyntax-only` with the identical
#     command line (the plugin prints it with STREAMLINT_PRINT_COMMANDS=1). Target <= 1.10x.
#  2. Eight TUs (launcher.cu, c10/ATen CUDA headers): `streamlint check -j 2` vs `-j 1`.
#     Target >= 1.8x speed-up.
# Runs are interleaved A/B and the median is reported (the machines are noisy).
# Usage: bench/cxx/run.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
export STREAMLINT_NO_CACHE=1  # time analyses, not the result cache (C/C++ runs are not cached today)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
reps=${2:-5}
sl="$build/bin/streamlint"
libtorch=${LIBTORCH:-$root/.deps/libtorch-headers}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# --- 1. one LibTorch TU ---------------------------------------------------------------------
cp "$here/torch_ext.cu" "$tmp/torch_ext.cu"
STREAMLINT_PRINT_COMMANDS=1 "$sl" check -q -j 1 --libtorch "$libtorch" "$tmp/torch_ext.cu" \
  >/dev/null 2>"$tmp/cmd.txt" || true
cmd=$(grep '^streamlint: ' "$tmp/cmd.txt" | head -1 | sed 's/^streamlint: //')
[ -n "$cmd" ] || { echo "could not get the command line:"; cat "$tmp/cmd.txt"; exit 1; }
# The plugin serves CUDA 13's missing texture_fetch_functions.h from memory; clang++ needs a file.
mkdir -p "$tmp/shim" && : >"$tmp/shim/texture_fetch_functions.h"
cmd=${cmd//\/__streamlint__\/cuda-shim/$tmp/shim}
read -r -a argv <<<"$cmd"
argv[0]=clang++-19
echo "clang: ${argv[*]}"
"${argv[@]}" || { echo "clang++-19 failed on the same flags"; exit 1; }

: >"$tmp/a"; : >"$tmp/b"
for i in $(seq "$reps"); do
  t0=$(now); "$sl" check -q -j 1 --libtorch "$libtorch" "$tmp/torch_ext.cu" >/dev/null || [ $? -eq 1 ]; t1=$(now)
  "${argv[@]}"; t2=$(now)
  echo "$t1 - $t0" | bc >>"$tmp/a"
  echo "$t2 - $t1" | bc >>"$tmp/b"
done
a=$(median <"$tmp/a"); b=$(median <"$tmp/b")
echo "libtorch TU: streamlint ${a}s, clang++-19 -fsyntax-only ${b}s, ratio $(echo "scale=3; $a / $b" | bc) (target <= 1.10)"

# --- 2. eight TUs, -j 2 vs -j 1 --------------------------------------------------------------
mkdir -p "$tmp/tus"
for i in $(seq 1 8); do
  sed "s/scale/scale_$i/g" "$here/launcher.cu" >"$tmp/tus/ext_$i.cu"
done
: >"$tmp/j1"; : >"$tmp/j2"
for i in $(seq "$reps"); do
  t0=$(now); "$sl" check -q -j 1 --libtorch "$libtorch" "$tmp/tus" >/dev/null || [ $? -eq 1 ]; t1=$(now)
  "$sl" check -q -j 2 --libtorch "$libtorch" "$tmp/tus" >/dev/null || [ $? -eq 1 ]; t2=$(now)
  echo "$t1 - $t0" | bc >>"$tmp/j1"
  echo "$t2 - $t1" | bc >>"$tmp/j2"
done
j1=$(median <"$tmp/j1"); j2=$(median <"$tmp/j2")
echo "8 TUs on $(nproc) cores: -j 1 ${j1}s, -j 2 ${j2}s, speed-up $(echo "scale=3; $j1 / $j2" | bc) (target >= 1.8)"
