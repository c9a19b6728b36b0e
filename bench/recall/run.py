#!/usr/bin/env python3
"""Recall of `streamlint check` on historical stream-ordering / host-sync bug fixes.

Each row of fixes.tsv names a fix commit in a public repository, the file it fixed and the
lines the fix changed in the parent (buggy) version. For every row this script takes the
file (or, with --context package, the file's whole directory; with --context root, the
outermost Python package holding it) at the parent and at the fix commit out of a local git
mirror, runs `streamlint check --format json` on both and judges:

  hit                       the buggy version has a finding of an accepted rule within
                            +-WINDOW lines of the changed lines, and the fixed version has
                            none within +-WINDOW lines of the corresponding fixed lines
  miss-buggy-not-flagged    no accepted finding near the buggy lines
  miss-fixed-still-flagged  the buggy lines are flagged, but so are the fixed ones

It is a benchmark, not a test: it exits 0 whatever the rate; 2 on bad input (a missing
mirror, a malformed row, a commit or path the mirror lacks, a missing binary).
Python 3 standard library only.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["repo", "commit", "path", "buggy_lines", "rules", "kind", "link"]
RULE_RE = re.compile(r"^SL\d{1,3}$")
RANGE_RE = re.compile(r"^(\d+)(?:-(\d+))?$")


class BadInput(Exception):
    pass


# ---------------------------------------------------------------------------------------
# fixes.tsv


def parse_ranges(text, where):
    ranges = []
    for part in text.split(";"):
        m = RANGE_RE.match(part.strip())
        if not m:
            raise BadInput(f"{where}: buggy_lines '{text}' is not 'A-B[;C-D...]'")
        a = int(m.group(1))
        b = int(m.group(2) or a)
        if a < 1 or b < a:
            raise BadInput(f"{where}: bad line range '{part}'")
        ranges.append((a, b))
    return ranges


def read_rows(tsv_path):
    try:
        with open(tsv_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(f"{tsv_path}: cannot read: {e.strerror}")
    rows = []
    header_seen = False
    for no, line in enumerate(lines, 1):
        where = f"{tsv_path}:{no}"
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header_seen:
            if cells[: len(COLUMNS)] != COLUMNS:
                raise BadInput(f"{where}: header must be: " + "\\t".join(COLUMNS))
            header_seen = True
            continue
        if len(cells) != len(COLUMNS):
            raise BadInput(f"{where}: {len(cells)} columns, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells))
        if not re.match(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", row["repo"]):
            raise BadInput(f"{where}: repo '{row['repo']}' is not owner/name")
        if not re.match(r"^[0-9a-f]{40}$", row["commit"]):
            raise BadInput(f"{where}: commit '{row['commit']}' is not 40 lowercase hex digits")
        if not row["path"] or row["path"].startswith("/") or ".." in row["path"].split("/"):
            raise BadInput(f"{where}: bad path '{row['path']}'")
        row["ranges"] = parse_ranges(row["buggy_lines"], where)
        rules = [r.strip() for r in row["rules"].split(",") if r.strip()]
        if not rules or not all(RULE_RE.match(r) for r in rules):
            raise BadInput(f"{where}: rules '{row['rules']}' is not a comma list of SLnnn")
        row["rule_list"] = rules
        row["where"] = where
        row["id"] = len(rows) + 1
        rows.append(row)
    if not header_seen:
        raise BadInput(f"{tsv_path}: no header line")
    return rows


# ---------------------------------------------------------------------------------------
# git mirrors


def git(git_dir, *args, binary=False):
    p = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True)
    if p.returncode != 0:
        raise BadInput(f"git {' '.join(args)} in {git_dir}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout if binary else p.stdout.decode("utf-8", errors="replace")


def is_git_dir(path):
    if not os.path.isdir(path):
        return False
    p = subprocess.run(["git", f"--git-dir={path}", "rev-parse", "--git-dir"], capture_output=True)
    return p.returncode == 0


def find_mirror(mirrors, repo):
    """The fetch tool's layout (DIR/owner+name/repo[/.git]) or a plain DIR/owner/name.git."""
    owner, name = repo.split("/")
    candidates = [
        os.path.join(mirrors, f"{owner}+{name}", "repo", ".git"),
        os.path.join(mirrors, f"{owner}+{name}", "repo"),
        os.path.join(mirrors, f"{owner}+{name}"),
        os.path.join(mirrors, owner, f"{name}.git"),
        os.path.join(mirrors, owner, name, ".git"),
        os.path.join(mirrors, owner, name),
    ]
    for c in candidates:
        if is_git_dir(c):
            return c
    raise BadInput(f"no git mirror of {repo} under {mirrors} (looked for {candidates[1]} and {candidates[3]})")


