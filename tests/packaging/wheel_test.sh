#!/usr/bin/env bash
# The wheel as a user gets it: built from this build tree, installed into a fresh venv with
# no index (no network), then the checker on the seed examples and a recording of a real CUDA
# program (on a machine without a GPU the CUDA runtime fails with error 35: still real calls).
# usage: wheel_test.sh BUILD_DIR CUDA_PROGRAM   (run from the repository root)
set -u
build=$1 program=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"

# No --version: the wheel is named by what the binary says, which pip must then agree with.
check build-wheel 0 /usr/bin/python3 packaging/build_wheel.py --build "$build" --out "$tmp/dist"
whl=$(ls "$tmp"/dist/streamlint-*-py3-none-manylinux_2_*_x86_64.whl 2>/dev/null | head -1)
version=$(basename "$whl" | sed -n 's/^streamlint-\([^-]*\)-py3-.*/\1/p')
if [ -n "$whl" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: no wheel in $tmp/dist"; ls "$tmp/dist"; fi
# Installable on glibc 2.28 (PyTorch's manylinux_2_28: RHEL 8, Debian 10): compat/ keeps the floor there.
minor=$(basename "$whl" | sed -n 's/.*manylinux_2_\([0-9]*\)_x86_64.whl/\1/p')
if [ -n "$minor" ] && [ "$minor" -le 28 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: the wheel needs glibc 2.$minor (> 2.28): $whl"; fi
check venv 0 /usr/bin/python3 -m venv "$tmp/venv"
check install 0 "$tmp/venv/bin/pip" install -q --no-index --no-cache-dir "$whl"
# One version everywhere (issue 32): the wheel's name, `streamlint --version`, pip's metadata.
check version 0 "$tmp/venv/bin/streamlint" --version
expect_in version-matches-wheel "$tmp/out" "streamlint $version"
check python-module 0 "$tmp/venv/bin/python" -c "import streamlint; assert streamlint.__version__ == '$version', streamlint.__version__"
check pip-version 0 "$tmp/venv/bin/python" -c "import importlib.metadata as m; assert m.version('streamlint') == '$version', m.version('streamlint')"
# The checker: the seed's findings, exactly as from the build tree.
check check-seed 1 "$tmp/venv/bin/streamlint" check --no-cache --format json examples/python/seed
cp "$tmp/out" "$tmp/from-wheel.json"
check check-seed-build 1 "$build/bin/streamlint" check --no-cache --format json examples/python/seed
if cmp -s "$tmp/out" "$tmp/from-wheel.json"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL: the wheel's findings differ from the build tree's"; fi
# The recorder ships inside the wheel and `run` finds it there (not in the build tree).
check run 0 env -u SL_INTERPOSER "$tmp/venv/bin/streamlint" run --out "$tmp/logs" -- "$program"
expect_in run-log "$tmp/err" "1 log in"
# A huge threshold: whether a call blocked 100 us depends on the load of the machine (exit 1).
check report 0 "$tmp/venv/bin/streamlint" report "$tmp/logs" --format json --min-blocking-us 1e12
expect_in report-json "$tmp/out" '"findings"'
# --sanitize's Python half (the allocator trace's sitecustomize.py) ships too.
check run-sanitize 0 env -u SL_INTERPOSER "$tmp/venv/bin/streamlint" run --sanitize --out "$tmp/slogs" -- "$program"
expect_in run-sanitize-log "$tmp/err" "1 log in"
# Without the C/C++ wheel, C/C++ input is a clear error, not a crash.
printf 'int main() { return 0; }\n' >"$tmp/a.cpp"
check cxx-missing 2 "$tmp/venv/bin/streamlint" check "$tmp/a.cpp"
expect_in cxx-missing-msg "$tmp/err" "pip install streamlint-cxx"

# `pip install .` (what pre-commit's `language: python` hook does with this repository): the
# in-tree backend packs the build tree (STREAMLINT_BUILD_DIR; a user's install builds one), then
# the hook's entry runs on the files pre-commit names.
check venv-src 0 /usr/bin/python3 -m venv "$tmp/src"
check install-src 0 env STREAMLINT_BUILD_DIR="$build" "$tmp/src/bin/pip" install -q --no-index --no-cache-dir .
mkdir -p "$tmp/hookrepo" && cp examples/python/seed/*.py "$tmp/hookrepo/"
hook_entry=$(sed -n 's/^  entry: //p' .pre-commit-hooks.yaml | head -1)
(cd "$tmp/hookrepo" && PATH="$tmp/src/bin:$PATH" $hook_entry overlapped_forward_backward.py >"$tmp/out" 2>"$tmp/err"); rc=$?
if [ "$rc" = 1 ] && grep -q "overlapped_forward_backward.py:26:13: error" "$tmp/out"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL hook entry '$hook_entry': exit $rc"; cat "$tmp/out" "$tmp/err"; fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
