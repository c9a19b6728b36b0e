#!/usr/bin/env bash
# pre-commit as a developer gets it (issue 32): a non-root user, a fresh clone of this
# repository (no .deps/, no build/), the .pre-commit-config.yaml block of docs/install.md with
# only `repo:`/`rev:` pointed at that clone, and `pre-commit run --all-files` on a 200-file
# repository, twice: the first run installs the hook (pip builds streamlint, fetching the
# grammar into the user's cache), the second only checks. apt-get, apt and sudo on PATH are
# traps: the install must never touch system packages. Prints both runs' times.
# usage: precommit_test.sh [PRE_COMMIT]   (run from anywhere; exit 77 = skipped)
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
precommit=${1:-$(command -v pre-commit)}
if [ -z "$precommit" ] || [ ! -x "$precommit" ]; then
  echo "SKIPPED: pre-commit is not installed (Debian: apt-get install pre-commit; .ci/run does)" >&2
  exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/sl-precommit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# The fresh clone: HEAD plus this checkout's uncommitted changes (tracked and new files), so the
# test checks the working tree, committed in the clone as one commit that `rev:` names.
clone=$tmp/streamlint
git clone -q --no-hardlinks "$root" "$clone" || fail "git clone"
git -C "$root" diff HEAD --binary | git -C "$clone" apply --allow-empty || fail "applying the working tree's changes"
(cd "$root" && git ls-files --others --exclude-standard -z) | (cd "$root" && xargs -0r cp --parents -t "$clone")
git -C "$clone" add -A
git -C "$clone" -c user.name=t -c user.email=t@t commit -qm "working tree" --allow-empty
rev=$(git -C "$clone" rev-parse HEAD)
[ ! -e "$clone/.deps" ] && [ ! -e "$clone/build" ] || fail "the clone is not fresh"

# The developer's repository: 199 clean files and one with the seed's SL401.
repo=$tmp/repo
mkdir -p "$repo/pkg"
for i in $(seq 1 199); do cp "$root/examples/python/fixed/overlapped_forward_backward.py" "$repo/pkg/m$i.py"; done
cp "$root/examples/python/seed/overlapped_forward_backward.py" "$repo/pkg/seed.py"
# The hook configuration exactly as docs/install.md shows it, repo and rev replaced.
python3 - "$root/docs/install.md" "$clone" "$rev" >"$repo/.pre-commit-config.yaml" <<'PY' || fail "no pre-commit block in docs/install.md"
import re, sys
doc, clone, rev = sys.argv[1:]
m = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", open(doc).read(), re.S)
if not m: sys.exit(1)
block = re.sub(r"(?m)^(\s*- repo:).*$", r"\1 " + clone, m.group(1))
print(re.sub(r"(?m)^(\s*rev:).*$", r"\1 " + rev, block), end="")
PY
git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm sample

# Traps for system package managers, first on PATH.
mkdir -p "$tmp/trap"
for t in apt-get apt sudo dpkg; do
  printf '#!/bin/sh\necho "%s $*" >>%s/trap/called\nexit 1\n' "$t" "$tmp" >"$tmp/trap/$t"
  chmod 755 "$tmp/trap/$t"
done
mkdir -p "$tmp/home"
# A non-root user: nobody (65534) when the test runs as root, else the caller.
as_user=()
if [ "$(id -u)" = 0 ]; then
  chown -R 65534:65534 "$tmp"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
run_hook() {  # run_hook LOG: pre-commit run --all-files as the user; sets $rc and $secs
  local start end
  start=$(date +%s.%N)
  (cd "$repo" && "${as_user[@]}" env -i PATH="$tmp/trap:/usr/local/bin:/usr/bin:/bin" HOME="$tmp/home" \
     LANG=C.UTF-8 "$precommit" run --all-files >"$1" 2>&1)
  rc=$?
  end=$(date +%s.%N)
  secs=$(python3 -c "print('%.1f' % ($end - $start))")
}
run_hook "$tmp/first.log"; first=$secs
[ "$rc" = 1 ] || { tail -40 "$tmp/first.log"; fail "first run: exit $rc, wanted 1 (the seed's finding)"; }
grep -q "pkg/seed.py:26:13: error: .*\[SL401\]" "$tmp/first.log" || { tail -40 "$tmp/first.log"; fail "first run: no SL401 on pkg/seed.py:26"; }
run_hook "$tmp/second.log"; second=$secs
[ "$rc" = 1 ] || { tail -40 "$tmp/second.log"; fail "second run: exit $rc, wanted 1"; }
grep -q "\[SL401\]" "$tmp/second.log" || fail "second run: no SL401"
[ ! -e "$tmp/trap/called" ] || fail "the install ran a system package manager: $(cat "$tmp/trap/called")"
ls "$tmp/home/.cache/streamlint"/tree-sitter-python-*/src/parser.c >/dev/null 2>&1 ||
  fail "the grammar is not in the user's cache (~/.cache/streamlint)"
# The seed fixed: the hook passes.
cp "$root/examples/python/fixed/overlapped_forward_backward.py" "$repo/pkg/seed.py"
run_hook "$tmp/third.log"; third=$secs
[ "$rc" = 0 ] || { tail -40 "$tmp/third.log"; fail "after the fix: exit $rc, wanted 0"; }
echo "pre-commit as uid $("${as_user[@]}" id -u) on a fresh clone, 200 files: first run ${first} s (installs the hook), then ${second} s, ${third} s"
echo "PASS"
