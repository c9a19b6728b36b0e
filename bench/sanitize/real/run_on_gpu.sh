#!/bin/bash
# The real-library programs of bench/sanitize/real on the GPU machine. Everything the device tool
# carried is under D (bin/streamlint, lib/, share/, bench/sanitize/real/): set D, PHASE, STEPS.
#   PHASE=smoke : every program and mutant, STEPS steps, --sanitize, 6 at a time; who calls the
#                 stream methods in FSDP2 (--census)
#   PHASE=full  : correct programs STEPS (>= 200) steps under --sanitize and the default recorder,
#                 mutants, short recordings for the fixtures, CSAN, then REPS interleaved overhead rounds.
#   PHASE=verify : the correct programs and mutants again, old and new reports, fixtures, CSAN
#                 (below), then overhead rounds with OVERHEAD=1.
#   PHASE=overhead : only the overhead rounds (below).
#   PHASE=parts : what each part of the recorder costs, in process (below).
# Logs and outputs go to /tmp/sl and come back as tarballs in $OUT; progress in $OUT/progress.txt.
set -u
T0=$(date +%s)  # DEADLINE counts from here
D=$(realpath ${D:-.dev34}); SL=$D/bin/streamlint; P=$D/bench/sanitize/real
O=${OUT:-/tmp/sl-out}; L=/tmp/sl; mkdir -p $L $O
# 200 steps of the GPT-2 make ~1M allocator events: a larger trace ring, so no block is unknown
export SL_SANITIZE_BLOCKS=${SL_SANITIZE_BLOCKS:-4000000}
export PYTHONUNBUFFERED=1 D SL P O L
log() { echo "[$(date +%T)] $*" | tee -a $O/progress.txt; }
export -f log
# name | script and flags. One program per line; the mutants follow.
cat > $L/programs <<'X'
fsdp2-r1-o0 fsdp2.py --reshard 1 --offload 0
fsdp2-r0-o0 fsdp2.py --reshard 0 --offload 0
fsdp2-r1-o1 fsdp2.py --reshard 1 --offload 1
fsdp2-r0-o1 fsdp2.py --reshard 0 --offload 1
ddp ddp.py
ddp-hook ddp.py --hook allreduce
save_on_cpu save_on_cpu.py
gpt2 gpt2_ckpt.py
lightning lightning_fit.py
1f1b pipeline_1f1b.py
fsdp2-fw2-r1 fsdp2.py --reshard 1 --offload 0 --fake-world 2
fsdp2-fw2-r0 fsdp2.py --reshard 0 --offload 0 --fake-world 2
X
cat > $L/mutants <<'X'
fsdp2-r1-o0-M-no-allgather-wait fsdp2.py --reshard 1 --offload 0 --mutant no-allgather-wait
fsdp2-r1-o0-M-no-allgather-wait-event fsdp2.py --reshard 1 --offload 0 --mutant no-allgather-wait-event
fsdp2-r1-o0-M-no-reduce-scatter-wait fsdp2.py --reshard 1 --offload 0 --mutant no-reduce-scatter-wait
fsdp2-r0-o1-M-no-allgather-wait fsdp2.py --reshard 0 --offload 1 --mutant no-allgather-wait
fsdp2-r0-o1-M-no-reduce-scatter-wait fsdp2.py --reshard 0 --offload 1 --mutant no-reduce-scatter-wait
fsdp2-r1-o0-M-no-copy-in-wait fsdp2.py --reshard 1 --offload 0 --mutant no-copy-in-wait
ddp-M-future-without-events ddp.py --mutant future-without-events
save_on_cpu-M-no-batch-wait save_on_cpu.py --mutant no-batch-wait
save_on_cpu-M-no-batch-record-stream save_on_cpu.py --mutant no-batch-record-stream
gpt2-M-no-batch-record-stream gpt2_ckpt.py --mutant no-batch-record-stream
gpt2-M-no-batch-wait gpt2_ckpt.py --mutant no-batch-wait
lightning-M-no-side-wait lightning_fit.py --mutant no-side-wait
lightning-M-no-side-join lightning_fit.py --mutant no-side-join
lightning-M-no-side-record-stream lightning_fit.py --mutant no-side-record-stream
1f1b-M-no-act-wait pipeline_1f1b.py --mutant no-act-wait
1f1b-M-no-grad-wait pipeline_1f1b.py --mutant no-grad-wait
1f1b-M-no-act-record-stream pipeline_1f1b.py --mutant no-act-record-stream
1f1b-M-no-grad-record-stream pipeline_1f1b.py --mutant no-grad-record-stream
1f1b-M-no-optimizer-join pipeline_1f1b.py --mutant no-optimizer-join
fsdp2-fw2-r1-M-no-allgather-wait fsdp2.py --reshard 1 --offload 0 --fake-world 2 --mutant no-allgather-wait
fsdp2-fw2-r1-M-no-allgather-wait-event fsdp2.py --reshard 1 --offload 0 --fake-world 2 --mutant no-allgather-wait-event
fsdp2-fw2-r1-M-no-copy-in-wait fsdp2.py --reshard 1 --offload 0 --fake-world 2 --mutant no-copy-in-wait
fsdp2-fw2-r1-M-no-allgather-streams-wait fsdp2.py --reshard 1 --offload 0 --fake-world 2 --mutant no-allgather-streams-wait
fsdp2-fw2-r0-M-no-allgather-streams-wait fsdp2.py --reshard 0 --offload 0 --fake-world 2 --mutant no-allgather-streams-wait
X
# job NAME STEPS MODE SCRIPT ARGS...: MODE sanitize | record (default recorder) | csan
job() {
  local name=$1 steps=$2 mode=$3; shift 3
  local out=$L/$mode-$name
  case $mode in
    sanitize) timeout ${TMO:-400} $SL run --sanitize --out $out -- python3 $P/"$@" --steps $steps ;;
    record) timeout ${TMO:-400} $SL run --out $out -- python3 $P/"$@" --steps $steps ;;
    csan) TORCH_CUDA_SANITIZER=1 timeout ${TMO:-400} python3 $P/"$@" --steps $steps --time ;;
  esac > $out.out 2>&1
  local rc=$?
  if [ $mode = csan ]; then
    log "$mode $name rc $rc CSAN errors $(grep -c 'CSAN detected' $out.out) $(grep -m1 'mean step' $out.out) $(grep -m1 -E 'Error|error' $out.out | cut -c1-150)"
    return
  fi
  timeout 300 $SL report $out --format json > $out.json 2> $out.err
  timeout 300 $SL report $out > $out.txt 2>&1
  log "$mode $name rc $rc steps $steps log $(du -sb $out | cut -f1) B; $(grep -h 'mutant\|NEVER' $out.out | head -2 | tr '\n' ' ')"
  python3 $P/summarize.py $mode-$name $out.json $out.err >> $O/summary.txt
}
export -f job
# many NAME STEPS MODE PARALLEL < list
many() { while read -r name args; do echo "$name $2 $3 $args"; done | xargs -P $4 -L 1 bash -c 'job "$@"' _ ; }
log "start $PHASE; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); torch $(python3 -c 'import torch,transformers;print(torch.__version__, transformers.__version__)' 2>&1 | tail -1)"
if [ $PHASE = smoke ]; then
  many x ${STEPS:-20} sanitize 6 < $L/programs
  many x ${STEPS:-20} sanitize 6 < $L/mutants
  timeout 300 $SL run --sanitize --out $L/census -- python3 $P/fsdp2.py --reshard 1 --offload 1 --census --steps 3 > $L/census.out 2>&1
  grep -h census $L/census.out | sort | uniq > $O/census.txt
  tar czf $O/outputs.tgz -C $L --exclude='*.slog' .
  tar czf $O/logs-correct.tgz -C $L $(cd $L && ls -d sanitize-* | grep -v -- -M-)
  log "smoke done"; exit 0
