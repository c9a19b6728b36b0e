#!/usr/bin/env bash
# Issue 32: the documented Actions workflow on a repository the team did not configure —
# Python with C/C++ beside it — exits 0 or 1, never 2; baselines match in another clone; and
# the CLI says things the way ruff does. Each repository here is made by the test itself.
# usage: mixed_repo_tests.sh path/to/streamlint   (run from the repository root)
set -u
SL=$(realpath "$1")
ROOT=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export STREAMLINT_CACHE_DIR=$tmp/cache
gitrepo() { git -C "$1" init -q && git -C "$1" add -A && git -C "$1" -c user.name=t -c user.email=t@t commit -qm "$2"; }

# A PyTorch-style repository: a Python finding, a C++ extension that only setup.py can
# compile, a CUDA kernel read at run time by NVRTC, docs.
repo=$tmp/repo && mkdir -p "$repo/pkg" "$repo/csrc" "$repo/docs"
printf 'import torch\nx = torch.zeros(1, device="cuda")\nfor i in range(3):\n    x.item()\n' >"$repo/pkg/train.py"
printf '#include "generated/ops.h"\nint main( {\n' >"$repo/csrc/ext.cpp"
printf 'extern "C" __global__ void k(float* x) { x[0] = undeclared_thing; }\n' >"$repo/csrc/chunked_kernel.cu"
printf 'import os\nKERNEL = os.path.join(os.path.dirname(__file__), "..", "csrc", "chunked_kernel.cu")\n' >"$repo/pkg/launcher.py"
echo "# docs" >"$repo/docs/index.md"
gitrepo "$repo" base

