#!/usr/bin/env bash
# One H200 round of the overhead study: machine and clock facts, the recorder variants
# (knobs_ab.py, build/exp = -DSL_INTERPOSER_KNOBS=ON), then the `gpu` tests of the regular build.
# Results: $OUT/summary.txt, $OUT/knobs.json.
set -u
export PYTHONUNBUFFERED=1
S=$OUT/summary.txt
say() { echo "== $*" | tee -a $S; }
say machine
{ nvidia-smi -L; nproc; grep -m1 'model name' /proc/cpuinfo
  cat /sys/devices/system/clocksource/clocksource0/current_clocksource /sys/devices/system/clocksource/clocksource0/available_clocksource
  grep -o -w 'constant_tsc\|nonstop_tsc\|tsc_known_freq\|tsc_reliable' /proc/cpuinfo | sort | uniq -c
  python3 -c 'import torch,sys; print(torch.__version__, sys.version.split()[0])'; } 2>&1 | tee -a $S
say clocks
build/exp/bin/clockbench 2>&1 | tee -a $S
say "recorder variants (knobs_ab.py)"
rm -rf /tmp/k
LD_PRELOAD=$PWD/build/exp/lib/libstreamlint_interposer.so SL_OUT_DIR=/tmp/k \
  timeout 240 python3 bench/interposer/knobs_ab.py --reps ${REPS:-16} --json $OUT/knobs.json 2>&1 | tee -a $S
say "gpu tests (regular build)"
ARGS="--streamlint $PWD/build/bin/streamlint --lib $PWD/build/lib/libstreamlint_interposer.so --bindir $PWD/build/bin"
for t in ${TESTS:-gpu_injection gpu_timing gpu_profiler}; do
  timeout 120 python3 tests/runtime/runtime_test.py $t $ARGS 2>&1 | tail -20 | tee -a $S
  echo "runtime.$t exit=${PIPESTATUS[0]} (0 pass, 1 fail, 77 skip)" | tee -a $S
done
