#!/usr/bin/env bash
# ctest cxx.cuda_project_compile_db: configure this project with CMake + nvcc (no build needed:
# CMake writes compile_commands.json at configure time), run `streamlint check -p` on it, and
# compare the findings with expected-findings.txt.
# Usage: run_test.sh STREAMLINT BUILD_DIR
set -euo pipefail
streamlint=$1
build=$2
here=$(cd "$(dirname "$0")" && pwd)
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then
  echo "SKIP: no nvcc at $nvcc"
  exit 0
fi
rm -rf "$build"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CUDA_COMPILER="$nvcc" >"$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; exit 1; }
grep -q '"command": ".*nvcc' "$build/compile_commands.json" || grep -q 'nvcc' "$build/compile_commands.json"

set +e
"$streamlint" check -p "$build" --format json -q -j 2 >"$build/findings.json" 2>"$build/stderr.txt"
rc=$?
set -e
if [ $rc -ne 1 ] || [ -s "$build/stderr.txt" ]; then
  echo "expected exit code 1 (findings) and no diagnostics, got $rc"
  cat "$build/stderr.txt" "$build/findings.json"; exit 1
fi

# The database's `--default-stream=per-thread` is what keeps per_thread.cu:13 clean: the same
# file with only the include flags gets SL601 there.
set +e
"$streamlint" check --select SL601 -q "$here/src/per_thread.cu" -- -I "$here/include" -DDEMO_CONFIGURED \
  >"$build/no-db.txt" 2>&1
set -e
grep -q 'per_thread.cu:13:.*\[SL601\]' "$build/no-db.txt" || {
  echo "without the database, per_thread.cu:13 should be SL601:"; cat "$build/no-db.txt"; exit 1; }
python3 - "$here" "$build/findings.json" "$here/expected-findings.txt" "$streamlint" <<'PY'
import json, os, subprocess, sys
here, found_path, expected_path, streamlint = sys.argv[1:]
data = json.load(open(found_path))
findings = data["findings"] if isinstance(data, dict) else data
diags = data.get("diagnostics", []) if isinstance(data, dict) else []
def rel(p):
    return os.path.relpath(os.path.realpath(p), os.path.realpath(here))
got = sorted({f"{rel(f['path'])}:{f['line']} {f['rule']}" for f in findings})
known = set()
for line in open(expected_path):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    rule = line.split()[1]
    if subprocess.run([streamlint, "explain", rule], capture_output=True).returncode == 0:
        known.add(line)
want = sorted(known)
ok = True
for d in diags:
    print("unexpected diagnostic:", d); ok = False
for g in got:
    if g not in want: print("unexpected finding:", g); ok = False
for w in want:
    if w not in got: print("missing finding:", w); ok = False
print(f"{len(got)} findings, {len(want)} expected")
sys.exit(0 if ok else 1)
PY
