#!/usr/bin/env python3
"""Mutation benchmark: does `streamlint check` notice a deleted stream-ordering statement?

For every site of sites.tsv (bench/mutants/mutate.py lists them: one wait_stream / wait_event /
Event.wait / record_stream / cudaStreamWaitEvent / recordStream / CUDAEvent::block statement of
a library file at the commit pinned in repos.tsv) this script deletes that one statement
(a no-op keeps the line numbers), runs `streamlint check --format json` and judges:

  killed    a SL1xx/SL2xx finding in the mutated file, within +-WINDOW (12) lines of the deleted
            statement, that the unmutated tree does not have (same rule on the same line)
  survived  no such finding
  error     streamlint could not analyse the file (a C/C++ file that does not parse without a
            compile database, a header nobody can include alone, a crash): counted apart

What is analysed: for Python the outermost package holding the file (walk up while the
directory has `__init__.py`, as bench/recall/run.py's `--context root`), its .py files only;
for C/C++ the file alone, in a full tree of the repository with `-I` for the repository root,
the file's ancestors and every `include/` directory (there is no compile database). A header
(.h .hpp .cuh) is no translation unit, so it is analysed through a copy next to it named
`<header>.sl-tu.cpp` (`.cu` for CUDA headers): the same lines, as a main file.
The findings of each unmutated scope are computed once (and cached with the binary's hash).

Outputs under --out (default: this directory): results.tsv (one row per mutant),
baseline_findings.tsv (SL1xx/SL2xx findings of the unmutated scopes on the files that hold
sites, to be judged), and the summary, printed and written between the result markers of
README.md. Exit 0 whatever the kill rate; 2 on bad input (a missing mirror or commit, a stale
sites.tsv, a missing binary). Python 3 standard library only.
"""

import argparse
import collections
import datetime
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutate  # noqa: E402  (this directory: site detection and the mutation itself)
from mutate import BadInput, find_mirror, read_tsv, write_tsv  # noqa: E402

WINDOW = 12
ACCEPTED = ("SL1", "SL2")   # every correctness rule of stream ordering: SL101..SL203
PY_CONFIGS = ("pyproject.toml", ".streamlint.toml")
RESULT_COLUMNS = ["repo", "split", "path", "line", "end_line", "lang", "kind", "verdict",
                  "kill_rule", "kill_line", "kill_message", "note", "deleted"]
BASELINE_COLUMNS = ["repo", "split", "path", "line", "rule", "message"]
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# trees: one per worker and repository, materialised once from the mirror and reused; a
# mutation is applied, checked and reverted in place. A `.mutated` marker names the file
# while it is changed, so that a run killed mid-mutant repairs the tree on the next start.


