#!/usr/bin/env bash
# Last GPU round: the `gpu`-labelled tests (the commands ctest runs) and the in-process A/B.
set -u
export PYTHONUNBUFFERED=1
SL=$PWD/build/bin/streamlint
T="python3 tests/runtime/runtime_test.py"
ARGS="--streamlint $SL --lib $PWD/build/lib/libstreamlint_interposer.so --bindir $PWD/build/bin"
for t in gpu_timing gpu_profiler; do $T $t $ARGS; echo "runtime.$t exit=$? (0 pass, 1 fail, 77 skip)"; done
rm -rf /tmp/ab
$SL run --out /tmp/ab -- python3 bench/interposer/inprocess_ab.py --reps 12 --json $OUT/inprocess_ab.json
python3 bench/interposer/slog_stats.py /tmp/ab | grep -A8 trailer
ls -la /tmp/ab
