#!/usr/bin/env python3
"""Opens the report pages in headless Chromium and checks that they really work:
  (a) the page's script ran to the end: <body data-rendered="ok"> in the dumped DOM;
  (b) no uncaught exception and no console error in Chromium's log;
  (c) hostile kernel names / finding messages ran nothing (no data-pwned attribute, no dialog)
      and are shown as text;
and, with "#selftest" in the URL, that zoom, hover and finding selection work (data-selftest).
Exits 77 (ctest SKIP_RETURN_CODE) when no Chromium is installed.

usage: render_in_chromium.py --writer write_sample_report --fixtures DIR [--keep DIR]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def dump_dom(chromium, url, profile):
    cmd = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=10000", "--window-size=1400,1000", "--dump-dom", url]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# Chromium logs every console message of a page at INFO level, whatever its console level:
# "[...:INFO:CONSOLE:1] "text", source: URL (1)" (older builds: "CONSOLE(1)"). The report's
# script never logs, so any console line is an error: an uncaught exception ("Uncaught ..."), a
# console.error, or a Content-Security-Policy refusal (something tried to load from outside).
def console_errors(stderr):
    return [l for l in stderr.splitlines() if ":CONSOLE" in l or "Uncaught" in l]


def body_attrs(dom):
    m = re.search(r"<body([^>]*)>", dom)
    if not m:
        return None
    return dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))


def check_page(chromium, path, profile, failures):
    name = os.path.basename(path)
    for suffix in ("", "#selftest"):
        url = "file://" + os.path.abspath(path) + suffix
        rc, dom, err = dump_dom(chromium, url, profile)
        what = name + suffix
        attrs = body_attrs(dom)
        if rc != 0 or attrs is None:
            failures.append("%s: chromium exit %d, no <body> in the dump\n%s" % (what, rc, err[-3000:]))
            continue
        if attrs.get("data-rendered") != "ok":
            failures.append("%s: data-rendered=%r data-error=%r" % (what, attrs.get("data-rendered"),
                                                                    attrs.get("data-error")))
        errors = console_errors(err)
        if errors:
            failures.append("%s: console errors:\n  %s" % (what, "\n  ".join(errors)))
        if "data-pwned" in attrs:
            failures.append("%s: a hostile string ran as code" % what)
        if suffix:
            st = attrs.get("data-selftest", "")
            if not st:
                failures.append("%s: no data-selftest result" % what)
            # every timeline found an item under the pointer
            for m in re.finditer(r"p(\d+):hover=(\d)", st):
                if m.group(2) != "1":
                    failures.append("%s: hover found nothing on process %s (%s)" % (what, m.group(1), st))
            print("%s: %s" % (what, st))
        else:
            print("%s: data-rendered=%s (%d bytes of DOM)" % (what, attrs.get("data-rendered"), len(dom)))
        yield what, attrs, dom


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writer", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--keep", help="leave the pages in this directory")
    args = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("chromium not installed: skipped (cmake/setup-deps.sh installs it)")
        return 77
    out = args.keep or tempfile.mkdtemp(prefix="sl-report-")
    os.makedirs(out, exist_ok=True)
    subprocess.run([args.writer, out, args.fixtures], check=True)
    profile = tempfile.mkdtemp(prefix="sl-chromium-")
    failures = []
    try:
        for what, attrs, dom in check_page(chromium, os.path.join(out, "synthetic.html"), profile, failures):
            # (c) the hostile strings are on the page as text: escaped in the findings table.
            if "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" not in dom:
                failures.append("%s: the hostile finding text is not shown escaped" % what)
            # The second process was GPU-timed in windows: its timeline's legend (drawn by the
            # script, whose own text is in the DOM too) says so.
            if dom.count("</span>GPU not timed (sampled)") != 1:
                failures.append("%s: one timeline should mark untimed stretches" % what)
            if what.endswith("#selftest"):
                st = attrs.get("data-selftest", "")
                # SL901 at train.py:20 marks the sync of each process; SL401 at train.py:10 every
                # op drawn (the first 100000 of process 0, 4 of process 1: the launches are not
                # blocking calls, so not drawn); SL302's line ran nothing.
                for expect in ("p0:hover=1", "p1:hover=1", "f2:hits=0"):
                    if expect not in st:
                        failures.append("%s: expected %s in %r" % (what, expect, st))
                m = re.search(r"f0:hits=(\d+)", st)
                if not m or int(m.group(1)) != 2:
                    failures.append("%s: SL901 should mark 2 calls: %r" % (what, st))
                m = re.search(r"f1:hits=(\d+)", st)
                if not m or int(m.group(1)) != 100000 + 4:
                    failures.append("%s: SL401 should mark every op of its line: %r" % (what, st))
        for _ in check_page(chromium, os.path.join(out, "fixtures.html"), profile, failures):
            pass
        # The checks themselves: a page whose script throws must fail both (a) and (b).
        broken = os.path.join(out, "broken.html")
        with open(os.path.join(out, "fixtures.html"), encoding="utf-8") as f:
            page = f.read()
        with open(broken, "w", encoding="utf-8") as f:
            f.write(page.replace("function main() {", "function main() { undefinedFunction();", 1))
        caught = []
        for _ in check_page(chromium, broken, profile, caught):
            pass
        if not any("data-rendered='error'" in c for c in caught) or not any("Uncaught" in c for c in caught):
            failures.append("a page whose script throws was not caught: %r" % caught)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
