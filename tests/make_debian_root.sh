#!/usr/bin/env bash
# A Debian root file system for the tests that run streamlint under another glibc or Python:
#   bullseye (Debian 11): glibc 2.31, Python 3.9 — packaging.old_glibc (the wheel on glibc < 2.34);
#   trixie (Debian 13): Python 3.13, sid (unstable): Python 3.14 and 3.15 — runtime.python_versions.
# Needs root and Debian's mirror (debootstrap, 150-250 MB, a few minutes each); idempotent.
# usage: make_debian_root.sh SUITE DIR PACKAGE,PACKAGE...
set -euo pipefail
suite=$1 dir=$2 packages=$3
if [ -e "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$suite $packages" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "make_debian_root: needs root (debootstrap, chroot)" >&2
  exit 2
fi
command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
}
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
debootstrap --variant=minbase "$suite" "$dir" http://deb.debian.org/debian \
  >"$dir.log" 2>&1 || { echo "make_debian_root: debootstrap $suite failed (log: $dir.log)" >&2; exit 2; }
# One by one: unstable drops old interpreters in time; a package it no longer has is skipped.
installed=0
for p in ${packages//,/ }; do
  if chroot "$dir" apt-get install -y -q --no-install-recommends "$p" >>"$dir.log" 2>&1; then
    installed=$((installed + 1))
  else
    echo "make_debian_root: $suite has no $p (skipped)" >&2
  fi
done
[ "$installed" -gt 0 ] || { echo "make_debian_root: none of $packages installed in $suite" >&2; exit 2; }
rm -rf "$dir/var/cache/apt/archives/"*.deb
echo "$suite $packages" >"$dir/.complete"