def hunks(git_dir, parent, commit, old_path, new_path):
    """(old_start, old_count, new_start, new_count) of the fix's -U0 diff of the file."""
    out = git(git_dir, "diff", "-U0", "--no-color", "-M", parent, commit, "--", old_path, new_path)
    result = []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", out, re.M):
        result.append((int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)))
    return result


def map_range(a, b, hs):
    """The fixed-version lines corresponding to parent lines a..b."""

    def touches(h):
        os_, oc = h[0], h[1]
        if oc == 0:  # pure insertion after parent line os_
            return a <= os_ + 1 and b >= os_
        return os_ <= b and os_ + oc - 1 >= a

    def map_line(line):
        delta = 0
        for os_, oc, ns, nc in hs:
            end = os_ + oc - 1 if oc else os_
            if end < line:
                delta += nc - oc
            elif oc and os_ <= line <= end:
                return ns
        return line + delta

    lo, hi = map_line(a), map_line(b)
    for h in hs:
        if touches(h):
            ns, nc = h[2], h[3]
            lo = min(lo, ns if nc else ns + 1)
            hi = max(hi, ns + nc - 1 if nc else ns)
    return lo, max(lo, hi)


def fixed_path(git_dir, parent, commit, path):
    """The file's path after the fix (follows a rename)."""
    out = git(git_dir, "diff", "--name-status", "-M", parent, commit)
    for line in out.splitlines():
        cells = line.split("\t")
        if cells[0].startswith("R") and len(cells) == 3 and cells[1] == path:
            return cells[2]
    return path


def context_dir(git_dir, rev, path, context):
    """The directory analysed with the file: None (the file alone), its directory (package),
    or the outermost directory of the chain of packages holding it (root: `torchao/` for
    `torchao/prototype/moe/kernels/quant.py`, its directory when it is in no package), so that
    callers in sibling packages are analysed too, or the whole repository (repo: its Python
    files, as `streamlint check .` at the root of a clone sees them)."""
    if context == "file":
        return None
    if context == "repo":
        return "."
    directory = os.path.dirname(path)
    if context == "root":
        top = directory
        while top and git_ok(git_dir, "cat-file", "-e", f"{rev}:{top}/__init__.py"):
            directory, top = top, os.path.dirname(top)
    return directory or "."


def git_ok(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True).returncode == 0