fi
# Fixtures: FIXSTEPS-step recordings of each correct program and of the mutants named in FIXMUT.
fixtures() {
  mkdir -p $L/fix
  (grep -v -- -M- $L/programs; for m in ${FIXMUT:-}; do grep "^$m " $L/mutants; done) | sed 's/^/fix-/' | many x ${FIXSTEPS:-4} sanitize ${MPAR:-6}
  (cd $L && find sanitize-fix-* -name '*.slog' -size -4M | tar czf $O/fixtures.tgz -T -)
  log "fixtures: $(du -sb $O/fixtures.tgz | cut -f1) B"
}
save() { tar czf $O/outputs.tgz -C $L --exclude='*.slog' . ; cp $L/census.out $O/ 2>/dev/null; }
if [ $PHASE = full ]; then
  # in order of what matters most, saved after each part (a run cut short still tells)
  (timeout 200 $SL run --sanitize --out $L/census -- python3 $P/fsdp2.py --reshard 1 --offload 0 --census --steps 3 \
     > $L/census.out 2>&1 &)
  many x $STEPS sanitize ${PAR:-5} < $L/programs; save
  log "SL904 on the correct programs: $(grep -c '^  ' $O/summary.txt) findings"
  bad=$(grep -E '^sanitize-[^ ]*: SL904 [1-9]' $O/summary.txt | cut -d: -f1)  # false alarms: their logs come back
  [ -n "$bad" ] && (cd $L && find $bad -name '*.slog' | tar czf $O/falsealarm.tgz -T -)
  many x ${MSTEPS:-20} sanitize ${MPAR:-6} < $L/mutants; save
  fixtures; save
  (grep -v -- -M- $L/programs; grep -- -M- $L/mutants | awk '!seen[$2]++') | many x ${CSTEPS:-10} csan 8; save
  many x $STEPS record ${PAR:-5} < $L/programs; save
  log "full done"
  [ -n "${OVERHEAD:-}" ] || exit 0
  STEPS=${OSTEPS:-100}  # then the overhead rounds below, as far as the call's time goes
