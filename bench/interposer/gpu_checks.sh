#!/usr/bin/env bash
# The GPU demonstrations of issue 4, run on the H200 from a CI-machine build (build/bin, build/lib).
# Everything lands in $W and is packed into $OUT/checks.tgz plus $OUT/checks.txt (a summary).
# Starts the 10-minute memory run in the background (collected by gpu_collect_long.sh).
set -u
export PYTHONUNBUFFERED=1
SL=$PWD/build/bin/streamlint
W=/tmp/slw; rm -rf $W; mkdir -p $W
S=$OUT/checks.txt
say() { echo "== $*" | tee -a $S; }

if [ "${SL_LONG:-1}" = 1 ]; then
  rm -rf /tmp/long; mkdir -p /tmp/long
  setsid nohup $SL run --out /tmp/long/logs -- python3 examples/runtime/long_run.py --seconds 600 \
    > /tmp/long/out.txt 2>&1 < /dev/null &
fi
say "machine"; { nvidia-smi -L; python3 -c 'import torch,sys; print(torch.__version__, sys.version.split()[0])'; which addr2line; } 2>&1 | tee -a $S

say "1. timing experiment under streamlint run"
EX=$PWD/examples/runtime
( cd $W && $SL run --out $W/timing -- python3 $EX/stream_timing_experiment.py ) 2>&1 | tee -a $S
$SL report $W/timing 2>&1 | tee $W/timing.txt | tee -a $S
$SL report $W/timing --format sarif > $W/timing.sarif 2>/dev/null
$SL report $W/timing --format json --min-blocking-us 0 > $W/timing-all.json 2>/dev/null

say "2. launches recorded vs kernels counted by torch.profiler"
$SL run --out $W/launch -- python3 examples/runtime/launch_count.py 2>&1 | tee $W/launch.out | tail -3 | tee -a $S
win=$(grep '^window:' $W/launch.out | cut -d' ' -f2-)
python3 bench/interposer/slog_stats.py $W/launch --window $win --names > $W/launch-window.json
python3 bench/interposer/slog_stats.py $W/launch > $W/launch-all.json
python3 - $W/launch-window.json <<'PY' | tee -a $S
import json, sys
for p in json.load(open(sys.argv[1])):
    if p["launches"]:
        print(f"streamlint launches in the 10 steps: {p['launches']}  by api: " +
              ", ".join(f"{k}={v}" for k, v in sorted(p['apis'].items()) if 'aunch' in k))
PY
python3 examples/runtime/launch_count.py --profile --names-out $W/profiler-names.json 2>&1 | tail -2 | tee -a $S
python3 - $W/launch-window.json $W/profiler-names.json <<'PY' | tee -a $S
import json, subprocess, sys
ours = {}
for p in json.load(open(sys.argv[1])):
    names = list(p.get("kernel_names", {}).items())
    plain = subprocess.run(["c++filt"], input="\n".join(k for k, _ in names), capture_output=True,
                           text=True).stdout.splitlines()
    for (k, v), d in zip(names, plain):
        ours[d] = ours.get(d, 0) + v
prof = json.load(open(sys.argv[2]))
for k in sorted(set(ours) | set(prof)):
    if ours.get(k, 0) != prof.get(k, 0):
        print(f"differs: streamlint {ours.get(k, 0)} profiler {prof.get(k, 0)}  {k[:150]}")
PY

say "3. torch.profiler under streamlint run keeps its CUDA events"
python3 examples/runtime/profiler_program.py 2>&1 | tail -1 | sed 's/^/without streamlint: /' | tee -a $S
$SL run --out $W/prof -- python3 examples/runtime/profiler_program.py 2>&1 | tee $W/prof.out | tail -4 | sed 's/^/with streamlint: /' | tee -a $S
python3 bench/interposer/slog_stats.py $W/prof > $W/prof-stats.json
grep -h cuptiState -A0 $W/prof-stats.json | tee -a $S

if [ "${SL_BENCH:-0}" = 1 ]; then
  say "5. overhead (interleaved A/B, 10 reps)"
  python3 bench/interposer/run_overhead.py --streamlint $SL --reps 10 --json $W/overhead.json 2>&1 | tee -a $S
fi
say "4. sizes"
du -sh $W/*/ | tee -a $S
tar czf $OUT/checks.tgz -C $W .
