#!/usr/bin/env bash
# End-to-end checks of what a pull-request gate uses: CI output formats, statistics, unused
# suppressions, config files, baselines and diff mode.
# usage: gating_tests.sh path/to/streamlint   (run from the repository root)
set -u
SL=$(realpath "$1")
ROOT=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
lines() {  # lines NAME FILE N : FILE has exactly N lines
  local n; n=$(wc -l <"$2")
  if [ "$n" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: $n lines, wanted $3"; cat "$2"; fi
}
seed=$ROOT/examples/python/seed

# --format github: one workflow command per finding, severity mapped, newlines escaped.
check github 1 "$SL" check --format github "$seed"
lines github-count "$tmp/out" 5
expect_in github-error "$tmp/out" "::error file=examples/python/seed/overlapped_forward_backward.py,line=26,col=13,title=SL401 backward-in-side-stream::backward runs"
expect_in github-warning "$tmp/out" "::warning file="
expect_in github-escaped "$tmp/out" "[SL401]%0A"
(cd "$tmp" && "$SL" check --format github "$seed" >"$tmp/rel" 2>/dev/null)
expect_in github-outside-cwd "$tmp/rel" "::error file=$seed/overlapped_forward_backward.py,"

# --format lintrunner: LintMessage JSON lines; exit 0 (lintrunner reads non-zero as a crash).
check lintrunner 0 "$SL" check --format lintrunner "$seed"
/usr/bin/python3 - "$tmp/out" "$seed" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL lintrunner fields"; }
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
assert len(msgs) == 5, msgs
m = [x for x in msgs if x["name"] == "SL401"][0]
assert m == {"path": sys.argv[2] + "/overlapped_forward_backward.py", "line": 26, "char": 13,
             "code": "STREAMLINT", "severity": "error", "name": "SL401",
             "description": m["description"], "original": None, "replacement": None}, m
assert m["description"].startswith("backward runs inside"), m
assert {x["severity"] for x in msgs} == {"error", "warning"}
PY
printf 'def f(:\n' >"$tmp/broken.py"
printf '%s\n' "$tmp/broken.py" >"$tmp/paths"
check lintrunner-error 0 "$SL" check --format lintrunner "@$tmp/paths"
expect_in lintrunner-error-msg "$tmp/out" '"name":"parse-error"'
: >"$tmp/nopaths"
check lintrunner-no-paths 0 "$SL" check --format lintrunner "@$tmp/nopaths"
lines lintrunner-no-paths-empty "$tmp/out" 0

# --statistics: counts per rule, most frequent first; exit status unchanged.
check statistics 1 "$SL" check --statistics "$seed"
lines statistics-rows "$tmp/out" 3
expect_in statistics-row "$tmp/out" "     1  SL401  [ ] backward-in-side-stream"
check statistics-json 1 "$SL" check --statistics --format json "$seed"
expect_in statistics-json-row "$tmp/out" '"code": "SL303"'

# --report-unused-suppressions: only listed SL codes of rules that ran; other tools' codes
# and bare markers may serve other linters and are left alone.
cat >"$tmp/unused.py" <<'PY'
import torch
x = torch.zeros(1, device="cuda")
for i in range(3):
    x.item()  # noqa: SL302
    y = 1  # noqa: SL302
    z = 2  # noqa: E501
    w = 3  # noqa
PY
check unused-off 0 "$SL" check "$tmp/unused.py"
check unused 1 "$SL" check --format json --report-unused-suppressions "$tmp/unused.py"
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL unused findings"; }
import json, sys
got = [(f["rule"], f["line"], f["column"]) for f in json.load(open(sys.argv[1]))["findings"]]
assert got == [("unused-suppression", 5, 12)], got
PY
check unused-deselected 0 "$SL" check --report-unused-suppressions --ignore SL302 "$tmp/unused.py"

# Config: found upwards, pyproject.toml [tool.streamlint] or .streamlint.toml.
proj=$tmp/proj
mkdir -p "$proj/pkg/sub" "$proj/tests" "$proj/third_party"
cp "$seed/overlapped_forward_backward.py" "$proj/pkg/sub/ofb.py"
cp "$seed/stream_timing_experiment.py" "$proj/pkg/timing.py"
cp "$seed/stream_timing_experiment.py" "$proj/tests/timing.py"
cp "$seed/stream_timing_experiment.py" "$proj/third_party/timing.py"
check config-none 1 "$SL" check --format json "$proj"
cat >"$proj/pyproject.toml" <<'TOML'
[project]
name = "demo"

[tool.streamlint]
ignore = ["SL5"]
exclude = ["third_party"]
per-file-ignores = { "tests/*" = ["SL303"] }
severity = { SL303 = "note" }
TOML
check config-pyproject 1 "$SL" check --format json "$proj"
/usr/bin/python3 - "$tmp/out" "$proj" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL config effects"; }
import json, sys
got = sorted((f["path"][len(sys.argv[2]) + 1:], f["rule"], f["severity"]) for f in json.load(open(sys.argv[1]))["findings"])
want = [("pkg/sub/ofb.py", "SL401", "error"), ("pkg/timing.py", "SL303", "note"), ("pkg/timing.py", "SL303", "note")]
assert got == want, got
PY
# The nearest config wins: .streamlint.toml in pkg/sub selects only SL3 there.
printf 'select = ["SL3"]\n' >"$proj/pkg/sub/.streamlint.toml"
check config-nearest 1 "$SL" check --format json "$proj/pkg"
expect_not_in config-nearest-sl401 "$tmp/out" '"rule": "SL401"'
expect_in config-nearest-parent "$tmp/out" '"rule": "SL303"'
# The command line's --select replaces the config's.
check config-cli-select 1 "$SL" check --format json --select SL401 "$proj/pkg"
expect_in config-cli-select-sl401 "$tmp/out" '"rule": "SL401"'
rm "$proj/pkg/sub/.streamlint.toml"
# --config forces one file for every input.
printf 'select = ["SL401"]\n' >"$tmp/only401.toml"
check config-forced 1 "$SL" check --format json --config "$tmp/only401.toml" "$proj"
expect_in config-forced-401 "$tmp/out" '"rule": "SL401"'
expect_not_in config-forced-303 "$tmp/out" '"rule": "SL303"'
# exclude applies to files named on the command line too (pre-commit passes file lists).
check config-exclude-named 0 "$SL" check "$proj/third_party/timing.py"
# Unknown keys, bad values and bad TOML are errors naming the file and the key: exit 2.
printf '[tool.streamlint]\nselct = ["SL3"]\n' >"$proj/pyproject.toml"
check config-unknown-key 2 "$SL" check "$proj"
expect_in config-unknown-key-msg "$tmp/err" "$proj/pyproject.toml [tool.streamlint]: error: 'selct' is not a streamlint setting"
printf 'ignore = ["SL999"]\n' >"$tmp/bad.toml"
check config-unknown-rule 2 "$SL" check --config "$tmp/bad.toml" "$proj"
expect_in config-unknown-rule-msg "$tmp/err" "'ignore' names unknown rule 'SL999'"
printf 'severity = { SL303 = "fatal" }\n' >"$tmp/bad.toml"
check config-bad-severity 2 "$SL" check --config "$tmp/bad.toml" "$proj"
expect_in config-bad-severity-msg "$tmp/err" "'severity.SL303' must be"
printf 'select = [SL3\n' >"$tmp/bad.toml"
check config-bad-toml 2 "$SL" check --config "$tmp/bad.toml" "$proj"
expect_in config-bad-toml-msg "$tmp/err" "bad.toml:1:"
printf '[stream-wrappers]\n"acc.stream" = "torch.cuda.nonsense"\n' >"$tmp/bad.toml"
check config-bad-wrapper 2 "$SL" check --config "$tmp/bad.toml" "$proj"
expect_in config-bad-wrapper-msg "$tmp/err" "'stream-wrappers.\"acc.stream\"' must name a torch stream API"
check config-missing 2 "$SL" check --config "$tmp/nope.toml" "$proj"
rm "$proj/pyproject.toml"

# Deliberate code: performance notes in tests/ (and benchmarks/, examples/, `__repr__`...) are
# left out and counted; correctness rules stay on; the flag or the config key shows them.
dp=$tmp/deliberate
mkdir -p "$dp/tests"
printf '[tool.streamlint]\n' >"$dp/pyproject.toml"  # the project root
cp "$seed/stream_timing_experiment.py" "$dp/tests/timing.py"  # SL303 x2, SL501 x2: performance
cp "$seed/overlapped_forward_backward.py" "$dp/tests/ofb.py"  # SL401: correctness
check deliberate 1 "$SL" check --no-color "$dp"
expect_in deliberate-correctness "$tmp/out" "[SL401]"
expect_not_in deliberate-performance "$tmp/out" "[SL303]"
expect_in deliberate-summary "$tmp/out" "SL401: 1); 4 performance notes in deliberate code hidden"
check deliberate-stats 1 "$SL" check --statistics "$dp"
expect_in deliberate-stats-reason "$tmp/out" "SL303  device-allocation-in-side-stream  in tests/"
check deliberate-json 1 "$SL" check --format json "$dp"
expect_in deliberate-json-count "$tmp/out" '"deliberate_code": 4'
check deliberate-flag 1 "$SL" check --format json --check-deliberate-code "$dp"
expect_in deliberate-flag-shown "$tmp/out" '"rule": "SL303"'
printf '[tool.streamlint]\ncheck-deliberate-code = true\n' >"$dp/pyproject.toml"
check deliberate-config 1 "$SL" check --format json "$dp"
expect_in deliberate-config-shown "$tmp/out" '"rule": "SL501"'
# Only hidden notes: no findings (exit 0), and the count on the summary line. Naming the file changes nothing.
printf '[tool.streamlint]\n' >"$dp/pyproject.toml"
check deliberate-only-hidden 0 "$SL" check "$dp/tests/timing.py"
expect_in deliberate-only-hidden-msg "$tmp/out" "no findings; 4 performance notes in deliberate code hidden"

# Project knowledge: DeepSpeed-style stream wrappers and a DualPipe-style backward helper.
cat >"$tmp/ds.py" <<'PY'
import torch
from deepspeed.accelerator import get_accelerator

def step(model, x):
    side = get_accelerator().Stream()
    y = model(x)
    with get_accelerator().stream(side):
        run_backward(y)
PY
printf '[tool.streamlint]\nbackward-functions = ["run_backward"]\n[tool.streamlint.stream-wrappers]\n"get_accelerator().stream" = "torch.cuda.stream"\n"get_accelerator().Stream" = "torch.cuda.Stream"\n' >"$tmp/ds.toml"
check knowledge-off 0 "$SL" check "$tmp/ds.py"
check knowledge-on 1 "$SL" check --format json --config "$tmp/ds.toml" "$tmp/ds.py"
expect_in knowledge-sl401 "$tmp/out" '"rule": "SL401"'
expect_in knowledge-line "$tmp/out" '"line": 8'

cat >"$tmp/sync.py" <<'PY'
import torch

side = torch.cuda.Stream()


def step():
    with torch.cuda.stream(side):
        utils.barrier_and_sync()
PY
printf 'sync-functions = ["barrier_and_sync"]\n' >"$tmp/sync.toml"
check knowledge-sync-off 0 "$SL" check "$tmp/sync.py"
check knowledge-sync-on 1 "$SL" check --format json --config "$tmp/sync.toml" "$tmp/sync.py"
expect_in knowledge-sync-sl301 "$tmp/out" '"rule": "SL301"'
check exit-zero 0 "$SL" check --exit-zero "$seed"
expect_in exit-zero-findings "$tmp/out" "[SL401]"

# SARIF keeps its code-scanning fields; its fingerprints are the baseline's (same function).
check sarif 1 "$SL" check --format sarif -o "$tmp/r.sarif" "$seed"
check sarif-valid 0 /usr/bin/python3 "$ROOT/tests/cli/sarif_validate.py" "$tmp/r.sarif"

# Baseline: accepted findings stay quiet through unrelated edits; a new one fails the gate.
# (--select SL303 keeps these tests about gating, not about which rules fire.)
repo=$tmp/repo
mkdir -p "$repo"
cp "$seed/stream_timing_experiment.py" "$repo/timing.py"
cp "$seed/overlapped_forward_backward.py" "$repo/ofb.py"
check baseline-write 0 "$SL" check --select SL303 --write-baseline "$repo/streamlint-baseline.json" "$repo"
expect_in baseline-write-msg "$tmp/err" "wrote 2 findings"
check baseline-clean 0 "$SL" check --select SL303 --baseline "$repo/streamlint-baseline.json" "$repo"
expect_in baseline-clean-msg "$tmp/err" "2 findings accepted by the baseline, 0 new"
# Unrelated lines above the findings shift them all down: still accepted.
{ printf '"""Timing experiment."""\nimport os\n\n'; cat "$seed/stream_timing_experiment.py"; } >"$repo/timing.py"
check baseline-shifted 0 "$SL" check --select SL303 --baseline "$repo/streamlint-baseline.json" "$repo"
# A new bug is reported alone, and the run from another directory agrees (paths are
# relative to the baseline file).
printf '\ndef extra(x):\n    s = torch.cuda.Stream()\n    with torch.cuda.stream(s):\n        y = torch.empty(4, device="cuda")\n    return y\n' >>"$repo/timing.py"
(cd / && "$SL" check --select SL303 --format json --baseline "$repo/streamlint-baseline.json" "$repo" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc")
expect_in baseline-new-rc "$tmp/rc" "1"
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL baseline new finding"; cat "$tmp/out"; }
import json, sys
got = [(f["path"].split("/")[-1], f["line"], f["rule"]) for f in json.load(open(sys.argv[1]))["findings"]]
assert got == [("timing.py", 37, "SL303")], got
PY
check baseline-missing 2 "$SL" check --select SL303 --baseline "$tmp/nope.json" "$repo"
check baseline-both 2 "$SL" check --select SL303 --baseline a --write-baseline b "$repo"

# Diff mode: only findings on lines changed since REV (committed, staged, unstaged, untracked).
git -C "$repo" init -q && git -C "$repo" add timing.py ofb.py &&
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
cd "$repo"
check diff-clean 0 "$SL" check --select SL303 --diff HEAD .
printf '\ndef more(x):\n    s = torch.cuda.Stream()\n    with torch.cuda.stream(s):\n        z = torch.zeros(4, device="cuda")\n    return z\n' >>ofb.py
check diff-changed 1 "$SL" check --select SL303 --format json --diff HEAD .
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL diff findings"; cat "$tmp/out"; }
import json, sys
got = [(f["path"].split("/")[-1], f["line"], f["rule"]) for f in json.load(open(sys.argv[1]))["findings"]]
assert got == [("ofb.py", 55, "SL303")], got
PY
cp timing.py untracked.py
check diff-untracked 1 "$SL" check --select SL303 --format json --diff HEAD .
expect_in diff-untracked-file "$tmp/out" "untracked.py"
rm untracked.py
check diff-bad-rev 2 "$SL" check --select SL303 --diff no-such-rev .
expect_in diff-bad-rev-msg "$tmp/err" "git diff no-such-rev failed"
cd "$ROOT"
# From outside the repository: git is asked where the input is, not where we stand.
check diff-from-outside 1 "$SL" check --select SL303 --format json --diff HEAD "$repo"
expect_in diff-from-outside-file "$tmp/out" '"line": 55'
check diff-no-repo 2 "$SL" check --select SL303 --diff HEAD "$tmp/nope-dir"
# C/C++ under --diff: unchanged translation units are not analysed (they are independent);
# a changed header makes every one of them count again.
cxx=$tmp/cxxrepo && mkdir -p "$cxx" && cp "$ROOT"/rules/SL601-*/bad.cu "$cxx/k.cu" && printf '#pragma once\n' >"$cxx/k.h"
git -C "$cxx" init -q && git -C "$cxx" add . && git -C "$cxx" -c user.name=t -c user.email=t@t commit -qm base
check diff-cxx-unchanged 0 "$SL" check --lang cpp --select SL601 --diff HEAD "$cxx"
expect_in diff-cxx-unchanged-none "$tmp/err" "0 files analysed"
printf 'void more(float* d, int n) { scale<<<1, 256>>>(d, 1.0f, n); }\n' >>"$cxx/k.cu"
check diff-cxx-changed 1 "$SL" check --lang cpp --select SL601 --format json --diff HEAD "$cxx"
expect_in diff-cxx-changed-line "$tmp/out" "\"line\": $(wc -l <"$cxx/k.cu")"
git -C "$cxx" checkout -q k.cu && printf '// changed\n' >>"$cxx/k.h"
check diff-cxx-header 0 "$SL" check --lang cpp --select SL601 --diff HEAD "$cxx"
expect_in diff-cxx-header-all "$tmp/err" "1 file analysed"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
