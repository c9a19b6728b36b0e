"""Inputs whose size once made `streamlint check` quadratic or unbounded (issue 17).

Usage: scale_test.py CASE STREAMLINT
  long-function: one function of 80,000 statements, each using a value made before a
      side-stream region. Every use asks "who produced it, was there a wait in between": that
      scanned the whole function per use (80k x 80k steps, minutes). The ctest's TIMEOUT is
      the bound (about 20x what the indexed rules take here); no timing is asserted.
The findings are checked too, so a fast wrong answer fails as well.
"""
import os
import subprocess
import sys
import tempfile


def long_function(streamlint, tmp):
    n = 80000
    lines = ["import torch", "", "def f(s):", "    x0 = torch.randn(4, device='cuda')",
             "    with torch.cuda.stream(s):"]
    lines += ["        x%d = x%d * 2 + x0" % (i, i - 1) for i in range(1, n)]
    lines.append("    return x%d" % (n - 1))
    path = os.path.join(tmp, "long_function.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    out = run(streamlint, path, expect_rc=1)
    rules = [line.rsplit("[", 1)[-1].rstrip("]") for line in out.splitlines()]
    # Each use of x0 on stream s (the first line uses it twice): no wait for its producer
    # (SL101), freed at return while s may still read it (SL201); the result is not joined (SL102).
    want = {"SL101": n, "SL201": n, "SL102": 1}
    got = {r: rules.count(r) for r in want}
    if got != want or len(rules) != sum(want.values()):
        sys.exit("long-function: findings %s (%d in all), want %s" % (got, len(rules), want))


def run(streamlint, path, expect_rc):
    proc = subprocess.run([streamlint, "check", "--no-cache", "-q", "--format", "concise", path],
                          capture_output=True, text=True)
    if proc.returncode != expect_rc:
        sys.exit("exit status %d (want %d): %s" % (proc.returncode, expect_rc, proc.stderr[-2000:]))
    return proc.stdout


def main():
    case, streamlint = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="sl-scale-") as tmp:
        {"long-function": long_function}[case](streamlint, tmp)
    print("PASS " + case)


if __name__ == "__main__":
    main()
