#!/usr/bin/env bash
# Last GPU round: the in-process A/B (README's table), the `gpu`-labelled tests (the commands
# ctest runs), a launch-count log (anchors) and a small log recorded through
# CUDA_INJECTION64_PATH. Results under $OUT.
set -u
export PYTHONUNBUFFERED=1
SL=$PWD/build/bin/streamlint
LIB=$PWD/build/lib/libstreamlint_interposer.so
rm -rf /tmp/ab
timeout ${AB_TIMEOUT:-300} $SL run --out /tmp/ab -- python3 bench/interposer/inprocess_ab.py \
  --reps ${REPS:-40} --profiler-reps ${PREPS:-10} --json $OUT/inprocess_ab.json
stats() { python3 bench/interposer/slog_stats.py $1 | python3 -c "
import json, sys
for p in json.load(sys.stdin):
    print(p['file'], 'launches', p['launches'], 'activities', p['activities'], 'trailer', p['trailer'])"; }
stats /tmp/ab
ls -la /tmp/ab
rm -rf /tmp/lc
$SL run --out /tmp/lc -- python3 examples/runtime/launch_count.py | tail -2
stats /tmp/lc
ls -la /tmp/lc; cp /tmp/lc/*.slog $OUT/h200-launch-count-anchored.slog
T="python3 tests/runtime/runtime_test.py"
ARGS="--streamlint $SL --lib $LIB --bindir $PWD/build/bin"
for t in ${TESTS:-gpu_injection gpu_timing gpu_profiler}; do
  timeout 150 $T $t $ARGS 2>&1 | tail -20; echo "runtime.$t exit=${PIPESTATUS[0]} (0 pass, 1 fail, 77 skip)"
done
rm -rf /tmp/inj
CUDA_INJECTION64_PATH=$LIB SL_OUT_DIR=/tmp/inj python3 -c "
import torch
x = torch.ones(1 << 20, device='cuda')
for _ in range(10):
    x = x * 1.0001
torch.cuda.synchronize()
print(float(x[0]))"
cp /tmp/inj/*.slog $OUT/h200-injection.slog && $SL report /tmp/inj
stats /tmp/inj