def materialise(git_dir, rev, path, dest, context):
    """Write the file (or its context directory) at rev under dest; return the file and the
    directory to analyse (the file itself without a context)."""
    target = os.path.join(dest, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    directory = context_dir(git_dir, rev, path, context)
    if directory is not None:
        # The whole repository: its Python files only (a mirror may lack large binary blobs).
        spec = ":(glob)**/*.py" if context == "repo" else directory
        data = git(git_dir, "archive", "--format=tar", rev, "--", spec, binary=True)
        # A package root may hold C++ extensions: the rows are Python, so only Python is taken.
        only = ["--wildcards", "*.py"] if context in ("root", "repo") else []
        p = subprocess.run(["tar", "-x", "-C", dest, *only], input=data, capture_output=True)
        if p.returncode != 0:
            raise BadInput(f"tar of {rev}:{directory}: {p.stderr.decode(errors='replace').strip()}")
    else:
        with open(target, "wb") as f:
            f.write(git(git_dir, "show", f"{rev}:{path}", binary=True))
    if not os.path.isfile(target):
        raise BadInput(f"{rev}:{path} is not a file")
    return target, (target if directory is None else os.path.join(dest, directory))


# ---------------------------------------------------------------------------------------
# streamlint


def run_streamlint(binary, root, target, analysed, extra=()):
    out_json = os.path.join(root, "findings.json")
    inputs = [analysed]
    cmd = [binary, "check", "--format", "json", "-o", out_json, "--no-color", *extra, *inputs]
    p = subprocess.run(cmd, capture_output=True, cwd=root, env=dict(os.environ, STREAMLINT_NO_CACHE="1"))
    note = ""
    if p.returncode not in (0, 1):
        note = (p.stderr.decode(errors="replace").strip().splitlines() or ["exit %d" % p.returncode])[-1]
    try:
        with open(out_json, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return [], note or f"no JSON output (exit {p.returncode})"
    findings = []
    want = os.path.realpath(target)
    for item in data.get("findings", []):
        path = item.get("path", "")
        full = os.path.realpath(path if os.path.isabs(path) else os.path.join(root, path))
        if full == want:
            findings.append((item.get("rule", ""), int(item.get("line", 0))))
    return findings, note


def rule_accepted(rule, accepted):
    return any(rule == a or rule.startswith(a) for a in accepted)


def near(findings, ranges, accepted, window):
    hits = []
    for rule, line in findings:
        if not rule_accepted(rule, accepted):
            continue
        if any(a - window <= line <= b + window for a, b in ranges):
            hits.append(f"{rule}@{line}")
    return hits


# ---------------------------------------------------------------------------------------


def evaluate(row, git_dir, binary, context, window, keep_root, extra=()):
    commit = row["commit"]
    parent = git(git_dir, "rev-parse", f"{commit}^").strip()
    new_path = fixed_path(git_dir, parent, commit, row["path"])
    hs = hunks(git_dir, parent, commit, row["path"], new_path)
    fixed_ranges = [map_range(a, b, hs) for a, b in row["ranges"]]
    root = tempfile.mkdtemp(prefix=f"recall{row['id']:02d}-", dir=keep_root)
    try:
        result = {}
        for side, rev, path, ranges in (
            ("buggy", parent, row["path"], row["ranges"]),
            ("fixed", commit, new_path, fixed_ranges),
        ):
            side_root = os.path.join(root, side)
            os.makedirs(side_root)
            target, analysed = materialise(git_dir, rev, path, os.path.join(side_root, "src"), context)
            findings, note = run_streamlint(binary, side_root, target, analysed, extra)
            result[side] = near(findings, ranges, row["rule_list"], window)
            result[side + "_all"] = sorted({f"{r}@{l}" for r, l in findings})
            result[side + "_note"] = note
        result["fixed_ranges"] = fixed_ranges
    finally:
        if keep_root is None:
            shutil.rmtree(root, ignore_errors=True)
    if not result["buggy"]:
        result["verdict"] = "miss-buggy-not-flagged"
    elif result["fixed"]:
        result["verdict"] = "miss-fixed-still-flagged"
    else:
        result["verdict"] = "hit"
    return result


def fmt_ranges(ranges):
    return ";".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges)


def binary_description(path):
    """The binary's version line and modification time: it is rebuilt often, results depend on it."""
    p = subprocess.run([path, "--version"], capture_output=True)
    version = (p.stdout.decode(errors="replace").strip().splitlines() or ["unknown version"])[0]

    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
    return f"{version}, {path} built {mtime:%Y-%m-%d %H:%M:%S} UTC"


def markdown(rows, results, command, binary):
    n = len(rows)
    hits = sum(1 for r in results if r["verdict"] == "hit")
    lines = [
        f"Recall: **{hits}/{n}** ({100.0 * hits / n if n else 0:.1f} %) — `{command}`",
        "",
        f"Binary: {binary}",
        "",
        "| # | repo | commit | path | buggy lines | fixed lines | rules | verdict | buggy findings near | fixed findings near |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row, res in zip(rows, results):
        lines.append(
            "| {id} | {repo} | {c} | {path} | {bl} | {fl} | {rules} | {v} | {bf} | {ff} |".format(
                id=row["id"], repo=row["repo"], c=row["commit"][:10], path=row["path"],
                bl=row["buggy_lines"], fl=fmt_ranges(res["fixed_ranges"]), rules=row["rules"],
                v=res["verdict"], bf=" ".join(res["buggy"]) or "-", ff=" ".join(res["fixed"]) or "-",
            )
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", required=True, help="directory holding the git mirrors")
    ap.add_argument("--streamlint", default=os.path.join("build", "bin", "streamlint"),
                    help="the binary (default: build/bin/streamlint, relative to the working directory)")
    ap.add_argument("--fixes", default=os.path.join(HERE, "fixes.tsv"))
    ap.add_argument("--context", choices=["file", "package", "root", "repo"], default="file",
                    help="analyse the file alone, its whole directory, the outermost package "
                         "holding it, or the repository's Python files, at each revision")
    ap.add_argument("--window", type=int, default=8, help="lines either side of the changed lines")
    ap.add_argument("--rows", default="", help="only these row numbers, e.g. 1,4,7")
    ap.add_argument("--md", help="also write the markdown table to this file")
    ap.add_argument("--json", help="also write the per-row results as JSON to this file")
    ap.add_argument("--keep", help="keep the materialised trees under this directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every finding of each side")
    ap.add_argument("--check-arg", action="append", default=[],
                    help="pass this argument to `streamlint check` (repeat), e.g. --check-arg=--min-confidence --check-arg=low")
    args = ap.parse_args(argv)

    try:
        rows = read_rows(args.fixes)
        if args.rows:
            wanted = {int(x) for x in args.rows.split(",") if x.strip()}
            rows = [r for r in rows if r["id"] in wanted]
        if not os.path.isdir(args.mirrors):
            raise BadInput(f"--mirrors {args.mirrors}: not a directory")
        if not (os.path.isfile(args.streamlint) and os.access(args.streamlint, os.X_OK)):
            raise BadInput(f"--streamlint {args.streamlint}: not an executable file")
        dirs = {}
        for row in rows:
            if row["repo"] not in dirs:
                dirs[row["repo"]] = find_mirror(args.mirrors, row["repo"])
            gd = dirs[row["repo"]]
            p = subprocess.run(["git", f"--git-dir={gd}", "cat-file", "-e", f"{row['commit']}^:{row['path']}"],
                               capture_output=True)
            if p.returncode != 0:
                raise BadInput(f"{row['where']}: {row['repo']} has no {row['path']} at the parent of {row['commit']}")
    except BadInput as e:
        print(f"run.py: error: {e}", file=sys.stderr)
        return 2

    binary_info = binary_description(args.streamlint)
    print(f"streamlint: {binary_info}")
    # a copy of the binary, so that a rebuild during the run changes nothing
    work = tempfile.mkdtemp(prefix="recall-bin-")
    binary = os.path.join(work, "streamlint")
    shutil.copy2(args.streamlint, binary)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    results = []
    try:
        for row in rows:
            try:
                res = evaluate(row, dirs[row["repo"]], binary, args.context, args.window, args.keep, args.check_arg)
            except BadInput as e:
                print(f"run.py: error: {row['where']}: {e}", file=sys.stderr)
                return 2
            results.append(res)
            print(f"{row['id']:3d} {res['verdict']:26s} {row['repo']} {row['commit'][:10]} {row['path']}:"
                  f"{row['buggy_lines']} [{row['rules']}] buggy={','.join(res['buggy']) or '-'}"
                  f" fixed={','.join(res['fixed']) or '-'}"
                  + (f" note(buggy)={res['buggy_note']}" if res["buggy_note"] else "")
                  + (f" note(fixed)={res['fixed_note']}" if res["fixed_note"] else ""))
            if args.verbose:
                print(f"      all buggy: {' '.join(res['buggy_all']) or '-'}")
                print(f"      all fixed: {' '.join(res['fixed_all']) or '-'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = len(results)
    hits = sum(1 for r in results if r["verdict"] == "hit")
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(f"recall: {hits}/{n} = {100.0 * hits / n if n else 0:.1f} %  "
          + "  ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    command = "python3 bench/recall/run.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(markdown(rows, results, command, binary_info))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump([{"id": row["id"], "repo": row["repo"], "commit": row["commit"], "path": row["path"],
                        "buggy_lines": row["buggy_lines"], "fixed_lines": fmt_ranges(res["fixed_ranges"]),
                        "rules": row["rules"], "verdict": res["verdict"], "buggy_near": res["buggy"],
                        "fixed_near": res["fixed"], "buggy_all": res["buggy_all"], "fixed_all": res["fixed_all"]}
                       for row, res in zip(rows, results)], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
