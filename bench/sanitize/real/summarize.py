"""One line per recording for the GPU script's summary: SL904 count, then each finding's kind,
lines, tensor size and fix (from `streamlint report DIR --format json`), and the report's
notices (what SL904 checked or could not judge).

    python summarize.py NAME REPORT.json REPORT.stderr
"""
import json
import sys

name, js, err = sys.argv[1:4]
try:
    found = [f for f in json.load(open(js))["findings"] if f["rule"] == "SL904"]
except Exception as e:  # an empty or broken report: say so, the summary must not stop
    print(f"{name}: no report ({e})")
    sys.exit(0)
notes = [l.strip() for l in open(err) if "SL904" in l or "not judged" in l or "lost" in l]
print(f"{name}: SL904 {len(found)} | " + " | ".join(notes))
for f in found:
    p = f["properties"]
    fix = f["message"].rsplit(";", 1)[-1].strip()[:120]
    print(f"  {p['kind']} x{p.get('occurrences')} {p['bytes']} B lines {p['lines']} streams {p['streams']} fix: {fix}")
