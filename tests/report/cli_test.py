"""`streamlint report`'s command line as ruff's (issue 32): findings and then the summary lines
on stdout, errors and warnings only on stderr; -q findings only; --exit-zero; --html/--trace
alone print the summary, not every finding; -o FILE takes the findings, the summary stays.

    cli_test.py SCENARIO --streamlint BIN
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SEED = "examples/python/seed/overlapped_forward_backward.py"
A = None


def log():
    folder = next(d for d in os.listdir(os.path.join(ROOT, "rules")) if d.startswith("SL903"))
    return os.path.join("rules", folder, "bad.slog")


def check(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)


def report(*args, want=1):
    p = subprocess.run([A.streamlint, "report", *args], capture_output=True, text=True, cwd=ROOT)
    check(p.returncode == want, f"report {args} exited {p.returncode}, wanted {want}: {p.stderr[-2000:]}")
    return p


def finding_lines(text):
    return [l for l in text.splitlines() if l.rstrip().endswith("]") and (": error: " in l or ": warning: " in l)]


def summary_on_stdout():
    p = report(log(), SEED)
    check(finding_lines(p.stdout), f"findings on stdout: {p.stdout[:500]}")
    check("streamlint report: 1 process" in p.stdout, f"what was read is a summary line on stdout: {p.stdout[-800:]}")
    check("streamlint report:" not in p.stderr, f"stderr only for errors and warnings: {p.stderr}")
    # The summary comes after the findings.
    check(p.stdout.rindex("streamlint report: 1 process") > p.stdout.rindex("[SL"), "summary after the findings")
    j = report(log(), SEED, "--format", "json")
    json.loads(j.stdout)  # stdout stays parseable: the summary goes to stderr there
    check("streamlint report: 1 process" in j.stderr, f"json: summary on stderr: {j.stderr}")
    with tempfile.TemporaryDirectory() as tmp:
        s = report(log(), "--format", "sarif", "-o", os.path.join(tmp, "r.sarif"))
        check(s.stdout == "" and "streamlint report: 1 process" in s.stderr, f"sarif -o: {s.stdout} {s.stderr}")


def quiet():
    p = report(log(), SEED, "-q")
    check(finding_lines(p.stdout), f"-q keeps the findings: {p.stdout[:500]}")
    for s in ("streamlint report:", " findings (", "GPU streams of"):
        check(s not in p.stdout, f"-q: '{s}' on stdout: {p.stdout[-800:]}")
    check(p.stderr == "", f"-q: nothing on stderr: {p.stderr}")
    with tempfile.TemporaryDirectory() as tmp:
        q = report(log(), "--quiet", "--html", os.path.join(tmp, "r.html"))
        check(q.stdout == "" and q.stderr == "", f"-q --html: nothing at all: {q.stdout} {q.stderr}")


def exit_zero():
    p = report(log(), SEED, "--exit-zero", want=0)
    check(finding_lines(p.stdout), "--exit-zero still reports")
    report("no/such/dir", "--exit-zero", want=2)


def html_prints_summary():
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "r.html")
        p = report(log(), SEED, "--html", page)
        check(not finding_lines(p.stdout), f"--html: no findings printed: {p.stdout[:800]}")
        check("streamlint report: wrote " + page in p.stdout, f"--html: the file named: {p.stdout}")
        check(" findings (" in p.stdout and "SL401: 1" in p.stdout, f"--html: the count: {p.stdout}")
        check(os.path.getsize(page) > 0, "the page was written")
        t = report(log(), "--trace", os.path.join(tmp, "t.json"))
        check(not finding_lines(t.stdout), f"--trace: no findings printed: {t.stdout[:800]}")
        c = report(log(), SEED, "--html", page, "--format", "concise")
        check(finding_lines(c.stdout), "--html with --format prints the findings as asked")


def output_file():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "findings.txt")
        p = report(log(), SEED, "-o", out)
        check(not finding_lines(p.stdout), f"-o: findings not on stdout: {p.stdout[:800]}")
        check(finding_lines(open(out).read()), "-o: findings in the file")
        check(" findings (" in p.stdout and out in p.stdout, f"-o: the count names the file: {p.stdout}")


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--streamlint", required=True)
    A = ap.parse_args()
    globals()[A.scenario]()
    print("PASS", A.scenario)


if __name__ == "__main__":
    main()
