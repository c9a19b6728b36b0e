#!/usr/bin/env python3
"""docs/images/seed-report.png, the HTML report of a real run (the H200 log of the seed case,
rules/SL903-*/bad.slog, paired with examples/python/seed), re-rendered as the docs show it: the
page is written by `streamlint report`, opened in headless Chromium (its script must finish,
and its self-test must find the finding markers on the timeline), checked for what issue 32 asks
of it (streams by name, SL401 confirmed by SL903, evidence in sentences, set-up folded), and
screenshot at the docs image's size. --write replaces the docs image (then commit it).
Exits 77 (skipped) without Chromium.

usage: docs_screenshot.py --streamlint BIN [--write]
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
IMAGE = os.path.join(ROOT, "docs", "images", "seed-report.png")
WIDTH, HEIGHT = 1400, 1600
sys.path.insert(0, HERE)
from render_in_chromium import body_attrs, console_errors, dump_dom, find_chromium  # noqa: E402


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("SKIPPED: no Chromium (apt-get install chromium)")
        return 77
    folder = next(d for d in os.listdir(os.path.join(ROOT, "rules")) if d.startswith("SL903"))
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "seed-report.html")
        p = subprocess.run([a.streamlint, "report", os.path.join("rules", folder, "bad.slog"), "examples/python/seed",
                            "--html", page, "-q"], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 1 or not os.path.exists(page):
            print("FAIL: report exited %d: %s" % (p.returncode, p.stderr))
            return 1
        html = open(page, encoding="utf-8").read()
        for want in ("backward_stream (stream 14)", "confirmed at runtime (SL903)", "one-time set-up blocked the host"):
            if want not in html:
                failures.append("the page lacks %r" % want)
        for raw in ("runMicros", "timedMicros", "inside library false", "apis: __cudaLaunchKernel"):
            if raw in html.split('id="sl-data"')[0]:
                failures.append("the page shows the raw key %r" % raw)
        profile = os.path.join(tmp, "profile")
        rc, dom, err = dump_dom(chromium, "file://" + page + "#selftest", profile)
        attrs = body_attrs(dom) or {}
        if attrs.get("data-rendered") != "ok":
            failures.append("the script did not finish: %s %s" % (attrs, err[-2000:]))
        if console_errors(err):
            failures.append("console errors: %s" % console_errors(err))
        st = attrs.get("data-selftest", "")
        m = re.search(r"p0:marks=(\d+):markhit=1", st)
        if not m or int(m.group(1)) < 2:
            failures.append("no finding markers found on the timeline: %r" % st)
        png = os.path.join(tmp, "seed-report.png")
        shot = subprocess.run([os.path.join(HERE, "screenshot-report.sh"), page, png, str(WIDTH), str(HEIGHT)],
                              capture_output=True, text=True)
        if shot.returncode != 0 or png_size(png) != (WIDTH, HEIGHT):
            failures.append("screenshot: %s %s" % (shot.stderr, png_size(png) if os.path.exists(png) else None))
        elif a.write:
            shutil.copyfile(png, IMAGE)
            print("wrote", IMAGE)
        if png_size(IMAGE) != (WIDTH, HEIGHT):
            failures.append("%s is not a %dx%d rendering" % (IMAGE, WIDTH, HEIGHT))
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("PASS: the docs screenshot's page renders (markers %s)" % m.group(1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
