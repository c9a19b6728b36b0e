#!/usr/bin/env bash
# A Debian 11 (glibc 2.31, Python 3.9) root file system for tests/packaging/old_glibc_test.sh:
# the wheel's binaries must run on a glibc older than 2.34, where pthread and dl functions still
# live in libpthread/libdl and __libc_start_main does not run the executable's constructors.
# Needs root and Debian's mirror (debootstrap, ~250 MB, a few minutes); idempotent.
# usage: make_old_glibc_root.sh DIR
set -euo pipefail
dir=$1
if [ -x "$dir/usr/bin/python3" ] && [ -e "$dir/usr/lib/python3.9/venv/__init__.py" ] && [ -e "$dir/.complete" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "make_old_glibc_root: needs root (debootstrap, chroot)" >&2
  exit 2
fi
command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
debootstrap --variant=minbase --include=python3,python3-venv bullseye "$dir" http://deb.debian.org/debian \
  >"$dir.log" 2>&1 || { echo "make_old_glibc_root: debootstrap failed (log: $dir.log)" >&2; exit 2; }
rm -rf "$dir/var/cache/apt/archives/"*.deb
touch "$dir/.complete"
