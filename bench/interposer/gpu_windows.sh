#!/usr/bin/env bash
# GPU round for sampled GPU timing (bench/interposer/README.md, "Sampled GPU timing"). From the
# repository root on the GPU machine, with build/bin/streamlint and build/lib carried over:
#   PART=checks bash bench/interposer/gpu_windows.sh   # gpu tests, window accounting, fixture
#   PART=ab bash bench/interposer/gpu_windows.sh                   # the in-process A/B
#   PART=both FIXTURE=0 ...                                          # both, no fixture
# Results under $OUT.
set -u
export PYTHONUNBUFFERED=1
SL=$PWD/build/bin/streamlint
LIB=$PWD/build/lib/libstreamlint_interposer.so
stats() { python3 bench/interposer/slog_stats.py "$1" | python3 -c "
import json, sys
for p in json.load(sys.stdin):
    keys = ['launches', 'launches_timed', 'windows', 'timed_s', 'switch_us', 'activities']
    print(p['file'], {k: p.get(k) for k in keys}, 'trailer', p['trailer'])"; }

if [ "${PART:-checks}" != ab ]; then
  T="python3 tests/runtime/runtime_test.py"
  ARGS="--streamlint $SL --lib $LIB --bindir $PWD/build/bin"
  for t in gpu_sampled gpu_native_sites gpu_graph_capture gpu_timing gpu_profiler gpu_injection; do
    timeout 150 $T $t $ARGS > $OUT/test-$t.txt 2>&1; echo "runtime.$t exit=$? (0 pass, 1 fail, 77 skip)"
    tail -3 $OUT/test-$t.txt
  done
  # Window accounting on torch's launch paths (ATen, cuBLAS, Triton), default schedule and a
  # short one: launches begun inside windows vs kernels CUPTI timed.
  for s in default 20ms/100ms; do
    rm -rf /tmp/lc; opt=(); [ $s != default ] && opt=(--gpu-sample $s --gpu-first 0)
    $SL run --out /tmp/lc "${opt[@]}" -- python3 examples/runtime/launch_count.py | tail -1
    echo "launch_count, schedule $s:"; stats /tmp/lc
  done
  # Fixture (FIXTURE=1): the seed overlap program, sampled with short windows (small log for CI).
  if [ "${FIXTURE:-1}" = 1 ]; then
    rm -rf /tmp/fx
    $SL run --out /tmp/fx --gpu-sample 10ms/40ms --gpu-first 0 -- python3 \
      examples/overlap/python/train_overlap.py --variant seed --layers 2 --steps 40
    stats /tmp/fx; ls -la /tmp/fx; cp /tmp/fx/*.slog $OUT/python-seed-sampled.slog
    $SL report /tmp/fx examples/overlap/python > $OUT/python-seed-sampled.txt 2>&1; head -40 $OUT/python-seed-sampled.txt
  fi
fi

if [ "${PART:-checks}" != checks ]; then
  rm -rf /tmp/ab
  # SAMPLE/BLOCK: the default duty (100 ms of every 2 s) on a 10x shorter period, so that a
  # sampled block (one period) is 0.19 s and 60 repetitions fit in two minutes; set
  # SAMPLE=100ms/2s BLOCK=1.9 for the default period itself.
  timeout ${AB_TIMEOUT:-560} $SL run --out /tmp/ab --gpu-sample ${SAMPLE:-10ms/200ms} -- python3 \
    bench/interposer/inprocess_ab.py --reps ${REPS:-60} --profiler-reps ${PREPS:-10} \
    --block-s ${BLOCK:-0.19} --fine-rounds ${FINE:-250} --json $OUT/inprocess_ab.json
  stats /tmp/ab
fi
