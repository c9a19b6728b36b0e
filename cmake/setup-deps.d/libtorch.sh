#!/usr/bin/env bash
# LibTorch C++ headers for the C++ frontend's tests (issue 3): Debian's libtorch-dev 1.13 and the
# header-only packages its headers include (gflags, glog, pybind11), extracted with dpkg -x into
# $1/libtorch-headers -- never installed, so the build machine's system stays untouched.
# Idempotent: a marker file records a finished extraction.
set -euo pipefail
deps=${1:?usage: libtorch.sh DEPS_DIR}
root="$deps/libtorch-headers"
marker="$root/.complete"
[ -f "$marker" ] && exit 0

pkgs=(libtorch-dev libgflags-dev libgoogle-glog-dev pybind11-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null 2>&1); then
  # A fresh machine may have no package lists yet.
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  (cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null)
fi
rm -rf "$root"
mkdir -p "$root"
for deb in "$tmp"/*.deb; do
  dpkg -x "$deb" "$root"
done
[ -f "$root/usr/include/torch/csrc/api/include/torch/torch.h" ] || {
  echo "setup: libtorch-dev did not provide torch/torch.h under $root" >&2
  exit 2
}
touch "$marker"
echo "setup: LibTorch headers extracted to $root"
