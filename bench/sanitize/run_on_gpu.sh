#!/bin/bash
# SL904 on the GPU machine: records the race examples with `streamlint run --sanitize`, reports
# them, runs PyTorch's CUDA sanitizer on the Python ones, runs the correct side-stream training
# loop for STEPS steps under --sanitize, and times it without the recorder, with the default
# recorder and with --sanitize (interleaved, REPS rounds). Everything goes under $OUT.
#   DIR=<folder with bin/ lib/ share/ examples/> STEPS=2000 REPS=3 bash run_on_gpu.sh
set -u
D=$(realpath ${DIR:-.})
SL=$D/bin/streamlint
O=${OUT:-/tmp/sl-out}
L=/tmp/sl-logs  # logs and outputs, returned as one tarball ($OUT returns 8 files at most)
mkdir -p $L/logs
log() { echo "[$(date +%T)] $*" | tee -a $O/progress.txt; }
# `streamlint run --sanitize --out DIR -- CMD` where the binary is there; the same environment
# by hand where only the recorder travelled.
record() {
  local out=$1; shift
  if [ -x $SL ]; then $SL run --sanitize --out $out -- "$@"; return; fi
  mkdir -p $out
  SL_OUT_DIR=$out SL_SANITIZE=1 SL_RING_KB=4096 PYTHONPATH=$(realpath $D/share/streamlint/python) \
    LD_PRELOAD=$(realpath $D/lib/libstreamlint_interposer.so) "$@"
}
report() { [ -x $SL ] && timeout 200 $SL report "$@"; }
log "start; nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
nvcc -g -O0 -cudart shared -o /tmp/bad_cu $D/examples/races/bad/missing_event_wait.cu && \
nvcc -g -O0 -cudart shared -DFIXED -o /tmp/good_cu $D/examples/races/bad/missing_event_wait.cu || log "nvcc failed"
for kind in bad fixed; do
  for ex in missing_wait missing_join missing_record_stream collective_without_wait; do
    log "record $kind/$ex"
    record $L/logs/$kind-$ex timeout 120 python $D/examples/races/$kind/$ex.py > $L/logs/$kind-$ex.out 2>&1
    report $L/logs/$kind-$ex >> $L/logs/$kind-$ex.out 2>&1
    log "  rc $? SL904: $(grep -c '\[SL904\]' $L/logs/$kind-$ex.out)"
    [ -n "${NOCSAN:-}" ] && continue
    case $ex in ${CSAN_MATCH:-*}) ;; *) continue ;; esac
    log "CSAN $kind/$ex"
    TORCH_CUDA_SANITIZER=1 timeout 300 python $D/examples/races/$kind/$ex.py > $L/logs/csan-$kind-$ex.out 2>&1
    log "  rc $? CSAN errors: $(grep -c 'CSAN detected' $L/logs/csan-$kind-$ex.out)"
  done
done
for kind in bad good; do
  log "record cuda $kind"
  (cd /tmp && record $L/logs/cuda-$kind timeout 60 /tmp/${kind}_cu) > $L/logs/cuda-$kind.out 2>&1
  report $L/logs/cuda-$kind >> $L/logs/cuda-$kind.out 2>&1
  log "  SL904: $(grep -c '\[SL904\]' $L/logs/cuda-$kind.out)"
done
python - <<'PY' > $L/logs/trace_probe.out 2>&1
import time, torch
torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1000)
t0 = time.time_ns(); x = torch.empty(1 << 20, device="cuda"); t1 = time.time_ns()
e = [e for e in torch.cuda.memory._snapshot()["device_traces"][0] if e["action"] == "alloc"][-1]
print({k: v for k, v in e.items() if k != "frames"}, "host realtime us", t0 // 1000, t1 // 1000)
PY
log "probe: $(cat $L/logs/trace_probe.out | tail -1)"
log "short training loop (${SHORT:-30} steps) for the fixtures"
record $L/logs/train-short timeout 120 python $D/examples/races/fixed/side_stream_training.py --steps ${SHORT:-30} > $L/logs/train-short.out 2>&1
report $L/logs/train-short >> $L/logs/train-short.out 2>&1
cp /tmp/bad_cu /tmp/good_cu $L/logs/ 2>/dev/null  # the CUDA logs' binaries, for --symbols
tar czf $O/logs.tgz -C $L logs
[ -n "${QUICK:-}" ] && { log "quick: done"; exit 0; }
if [ -x $SL ] && [ -f $D/tests/runtime/race_test.py ]; then
  log "ctest's gpu case: race_test.py gpu_examples"
  timeout 300 python $D/tests/runtime/race_test.py gpu_examples --streamlint $SL > $O/gpu_races.txt 2>&1
  log "  rc $? $(tail -1 $O/gpu_races.txt)"
fi
log "CSAN on the training loop (50 steps)"
[ -z "${NOCSAN:-}" ] && TORCH_CUDA_SANITIZER=1 timeout 120 python $D/examples/races/fixed/side_stream_training.py --steps 50 > $O/csan_train.txt 2>&1
log "  rc $? CSAN errors: $(grep -c 'CSAN detected' $O/csan_train.txt 2>/dev/null)"
log "training loop ${STEPS:-2000} steps under --sanitize"
T=$D/examples/races/fixed/side_stream_training.py
record /tmp/train-san timeout 300 python $T --steps ${STEPS:-2000} > $O/train.out 2>&1
log "  rc $?; log bytes $(du -sb /tmp/train-san | cut -f1)"
( time timeout 200 $SL report /tmp/train-san ) >> $O/train.out 2>&1
log "  report rc $? SL904: $(grep -c '\[SL904\]' $O/train.out)"
# Overhead, interleaved rounds: host recording alone (GPU timing off) and with the default
# sampled GPU timing past its first window (--gpu-first 100ms), with and without --sanitize.
for r in $(seq ${REPS:-3}); do
  for mode in plain off sanitize-off sampled sanitize-sampled; do
    case $mode in
      plain) timeout 120 python $T --steps 400 --time ;;
      off) timeout 120 $SL run --gpu-timing off --out /tmp/ov-$r-$mode -- python $T --steps 400 --time ;;
      sanitize-off) timeout 120 $SL run --sanitize --gpu-timing off --out /tmp/ov-$r-$mode -- python $T --steps 400 --time ;;
      sampled) timeout 120 $SL run --gpu-first 100ms --out /tmp/ov-$r-$mode -- python $T --steps 400 --time ;;
      sanitize-sampled) timeout 120 $SL run --sanitize --gpu-first 100ms --out /tmp/ov-$r-$mode -- python $T --steps 400 --time ;;
    esac 2>&1 | grep "mean step" | sed "s/^/$mode round $r: /" | tee -a $O/overhead.txt
  done
done
log "done"
