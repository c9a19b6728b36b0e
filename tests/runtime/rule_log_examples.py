"""A runtime rule's examples: `streamlint report` on the rule folder's bad.slog (recorded on a GPU)
must report the rule, on good.slog must not.

    rule_log_examples.py --streamlint BIN --rule SL903 --dir rules/SL903-... [--symbols DIR]
"""
import argparse
import json
import os
import subprocess
import sys


def rules_reported(streamlint, log, symbols):
    cmd = [streamlint, "report", log, "--format", "json"] + (["--symbols", symbols] if symbols else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return [f["rule"] for f in json.loads(p.stdout)["findings"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--rule", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--symbols")
    a = ap.parse_args()
    # bad.slog, or bad/ holding one log per rank for a rule judged across ranks (SL906).
    def example(name):
        return os.path.join(a.dir, name + ".slog") if os.path.exists(os.path.join(a.dir, name + ".slog")) \
            else os.path.join(a.dir, name)
    bad = rules_reported(a.streamlint, example("bad"), a.symbols)
    if a.rule not in bad:
        sys.exit(f"FAIL: {example('bad')} must give {a.rule}, got {bad}")
    good_log = example("good")
    if os.path.exists(good_log):
        good = rules_reported(a.streamlint, good_log, a.symbols)
        if a.rule in good:
            sys.exit(f"FAIL: good.slog must not give {a.rule}, got {good}")
    print(f"{a.rule}: bad.slog reports it ({bad.count(a.rule)}x), good.slog does not")


if __name__ == "__main__":
    main()
