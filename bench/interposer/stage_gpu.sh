#!/usr/bin/env bash
# Copies what the GPU machine needs from build/ into build/gpu (the device tool carries at most
# 64 MiB; the checker's debug info alone is 100 MB, so streamlint is stripped): streamlint, the
# recorder, the test programs and libraries (kept whole: the tests read their line tables). The
# GPU machine has no LLVM or tree-sitter: `run` and `report` need neither.
set -eu
B=${1:-build}
rm -rf "$B/gpu"; mkdir -p "$B/gpu/bin" "$B/gpu/lib"
for f in "$B"/bin/*; do
  case $(basename "$f") in
    streamlint) strip -o "$B/gpu/bin/streamlint" "$f" ;;
    sl_*|write_sample_report) cp "$f" "$B/gpu/bin/" ;;
  esac
done
for f in "$B"/lib/*.so; do
  case $(basename "$f") in libstreamlint_cxx.so) ;; *) cp "$f" "$B/gpu/lib/" ;; esac
done
du -sh "$B/gpu"
