#!/usr/bin/env bash
# `check` must never lose or leak a user's data (issue 33): --fix keeps a file's encoding, line
# endings and BOM, writes atomically, stays inside the checked tree and edits each file once;
# the cache writes only in a directory of its own; -o and --write-baseline fail loudly on a full
# disk; C/C++ inputs never run the project's Python; --diff reads every file name git prints and
# never takes a REV as an option.
# usage: check_safety_tests.sh path/to/streamlint   (run from the repository root)
set -u
SL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
same() {  # same NAME FILE1 FILE2: byte for byte
  if cmp -s "$2" "$3"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $1: $2 differs from $3"; od -c "$2" | head -8; fi
}
fix() { "$SL" check --no-cache --select SL103,SL501 --fix "$@"; }
# limited NAME EXPECTED_RC KIB COMMAND...: run under a file-size limit (a full disk: write() fails
# with EFBIG as it would with ENOSPC); its stderr lands in $tmp/err, written outside the limit.
limited() {
  local name=$1 want=$2 kib=$3
  shift 3
  (trap '' XFSZ; ulimit -f "$kib"; "$@" 2>&1 >/dev/null; echo "exit $?") | cat >"$tmp/err"
  expect_in "$name" "$tmp/err" "exit $want"
}

# One SL103 fix (a replacement) and one SL501 fix (an inserted line) per file.
body='import time\nimport torch\n\na = torch.ones(64, 64, device="cuda")\n\n\ndef timed(comm):\n    comm.wait_stream(torch.cuda.default_stream())\n    t0 = time.perf_counter()\n    y = torch.relu(a)\n    t1 = time.perf_counter()\n    return t1 - t0\n'
fixed='import time\nimport torch\n\na = torch.ones(64, 64, device="cuda")\n\n\ndef timed(comm):\n    comm.wait_stream(torch.cuda.current_stream())\n    t0 = time.perf_counter()\n    y = torch.relu(a)\n    torch.cuda.synchronize()\n    t1 = time.perf_counter()\n    return t1 - t0\n'
d=$tmp/fix && mkdir -p "$d"

# A declared latin-1 file stays latin-1 ('\xe9' is é there, not the start of a UTF-8 sequence).
printf "# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\n$body" >"$d/latin.py"
printf "# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\n$fixed" >"$tmp/latin.want"
check fix-latin1 0 fix "$d/latin.py"
same fix-latin1-bytes "$d/latin.py" "$tmp/latin.want"

# CRLF: the inserted line ends with CRLF too. Lone CR: the file keeps its CRs.
printf "$body" | sed 's/$/\r/' >"$d/crlf.py"
printf "$fixed" | sed 's/$/\r/' >"$tmp/crlf.want"
check fix-crlf 0 fix "$d/crlf.py"
same fix-crlf-bytes "$d/crlf.py" "$tmp/crlf.want"
printf "$body" | tr '\n' '\r' >"$d/cr.py"
printf "$fixed" | tr '\n' '\r' >"$tmp/cr.want"
check fix-lone-cr 0 fix "$d/cr.py"
same fix-lone-cr-bytes "$d/cr.py" "$tmp/cr.want"

# A BOM stays first.
printf "\xef\xbb\xbf$body" >"$d/bom.py"
printf "\xef\xbb\xbf$fixed" >"$tmp/bom.want"
check fix-bom 0 fix "$d/bom.py"
same fix-bom-bytes "$d/bom.py" "$tmp/bom.want"

# A file named twice is analysed once: one set of findings, one inserted line.
printf "$body" >"$d/twice.py"
printf "$fixed" >"$tmp/twice.want"
check twice-findings 1 "$SL" check --no-cache --select SL103,SL501 "$d/twice.py" "$d/./twice.py"
expect_in twice-findings-count "$tmp/out" "2 findings (SL103: 1, SL501: 1)"
check fix-twice 0 fix "$d/twice.py" "$d/twice.py"
same fix-twice-bytes "$d/twice.py" "$tmp/twice.want"

# A symlink leading out of the checked tree is not written through; the file it names is kept.
mkdir -p "$tmp/outside" "$d/tree"
printf "$body" >"$tmp/outside/target.py"
cp "$tmp/outside/target.py" "$tmp/target.orig"
ln -s "$tmp/outside/target.py" "$d/tree/link.py"
check fix-symlink-out 2 fix "$d/tree"
expect_in fix-symlink-out-msg "$tmp/err" "link.py: a symlink leading out of the checked tree; not fixed"
same fix-symlink-out-kept "$tmp/outside/target.py" "$tmp/target.orig"

