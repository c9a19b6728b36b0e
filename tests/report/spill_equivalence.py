"""`streamlint report` gives the same bytes whether the timeline stays in memory or every vector of
it moves to a temporary file at once (SL_SPILL_AFTER_MB=0, SpilledVector.h): text, JSON, SARIF,
the HTML page and the Perfetto trace, on every fixture log and on the rank directories; and a
$TMPDIR that cannot be written is an input error (exit 2), not a crash.

    python3 spill_equivalence.py --streamlint build/bin/streamlint --fixtures tests/runtime/fixtures
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile


def run(streamlint, log, fmt, tmp, spill):
    env = dict(os.environ)
    env.pop("SL_SPILL_AFTER_MB", None)
    if spill:
        env["SL_SPILL_AFTER_MB"] = "0"
    html, trace = os.path.join(tmp, "r.html"), os.path.join(tmp, "t.json")
    extra = ["--html", html, "--trace", trace] if fmt == "text" else []
    p = subprocess.run([streamlint, "report", log, "--format", fmt] + extra, env=env, capture_output=True)
    files = []
    for f in (html, trace) if extra else ():
        with open(f, "rb") as fh:
            files.append(fh.read())
        os.remove(f)
    return p.returncode, p.stdout, p.stderr, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    logs = sorted(glob.glob(os.path.join(a.fixtures, "*.slog")) + glob.glob(os.path.join(a.fixtures, "*", "*.slog")))
    logs += [os.path.join(a.fixtures, "ranks", "gloo2-slow"), os.path.join(a.fixtures, "overlap")]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for log in logs:
            for fmt in ("text", "json", "sarif"):
                if run(a.streamlint, log, fmt, tmp, False) != run(a.streamlint, log, fmt, tmp, True):
                    print(f"DIFFERENT: {log} --format {fmt} with SL_SPILL_AFTER_MB=0")
                    bad += 1
    # A $TMPDIR that cannot hold the files: an input error naming it (exit 2), not an abort.
    env = dict(os.environ, TMPDIR="/nonexistent-streamlint-tmp", SL_SPILL_AFTER_MB="0")
    p = subprocess.run([a.streamlint, "report", logs[0]], env=env, capture_output=True, text=True)
    if p.returncode != 2 or "/nonexistent-streamlint-tmp" not in p.stderr:
        print(f"unwritable TMPDIR: exit {p.returncode}, stderr {p.stderr[-300:]!r}")
        bad += 1
    print(f"{len(logs)} inputs, {bad} different or wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
