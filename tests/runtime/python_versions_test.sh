#!/usr/bin/env bash
# Python line attribution under every CPython the recorder knows that this machine does not have
# (tests/runtime's own scenarios run under the machine's python3): each ROOT is a Debian root made
# by tests/make_debian_root.sh (trixie: 3.13, sid: 3.14 and 3.15). In a chroot, runtime_test.py's Python
# scenarios run with that root's interpreters as sys.executable, against this build's binaries.
# Exit 77 (skipped) when no root has a supported interpreter, or without root.
# usage: python_versions_test.sh BUILD_DIR LIBCUDART ROOT...
set -u
build=$1 cudart=$2
shift 2
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then echo "skipped: needs root and unshare (chroot)"; exit 77; fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scenarios="python_ctypes generated_code thread_start python_fork"
passed=0 failed=0 tried=0
for root in "$@"; do
  [ -e "$root/.complete" ] || { echo "no root at $root (tests/make_debian_root.sh makes it; .ci/run does)"; continue; }
  for py in "$root"/usr/bin/python3.1[1-5]; do
    [ -x "$py" ] || continue
    ver=$(basename "$py")
    tried=$((tried + 1))
    work=$(mktemp -d "$root/srv/sl-py.XXXXXX")
    in=/srv/$(basename "$work")
    mkdir -p "$work/bin" "$work/lib" "$work/tests"
    cp "$build/bin/streamlint" "$work/bin/" && cp "$build/lib/libstreamlint_interposer.so" "$work/lib/"
    cp -r "$build/share" "$work/" && cp "$cudart" "$work/libcudart.so.13"
    cp "$here/runtime_test.py" "$work/tests/" && cp -r "$here/programs" "$work/tests/"
    for s in $scenarios; do
      # A private mount namespace: /proc (the recorder and streamlint read /proc/self) goes with it.
      out=$(unshare --mount --propagation private chroot "$root" /bin/sh -c \
        "mount -t proc proc /proc && /usr/bin/$ver $in/tests/runtime_test.py $s --streamlint $in/bin/streamlint \
         --lib $in/lib/libstreamlint_interposer.so --bindir $in/bin --cudart $in/libcudart.so.13" 2>&1)
      rc=$?
      if [ "$rc" = 0 ]; then passed=$((passed + 1)); else
        failed=$((failed + 1)); echo "FAIL $ver $s (root $root): exit $rc"; echo "$out" | tail -15; fi
    done
    rm -rf "$work"
  done
done
if [ "$tried" = 0 ]; then echo "skipped: no root with Python 3.11-3.15 among: $*"; exit 77; fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