fi
# Re-verification (PHASE=verify): the correct programs (STEPS steps) and the mutants (MSTEPS) under
# --sanitize, reported by this bin/streamlint (and bin/streamlint-old when there: the reports
# before the fix, *.old.json); FIXSTEPS-step recordings of FIXONLY (names of either list) for the
# fixtures; CSAN on CSANLIST; the logs of BRING (names) come back gzipped.
if [ $PHASE = verify ]; then
  (timeout 200 $SL run --sanitize --out $L/census-fw2 -- python3 $P/fsdp2.py --reshard 1 --offload 0 --fake-world 2 --census --steps 3 \
     > $L/census-fw2.out 2>&1; grep -h 'census\|Error' $L/census-fw2.out | sort | uniq > $L/census-fw2.txt) &
  many x $STEPS sanitize ${PAR:-6} < $L/programs; save
  # the mutants and CSAN side by side (neither is timed)
  many x ${MSTEPS:-20} sanitize ${MPAR:-6} < $L/mutants &
  for m in ${CSANLIST:-}; do grep -h "^$m " $L/programs $L/mutants; done | many x ${CSTEPS:-10} csan ${CPAR:-6}
  wait; save
  if [ -x $D/bin/streamlint-old ]; then
    ls -d $L/sanitize-* | grep -v '\.' | xargs -P 12 -I{} sh -c "timeout 120 $D/bin/streamlint-old report {} --format json > {}.old.json 2>/dev/null"
    for d in $L/sanitize-*.old.json; do python3 $P/summarize.py "old-$(basename $d .old.json)" $d /dev/null; done >> $O/summary.txt
  fi
  save
  mkdir -p $L/fix
  for m in ${FIXONLY:-}; do grep -h "^$m " $L/programs $L/mutants; done | sed 's/^/fix-/' | many x ${FIXSTEPS:-4} sanitize 8
  (cd $L && find sanitize-fix-* -name '*.slog' -size -4M | tar czf $O/fixtures.tgz -T -)
  (cd $L && for n in ${BRING:-}; do find sanitize-$n -name '*.slog'; done | tar czf $O/logs.tgz -T -)
  log "fixtures and logs: $(du -sb $O/fixtures.tgz $O/logs.tgz | cut -f1 | tr '\n' ' ')"
  save
  log "verify done"
  [ -n "${OVERHEAD:-}" ] || exit 0
  STEPS=${OSTEPS:-100}
