#!/bin/bash
# The recorder's per-call cost by part on this machine (no GPU needed), for two recorder libraries
# in one run, alternated REPS times (the same machine and moment for both):
#   SL=path/to/streamlint OLD=lib.so NEW=lib.so CUDART=libcudart.so bash cpu_parts.sh
# parts_cost.py (host record, Python line by depth, backtrace; an older library ignores the part
# flags) and code_cache.py (N distinct code objects on the stacks: time per call, CodeDef records).
set -u
P=$(cd "$(dirname "$0")" && pwd); T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for r in $(seq ${REPS:-3}); do
  for name in OLD NEW; do
    lib=${!name}
    rm -rf $T/pc; SL_INTERPOSER=$lib $SL run --out $T/pc -- python3 $P/parts_cost.py $CUDART 2>&1 | grep depth | sed "s/^/$name $r parts: /"
    for n in ${CODES:-200 400 800}; do
      rm -rf $T/cc; SL_INTERPOSER=$lib $SL run --out $T/cc -- python3 $P/code_cache.py $CUDART $n 2>&1 | grep functions | tr '\n' ' ' | sed "s/^/$name $r code cache: /"
      python3 $P/logcount.py x $T/cc | grep -o '"codedef": [0-9]*\|"dropped": [0-9]*' | tr '\n' ' '; echo
    done
  done
done
