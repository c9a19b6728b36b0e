#!/usr/bin/env bash
# Records examples/runtime/dataloader_backward.py on a GPU machine and reports where the calls of
# its pin-memory and autograd threads landed (the recorder's thread records, issue 16). Needs
# torch and a GPU; the binaries built here (streamlint, libstreamlint_interposer.so).
#   OUT=DIR examples/runtime/record_threads_on_gpu.sh
# Writes DIR/logs/ (commit its main process's .slog as tests/runtime/fixtures/h200-dataloader-backward.slog),
# DIR/report.txt, DIR/report.json and DIR/summary.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-/tmp/threads-out}
sl=${SL:-$root/build/bin/streamlint}
py=${PYTHON:-python}
mkdir -p "$out"
rm -rf "$out/logs"
export PYTHONUNBUFFERED=1
"$py" -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name())' > "$out/env.txt" 2>&1
timeout 300 "$sl" run --out "$out/logs" -- "$py" "$here/dataloader_backward.py" > "$out/run.txt" 2>&1
echo "run exit $?" >> "$out/run.txt"
timeout 120 "$sl" report "$out/logs" "$here" > "$out/report.txt" 2>&1
timeout 120 "$sl" report "$out/logs" "$here" --min-blocking-us 0 --format json > "$out/report.json" 2> "$out/report.err"
timeout 60 "$py" - "$out/report.json" > "$out/summary.txt" 2>&1 <<'PY'
import json, sys
findings = json.load(open(sys.argv[1]))["findings"]
for f in findings:
    p = f.get("properties", {})
    if f["rule"] == "SL901":
        print(f'{f["path"].split("/")[-1]}:{f["line"]} {p.get("api")} x{p.get("calls")} '
              f'by={p.get("attributedBy", "-")} threads={p.get("attributedThreads", "-")} '
              f'from={p.get("attributedFrom", p.get("nativeAddress", "-"))}')
PY
ls -la "$out/logs" >> "$out/summary.txt"
cat "$out/env.txt" "$out/summary.txt"
tail -3 "$out/run.txt"
