#!/usr/bin/env bash
# GPU round for LibTorch call sites (bench/interposer/README.md, "LibTorch call sites"). From the
# repository root on the GPU machine, with build/bin/streamlint and build/lib carried over:
#   bash bench/interposer/gpu_libtorch.sh
# Builds examples/overlap/libtorch and bench/interposer/libtorch once (torch's CMake config), runs
# the `gpu` test runtime.gpu_libtorch_sites on that build, records the examples (logs, reports and
# binaries under $OUT: the fixtures of report.pairing.libtorch_example), and prices the stack scan:
# the in-process A/B with the scan on and off (SL_STACK_SCAN=0).
set -u
SL=$PWD/build/bin/streamlint
LIB=$PWD/build/lib/libstreamlint_interposer.so
OUT=${OUT:-/tmp/gpu-libtorch}
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
torch_lib=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
build() {  # build SRC DIR
  { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" &&
    cmake --build "$2" -j "$(nproc)"; } > "$2.log" 2>&1 || { echo "!! build of $1 failed"; tail -20 "$2.log"; }
}
build examples/overlap/libtorch /tmp/ltex & build bench/interposer/libtorch /tmp/ltb & wait
export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

SL_LIBTORCH_EXAMPLES=/tmp/ltex timeout 300 python3 tests/runtime/runtime_test.py gpu_libtorch_sites \
  --streamlint "$SL" --lib "$LIB" --bindir "$PWD/build/bin" > "$OUT/test-gpu_libtorch_sites.txt" 2>&1
echo "runtime.gpu_libtorch_sites exit=$? (0 pass, 1 fail, 77 skip)"; tail -5 "$OUT/test-gpu_libtorch_sites.txt"

for v in bad fixed; do
  rm -rf "/tmp/fx-$v"
  "$SL" run --gpu-timing always --out "/tmp/fx-$v" -- "/tmp/ltex/overlap_$v"
  cp /tmp/fx-$v/*.slog "$OUT/libtorch-$v.slog"
  cp "/tmp/ltex/overlap_$v" "$OUT/"
  "$SL" report "/tmp/fx-$v" --min-blocking-us 0 > "$OUT/libtorch-$v.txt" 2>&1; head -30 "$OUT/libtorch-$v.txt"
done
ls -la "$OUT"

for scan in 1 0; do
  echo "== stack scan $scan"
  rm -rf /tmp/ab
  SL_STACK_SCAN=$scan "$SL" run --out /tmp/ab -- /tmp/ltb/libtorch_ab "${ROUNDS:-200}"
  python3 bench/interposer/slog_stats.py /tmp/ab | grep -A3 '"launches"' | head -4
done