# Python first: the walked C/C++ files are named once as not analysed, and the run's exit
# depends on the Python findings only.
(cd "$repo" && "$SL" check . >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL python-first: exit $rc"; cat "$tmp/err"; fi
expect_in python-first-note "$tmp/err" "2 C/C++/CUDA files not analysed (csrc/chunked_kernel.cu, csrc/ext.cpp)"
expect_in python-first-switch "$tmp/err" "--lang python,cpp"
if [ "$(grep -c 'not analysed' "$tmp/err")" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL note not once"; fi
# Paths as ruff prints them: `pkg/train.py`, not `./pkg/train.py`, in every format.
expect_in dot-slash-text "$tmp/out" "pkg/train.py:4:5:"
expect_not_in dot-slash-text-none "$tmp/out" "./pkg/"
for fmt in concise json; do
  (cd "$repo" && "$SL" check --format $fmt . >"$tmp/out" 2>/dev/null)
  expect_not_in "dot-slash-$fmt" "$tmp/out" "./pkg/"
done
expect_in dot-slash-json-path "$tmp/out" '"path": "pkg/train.py"'

# Asked for (--lang, or `languages` in the config): unparsable C/C++ exits 2, as before, and
# --keep-going keeps going. The NVRTC kernel's failure says why it is not counted.
check lang-cpp 2 "$SL" check --lang python,cpp "$repo"
expect_in lang-cpp-parse "$tmp/err" "ext.cpp"
expect_in lang-cpp-nvrtc "$tmp/err" "launcher.py names it: a source compiled at run time"
expect_not_in lang-cpp-no-note "$tmp/err" "not analysed"
check lang-cpp-keep-going 1 "$SL" check --lang python,cpp --keep-going "$repo"
check lang-python 1 "$SL" check --lang python "$repo"
expect_not_in lang-python-no-note "$tmp/err" "not analysed"
check lang-unknown 2 "$SL" check --lang rust "$repo"
expect_in lang-unknown-msg "$tmp/err" "unknown language 'rust'"
cfg=$tmp/cfg && cp -r "$repo" "$cfg" && printf '[tool.streamlint]\nlanguages = ["python", "cpp"]\n' >"$cfg/pyproject.toml"
check languages-config 2 "$SL" check "$cfg"
printf '[tool.streamlint]\nlanguages = ["python", "cpp"]\nextend-exclude = ["csrc/ext.cpp"]\n' >"$cfg/pyproject.toml"
check extend-exclude-config 1 "$SL" check "$cfg"
expect_not_in extend-exclude-config-gone "$tmp/err" "ext.cpp"
printf '[tool.streamlint]\nlanguages = ["python", "fortran"]\n' >"$cfg/pyproject.toml"
check languages-bad 2 "$SL" check "$cfg"
expect_in languages-bad-msg "$tmp/err" "'languages' names unknown language 'fortran'"
rm "$cfg/pyproject.toml"
(cd "$cfg" && "$SL" check --lang python,cpp --extend-exclude 'csrc/ext.cpp,docs' . >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL extend-exclude-cli: exit $rc"; cat "$tmp/err"; fi
expect_not_in extend-exclude-cli-gone "$tmp/err" "ext.cpp"
# A named C/C++ file is asked for.
check named-cpp 2 "$SL" check "$repo/csrc/ext.cpp"
# A compilation database beside the inputs (build/compile_commands.json) turns C/C++ on.
db=$tmp/db && mkdir -p "$db/build" && printf 'int twice(int x) { return 2 * x; }\n' >"$db/ok.cpp"
cp "$repo/pkg/train.py" "$db/"
printf '[{"directory": "%s", "file": "ok.cpp", "command": "c++ -c ok.cpp"}]\n' "$db" >"$db/build/compile_commands.json"
check compile-db-found 1 "$SL" check "$db"
expect_not_in compile-db-found-on "$tmp/err" "not analysed"
expect_in compile-db-found-analysed "$tmp/err" "ok.cpp"
# The database's flags reach a file walked from `.` (relative to the current directory; the
# entry's `directory` is the build directory, as CMake writes it): without -DNEEDED it would not parse.
printf '#ifndef NEEDED\n#error built without the database flags\n#endif\nint twice(int x) { return 2 * x; }\n' >"$db/ok.cpp"
printf '[{"directory": "%s/build", "file": "%s/ok.cpp", "command": "c++ -DNEEDED -c ../ok.cpp"}]\n' "$db" "$db" >"$db/build/compile_commands.json"
(cd "$db" && "$SL" check --no-cache . >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL compile-db-flags-from-dot: exit $rc"; cat "$tmp/err"; fi
expect_not_in compile-db-flags-from-dot-clean "$tmp/err" "could not parse"
# A missing frontend fails a run that asked for C/C++; --keep-going accepts it.
mkdir -p "$tmp/fe/bin" "$tmp/fe/lib" && cp "$SL" "$tmp/fe/bin/streamlint"
check no-frontend-default 1 "$tmp/fe/bin/streamlint" check "$repo"
check no-frontend-asked 2 "$tmp/fe/bin/streamlint" check --lang python,cpp "$repo"
expect_in no-frontend-asked-msg "$tmp/err" "C/C++ analysis needs the Clang 19 frontend"
check no-frontend-keep-going 1 "$tmp/fe/bin/streamlint" check --lang python,cpp --keep-going "$repo"

# The Python half is cached with C/C++ in the run: the second run reads the entry.
sleep 1  # not racily clean
rm -rf "$STREAMLINT_CACHE_DIR"
check cache-mixed-cold 1 "$SL" check --format json "$repo"
cp "$tmp/out" "$tmp/cold.json"
if [ -n "$(ls "$STREAMLINT_CACHE_DIR"/results/*.json 2>/dev/null)" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cache-mixed: no entry with C/C++ files in the run"; fi
check cache-mixed-warm 1 "$SL" check --format json "$repo"
if cmp -s "$tmp/out" "$tmp/cold.json"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL cache-mixed-warm differs"; fi
check cache-mixed-cpp 2 "$SL" check --lang python,cpp "$repo"   # the C/C++ half is analysed each time
expect_in cache-mixed-cpp-parse "$tmp/err" "ext.cpp"

# Parse errors name the file once; the summary counts read as English; text and concise end
# with the summary on stdout.
printf 'int main( {\n' >"$tmp/broken.cpp"
check parse-once 2 "$SL" check "$tmp/broken.cpp"
line=$(grep "error: could not parse" "$tmp/err")
if [ "$(grep -o 'broken.cpp' <<<"$line" | wc -l)" = 1 ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL parse-once: $line"; fi
printf 'import torch\n' >"$tmp/clean.py"
check one-file 0 "$SL" check --no-cache "$tmp/clean.py"
expect_in one-file-summary "$tmp/out" "streamlint: 1 file analysed, no findings"
check unsure-one 1 "$SL" check --no-cache examples/python/seed
expect_in unsure-one-msg "$tmp/out" "streamlint: 1 less certain finding not shown"
check concise-summary 1 "$SL" check --no-cache --format concise examples/python/seed
expect_in concise-summary-line "$tmp/out" "5 findings (SL303: 2, SL401: 1, SL501: 2)"
check json-no-summary 1 "$SL" check --no-cache --format json examples/python/seed
expect_in json-unsure-stderr "$tmp/err" "1 less certain finding not shown"
# Nothing to check in a directory: a warning and exit 0, as ruff; a missing path stays 2.
check no-sources 0 "$SL" check "$repo/docs"
expect_in no-sources-msg "$tmp/err" "warning: no Python or C/C++/CUDA files under"
check no-such-path 2 "$SL" check "$repo/nope"

# explain takes the rule's name; list-rules lines fit 100 columns.
check explain-name 0 "$SL" explain backward-in-side-stream
expect_in explain-name-title "$tmp/out" "SL401"
check list-width 0 "$SL" list-rules
if awk 'length($0) > 100 { bad = 1 } END { exit bad }' "$tmp/out"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL list-width: a line over 100 characters"; awk 'length($0) > 100' "$tmp/out" | head -2; fi
expect_in list-width-rule "$tmp/out" "SL401  backward-in-side-stream"

# --show-fixes and the fixable marker of --statistics.
fx=$tmp/fx && mkdir -p "$fx"
printf 'import torch\n\n\ndef launch(comm):\n    comm.wait_stream(torch.cuda.default_stream())\n' >"$fx/a.py"
check statistics-fixable 1 "$SL" check --no-cache --statistics --select SL103 "$fx"
expect_in statistics-fixable-mark "$tmp/out" "SL103  [*] "
check statistics-fixable-json 1 "$SL" check --no-cache --statistics --format json --select SL103 "$fx"
expect_in statistics-fixable-json-field "$tmp/out" '"fixable": true'
check show-fixes 1 "$SL" check --no-cache --show-fixes --select SL103 "$fx"
expect_in show-fixes-list "$tmp/out" "Fixable with --fix: 1 finding:"
check show-fixes-applied 0 "$SL" check --no-cache --fix --show-fixes --select SL103 "$fx"
expect_in show-fixes-applied-list "$tmp/err" "Fixed 1 finding:"
expect_in show-fixes-applied-rule "$tmp/err" "1 × SL103 (wait-on-default-not-current)"

# C/C++ progress in a log: the elapsed time on each line.
check cxx-progress-elapsed 1 "$SL" check --lang cpp examples/overlap/cuda
if grep -qE '^streamlint: \[1/2\] [0-9]+\.[0-9] s examples/overlap/cuda/' "$tmp/err"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cxx-progress-elapsed"; cat "$tmp/err"; fi

# Portable baselines: written in a subdirectory of one clone, read from the root of another
# clone at another path, every finding matches; a version-1 baseline (absolute paths) too.
a=$tmp/clone-a/proj && mkdir -p "$a/.github" "$a/sub" && cp examples/python/seed/*.py "$a/sub/"
gitrepo "$a" seed
(cd "$a/sub" && "$SL" check --no-cache --write-baseline ../.github/streamlint-baseline.json . 2>"$tmp/err"); rc=$?
expect_in baseline-sub-written "$tmp/err" "wrote 5 findings"
expect_in baseline-relative "$a/.github/streamlint-baseline.json" '"path": "sub/overlapped_forward_backward.py"'
git -C "$a" add -A && git -C "$a" -c user.name=t -c user.email=t@t commit -qm baseline
git clone -q "$a" "$tmp/elsewhere/b"
(cd "$tmp/elsewhere/b" && "$SL" check --no-cache --baseline .github/streamlint-baseline.json . >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL baseline-clone: exit $rc"; cat "$tmp/err"; fi
expect_in baseline-clone-all "$tmp/err" "5 findings accepted by the baseline, 0 new; 0 baseline entries no longer found"
# Version 1, as an older streamlint wrote it in clone a: entries outside the baseline's
# directory with absolute paths. Clone b recognises them by their path below the repository.
/usr/bin/python3 - "$a" "$tmp/elsewhere/b/.github/v1.json" <<'PY'
import json, sys
a, out = sys.argv[1], sys.argv[2]
new = json.load(open(a + "/.github/streamlint-baseline.json"))
def fnv(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
entries, seen = [], {}
for e in new["findings"]:
    path = a + "/" + e["path"]
    text = open(path).read().splitlines()[e["line"] - 1].strip(" \t\r")
    ident = e["rule"] + "|" + path + "|" + text
    seen[ident] = seen.get(ident, 0) + 1
    entries.append(dict(e, path=path, fingerprint="%016x:%d" % (fnv(ident), seen[ident])))
json.dump({"tool": "streamlint", "version": 1, "findings": entries}, open(out, "w"))
PY
(cd "$tmp/elsewhere/b" && "$SL" check --no-cache --baseline .github/v1.json . >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL baseline-v1-clone: exit $rc"; cat "$tmp/err"; fi
expect_in baseline-v1-clone-all "$tmp/err" "5 findings accepted by the baseline, 0 new"

# docs/github-actions.md's Annotate step, as written, on both events: pull_request (the base
# sha), push (the commit before), a new branch's push (all zeros): exit 0 or 1, never 2.
/usr/bin/python3 - "$ROOT/docs/github-actions.md" "$tmp/annotate.sh" <<'PY'
import re, sys, yaml
doc = open(sys.argv[1]).read()
for block in re.findall(r"```yaml\n(.*?)```", doc, re.S):
    steps = yaml.safe_load(block)
    if isinstance(steps, list) and steps and steps[0].get("name") == "Annotate":
        step = steps[0]
        env = step.get("env", {})
        if "BASE" not in env or "${{" in step["run"]:
            sys.exit("the Annotate step must take its base from env BASE, not a ${{ }} in run:")
        open(sys.argv[2], "w").write(step["run"])
        sys.exit(0)
sys.exit("no Annotate step")
PY
if [ -s "$tmp/annotate.sh" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL annotate step not found"; fi
ev=$tmp/event && mkdir -p "$ev" && cp examples/python/fixed/*.py "$ev/" && gitrepo "$ev" base
before=$(git -C "$ev" rev-parse HEAD)
cp examples/python/seed/overlapped_forward_backward.py "$ev/" && git -C "$ev" add -A && git -C "$ev" -c user.name=t -c user.email=t@t commit -qm change
mkdir -p "$tmp/bin" && ln -sf "$SL" "$tmp/bin/streamlint"
for base in "$before" 0000000000000000000000000000000000000000 ""; do
  (cd "$ev" && BASE=$base PATH="$tmp/bin:$PATH" bash -e "$tmp/annotate.sh" >"$tmp/out" 2>"$tmp/err"); rc=$?
  if [ "$rc" -le 1 ] && grep -q "::error file=overlapped_forward_backward.py" "$tmp/out"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL annotate BASE='$base': exit $rc"; cat "$tmp/err"; fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
