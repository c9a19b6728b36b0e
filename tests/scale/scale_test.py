"""Inputs whose size once made `streamlint check` quadratic or unbounded (issue 17).

Usage: scale_test.py CASE STREAMLINT
  long-function: one function of 80,000 statements, each using a value made before a
      side-stream region. Every use asks "who produced it, was there a wait in between": that
      scanned the whole function per use (80k x 80k steps, minutes). The ctest's TIMEOUT is
      the bound (about 20x what the indexed rules take here); no timing is asserted.
  large-literal: a 10 MB list of small numbers at module level, then code with findings.
      tree-sitter made nodes for its 2 million elements (2.4 GB); the prefilter now parses
      a stub of it. The bound is on memory (peak RSS under 400 MB), checked after the run;
      the findings must equal those of the same file with a three-element list.
The findings are checked too, so a fast wrong answer fails as well.
"""
import resource
import os
import subprocess
import sys
import tempfile


def long_function(streamlint, tmp):
    n = 80000
    # The stream is the module's own (a parameter's stream would be the caller's to join).
    lines = ["import torch", "", "s = torch.cuda.Stream()", "", "def f():", "    x0 = torch.randn(4, device='cuda')",
             "    with torch.cuda.stream(s):"]
    lines += ["        x%d = x%d * 2 + x0" % (i, i - 1) for i in range(1, n)]
    lines.append("    return x%d" % (n - 1))
    path = os.path.join(tmp, "long_function.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    out = run(streamlint, path, expect_rc=1)
    rules = [line.rsplit("[", 1)[-1].rstrip("]") for line in out.splitlines()]
    # Each line's use of x0 on stream s (the first line's two uses share one place, so one
    # finding): no wait for its producer (SL101), freed at return while s may still read it
    # (SL201); the result is not joined (SL102).
    want = {"SL101": n - 1, "SL201": n - 1, "SL102": 1}
    got = {r: rules.count(r) for r in want}
    if got != want or len(rules) != sum(want.values()):
        sys.exit("long-function: findings %s (%d in all), want %s" % (got, len(rules), want))


def large_literal(streamlint, tmp):
    rows = [", ".join(str((r * 1000 + c) % 1000) for c in range(1000)) for r in range(2000)]
    code = """
def f(s, x):
    y = x.cuda()
    with torch.cuda.stream(s):
        z = y * 2
    return z
"""
    big = "import torch\n\nW = torch.tensor([\n    " + ",\n    ".join(rows) + "\n], device='cuda')\n" + code
    small = "import torch\n\nW = torch.tensor([0, 1, 2" + "\n" * (len(rows) + 1) + "], device='cuda')\n" + code
    paths = []
    for name, text in (("big", big), ("small", small)):
        paths.append(os.path.join(tmp, name + ".py"))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(text)
    got = run(streamlint, paths[0], expect_rc=1).replace(paths[0], "F")
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    want = run(streamlint, paths[1], expect_rc=1).replace(paths[1], "F")
    if got != want:
        sys.exit("large-literal: findings differ from the small file's:\n%s\nwant:\n%s" % (got, want))
    if peak_mb > 400:
        sys.exit("large-literal: peak RSS %.0f MB for a %.1f MB file (bound 400 MB)" % (peak_mb, len(big) / 1e6))


def run(streamlint, path, expect_rc):
    proc = subprocess.run([streamlint, "check", "--no-cache", "-q", "--format", "concise", path],
                          capture_output=True, text=True)
    if proc.returncode != expect_rc:
        sys.exit("exit status %d (want %d): %s" % (proc.returncode, expect_rc, proc.stderr[-2000:]))
    return proc.stdout


def main():
    case, streamlint = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="sl-scale-") as tmp:
        {"long-function": long_function, "large-literal": large_literal}[case](streamlint, tmp)
    print("PASS " + case)


if __name__ == "__main__":
    main()