# A full disk (a file-size limit fails write() the same way): exit 2 naming the file and the
# reason, the file as it was (it was once left cut at the limit, its functions gone).
big=$d/big.py
{ printf "$body"; for i in $(seq 200); do printf 'def pad%s():\n    return %s\n\n\n' "$i" "$i"; done; } >"$big"
cp "$big" "$tmp/big.orig"
limited fix-full-disk 2 4 fix "$big"
expect_in fix-full-disk-msg "$tmp/err" "cannot write the fixes to $big: cannot write: File too large"
same fix-full-disk-kept "$big" "$tmp/big.orig"

# -o and --write-baseline on a full disk: exit 2, the old file kept (no "wrote 1 findings").
printf 'old report\n' >"$tmp/report.txt" && cp "$tmp/report.txt" "$tmp/report.orig"
limited output-full-disk 2 0 "$SL" check --no-cache -o "$tmp/report.txt" "$tmp/outside"
expect_in output-full-disk-msg "$tmp/err" "cannot write the findings to $tmp/report.txt: cannot write: File too large"
same output-full-disk-kept "$tmp/report.txt" "$tmp/report.orig"
printf '{}\n' >"$tmp/base.json" && cp "$tmp/base.json" "$tmp/base.orig"
limited baseline-full-disk 2 0 "$SL" check --no-cache --write-baseline "$tmp/base.json" "$tmp/outside"
expect_in baseline-full-disk-msg "$tmp/err" "$tmp/base.json: cannot write baseline: cannot write: File too large"
expect_not_in baseline-full-disk-no-claim "$tmp/err" "wrote"
same baseline-full-disk-kept "$tmp/base.json" "$tmp/base.orig"

