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
         libbenchmark-dev python3-jsonschema python3-yaml python3-venv pre-commit llvm-19-dev libclang-19-dev clang-19 libclang-cpp19-dev; do
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

# The pinned tree-sitter-python grammar (integrity-checked; the pip build fetches it the same way).
"$here/cmake/fetch-grammar.sh" "$deps"

# Extra set-up steps of other parts (LibTorch headers, ...) live beside this script.
for extra in "$here"/cmake/setup-deps.d/*.sh; do
  [ -e "$extra" ] && bash "$extra" "$deps"
done
exit 0
