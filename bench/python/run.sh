#!/usr/bin/env bash
# Speed and memory of `streamlint check` on real Python vs CPython's ast.parse, same run.
# Usage: bench/python/run.sh [bench.py options] [SOURCE_DIR...]
#   no SOURCE_DIR: this interpreter's stdlib and site-packages (copied to a temp dir first).
# Needs GNU time (/usr/bin/time, Debian package `time`) and a built build/bin/streamlint.
# Never run by the tests; see bench/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -x /usr/bin/time ]; then
  echo "bench: installing Debian's 'time' package for /usr/bin/time" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time >/dev/null
fi
if [ ! -x "$root/build/bin/streamlint" ]; then
  cmake --build "$root/build" --target streamlint
fi
exec "${PYTHON:-python3}" "$root/bench/python/bench.py" --streamlint "$root/build/bin/streamlint" "$@"
