#!/usr/bin/env bash
# The recorder's scenarios of tests/runtime/runtime_test.py on a GPU machine, from a build made
# on a CI machine and staged small (stripped) under build/gpu: `bench/interposer/stage_gpu.sh`
# here, then on the GPU machine `bench/interposer/gpu_runtime_tests.sh [scenario...]`.
# Each scenario's verdict and output go to $OUT/runtime-tests.txt (default: all of them).
set -u
G=$PWD/build/gpu
# The test programs were linked against build/lib (their RPATH); here their libraries are in $G/lib.
export LD_LIBRARY_PATH=$G/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
OUT=${OUT:-/tmp}
R=$OUT/runtime-tests.txt
: > "$R"
scenarios=("$@")
if [ ${#scenarios[@]} = 0 ]; then
  mapfile -t scenarios < <(python3 - <<'PY'
import re
text = open("tests/runtime/CMakeLists.txt").read()
for block in re.findall(r"foreach\(s ([^)]*)\)\s*add_test\(NAME runtime\.\$\{s\} COMMAND \$\{Python3_EXECUTABLE\} \$\{CMAKE_CURRENT_SOURCE_DIR\}/runtime_test\.py", text):
    print("\n".join(block.split()))
PY
)
fi
{ nvidia-smi -L; python3 -c 'import torch,sys; print(torch.__version__, sys.version.split()[0])'; } >> "$R" 2>&1
pass=0; fail=0; skip=0
for s in "${scenarios[@]}"; do
  start=$(date +%s)
  timeout 300 python3 tests/runtime/runtime_test.py "$s" --streamlint "$G/bin/streamlint" \
    --lib "$G/lib/libstreamlint_interposer.so" --bindir "$G/bin" > "$OUT/rt-$s.log" 2>&1
  rc=$?
  case $rc in 0) v=pass; pass=$((pass+1));; 77) v=skip; skip=$((skip+1));; *) v="FAIL($rc)"; fail=$((fail+1));; esac
  echo "$s $v $(( $(date +%s) - start ))s" | tee -a "$R"
  [ $rc != 0 ] && [ $rc != 77 ] && tail -20 "$OUT/rt-$s.log" | sed 's/^/    /' >> "$R"
done
echo "passed $pass, failed $fail, skipped $skip" | tee -a "$R"