# The cache writes only in a directory of its own. `--cache-dir .` in a project: its own
# results/*.json stay, and no .gitignore hides it from git.
p=$tmp/proj && mkdir -p "$p/results"
cp examples/python/seed/*.py "$p/"
for i in $(seq 20); do printf '{"run": %s}\n' "$i" >"$p/results/run$i.json"; done
sleep 1  # past the second the inputs were written in: a racily clean tree is not cached
# A cache that cannot be written (a full disk) is reported, naming the file, and the run exits 2.
limited cache-full-disk 2 0 "$SL" check --cache-dir "$tmp/fullcache" "$p"
expect_in cache-full-disk-msg "$tmp/err" "cannot write $tmp/fullcache/.gitignore: cannot write: File too large"

(cd "$p" && "$SL" check --cache-dir . --format json . >"$tmp/out" 2>"$tmp/err")
expect_in cache-dot-note "$tmp/err" "not caching in .: it exists and was not made by streamlint"
if [ "$(ls "$p/results" | wc -l)" = 20 ] && [ ! -e "$p/.gitignore" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cache-dot: results/ or .gitignore touched"; ls -a "$p" "$p/results"; fi
# ... nor through a committed .streamlint_cache symlink into the tree (the default directory).
ln -s . "$p/.streamlint_cache"
(cd "$p" && "$SL" check --format json . >"$tmp/out" 2>"$tmp/err")
if [ "$(ls "$p/results" | wc -l)" = 20 ] && [ ! -e "$p/.gitignore" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cache-symlink: results/ or .gitignore touched"; ls -a "$p" "$p/results"; fi
rm "$p/.streamlint_cache"
# A directory it makes is tagged and hidden from git; only its own entries are pruned, and
# temporary files a killed store left behind go once they are old.
c=$tmp/cache
check cache-own 1 "$SL" check --cache-dir "$c" "$p"
expect_in cache-own-tag "$c/CACHEDIR.TAG" "Signature: 8a477f597d28d172789f06886806bc55"
expect_in cache-own-gitignore "$c/.gitignore" "*"
for i in $(seq 20); do printf '{}' >"$c/results/notes$i.json"; done
key=$(basename "$(ls "$c/results/" | grep -E '^[0-9a-f]{32}\.json$' | head -1)" .json)
for i in $(seq 20); do printf '%032x' "$i" | sed 's/$/.json/' | xargs -I{} cp "$c/results/$key.json" "$c/results/{}"; done
printf 'x' >"$c/results/$key.tmp4242" && touch -d '2 hours ago' "$c/results/$key.tmp4242"
printf 'x' >"$c/results/.$key.json.sl-tmp-4242-0" && touch -d '2 hours ago' "$c/results/.$key.json.sl-tmp-4242-0"
printf 'x' >"$c/results/.$key.json.sl-tmp-4243-0"  # young: maybe another run's store in progress
check cache-prune 1 "$SL" check --cache-dir "$c" --select SL401 "$p"
if [ "$(ls "$c/results" | grep -c '^notes')" = 20 ] && [ "$(ls "$c/results" | grep -cE '^[0-9a-f]{32}\.json$')" = 16 ] &&
   [ ! -e "$c/results/$key.tmp4242" ] && [ ! -e "$c/results/.$key.json.sl-tmp-4242-0" ] &&
   [ -e "$c/results/.$key.json.sl-tmp-4243-0" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL cache-prune:"; ls -a "$c/results"; fi
# A damaged entry (edits at line 0; JSON nested deeper than any entry) is a miss, never a crash.
proj2=$tmp/fixproj && mkdir -p "$proj2" && printf "$body" >"$proj2/a.py" && sleep 1
c2=$tmp/cache2
check cache-fixable 1 "$SL" check --cache-dir "$c2" --select SL103,SL501 "$proj2"
entry=$(ls "$c2/results/"*.json | head -1) && cp "$entry" "$tmp/good-entry"
line0() { sed 's/"use current_stream()",\[\[[0-9]*,/"use current_stream()",[[0,/' "$tmp/good-entry" >"$entry"; }
line0 && expect_in cache-line0-made "$entry" '"use current_stream()",[[0,'
for fmt in json sarif; do
  line0 && check cache-line0-$fmt 1 "$SL" check --cache-dir "$c2" --select SL103,SL501 --format $fmt "$proj2"
done
line0 && check cache-line0-diff-only 1 "$SL" check --cache-dir "$c2" --select SL103,SL501 --fix --diff-only "$proj2"
expect_in cache-line0-diff-only-patch "$tmp/out" "+    comm.wait_stream(torch.cuda.current_stream())"
# Deep JSON in a finding's properties (the output writers recurse through them).
/usr/bin/python3 - "$tmp/good-entry" "$tmp/deep-entry" <<'PY'
import sys
text = open(sys.argv[1]).read()
n = 200000
assert '"x":' in text
open(sys.argv[2], "w").write(text.replace('"x":', '"x":{"deep":' + "[" * n + "]" * n + '},"x0":', 1))
PY
for fmt in json sarif; do
  cp "$tmp/deep-entry" "$entry" && check cache-deep-json-$fmt 1 "$SL" check --cache-dir "$c2" --select SL103,SL501 --format $fmt "$proj2"
done

# C/C++ inputs ask python3 for include paths: from `/`, isolated, so a repository's own
# sysconfig.py is never run.
r=$tmp/repo && mkdir -p "$r"
printf '__global__ void k() {}\n' >"$r/k.cu"
printf 'open(%s, "w").write("ran")\n' "'$tmp/pwned'" >"$r/sysconfig.py"
(cd "$r" && "$SL" check --no-cache --lang python,cpp --keep-going . >"$tmp/out" 2>"$tmp/err")
if [ ! -e "$tmp/pwned" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL probe-ran-project-code"; fi

# --diff: names with spaces and non-ASCII letters (git quotes them) are read; a REV that looks
# like an option is refused before git sees it.
g=$tmp/git && mkdir -p "$g"
git -C "$g" init -q && git -C "$g" config user.email t@example.com && git -C "$g" config user.name t
printf 'import torch\n\n\ndef f(comm):\n    pass\n' >"$g/plain.py"
cp "$g/plain.py" "$g/with space.py" && cp "$g/plain.py" "$g/$(printf 'caf\xc3\xa9.py')"
git -C "$g" add -A && git -C "$g" commit -qm base
for f in plain.py "with space.py" "$(printf 'caf\xc3\xa9.py')"; do
  printf 'import torch\n\n\ndef f(comm):\n    comm.wait_stream(torch.cuda.default_stream())\n' >"$g/$f"
done
check diff-quoted 1 "$SL" check --no-cache --select SL103 --diff HEAD --format json "$g"
for f in plain.py "with space.py" "$(printf 'caf\xc3\xa9.py')"; do expect_in "diff-quoted-$f" "$tmp/out" "$f"; done
check diff-rev-option 2 "$SL" check --no-cache --diff --output="$tmp/clobbered" "$g"
expect_in diff-rev-option-msg "$tmp/err" "a REV cannot start with '-'"
if [ ! -e "$tmp/clobbered" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL diff-rev-option wrote a file"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
