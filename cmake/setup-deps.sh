#!/usr/bin/env bash
# Installs what building and testing streamlint needs on a fresh Debian 12 machine.
# Idempotent: every step checks first, so `make test` on a prepared machine costs ~nothing here.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
deps="$here/.deps"
mkdir -p "$deps"

need_pkgs=()
# Tools: whatever provides them is fine (the machine image may ship its own node/npm/cmake).
for t in cmake:cmake ninja:ninja-build g++:g++ npm:npm git:git openssl:openssl; do
  command -v "${t%%:*}" >/dev/null 2>&1 || need_pkgs+=("${t#*:}")
done
# Libraries and the Clang 19 toolchain: Debian's packages.
for p in libtree-sitter-dev nlohmann-json3-dev libtomlplusplus-dev libgtest-dev libgmock-dev \
         libbenchmark-dev python3-jsonschema python3-yaml python3-venv llvm-19-dev libclang-19-dev clang-19 libclang-cpp19-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$p")
done
# Headless browser for the HTML report's test (tests/report): any Chromium or Chrome will do.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
   ! command -v google-chrome >/dev/null 2>&1; then
  need_pkgs+=(chromium)
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${need_pkgs[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# tree-sitter-python grammar, pinned: 0.23.6 is the newest release with ABI 14, which the
# Debian tree-sitter runtime (0.20.7) accepts. The tarball's integrity is checked before use.
TSP_VERSION=0.23.6
TSP_SHA512="yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A=="
tsp="$deps/tree-sitter-python-$TSP_VERSION"
if [ ! -f "$tsp/src/parser.c" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "tree-sitter-python@$TSP_VERSION" >/dev/null)
  got=$(openssl dgst -sha512 -binary "$tmp/tree-sitter-python-$TSP_VERSION.tgz" | base64 -w0)
  if [ "$got" != "$TSP_SHA512" ]; then
    echo "setup: tree-sitter-python-$TSP_VERSION.tgz integrity mismatch (got sha512-$got)" >&2
    exit 2
  fi
  mkdir -p "$tsp"
  tar -xzf "$tmp/tree-sitter-python-$TSP_VERSION.tgz" -C "$tsp" --strip-components=1
  rm -rf "$tmp"
fi

# Extra set-up steps of other parts (LibTorch headers, ...) live beside this script.
for extra in "$here"/cmake/setup-deps.d/*.sh; do
  [ -e "$extra" ] && bash "$extra" "$deps"
done
exit 0
