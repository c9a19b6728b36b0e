#!/usr/bin/env bash
# End-to-end checks of `streamlint` as users call it: exit codes, formats, suppressions, bad
# input. usage: run_cli_tests.sh path/to/streamlint   (run from the repository root)
set -u
SL=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The user's seed: exactly SL401 on loss1.backward(), SL501 on both closing clocks, SL303 twice
# (the missing wait before the region is a low-confidence SL101: the caller is not in sight).
check seed 1 "$SL" check --format json examples/python/seed
/usr/bin/python3 - "$tmp/out" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL seed findings"; }
import json, sys
got = sorted((f["path"].split("/")[-1], f["line"], f["rule"]) for f in json.load(open(sys.argv[1]))["findings"])
want = sorted([("overlapped_forward_backward.py", 26, "SL401"),
               ("stream_timing_experiment.py", 15, "SL501"), ("stream_timing_experiment.py", 27, "SL501"),
               ("stream_timing_experiment.py", 23, "SL303"), ("stream_timing_experiment.py", 24, "SL303")])
sys.exit(0 if got == want else print(got) or 1)
PY
check fixed 0 "$SL" check examples/python/fixed
# The documented output of the seed is what the tool prints.
check expected-output 1 "$SL" check --no-color examples/python/seed
if diff -u examples/python/expected-output.txt <(cat "$tmp/out" "$tmp/err") >"$tmp/diff"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL expected-output:"; head -20 "$tmp/diff"; fi

# Text: clang style with source, caret and notes.
check text 1 "$SL" check --no-color examples/python/seed/overlapped_forward_backward.py
expect_in text-line "$tmp/out" "examples/python/seed/overlapped_forward_backward.py:26:13: error: backward runs inside"
expect_in text-rule "$tmp/out" "[SL401]"
expect_in text-caret "$tmp/out" "            ^"
expect_in text-note "$tmp/out" "24:10: note: side-stream region starts here"

