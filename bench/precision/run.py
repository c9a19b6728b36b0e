#!/usr/bin/env python3
"""Precision check of `streamlint check` on real projects (issue 12), python3 stdlib only.

    bench/precision/run.py --out bench/precision/run-c [--root /tmp/prec] [--streamlint BIN]
    bench/precision/run.py --summary --out bench/precision/run-c

The projects are the directories under --root named in projects.tsv (one per fetched
repository, extracted at the commit listed there by extract.sh; nothing fetched lives in this
repo). For each one this runs `streamlint check --format json -j 2 <project>` from --root with
the default configuration (no --select, default --min-confidence), writes every finding to
OUT/findings.tsv, and picks a deterministic sample to hand-check into OUT/sample.tsv:

* order: a stable hash of (project, path, line, rule) -- the same finding is picked
  again after a rebuild of the binary, whatever else changed;
* at most --per-project findings per project, taken round-robin over that project's
  rules, rarest rule first, so that one noisy rule cannot fill a project's share and the
  rare rules are always seen;
* findings of one rule on one line (two calls on the line) count once.

Hand verdicts of every run live in one file, verdicts.tsv (project, commit, path, line, rule,
verdict, class, reason; class names the kind of wrong or deliberate finding, see README.md),
keyed by (project, path, line, rule). sample.tsv carries the verdicts already given, so a run
with a new binary shows which sampled lines are new (verdict empty); `--summary` counts one
run's sample joined with verdicts.tsv, and says how many judged lines that binary no longer
reports.
"""
import argparse
import collections
import csv
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICTS = ("worth-fixing", "deliberate", "wrong")


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write_tsv(path, fields, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n",
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def path_kind(path):
    """What a path says about its code: test, benchmark, example or archive ('' for library
    code). Only to count how many findings a path-based default would silence."""
    parts = path.lower().split("/")
    name = parts[-1]
    for part in parts[:-1]:
        if part in ("test", "tests", "unit_tests", "functional_tests"):
            return "test"
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return "test"
    if any(p.startswith("bench") for p in parts):
        return "benchmark"
    if any(p in ("example", "examples") for p in parts[:-1]):
        return "example"
    if "archive" in parts[:-1]:
        return "archive"
    return ""


def stable_key(f):
    text = "%s:%s:%s:%s" % (f["project"], f["path"], f["line"], f["rule"])
    return hashlib.sha1(text.encode()).hexdigest()


def run_check(binary, root, project, jobs, check_args=()):
    """Findings of one project, paths relative to the project; parse errors counted apart."""
    cmd = [binary, "check", "--format", "json", "-j", str(jobs), *check_args, project]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True,
                          env=dict(os.environ, STREAMLINT_NO_CACHE="1"))  # no cache in the corpus
    if proc.returncode not in (0, 1, 2) or not proc.stdout.strip():
        sys.exit("streamlint failed on %s (exit %d): %s" % (project, proc.returncode,
                                                            proc.stderr[-2000:]))
    findings = []
    prefix = project + "/"
    for f in json.loads(proc.stdout)["findings"]:
        path = f["path"][len(prefix):] if f["path"].startswith(prefix) else f["path"]
        props = f.get("properties") or {}
        evidence = "; ".join(e.get("message", "") for e in props.get("evidence", []))
        findings.append({"project": project, "path": path, "line": f["line"],
                         "rule": f["rule"], "severity": f["severity"],
                         "confidence": props.get("confidence", ""),
                         "message": " ".join(f["message"].split()),
                         "evidence": " ".join(evidence.split())})
    input_errors = [l for l in proc.stderr.splitlines() if ": error: " in l]
    return findings, input_errors


def sample_project(findings, n):
    # Two findings of one rule on one line (two calls on it) are one thing to judge:
    # sample the line once, so that they cannot take two slots with one verdict.
    by_rule = collections.defaultdict(list)
    seen = set()
    for f in findings:
        if stable_key(f) not in seen:
            seen.add(stable_key(f))
            by_rule[f["rule"]].append(f)
    for fs in by_rule.values():
        fs.sort(key=stable_key)
    rules = sorted(by_rule, key=lambda r: (len(by_rule[r]), r))
    picked = []
    depth = 0
    while len(picked) < n and any(depth < len(by_rule[r]) for r in rules):
        for r in rules:
            if depth < len(by_rule[r]) and len(picked) < n:
                picked.append(by_rule[r][depth])
        depth += 1
    return picked


