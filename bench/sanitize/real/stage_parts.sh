#!/usr/bin/env bash
# Stages what run_on_gpu.sh PHASE=parts needs into DIR (default .dev34c; keep it git-ignored and
# name it in the device tool's carry): bin/streamlint (stripped), the recorder under test as
# lib/libstreamlint_interposer.so, an older one as lib/libstreamlint_interposer-old.so (OLD), the
# sanitize mode's Python side, these programs, and the log reader with its format header.
#   bash bench/sanitize/real/stage_parts.sh BUILD OLD_LIB [DIR]
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
B=$1 OLD=$2 S=${3:-.dev34c}
rm -rf "$S"; mkdir -p "$S"/{bin,lib,share/streamlint/python,bench/sanitize,bench/interposer,interposer/include/streamlint}
strip -o "$S/bin/streamlint" "$B/bin/streamlint"
cp "$B/lib/libstreamlint_interposer.so" "$S/lib/"
cp "$OLD" "$S/lib/libstreamlint_interposer-old.so"
cp "$root/interposer/python/sitecustomize.py" "$S/share/streamlint/python/"
cp -r "$root/bench/sanitize/real" "$S/bench/sanitize/"; rm -rf "$S/bench/sanitize/real/__pycache__"
cp "$root/bench/interposer/slog_stats.py" "$S/bench/interposer/"
cp "$root/interposer/include/streamlint/LogFormat.h" "$S/interposer/include/streamlint/"
du -sh "$S"