fi
# Per-part cost (PHASE=parts): each program of OVER runs under `run` (arms ARMS) and under
# `run --sanitize` (SARMS), once per recorder library of LIBS (file names in $D/lib, given to
# `run` through SL_INTERPOSER; NAME=ARMS gives that library its own arms in both modes, e.g. an
# older library that knows no part flags; the order alternates between programs), past the first
# GPU-timing window (--gpu-first 100ms). StepTimer's --ab-arms prints one line per arm (paused
# blocks between arms; arm 0 = the A/A control); ROUNDS rounds, KB: steps per block, per program,
# for blocks of ~50 ms; PMODES: the modes (record sanitize). logcount.py says what each log
# holds. REPS repeats the whole. Programs run in the order of OVER.
if [ $PHASE = parts ]; then
  declare -A KB=([fsdp2-r1-o0]=4 [ddp]=8 [save_on_cpu]=5 [gpt2]=2 [lightning]=16 [1f1b]=6)
  libs=(${LIBS:-libstreamlint_interposer.so}); flip=0
  # per call, by part, with the last library (parts_cost.py): an idle stream's sync shows the backtrace
  cudart=${CUDART:-$(ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -1)}
  SL_INTERPOSER=$D/lib/${libs[-1]%%=*} timeout 120 $SL run --out $L/pc -- python3 $P/parts_cost.py $cudart \
    < /dev/null 2>&1 | grep depth >> $O/parts_cost.txt
  for r in $(seq ${REPS:-1}); do
    for name in ${OVER:-save_on_cpu gpt2 lightning 1f1b ddp fsdp2-r1-o0}; do
      args=$(grep "^$name " $L/programs | cut -d' ' -f2-); [ -n "$args" ] || continue
      order="${libs[*]}"; [ $flip = 1 ] && order=$(printf '%s\n' "${libs[@]}" | tac | tr '\n' ' '); flip=$((1 - flip))
      for spec in $order; do
        lib=${spec%%=*}
        for mode in ${PMODES:-record sanitize}; do
          [ $(( $(date +%s) - T0 )) -lt ${DEADLINE:-100000} ] || { log "deadline: stop"; break 4; }
          if [ $mode = sanitize ]; then flag=--sanitize arms=${SARMS:-0,1,2,3,66,114}; else flag= arms=${ARMS:-0,1,2,3,18,50}; fi
          [ "$spec" != "$lib" ] && arms=${spec#*=}
          out=$L/pt-$r-$name-$mode-$lib; t0=$(date +%s.%N)
          SL_INTERPOSER=$D/lib/$lib timeout ${TMO:-200} $SL run $flag --gpu-first 100ms --out $out -- python3 $P/$args \
            --ab ${KB[$name]:-5} --ab-arms $arms --ab-rounds ${ROUNDS:-25} < /dev/null > $out.out 2>&1
          rc=$?
          grep "^ab arm" $out.out | sed "s/^/$name $mode $lib round $r: /" >> $O/parts.txt
          grep -q "^ab arm" $out.out || { echo "$name $mode $lib round $r: rc $rc, no arms" >> $O/parts.txt; tail -5 $out.out >> $O/parts.txt; }
          timeout 120 python3 $P/logcount.py "$name $mode $lib $r" $out >> $O/logcount.txt 2>&1
          log "parts $name $mode $lib rc $rc wall $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
          rm -rf $out
        done
      done
    done
  done
  log "parts done"; exit 0
fi
# Overhead (PHASE=overhead, or after PHASE=full with OVERHEAD=1): REPS rounds; in each, every
# program (OVER: a subset) runs once in each mode of MODES, one run at a time (nothing else on the
# GPU), the modes' order rotated from round to round. `--time` prints the mean step time of the
# second half of STEPS steps. Modes: plain, record and sanitize (`run`, `run --sanitize`), their
# -f (--gpu-first 100ms) and -off (--gpu-timing off) forms, csan = TORCH_CUDA_SANITIZER=1 (CSTEPS
# steps: it is much slower).
# No run starts DEADLINE seconds after the script's start, so what was measured comes back.
# Rounds are numbered from R0 + 1 (a later call goes on with the rotation).
MODES=${MODES:-plain record sanitize}
ABSTEPS=${ABSTEPS:-210}
for r in $(seq $(( ${R0:-0} + 1 )) $(( ${R0:-0} + ${REPS:-3} ))); do
  set -- $MODES
  for k in $(seq $(( (r - 1) % $# ))); do set -- "${@:2}" "$1"; done  # rotate
  order="$*"
  while read -r name args; do
    case " ${OVER:-${name/fsdp2-fw*/-}} " in *" $name "*) ;; *) continue ;; esac
    for mode in $order; do
      [ $(( $(date +%s) - T0 )) -lt ${DEADLINE:-100000} ] || { log "deadline: stop"; break 3; }
      case " ${CSAN_SKIP:-gpt2 lightning} " in *" $name "*) [ $mode = csan ] && continue ;; esac
      t0=$(date +%s.%N)
      case $mode in
        plain) timeout 200 python3 $P/$args --steps $STEPS --time ;;
        record) timeout 200 $SL run --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        sanitize) timeout 200 $SL run --sanitize --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        # past the default's first GPU-timing window (10 s: a short run is timed throughout), as
        # a long run spends nearly all its time; -off: host calls only
        record-f) timeout 200 $SL run --gpu-first 100ms --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        sanitize-f) timeout 200 $SL run --sanitize --gpu-first 100ms --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        record-off) timeout 200 $SL run --gpu-timing off --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        sanitize-off) timeout 200 $SL run --sanitize --gpu-timing off --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $STEPS --time ;;
        # in-process: recording paused / on in blocks of 5 steps (common.StepTimer, --ab)
        ab-record) timeout 200 $SL run --gpu-first 100ms --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $ABSTEPS --ab 5 ;;
        ab-sanitize) timeout 200 $SL run --sanitize --gpu-first 100ms --out $L/ov-$r-$name-$mode -- python3 $P/$args --steps $ABSTEPS --ab 5 ;;
        csan) TORCH_CUDA_SANITIZER=1 timeout 300 python3 $P/$args --steps ${CSTEPS:-$STEPS} --time ;;
      esac < /dev/null > $L/ov.out 2>&1
      grep "mean step\|^ab recording" $L/ov.out | sed "s/^/$name $mode round $r: /" >> $O/overhead.txt
      grep -q "mean step\|^ab recording" $L/ov.out || { echo "$name $mode round $r: no time" >> $O/overhead.txt; tail -3 $L/ov.out >> $O/walls.txt; }
      echo "$name $mode round $r wall $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" >> $O/walls.txt
      rm -rf $L/ov-$r-$name-$mode
    done
    log "overhead round $r $name done"
  done < $L/programs
done
log "overhead done"