def verdict_index(path):
    if not os.path.exists(path):
        return {}
    return {key(v): v for v in read_tsv(path)}


def table(title, counter_by_key):
    print("\n%s" % title)
    print("  %-28s %6s %6s %6s %6s" % ("", "total", "worth", "delib", "wrong"))
    for key in sorted(counter_by_key, key=lambda k: (-sum(counter_by_key[k].values()), k)):
        c = counter_by_key[key]
        print("  %-28s %6d %6d %6d %6d" % (key, sum(c.values()), c["worth-fixing"],
                                           c["deliberate"], c["wrong"]))


def key(r):
    return (r["project"], r["path"], str(r["line"]), r["rule"])


def summary(verdicts_path, out_dir):
    """Counts of one run: its sample.tsv joined with the verdicts given so far."""
    verdicts = verdict_index(verdicts_path)
    bad = [v for v in verdicts.values() if v["verdict"] not in VERDICTS]
    if bad:
        sys.exit("%s: unknown verdict %r (expected one of %s)" % (verdicts_path, bad[0]["verdict"],
                                                                 ", ".join(VERDICTS)))
    sample = read_tsv(os.path.join(out_dir, "sample.tsv"))
    rows = [dict(r, **{k: verdicts[key(r)][k] for k in ("verdict", "class", "reason")})
            for r in sample if key(r) in verdicts]
    todo = [r for r in sample if key(r) not in verdicts]
    overall = collections.Counter(r["verdict"] for r in rows)
    n = len(rows)
    print("%s: %d hand-checked findings from %d projects (%d sampled without a verdict)" %
          (out_dir, n, len({r["project"] for r in rows}), len(todo)))
    for v in VERDICTS:
        print("  %-13s %3d  %5.1f %%" % (v, overall[v], 100.0 * overall[v] / max(n, 1)))
    # The sampler takes rare rules first, so the sample over-represents them; weighting each
    # rule's verdict shares by its share of all findings estimates what a user sees.
    found = collections.Counter(f["rule"] for f in read_tsv(os.path.join(out_dir, "findings.tsv")))
    by_rule = collections.defaultdict(collections.Counter)
    for r in rows:
        by_rule[r["rule"]][r["verdict"]] += 1
    covered = sum(n for rule, n in found.items() if by_rule[rule])
    if covered:
        print("  weighted by each rule's share of the %d findings (%d covered by the sample):" %
              (sum(found.values()), covered))
        for v in VERDICTS:
            share = sum(found[rule] * c[v] / sum(c.values()) for rule, c in by_rule.items())
            print("  %-13s      %5.1f %%" % (v, 100.0 * share / covered))
    per_rule = collections.defaultdict(collections.Counter)
    per_project = collections.defaultdict(collections.Counter)
    per_confidence = collections.defaultdict(collections.Counter)
    for r in rows:
        per_rule[r["rule"]][r["verdict"]] += 1
        per_project[r["project"]][r["verdict"]] += 1
        per_confidence[r.get("confidence") or "(none)"][r["verdict"]] += 1
    table("per rule", per_rule)
    table("per project", per_project)
    table("per confidence", per_confidence)
    per_class = collections.Counter((r["verdict"], r.get("class", "")) for r in rows
                                    if r["verdict"] != "worth-fixing")
    print("\nclasses of wrong and deliberate findings")
    for (verdict, cls), c in sorted(per_class.items(), key=lambda kv: (kv[0][0] != "wrong", -kv[1])):
        print("  %-11s %-30s %3d" % (verdict, cls, c))
    per_kind = collections.defaultdict(collections.Counter)
    for r in rows:
        per_kind[path_kind(r["path"]) or "library"][r["verdict"]] += 1
    table("per path kind (tests/, bench*, examples/, archive/ vs library code)", per_kind)
    current = {key(f) for f in read_tsv(os.path.join(out_dir, "findings.tsv"))}
    gone = [v for k, v in verdicts.items() if k not in current]
    print("\n%d of the %d findings given a verdict are not reported by this run's binary: %s" %
          (len(gone), len(verdicts), ", ".join("%s %d" % kv for kv in
                                               collections.Counter(v["verdict"] for v in gone).items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default="/tmp/prec", help="directory holding one folder per project")
    ap.add_argument("--streamlint", default="/work/main/build/bin/streamlint")
    ap.add_argument("--projects", default=os.path.join(HERE, "projects.tsv"))
    ap.add_argument("--per-project", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "run-latest"),
                    help="folder for this run's findings.tsv and sample.tsv")
    ap.add_argument("--verdicts", default=os.path.join(HERE, "verdicts.tsv"))
    ap.add_argument("--check-arg", action="append", default=[],
                    help="extra argument for `streamlint check` (repeat; e.g. --check-arg=--min-confidence=low)")
    ap.add_argument("--sample-confidence", default="",
                    help="sample only findings of this confidence (e.g. low: what the default hides)")
    ap.add_argument("--summary", action="store_true",
                    help="only print the counts of the run in --out (its sample.tsv joined with --verdicts)")
    args = ap.parse_args()

    if args.summary:
        summary(args.verdicts, args.out)
        return
    os.makedirs(args.out, exist_ok=True)
    projects = read_tsv(args.projects)
    missing = [p["project"] for p in projects if not os.path.isdir(os.path.join(args.root, p["project"]))]
    if missing:
        sys.exit("%s: not extracted under %s: %s" % (args.projects, args.root, ", ".join(missing)))
    commits = {p["project"]: p["commit"] for p in projects}
    known = verdict_index(args.verdicts)

    all_findings, sample = [], []
    per_rule = collections.Counter()
    print("%-20s %6s %6s  %s" % ("project", "found", "sample", "rules (found)"))
    for p in projects:
        name = p["project"]
        findings, errors = run_check(args.streamlint, args.root, name, args.jobs, args.check_arg)
        findings.sort(key=lambda f: (f["path"], f["line"], f["rule"]))
        pool = [f for f in findings
                if not args.sample_confidence or f["confidence"] == args.sample_confidence]
        picked = sample_project(pool, args.per_project)
        for f in picked:
            v = known.get((name, f["path"], str(f["line"]), f["rule"]), {})
            f = dict(f, commit=commits[name], verdict=v.get("verdict", ""), reason=v.get("reason", ""),
                     **{"class": v.get("class", "")})
            sample.append(f)
        all_findings += findings
        rules = collections.Counter(f["rule"] for f in findings)
        per_rule.update(rules)
        print("%-20s %6d %6d  %s%s" % (name, len(findings), len(picked),
                                       " ".join("%s:%d" % kv for kv in sorted(rules.items())),
                                       "  (%d input errors)" % len(errors) if errors else ""))
    sampled_rules = collections.Counter(f["rule"] for f in sample)
    print("\n%-8s %6s %6s" % ("rule", "found", "sample"))
    for rule, n in sorted(per_rule.items()):
        print("%-8s %6d %6d" % (rule, n, sampled_rules[rule]))
    print("%-8s %6d %6d" % ("total", len(all_findings), len(sample)))
    kinds = collections.Counter(path_kind(f["path"]) or "library" for f in all_findings)
    print("\nall findings by path kind: %s" % ", ".join("%s %d" % kv for kv in kinds.most_common()))
    todo = sum(1 for f in sample if not f["verdict"])
    print("\n%d sampled findings have no verdict yet" % todo)

    write_tsv(os.path.join(args.out, "findings.tsv"),
              ["project", "path", "line", "rule", "severity", "confidence", "message", "evidence"],
              all_findings)
    write_tsv(os.path.join(args.out, "sample.tsv"),
              ["project", "commit", "path", "line", "rule", "confidence", "verdict", "class", "reason",
               "message", "evidence"], sample)


if __name__ == "__main__":
    main()
