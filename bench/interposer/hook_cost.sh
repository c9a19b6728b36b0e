#!/usr/bin/env bash
# Builds hook_cost.c against the CUDA runtime and runs it under `streamlint run` (no GPU needed).
#   bench/interposer/hook_cost.sh [BUILD_DIR]      (default: build)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
cuda=${CUDA_HOME:-/usr/local/cuda}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"$cuda/include" "$root/bench/interposer/hook_cost.c" -o "$tmp/hook_cost" \
  -L"$cuda/lib64" -lcudart -ldl -Wl,-rpath,"$cuda/lib64"
"$build/bin/streamlint" run --out "$tmp/logs" -- "$tmp/hook_cost" 2> >(grep -v "^streamlint:" >&2)