def git_out(git_dir, *args):
    p = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True)
    if p.returncode != 0:
        raise BadInput(f"git {' '.join(args)} in {git_dir}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout


def tree_listing(git_dir, commit):
    """[(sha, path)] of the regular files at commit (no symlinks, no submodules)."""
    out = git_out(git_dir, "ls-tree", "-r", "-z", commit)
    files = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            files.append((sha.decode(), path.decode("utf-8", errors="surrogateescape")))
    return files


def write_blobs(git_dir, files, dest):
    """Write the blobs to dest/path with one `git cat-file --batch`; a blob the mirror lacks
    (the fetch tool leaves out files of 4 MiB and more) is skipped."""
    p = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    feeder = threading.Thread(target=lambda: (p.stdin.write("".join(f"{s}\n" for s, _ in files).encode()),
                                              p.stdin.close()))
    feeder.start()
    for sha, path in files:
        header = p.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            continue
        data = p.stdout.read(int(header[2]))
        p.stdout.read(1)  # the newline after the content
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
    feeder.join()
    p.wait()


class Repo:
    def __init__(self, name, commit, git_dir, split):
        self.name, self.commit, self.git_dir, self.split = name, commit, git_dir, split
        self.files = tree_listing(git_dir, commit)
        self.paths = {p for _, p in self.files}

    def scope(self, site):
        """The path analysed for a site: the package root (Python) or the file (C/C++)."""
        if site["lang"] != "py":
            return site["path"]
        directory = top = os.path.dirname(site["path"])
        while top and f"{top}/__init__.py" in self.paths:
            directory, top = top, os.path.dirname(top)
        return directory or "."

    def tree(self, work, worker, lang):
        """This worker's tree of the repository: .py files and configs (py) or everything (cxx)."""
        root = os.path.join(work, f"w{worker}", self.name.replace("/", "+"), lang)
        stamp = os.path.join(root, ".materialised")
        marker = os.path.join(root, ".mutated")
        if os.path.exists(marker) or not os.path.exists(stamp) or open(stamp).read() != self.commit:
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            wanted = [(s, p) for s, p in self.files
                      if lang == "cxx" or p.endswith(".py") or os.path.basename(p) in PY_CONFIGS]
            write_blobs(self.git_dir, wanted, root)
            with open(stamp, "w") as f:
                f.write(self.commit)
        return root


# ---------------------------------------------------------------------------------------
# streamlint


HEADER_EXT = (".h", ".hpp", ".cuh")
CUDA_CODE = re.compile(rb"__global__|__device__|<<<")


def include_dirs(root, path):
    """-I flags standing in for a compile database: the root, the file's ancestors, include/."""
    dirs = [root]
    d = os.path.dirname(path)
    while d:
        dirs.append(os.path.join(root, d))
        d = os.path.dirname(d)
    for dirpath, dirnames, _ in os.walk(root):
        depth = os.path.relpath(dirpath, root).count(os.sep)
        if "include" in dirnames:
            dirs.append(os.path.join(dirpath, "include"))
        dirnames[:] = [n for n in dirnames if depth < 3 and not n.startswith(".")]
    return [f"-I{d}" for d in dict.fromkeys(dirs)]


def run_check(binary, root, site, scope, jobs, extra=()):
    """All findings of the run, {path: [(rule, line, message)]}, and its input errors."""
    fd, out_json = tempfile.mkstemp(suffix=".json", prefix="sl-")
    os.close(fd)
    path = site["path"]
    tu_copy = None
    cmd = [binary, "check", "--format", "json", "-o", out_json, "--no-cache", "--no-color", "-q",
           "-j", str(jobs), *extra]
    if site["lang"] == "py":
        cmd.append(scope)
    else:
        analysed = path
        if path.endswith(HEADER_EXT):
            with open(os.path.join(root, path), "rb") as f:
                cuda = path.endswith(".cuh") or CUDA_CODE.search(f.read())
            analysed = tu_copy = path + (".sl-tu.cu" if cuda else ".sl-tu.cpp")
            shutil.copyfile(os.path.join(root, path), os.path.join(root, tu_copy))
        cmd += ["--keep-going", analysed, "--", *include_dirs(root, path)]
    try:
        p = subprocess.run(cmd, capture_output=True, cwd=root,
                           env=dict(os.environ, STREAMLINT_NO_CACHE="1"))
        try:
            with open(out_json, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            tail = (p.stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
            return {}, [f"{path}: no JSON output (exit {p.returncode}) {tail}".strip()]
    finally:
        os.unlink(out_json)
        if tu_copy:
            os.unlink(os.path.join(root, tu_copy))
    by_path = collections.defaultdict(list)
    for f in data.get("findings", []):
        where = path if f.get("path") == tu_copy else f.get("path", "")
        by_path[where].append((f.get("rule", ""), int(f.get("line", 0)), f.get("message", "")))
    errors = [e.replace(tu_copy, path) if tu_copy else e for e in data.get("errors", [])]
    return dict(by_path), errors


PARTIAL = "analysed what parsed"


def file_result(result, path):
    """The findings of one file in a run's result, the errors that name it ('' if none) and the
    parse problems after which streamlint still analysed what parsed (C/C++: a partial AST)."""
    by_path, errors = result
    mine = [e for e in errors if e.startswith(path + ":")]
    return (by_path.get(path, []), "; ".join(e for e in mine if PARTIAL not in e),
            "; ".join(e for e in mine if PARTIAL in e))


def correctness(findings):
    return [f for f in findings if f[0].startswith(ACCEPTED)]


def judge(site, base, mutant):
    """The new accepted findings near the deleted lines, closest first."""
    before = collections.Counter((r, l) for r, l, _ in base)
    lo, hi = int(site["line"]) - WINDOW, int(site["end_line"]) + WINDOW
    new = []
    for rule, line, msg in sorted(mutant, key=lambda f: (f[1], f[0])):
        if before[(rule, line)] > 0:
            before[(rule, line)] -= 1
        elif lo <= line <= hi:
            new.append((rule, line, msg))
    return sorted(new, key=lambda f: abs(f[1] - int(site["line"])))


# ---------------------------------------------------------------------------------------


class Runner:
    def __init__(self, args, binary, repos, cache_dir):
        self.args, self.binary, self.repos = args, binary, repos
        self.cache_dir = cache_dir
        self.workers = queue.Queue()
        for w in range(args.jobs):
            self.workers.put(w)
        self.sl_jobs = max(1, (os.cpu_count() or 2) // args.jobs)
        self.baselines = self.load_json(os.path.join(cache_dir, "baselines.json"), {})
        self.scope_locks = collections.defaultdict(threading.Lock)
        self.lock = threading.Lock()
        self.check_times = []

    @staticmethod
    def load_json(path, default):
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return default

    def baseline(self, repo, site, scope, worker):
        """The findings of the unmutated scope ({path: findings}, errors), computed once."""
        key = f"{repo.name}@{repo.commit}:{site['lang']}:{scope}"
        with self.scope_locks[key]:
            if key in self.baselines:
                return self.baselines[key]
            root = repo.tree(self.args.work, worker, site["lang"])
            t0 = time.time()
            by_path, errors = run_check(self.binary, root, site, scope, self.sl_jobs,
                                        self.args.check_arg)
            took = time.time() - t0
            n = sum(len(correctness(f)) for f in by_path.values())
            log(f"  baseline {repo.name} {scope}: {n} SL1/SL2 findings in the scope, {took:.1f} s"
                + (f", {len(errors)} input errors" if errors else ""))
            with self.lock:
                self.check_times.append(took)
                self.baselines[key] = [by_path, errors]
                with open(os.path.join(self.cache_dir, "baselines.json"), "w", encoding="utf-8") as f:
                    json.dump(self.baselines, f)
            return self.baselines[key]

    def mutant(self, site):
        repo = self.repos[site["repo"]]
        scope = repo.scope(site)
        worker = self.workers.get()
        try:
            base, base_error, partial = file_result(self.baseline(repo, site, scope, worker), site["path"])
            row = {k: site[k] for k in ("repo", "path", "line", "end_line", "lang", "kind")}
            # A partial parse is judged (its findings are real), and marked in the note.
            row.update(split=repo.split, deleted=site["text"], kill_rule="", kill_line="", kill_message="",
                       note=f"partial parse: {partial}" if partial else "")
            if base_error:
                row.update(verdict="error", note="unmutated: " + base_error)
                return row
            root = repo.tree(self.args.work, worker, site["lang"])
            line, end = int(site["line"]), int(site["end_line"])
            with open(os.path.join(root, site["path"]), "rb") as f:
                if mutate.first_line(f.read(), line) != site["text"]:
                    raise BadInput(f"{site['repo']} {site['path']}:{line} no longer reads "
                                   f"'{site['text']}': sites.tsv is stale (run mutate.py list)")
            marker = os.path.join(root, ".mutated")
            with open(marker, "w") as f:
                f.write(site["path"])
            original = mutate.apply(root, site["path"], line, end, site["lang"])
            try:
                t0 = time.time()
                result = run_check(self.binary, root, site, scope, self.sl_jobs, self.args.check_arg)
                findings, error, _ = file_result(result, site["path"])
                with self.lock:
                    self.check_times.append(time.time() - t0)
            finally:
                with open(os.path.join(root, site["path"]), "wb") as f:
                    f.write(original)
                os.unlink(marker)
            if error:
                row.update(verdict="error", note="mutant: " + error)
                return row
            new = judge(site, correctness(base), correctness(findings))
            if new:
                rule, kline, msg = new[0]
                row.update(verdict="killed", kill_rule=rule, kill_line=kline, kill_message=msg)
            else:
                row["verdict"] = "survived"
            return row
        finally:
            self.workers.put(worker)


def site_key(site, commit):
    return "|".join([site["repo"], commit, site["path"], site["line"], site["end_line"], site["kind"], site["text"]])


def rate(rows):
    k = sum(r["verdict"] == "killed" for r in rows)
    s = sum(r["verdict"] == "survived" for r in rows)
    e = sum(r["verdict"] == "error" for r in rows)
    judged = k + s
    pct = f"{100.0 * k / judged:.1f} %" if judged else "-"
    return k, s, e, pct


BUGS = ("bug-visible", "bug-hidden")


def judged_rates(rows):
    """Kill rates over the mutants judged by hand (judged.tsv): of the deletions that are real
    bugs, how many were killed; and how many deletions that are no bug were "killed" anyway."""
    path = os.path.join(HERE, "judged.tsv")
    if not os.path.exists(path):
        return []
    verdicts = {(j["repo"], j["path"], j["line"]): j["verdict"] for j in read_tsv(path)}
    rows = [dict(r, judged=verdicts[(r["repo"], r["path"], r["line"])])
            for r in rows if (r["repo"], r["path"], r["line"]) in verdicts]
    if not rows:
        return []
    lines = ["", f"Over the {len(rows)} mutants judged by hand (judged.tsv; the verdicts are kept apart from "
             "any binary): kill rate among real bugs, and kills of deletions that are no bug.", "",
             "| group | judged | bug-visible | killed | bug-hidden | killed | kill rate over bugs | no bug | killed |",
             "|---|---|---|---|---|---|---|---|---|"]
    for split in ("dev", "heldout"):
        sel = [r for r in rows if r["split"] == split]
        if not sel:
            continue
        vis = [r for r in sel if r["judged"] == "bug-visible"]
        hid = [r for r in sel if r["judged"] == "bug-hidden"]
        nob = [r for r in sel if r["judged"] not in BUGS]
        kill = lambda xs: sum(r["verdict"] == "killed" for r in xs)
        bugs = [r for r in vis + hid if r["verdict"] != "error"]
        pct = f"{100.0 * kill(bugs) / len(bugs):.1f} %" if bugs else "-"
        lines.append(f"| {split} | {len(sel)} | {len(vis)} | {kill(vis)} | {len(hid)} | {kill(hid)} | {pct} "
                     f"| {len(nob)} | {kill(nob)} |")
    return lines


def summary(rows, base_rows, files, info):
    lines = [f"Binary: {info['binary']}", "",
             f"Command: `{info['command']}` ({info['date']}, {info['elapsed']:.0f} s wall, "
             f"{info['checks']} checks, median {info['median']:.2f} s a check)", "",
             "Kill rate = killed / (killed + survived); errors (files streamlint could not analyse) "
             "are counted apart.", "",
             "| group | files | mutants | killed | survived | error | kill rate |",
             "|---|---|---|---|---|---|---|"]

    def add(label, sel):
        k, s, e, pct = rate(sel)
        nfiles = len({(r["repo"], r["path"]) for r in sel})
        lines.append(f"| {label} | {nfiles} | {len(sel)} | {k} | {s} | {e} | {pct} |")

    partial = [r for r in rows if r["note"].startswith("partial parse")]
    if partial:
        lines[-2:-2] = [f"{len(partial)} C/C++ mutants are of files that parsed only in part "
                        f"(streamlint {PARTIAL}): they are judged, and marked in results.tsv's note.", ""]
    add("**all**", rows)
    for split in ("dev", "heldout"):
        add(split, [r for r in rows if r["split"] == split])
    for lang, label in (("py", "Python"), ("cxx", "C/C++")):
        add(label, [r for r in rows if r["lang"] == lang])
        for split in ("dev", "heldout"):
            add(f"{label}, {split}", [r for r in rows if r["lang"] == lang and r["split"] == split])
    for kind in sorted({r["kind"] for r in rows}):
        add(f"kind {kind}", [r for r in rows if r["kind"] == kind])
    lines += ["", "Per repository:", "", "| repo | split | mutants | killed | survived | error | kill rate |",
              "|---|---|---|---|---|---|---|"]
    for repo in sorted({r["repo"] for r in rows}, key=str.lower):
        sel = [r for r in rows if r["repo"] == repo]
        k, s, e, pct = rate(sel)
        lines.append(f"| {repo} | {sel[0]['split']} | {len(sel)} | {k} | {s} | {e} | {pct} |")
    lines += judged_rates(rows)
    by_split = collections.Counter(r["split"] for r in base_rows)
    lines += ["", f"SL1xx/SL2xx findings on the unmutated scopes, on the {files} files that hold sites "
              f"(baseline_findings.tsv, to be judged): **{len(base_rows)}** "
              f"(dev {by_split['dev']}, heldout {by_split['heldout']}; "
              + ", ".join(f"{r} {n}" for r, n in sorted(collections.Counter(b['rule'] for b in base_rows).items()))
              + ")."]
    return "\n".join(lines) + "\n"


def write_readme(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            old = f.read()
    except OSError:
        old = ""
    block = f"{BEGIN}\n{text}{END}"
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + block + old[old.index(END) + len(END):]
    else:
        new = old + ("\n" if old else "") + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def snapshot_binary(streamlint, tmp):
    """Copy the binary and its plugin into tmp/bin, tmp/lib once neither has changed for 10 s
    (another process may be rebuilding them: a plugin of one build with the binary of another
    crashes), and smoke-test the pair on a one-line C++ file. Returns the copy and a hash."""
    plugin = os.path.join(os.path.dirname(os.path.abspath(streamlint)), "..", "lib", "libstreamlint_cxx.so")
    parts = [(streamlint, "bin")] + ([(plugin, "lib")] if os.path.isfile(plugin) else [])
    if len(parts) == 1:
        log(f"note: no C/C++ plugin at {plugin}: C/C++ mutants will be errors")
    for attempt in range(60):
        stamp = [(os.stat(p).st_mtime, os.stat(p).st_size) for p, _ in parts]
        if time.time() - max(m for m, _ in stamp) < 10:
            log("waiting for the build to settle ...")
            time.sleep(10)
            continue
        h = hashlib.sha256()
        for p, sub in parts:
            os.makedirs(os.path.join(tmp, sub), exist_ok=True)
            shutil.copy2(p, os.path.join(tmp, sub, os.path.basename(p)))
            with open(p, "rb") as f:
                h.update(f.read())
        if stamp == [(os.stat(p).st_mtime, os.stat(p).st_size) for p, _ in parts]:
            break
    else:
        raise BadInput(f"{streamlint} keeps changing (a build in progress?)")
    binary = os.path.join(tmp, "bin", os.path.basename(streamlint))
    if len(parts) == 2:
        probe = os.path.join(tmp, "probe.cpp")
        with open(probe, "w") as f:
            f.write("int main() { return 0; }\n")
        p = subprocess.run([binary, "check", "--no-cache", "-q", probe], capture_output=True, cwd=tmp)
        if p.returncode not in (0, 1):
            raise BadInput(f"{binary} with its plugin fails on a one-line C++ file (exit {p.returncode}): "
                           "are the binary and lib/libstreamlint_cxx.so of the same build?")
    return binary, h


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streamlint", default=os.path.join("build", "bin", "streamlint"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--repos", default="", help="only these owner/name, comma separated")
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default="all")
    ap.add_argument("--jobs", type=int, default=1, help="mutants checked at once (default 1)")
    ap.add_argument("--out", default=HERE, help="where results.tsv, baseline_findings.tsv, README.md go")
    ap.add_argument("--sites", default=os.path.join(HERE, "sites.tsv"))
    ap.add_argument("--repos-tsv", default=os.path.join(HERE, "repos.tsv"))
    ap.add_argument("--splits", default=os.path.join(HERE, "..", "splits.tsv"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "streamlint-mutants-work"),
                    help="materialised trees (reused between runs)")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "streamlint-mutants-cache"),
                    help="results per binary hash, so that an interrupted run resumes")
    ap.add_argument("--fresh", action="store_true", help="ignore cached results")
    ap.add_argument("--check-arg", action="append", default=[],
                    help="pass this to every `streamlint check` (repeat), e.g. --check-arg=--min-confidence "
                         "--check-arg=low; the benchmark's numbers are those without")
    ap.add_argument("--keep-going", action="store_true",
                    help="a mutant that fails (bad input) is recorded as an error instead of stopping")
    args = ap.parse_args(argv)
    started = time.time()

    try:
        if args.jobs < 1:
            raise BadInput("--jobs must be at least 1")
        if not (os.path.isfile(args.streamlint) and os.access(args.streamlint, os.X_OK)):
            raise BadInput(f"--streamlint {args.streamlint}: not an executable file")
        if not os.path.isdir(args.mirrors):
            raise BadInput(f"--mirrors {args.mirrors}: not a directory")
        splits = {r["repo"]: r["split"] for r in read_tsv(args.splits)}
        pinned = {r["repo"]: r["commit"] for r in read_tsv(args.repos_tsv)}
        wanted = {r for r in args.repos.split(",") if r}
        for r in wanted - set(pinned):
            raise BadInput(f"--repos: {r} is not in {args.repos_tsv}")
        sites = []
        for s in read_tsv(args.sites):
            if s["repo"] not in pinned:
                raise BadInput(f"{args.sites}: {s['repo']} is not in {args.repos_tsv}")
            if s["repo"] not in splits:
                raise BadInput(f"{s['repo']} has no row in {args.splits}: run bench/mutants/make_split.py")
            if (not wanted or s["repo"] in wanted) and args.split in ("all", splits[s["repo"]]):
                sites.append(s)
        repos = {}
        for name in sorted({s["repo"] for s in sites}):
            git_dir = find_mirror(args.mirrors, name)
            if subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", pinned[name] + "^{commit}"],
                              capture_output=True).returncode != 0:
                raise BadInput(f"{name}: the mirror {git_dir} has no commit {pinned[name]}")
            repos[name] = Repo(name, pinned[name], git_dir, splits[name])
    except (BadInput, OSError) as e:
        print(f"run.py: error: {e}", file=sys.stderr)
        return 2

    # A private copy of the binary and of its C/C++ plugin (loaded from ../lib/ next to it): a
    # rebuild during the run changes nothing. Results are cached under the hash of both.
    tmp = tempfile.mkdtemp(prefix="mutants-bin-")
    try:
        binary, h = snapshot_binary(args.streamlint, tmp)
    except BadInput as e:
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"run.py: error: {e}", file=sys.stderr)
        return 2
    h.update(json.dumps(args.check_arg).encode())  # other options, other results
    digest = h.hexdigest()
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(binary), datetime.timezone.utc)
    with open(binary, "rb") as f:
        own = hashlib.sha256(f.read()).hexdigest()
    binary_info = (f"{version} ({args.streamlint} built {mtime:%Y-%m-%d %H:%M} UTC, sha256 {own[:16]}; "
                   f"cache key {digest[:16]})")
    log(f"streamlint: {binary_info}")
    cache_dir = os.path.join(args.cache, digest[:16])
    if args.fresh:
        shutil.rmtree(cache_dir, ignore_errors=True)
    os.makedirs(cache_dir, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    done_path = os.path.join(cache_dir, "mutants.jsonl")
    done = {}
    for line in open(done_path, encoding="utf-8") if os.path.exists(done_path) else []:
        item = json.loads(line)
        done[item["key"]] = item["row"]

    runner = Runner(args, binary, repos, cache_dir)
    # Mutants of one scope next to each other: trees and baselines are reused.
    order = sorted(sites, key=lambda s: (s["repo"], s["lang"], repos[s["repo"]].scope(s), s["path"], int(s["line"])))
    results = {}
    counter = [0]
    bad = []

    def one(site):
        key = site_key(site, repos[site["repo"]].commit)
        t0 = time.time()
        cached = key in done
        if cached:
            row = done[key]
        else:
            try:
                row = runner.mutant(site)
            except BadInput as e:
                if not args.keep_going:
                    bad.append(str(e))
                    raise
                row = {k: site[k] for k in ("repo", "path", "line", "end_line", "lang", "kind")}
                row.update(split=repos[site["repo"]].split, deleted=site["text"], verdict="error",
                           note=f"bad input: {e}", kill_rule="", kill_line="", kill_message="")
            with runner.lock:
                with open(done_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"key": key, "row": row}) + "\n")
        with runner.lock:
            counter[0] += 1
            results[key] = row
            log(f"[{counter[0]}/{len(order)}] {site['repo']} {site['path']}:{site['line']} {row['verdict']}"
                + (f" by {row['kill_rule']}@{row['kill_line']}" if row["verdict"] == "killed" else "")
                + (" (cached)" if cached else f" ({time.time() - t0:.1f} s)"))

    try:
        if args.jobs == 1:
            for s in order:
                one(s)
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(args.jobs) as pool:
                for fut in [pool.submit(one, s) for s in order]:
                    fut.result()
    except BadInput:
        print(f"run.py: error: {bad[0] if bad else 'bad input'}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    rows = [results[site_key(s, repos[s["repo"]].commit)] for s in order]
    rows.sort(key=lambda r: (r["repo"].lower(), r["path"], int(r["line"])))
    # Baseline findings: the accepted findings of the unmutated scopes on the site files.
    base_rows, seen = [], set()
    for s in order:
        repo = repos[s["repo"]]
        key = f"{repo.name}@{repo.commit}:{s['lang']}:{repo.scope(s)}"
        if key not in runner.baselines or (s["repo"], s["path"]) in seen:
            continue
        seen.add((s["repo"], s["path"]))
        findings, _, _ = file_result(runner.baselines[key], s["path"])
        for rule, line, msg in correctness(findings):
            base_rows.append({"repo": s["repo"], "split": repo.split, "path": s["path"], "line": line,
                              "rule": rule, "message": msg})
    base_rows.sort(key=lambda r: (r["repo"].lower(), r["path"], int(r["line"]), r["rule"]))

    os.makedirs(args.out, exist_ok=True)
    write_tsv(os.path.join(args.out, "results.tsv"), RESULT_COLUMNS, rows)
    write_tsv(os.path.join(args.out, "baseline_findings.tsv"), BASELINE_COLUMNS, base_rows)
    times = sorted(runner.check_times) or [0.0]
    info = {"binary": binary_info, "date": datetime.date.today().isoformat(),
            "command": "python3 bench/mutants/run.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "elapsed": time.time() - started, "checks": len(runner.check_times),
            "median": times[len(times) // 2]}
    text = summary(rows, base_rows, len(seen), info)
    print(text)
    write_readme(os.path.join(args.out, "README.md"), text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
