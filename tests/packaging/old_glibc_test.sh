#!/usr/bin/env bash
# The wheel on a glibc older than 2.34 (SL_GLIBC_FLOOR, compat/): Debian 11's glibc 2.31 and
# Python 3.9 in a chroot made by tests/make_debian_root.sh. Installed with pip --no-index into a venv
# there, the checker's findings must equal the build tree's and `run` must record a Python program
# calling the real CUDA runtime through ctypes (error 35 without a GPU: still real calls).
# Exit 77 (skipped) without the root file system or without root.
# usage: old_glibc_test.sh BUILD_DIR ROOT_DIR LIBCUDART   (run from the repository root)
set -u
build=$1 root=$2 cudart=$3
if [ ! -e "$root/.complete" ]; then
  echo "skipped: no old-glibc root at $root (tests/packaging/tests/make_debian_root.sh makes it; .ci/run does)"; exit 77
fi
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then echo "skipped: needs root and unshare (chroot)"; exit 77; fi
tmp=$(mktemp -d)
work=$(mktemp -d "$root/srv/sl-test.XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"

check build-wheel 0 /usr/bin/python3 packaging/build_wheel.py --build "$build" --out "$work/dist"
cp "$cudart" "$work/libcudart.so.13"
cp tests/runtime/programs/ctypes_user.py "$work/"
cp -r examples/python/seed "$work/seed"
in=/srv/$(basename "$work")
# Inside: a private mount namespace, so /proc (streamlint finds its files through /proc/self/exe)
# goes away with it.
cat >"$work/inside.sh" <<INSIDE
mount -t proc proc /proc || exit 3
cd $in
ldd --version | head -1 >glibc.txt
python3 -m venv venv && venv/bin/pip install -q --no-index --no-cache-dir dist/streamlint-*.whl || exit 4
venv/bin/streamlint --version >version.txt 2>&1; echo \$? >version.rc
venv/bin/streamlint check --no-cache --format json seed >check.json 2>check.err; echo \$? >check.rc
venv/bin/streamlint run --out logs -- python3 ctypes_user.py $in/libcudart.so.13 >run.out 2>run.err; echo \$? >run.rc
venv/bin/streamlint report logs --format json --min-blocking-us 0 >report.json 2>report.err; echo \$? >report.rc
INSIDE
check chroot 0 unshare --mount --propagation private chroot "$root" /bin/sh "$in/inside.sh"
minor=$(sed -n 's/.* 2\.\([0-9]*\)$/\1/p' "$work/glibc.txt")
if [ -n "$minor" ] && [ "$minor" -lt 34 ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL: the root's glibc is not older than 2.34: $(cat "$work/glibc.txt" 2>/dev/null)"; fi
for step in version:0 check:1 run:0 report:1; do  # 1: findings
  rc=$(cat "$work/${step%%:*}.rc" 2>/dev/null)
  if [ "$rc" = "${step#*:}" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL ${step%%:*} on glibc 2.$minor: exit '$rc', wanted ${step#*:}"
    cat "$work/${step%%:*}".{out,err} 2>/dev/null | head -5; fi
done
(cd examples/python && "$build/bin/streamlint" check --no-cache --format json seed >"$tmp/check.json" 2>/dev/null)
if cmp -s "$work/check.json" "$tmp/check.json"; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL: the findings on glibc 2.$minor differ from the build tree's"; fi
expect_in run-log "$work/run.err" "1 log in"
calls=$(sed -n 's/.* \([0-9]*\) CUDA calls.*/\1/p' "$work/report.err" | head -1)
if [ "${calls:-0}" -ge 5 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: ${calls:-no} CUDA calls recorded (wanted >= 5)"; cat "$work/report.err"; fi
expect_in report-sync "$work/report.json" "cudaDeviceSynchronize"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
