"""Checks that the Python prefilter changes no finding: runs `streamlint check` on the same
directories with the prefilter (the default) and without it (STREAMLINT_NO_PREFILTER=1), and
compares the two JSON finding lists, which must be identical. Performance notes in deliberate
code (tests, benchmarks: hidden by default) are compared too (--check-deliberate-code shows
them, and the prefilter must keep them as well). Also prints both runs' times and
the parse diagnostics each reports (the prefilter does not report syntax errors in code it
does not parse).

Usage: python3 bench/python/compare_prefilter.py [--streamlint BIN] [--all-files] DIR [DIR...]
Only the .py files under the directories are checked (passed as an @file list), unless
--all-files: then the directories themselves, C/C++ included (much slower, same answer for
Python since the prefilter touches Python only).
Exit status 0 when the findings are identical, 1 otherwise. Not a ctest test (it needs real
code); tests/python_prefilter_test.cpp checks the same on small cases.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(binary, dirs, out, prefilter):
    env = dict(os.environ, STREAMLINT_NO_CACHE="1")  # compare analyses, not the result cache
    env.pop("STREAMLINT_NO_PREFILTER", None)
    if not prefilter:
        env["STREAMLINT_NO_PREFILTER"] = "1"
    start = time.perf_counter()
    proc = subprocess.run([binary, "check", "--check-deliberate-code", "--format", "json", "-o", out] + dirs, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1, 2):
        sys.exit("streamlint exited %d: %s" % (proc.returncode, proc.stderr[-2000:]))
    with open(out, encoding="utf-8") as f:
        findings = json.load(f)["findings"]
    parse_errors = [l for l in proc.stderr.splitlines() if "[parse-error]" in l]
    return findings, parse_errors, wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--streamlint", default=os.path.join(HERE, "..", "..", "build", "bin", "streamlint"))
    ap.add_argument("--all-files", action="store_true", help="check the directories as given (C/C++ too)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="streamlint-prefilter-") as tmp:
        inputs = args.dirs
        if not args.all_files:
            listfile = os.path.join(tmp, "files.txt")
            with open(listfile, "w", encoding="utf-8") as f:
                for d in args.dirs:
                    for dirpath, dirnames, filenames in os.walk(d):
                        dirnames[:] = sorted(x for x in dirnames if x != ".git")
                        for name in sorted(filenames):
                            if name.endswith(".py"):
                                f.write(os.path.join(dirpath, name) + "\n")
            inputs = ["@" + listfile]
        on, on_errors, on_wall = run(args.streamlint, inputs, os.path.join(tmp, "on.json"), True)
        off, off_errors, off_wall = run(args.streamlint, inputs, os.path.join(tmp, "off.json"), False)
    key = lambda f: json.dumps(f, sort_keys=True)
    missing = sorted(set(map(key, off)) - set(map(key, on)))
    extra = sorted(set(map(key, on)) - set(map(key, off)))
    print("prefilter on:  %d findings, %d parse diagnostics, %.2f s wall" % (len(on), len(on_errors), on_wall))
    print("prefilter off: %d findings, %d parse diagnostics, %.2f s wall" % (len(off), len(off_errors), off_wall))
    for line in sorted(set(off_errors) - set(on_errors)):
        print("  syntax error reported only without the prefilter: " + line)
    for m in missing:
        print("MISSING with the prefilter: " + m)
    for e in extra:
        print("EXTRA with the prefilter: " + e)
    same = on == off
    print("findings identical: %s" % ("yes" if same else "NO"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