# SARIF 2.1.0, schema-valid, with code-scanning fields.
check sarif 1 "$SL" check --format sarif -o "$tmp/r.sarif" examples/python/seed
check sarif-valid 0 /usr/bin/python3 tests/cli/sarif_validate.py "$tmp/r.sarif"
expect_in sarif-help-uri "$tmp/r.sarif" '"helpUri": "https://streamlint.dev/rules/SL401"'
docs=$(mktemp -d)
cp examples/python/seed/*.py "$docs/"
printf 'docs-url = "https://wiki.example.com/sl/{id}-{name}.html"\n' >"$docs/.streamlint.toml"
check sarif-docs-url 1 "$SL" check --no-cache --format sarif -o "$tmp/d.sarif" "$docs"
expect_in sarif-docs-url-help "$tmp/d.sarif" '"helpUri": "https://wiki.example.com/sl/SL401-backward-in-side-stream.html"'
printf 'docs-url = "wiki/{id}"\n' >"$docs/.streamlint.toml"
check docs-url-not-a-url 2 "$SL" check --no-cache "$docs"
expect_in docs-url-not-a-url-msg "$tmp/err" "'docs-url' must be a URL"
rm -rf "$docs"
expect_in sarif-command "$tmp/r.sarif" '"commandLine": "streamlint check --format sarif -o '

# Selection and suppression.
check select 0 "$SL" check --select SL3 examples/python/seed/overlapped_forward_backward.py
check ignore 1 "$SL" check --ignore SL401,SL303 examples/python/seed
printf 'import torch\nx = torch.zeros(1, device="cuda")\nfor i in range(3):\n    x.item()  # noqa: SL302\n    x.item()\n' >"$tmp/noqa.py"
check noqa 1 "$SL" check --format json "$tmp/noqa.py"
expect_in noqa-other "$tmp/out" '"line": 5'
if grep -q '"line": 4' "$tmp/out"; then failed=$((failed + 1)); echo "FAIL noqa: line 4 reported"; else passed=$((passed + 1)); fi
printf '# streamlint: noqa-file: SL302\nimport torch\nx = torch.zeros(1, device="cuda")\nfor i in range(3):\n    x.item()\n' >"$tmp/noqa_file.py"
check noqa-file 0 "$SL" check "$tmp/noqa_file.py"
printf 'import torch\nx = torch.zeros(1, device="cuda")\nfor i in range(3):\n    # NOLINTBEGIN(SL302)\n    x.item()\n    # NOLINTEND(SL302)\n    x.item()\n' >"$tmp/block.py"
check nolint-block 1 "$SL" check --format json "$tmp/block.py"
expect_in nolint-block-after "$tmp/out" '"line": 7'
expect_not_in nolint-block-inside "$tmp/out" '"line": 5'

# Bad input: exit 2, file named, reason given, no crash; the rest is still analysed.
printf 'import torch\ndef f(:\n    pass\nx = torch.ones(2, device="cuda")\nfor i in range(2):\n    x.item()\n' >"$tmp/broken.py"
check broken 2 "$SL" check "$tmp/broken.py"
expect_in broken-msg "$tmp/err" "broken.py:2:"
expect_in broken-rest "$tmp/out" "[SL302]"
printf 'x = 1\0\0\0' >"$tmp/bin.py"
check binary 2 "$SL" check "$tmp/bin.py"
expect_in binary-msg "$tmp/err" "bin.py: error: binary file"
printf 'x = "\xff\xfe"\n' >"$tmp/latin.py"
check utf8 2 "$SL" check "$tmp/latin.py"
expect_in utf8-msg "$tmp/err" "not valid UTF-8"
printf '# -*- coding: latin-1 -*-\nname = "\xe9t\xe9"\n' >"$tmp/cookie.py"
check pep263 0 "$SL" check "$tmp/cookie.py"
# A C++ TU with errors is reported and the run goes on, but exits 2: it was not covered.
# --keep-going (or keep-going = true in the config) accepts partial C++ coverage.
printf 'int main( {\n' >"$tmp/broken.cpp"
check cxx-parse-error 2 "$SL" check "$tmp/broken.cpp" examples/python/fixed
expect_in cxx-parse-error-msg "$tmp/err" "broken.cpp:1:1: error: could not parse"
# The Clang frontend is a plugin found beside the binary (../lib): a missing one, or one built
# for another streamlint (a stale copy, an older wheel), is an input error with exit 2, never a
# call into it (its types would not match this binary's: a crash).
mkdir -p "$tmp/fe/bin" "$tmp/fe/lib"
cp "$SL" "$tmp/fe/bin/streamlint"
printf 'int f() { return 0; }\n' >"$tmp/fe/ok.cpp"
check cxx-no-frontend 2 "$tmp/fe/bin/streamlint" check "$tmp/fe/ok.cpp"
expect_in cxx-no-frontend-msg "$tmp/err" "C/C++ analysis needs the Clang 19 frontend"
printf 'extern "C" const char* streamlint_cxx_abi() { return "0.other"; }\nextern "C" void streamlint_cxx_analyze() { __builtin_trap(); }\n' >"$tmp/fe/stale.cpp"
cxx=$(command -v "${CXX:-g++}" || command -v c++)
if [ -n "$cxx" ] && "$cxx" -shared -fPIC -o "$tmp/fe/lib/libstreamlint_cxx.so" "$tmp/fe/stale.cpp"; then
  check cxx-stale-frontend 2 "$tmp/fe/bin/streamlint" check "$tmp/fe/ok.cpp"
  expect_in cxx-stale-frontend-msg "$tmp/err" "was built for another streamlint (layout 0.other"
else
  failed=$((failed + 1)); echo "FAIL cxx-stale-frontend: could not build the stand-in plugin"
fi
# Valid Python the pinned grammar rejects (analyzer/python/PyGrammarGaps.h) or accepts: never a
# syntax error, whole or prefiltered; the test data itself is valid for CPython.
forms="tests/data/python/valid_forms.py tests/data/python/valid_forms_py312.py"
check valid-forms-cpython 0 /usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' tests/data/python/valid_forms.py
check valid-forms 0 "$SL" check --no-prefilter $forms
check valid-forms-prefilter 0 "$SL" check $forms
printf 'import torch\ndef f(a, b):\n    return a, * * b\n' >"$tmp/star.py"
check invalid-star 2 "$SL" check --no-prefilter "$tmp/star.py"
check cxx-keep-going 0 "$SL" check --keep-going "$tmp/broken.cpp" examples/python/fixed
expect_in cxx-keep-going-msg "$tmp/err" "broken.cpp:1:1: error: could not parse"
mkdir -p "$tmp/kg" && printf '[tool.streamlint]\nkeep-going = true\nlanguages = ["python", "cpp"]\n' >"$tmp/kg/pyproject.toml"
cp "$tmp/broken.cpp" "$tmp/kg/"
check cxx-keep-going-config 0 "$SL" check "$tmp/kg"
# One missing header is reported once, with the files it cost and the summary of what was
# analysed without it: the include is skipped and the rest of each file is still analysed (the
# legacy-stream launch after it is found).
mkdir -p "$tmp/hdr"
for n in 1 2 3; do printf '#include "not_there/gen.h"\n#include <cuda_runtime.h>\n__global__ void k(float*);\nvoid f%s(float* x, cudaStream_t s) { gen::log(x); k<<<1, 1>>>(x); cudaStreamSynchronize(s); }\n' $n >"$tmp/hdr/u$n.cu"; done
check cxx-missing-header 2 "$SL" check --lang cpp "$tmp/hdr"
expect_in cxx-missing-header-once "$tmp/err" "'not_there/gen.h' not found: 3 files analysed without it"
expect_in cxx-partial-summary "$tmp/err" "of 3 C/C++ files, 3 analysed only in part"
expect_in cxx-missing-header-analysed "$tmp/out" "u2.cu:4:"
if [ "$(grep -c "gen.h" "$tmp/err")" = 1 ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cxx-missing-header: reported more than once"; cat "$tmp/err"; fi
check missing 2 "$SL" check "$tmp/nope.py"
expect_in missing-msg "$tmp/err" "nope.py: error: No such file"
mkdir -p "$tmp/loop" && ln -s "$tmp/loop/a.py" "$tmp/loop/a.py"
check loop 2 "$SL" check "$tmp/loop"
expect_in loop-msg "$tmp/err" "symlink loop"
check usage 2 "$SL" check --format yaml .
check usage-cmd 2 "$SL" frobnicate
check usage-none 2 "$SL"

# explain / list-rules print the docs with their examples.
check explain 0 "$SL" explain SL401
expect_in explain-doc "$tmp/out" "## Why is this bad?"
expect_in explain-example "$tmp/out" "## Example: bad.py"
check explain-unknown 2 "$SL" explain SL999
# Rule IDs in any case; the examples without the tests' `# expect:` markers.
check explain-lower 0 "$SL" explain sl302
expect_in explain-lower-title "$tmp/out" "# SL302 host-sync-in-loop"
expect_not_in explain-no-markers "$tmp/out" "expect: SL"
check list 0 "$SL" list-rules --format json
expect_in list-json "$tmp/out" '"id": "SL101"'
# One short line per rule: the `summary:` line of rule.md, which is also the README's table.
check list-text 0 "$SL" list-rules
if awk 'length($0) > 200 { bad = 1 } END { exit bad }' "$tmp/out"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL list-text: a line over 200 characters"; fi
/usr/bin/python3 - "$SL" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL readme-rules-table"; }
import json, re, subprocess, sys
rules = json.loads(subprocess.run([sys.argv[1], "list-rules", "--format", "json"], capture_output=True, text=True).stdout)
table = {m.group(1): m.group(2).strip() for m in re.finditer(r"^\| (SL\d+) \| [^|]+ \| [^|]+ \| (.*) \|$", open("README.md").read(), re.M)}
bad = [r["id"] for r in rules if table.get(r["id"]) != r["brief"]]
sys.exit(0 if not bad and len(table) == len(rules) else print("README table differs from rule.md summary:", bad) or 1)
PY

# CLI consistency: a typo in --select/--ignore is an error (as in the config); -q prints
# findings only; a missing input is not followed by "no findings"; a missing --config is named.
check select-unknown 2 "$SL" check --select SL999 examples/python/seed
expect_in select-unknown-msg "$tmp/err" "unknown rule 'SL999'"
check ignore-unknown 2 "$SL" check --ignore SL9x9 examples/python/seed
check select-lower 1 "$SL" check --select sl401 examples/python/seed
expect_in select-lower-found "$tmp/out" "[SL401]"
check quiet 1 "$SL" check -q --no-source examples/python/seed
expect_not_in quiet-summary "$tmp/out" "findings ("
check missing-no-summary 2 "$SL" check "$tmp/nope.py"
expect_not_in missing-no-summary-msg "$tmp/err" "no findings"
check config-missing 2 "$SL" check --config "$tmp/none.toml" examples/python/seed
expect_in config-missing-msg "$tmp/err" "none.toml: error: cannot read the config file: no such file"
check concise 1 "$SL" check --output-format concise examples/python/seed
expect_in concise-line "$tmp/out" "overlapped_forward_backward.py:26:13: error: backward runs inside"
if [ "$(grep -c ': \(error\|warning\|note\): ' "$tmp/out")" = 5 ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL concise: wanted 5 finding lines"; cat "$tmp/out"; fi

# C/C++ progress outside a terminal: a line per translation unit (each takes seconds); -q: none.
check cxx-progress 1 "$SL" check --lang cpp examples/overlap/cuda
expect_in cxx-progress-line "$tmp/err" "streamlint: [1/2] "
expect_in cxx-progress-file "$tmp/err" " s examples/overlap/cuda/overlap_"
check cxx-progress-quiet 1 "$SL" check -q --lang cpp examples/overlap/cuda
expect_not_in cxx-progress-quiet-none "$tmp/err" "[1/2]"

# Hostile input (issue 17): exit 2 with the reason, never a crash or a silent success.
check jobs-overflow 2 "$SL" check -j 99999999999999999999 examples/python/seed
check jobs-zero 2 "$SL" check -j 0 examples/python/seed
mkdir -p "$tmp/dbdir/compile_commands.json"
check compile-db-is-dir 2 "$SL" check -p "$tmp/dbdir"
expect_in compile-db-is-dir-msg "$tmp/err" "not a regular file"
check output-full 2 "$SL" check -o /dev/full examples/python/seed
expect_in output-full-msg "$tmp/err" "cannot write the findings to /dev/full"
mkdir -p "$tmp/empty-dir"
check empty-dir 0 "$SL" check "$tmp/empty-dir"
expect_in empty-dir-msg "$tmp/err" "no Python or C/C++/CUDA files under"
check empty-paths-file 0 "$SL" check "@/dev/null"
for cfg in 'ignore = [""]' 'ignore = ["S"]' 'select = []' "exclude = [\"$(printf '?%.0s' $(seq 600))\"]"; do
  mkdir -p "$tmp/badcfg" && printf '%s\n' "$cfg" >"$tmp/badcfg/.streamlint.toml" && cp examples/python/seed/*.py "$tmp/badcfg/"
  check "config '${cfg:0:20}'" 2 "$SL" check "$tmp/badcfg"
done
# A file name that is not UTF-8 still gives valid JSON (replacement characters), exit 1.
mkdir -p "$tmp/latin1name" && cp examples/python/seed/stream_timing_experiment.py "$tmp/latin1name/$(printf 'caf\xe9').py"
check json-bad-name 1 "$SL" check --no-cache --format json "$tmp/latin1name"
cp "$tmp/out" "$tmp/bad-name.json"
check json-bad-name-valid 0 /usr/bin/python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/bad-name.json"
# Lone-CR line endings: lines are counted as Python counts them.
printf 'import torch\rx = torch.zeros(1, device="cuda")\rfor i in range(3):\r    x.item()\r' >"$tmp/cr.py"
check cr-lines 1 "$SL" check --no-cache --format json "$tmp/cr.py"
expect_in cr-lines-4 "$tmp/out" '"line": 4'

# Deeply nested legal code (a 33,000-long attribute chain, a 28,000-long chained assignment)
# is analysed on deep stacks; past even those, the file is named and the run exits 2.
/usr/bin/python3 -c "print('import torch'); print('x = a' + '.b' * 33000); print('y = ' + ' = '.join('v%d' % i for i in range(28000)) + ' = 1')" >"$tmp/deep.py"
check deep-code 0 "$SL" check --no-cache --no-prefilter "$tmp/deep.py"
check deep-code-overflow 2 env STREAMLINT_STACK_MB=1 "$SL" check --no-cache --no-prefilter "$tmp/deep.py"
expect_in deep-code-overflow-msg "$tmp/err" "deep.py: error: nested too deeply to analyse"

# Shapes the pinned tree-sitter crashes on (65,535 ERROR siblings) are refused as CPython
# refuses them: a syntax error naming the place, exit 2, no crash.
/usr/bin/python3 -c "print('(' * 65535)" >"$tmp/parens.py"
check parse-limit-nesting 2 "$SL" check --no-cache "$tmp/parens.py"
expect_in parse-limit-nesting-msg "$tmp/err" "parens.py:1:201: error: syntax error: too many nested parentheses"
/usr/bin/python3 -c "print('[' + '*' * 65535)" >"$tmp/stars.py"
check parse-limit-run 2 "$SL" check --no-cache "$tmp/stars.py"
expect_in parse-limit-run-msg "$tmp/err" "stars.py:1:4098: error: syntax error: invalid syntax"

# --fix: SL103 and SL501 have mechanical fixes; --diff-only previews them as a patch git
# accepts; --fix writes them and checks again (what is left is reported); SARIF, JSON and
# lintrunner carry them.
fx=$tmp/fix && mkdir -p "$fx"
printf 'import torch\nfrom torch.cuda import default_stream\n\n\ndef launch(comm):\n    comm.wait_stream(torch.cuda.default_stream())\n    default_stream().wait_stream(comm)\n' >"$fx/sl103.py"
printf 'import time\nimport torch\n\na = torch.ones(64, 64, device="cuda")\nstart = time.time()\nfor i in range(10):\n    c = torch.mm(a, a)\nend = time.time()\n\n\ndef timed(x):\n    t0 = time.perf_counter()\n    y = torch.relu(a)\n    t1 = time.perf_counter()\n    return t1 - t0\n' >"$fx/sl501.py"
cp "$fx/sl103.py" "$tmp/sl103.orig"
SLA=$(cd "$(dirname "$SL")" && pwd)/$(basename "$SL")
check fix-count 1 "$SL" check --no-cache --select SL103,SL501 "$fx"
expect_in fix-count-summary "$tmp/out" "4 findings (SL103: 2, SL501: 2); 3 fixable with --fix"
(cd "$fx" && "$SLA" check --no-cache --select SL103,SL501 --fix --diff-only . >"$tmp/fix.patch" 2>"$tmp/err"); rc=$?
if [ "$rc" = 1 ] && (cd "$fx" && git apply --check -p1 "$tmp/fix.patch"); then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL fix-diff-only: exit $rc or a patch git rejects"; cat "$tmp/fix.patch"; fi
expect_in fix-diff-only-insert "$tmp/fix.patch" "+    torch.cuda.synchronize()"
expect_in fix-diff-only-replace "$tmp/fix.patch" "+    comm.wait_stream(torch.cuda.current_stream())"
if cmp -s "$fx/sl103.py" "$tmp/sl103.orig"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL --diff-only changed a file"; fi
(cd "$fx" && "$SLA" check --no-cache --select SL103,SL501 --format sarif -o "$tmp/fix.sarif" . )
check fix-sarif-valid 0 /usr/bin/python3 tests/cli/sarif_validate.py "$tmp/fix.sarif"
expect_in fix-sarif-fixes "$tmp/fix.sarif" '"insertedContent"'
check fix-lintrunner 0 "$SL" check --no-cache --select SL103 --format lintrunner "$fx"
expect_in fix-lintrunner-replacement "$tmp/out" 'wait_stream(torch.cuda.current_stream())'
check fix-apply 1 "$SL" check --no-cache --select SL103,SL501 --fix "$fx"
expect_in fix-apply-msg "$tmp/err" "fixed 3 findings in 2 files"
# Left: the bare default_stream() (its fix would need an import).
expect_in fix-apply-left "$tmp/out" "1 finding (SL103: 1)"
check fix-diff-only-alone 2 "$SL" check --diff-only "$fx"

# The result cache: an unchanged tree gets the same answer from it; a changed input, config or
# option is analysed again; --no-cache always analyses.
cache=$tmp/cache && proj=$tmp/cached && mkdir -p "$proj" && cp examples/python/seed/*.py "$proj/"
sleep 1  # inputs changed in the current second are not cached (racily clean: ResultCache.h)
check cache-cold 1 "$SL" check --cache-dir "$cache" --format json "$proj"
cp "$tmp/out" "$tmp/cold.json"
if [ -n "$(ls "$cache/results/"*.json 2>/dev/null)" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cache-written: no entry in $cache/results"; fi
expect_in cache-gitignore "$cache/.gitignore" "*"
check cache-warm 1 "$SL" check --cache-dir "$cache" --format json "$proj"
if cmp -s "$tmp/out" "$tmp/cold.json"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL cache-warm: output differs"; fi
printf '\n# streamlint: noqa-file\n' >>"$proj/stream_timing_experiment.py"
check cache-changed-file 1 "$SL" check --cache-dir "$cache" --format json "$proj"
expect_not_in cache-changed-file-fresh "$tmp/out" "stream_timing_experiment.py"
printf 'ignore = ["SL401"]\n' >"$proj/.streamlint.toml"
check cache-changed-config 0 "$SL" check --cache-dir "$cache" "$proj"
: >"$tmp/empty.toml"
check cache-changed-option 1 "$SL" check --cache-dir "$cache" --config "$tmp/empty.toml" --select SL401 "$proj"
# A damaged entry is a miss, not an error.
for f in "$cache"/results/*.json; do printf 'garbage' >"$f"; done
check cache-damaged 0 "$SL" check --cache-dir "$cache" "$proj"
check no-cache 0 "$SL" check --no-cache --cache-dir "$tmp/unused" "$proj"
if [ ! -e "$tmp/unused" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL no-cache wrote a cache"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
