"""Speed and memory of `streamlint check` on real Python, against CPython's ast.parse as a peer.

Both run in the same invocation, on the same files, interleaved (streamlint first on even
repetitions, the peer first on odd ones), after one untimed warm-up each. Wall time is taken
around the whole process (start-up included, for both); peak RSS and CPU time come from GNU
time's `-v` output ("Maximum resident set size"). The streamlint binary is copied into the
work dir first, so a rebuild during the run cannot change what is measured.

The corpus is copied into a temporary directory first, flattened into numbered files, so that
streamlint's directory walk (which skips build/, site-packages/, virtualenvs and .gitignore'd
paths) sees exactly the files the peer parses. Only files both tools accept are kept: regular
`.py` files of at most 16 MiB, valid UTF-8 without NUL bytes, that this interpreter's ast.parse
accepts. Nothing from the corpus is ever written into the repository.

Run through bench/python/run.sh; see bench/README.md.
"""
import argparse
import ast
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GNU_TIME = "/usr/bin/time"
MAX_FILE_BYTES = 16 << 20  # streamlint's SourceFile limit (analyzer/core/SourceFile.h)
FILES_PER_DIR = 500

# Targets from issue 2 ("Show, in the closing note").
TARGET_RATIO = 1.5
TARGET_MBPS = 15.0
TARGET_RSS_MB = 300.0


def default_sources():
    paths = sysconfig.get_paths()
    return [paths["stdlib"], paths["purelib"]]


def collect(sources):
    """Returns (kept paths, {reason: count}) for the .py files under `sources`."""
    seen, kept, dropped = set(), [], {}
    for src in sources:
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
                reason = reject_reason(path)
                if reason:
                    dropped[reason] = dropped.get(reason, 0) + 1
                else:
                    kept.append(path)
    return kept, dropped


def reject_reason(path):
    if os.path.islink(path) or not os.path.isfile(path):
        return "not a regular file"
    if os.path.getsize(path) > MAX_FILE_BYTES:
        return "over 16 MiB"
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:
        return "contains NUL"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    try:
        compile(data, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return "ast.parse rejects it"
    return None


def build_corpus(paths, dest, max_bytes, dedupe):
    """Copies `paths` into dest/corpus/dNNN/NNNNNN_name.py; returns (list file, files, bytes)."""
    corpus = os.path.join(dest, "corpus")
    os.makedirs(corpus)
    copied, total, digests = [], 0, set()
    for path in paths:
        size = os.path.getsize(path)
        if max_bytes and total + size > max_bytes:
            continue
        if dedupe:
            with open(path, "rb") as f:
                digest = hashlib.sha1(f.read()).digest()
            if digest in digests:
                continue
            digests.add(digest)
        i = len(copied)
        sub = os.path.join(corpus, "d%03d" % (i // FILES_PER_DIR))
        os.makedirs(sub, exist_ok=True)
        target = os.path.join(sub, "%06d_%s" % (i, os.path.basename(path)))
        shutil.copyfile(path, target)
        copied.append(target)
        total += size
    listfile = os.path.join(dest, "files.txt")
    with open(listfile, "w", encoding="utf-8") as f:
        f.write("\n".join(copied) + "\n")
    return corpus, listfile, len(copied), total


def parse_gnu_time(text):
    out = {}
    for line in text.splitlines():
        key, _, value = line.strip().rpartition(": ")
        if key == "Maximum resident set size (kbytes)":
            out["rss_mb"] = int(value) / 1024.0
        elif key == "User time (seconds)":
            out["user_s"] = float(value)
        elif key == "System time (seconds)":
            out["sys_s"] = float(value)
        elif key == "Exit status":
            out["exit"] = int(value)
    return out


def timed(cmd, workdir, tag):
    """Runs cmd under GNU time -v; returns a dict with wall_s, rss_mb, user_s, sys_s, stdout."""
    tfile = os.path.join(workdir, tag + ".time")
    stdout = os.path.join(workdir, tag + ".stdout")
    stderr = os.path.join(workdir, tag + ".stderr")
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        start = time.perf_counter()
        # Timed runs analyse every time: the result cache would answer repeats in a blink.
        proc = subprocess.run([GNU_TIME, "-v", "-o", tfile] + cmd, stdout=out, stderr=err,
                              env=dict(os.environ, STREAMLINT_NO_CACHE="1"))
        wall = time.perf_counter() - start
    with open(tfile, encoding="utf-8", errors="replace") as f:
        result = parse_gnu_time(f.read())
    result.update(wall_s=wall, rc=proc.returncode, stdout=stdout, stderr=stderr)
    return result


def streamlint_cmd(args, corpus, workdir):
    cmd = [args.streamlint, "check", "--format", "json", "-o", os.path.join(workdir, "sl.json")]
    if args.jobs:
        cmd += ["-j", str(args.jobs)]
    return cmd + args.streamlint_arg + [corpus]


def check_streamlint_run(run, workdir):
    """Returns (parse diagnostics, input-error lines, findings) of a streamlint run."""
    with open(run["stderr"], encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    parse_errors = [l for l in lines if "[parse-error]" in l]
    input_errors = [l for l in lines if "[input-error]" in l]
    with open(os.path.join(workdir, "sl.json"), encoding="utf-8") as f:
        findings = json.load(f)["findings"]
    return parse_errors, input_errors, findings


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    global GNU_TIME
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sources", nargs="*", help="directories of real Python (default: this "
                    "interpreter's stdlib and site-packages)")
    ap.add_argument("--streamlint", default=os.path.join(HERE, "..", "..", "build", "bin",
                                                         "streamlint"))
    ap.add_argument("--python", default=sys.executable, help="interpreter for the ast.parse peer")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions of each (>= 3)")
    ap.add_argument("--jobs", type=int, default=0, help="streamlint -j (default: its own, all cores)")
    ap.add_argument("--streamlint-arg", action="append", default=[],
                    help="extra argument for `streamlint check` (repeatable)")
    ap.add_argument("--min-mb", type=float, default=20.0, help="refuse a smaller corpus")
    ap.add_argument("--max-mb", type=float, default=40.0,
                    help="cap the corpus, files taken in walk order (0: no cap; default %(default)s)")
    ap.add_argument("--no-dedupe", action="store_true", help="keep byte-identical files")
    ap.add_argument("--workdir", help="where to copy the corpus (default: a fresh temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--time-bin", default=GNU_TIME, help="GNU time (default: %(default)s)")
    args = ap.parse_args()

    if args.reps < 3:
        ap.error("--reps must be at least 3")
    GNU_TIME = args.time_bin
    if not os.access(GNU_TIME, os.X_OK):
        sys.exit("bench: %s not found; install Debian's `time` package" % GNU_TIME)
    args.streamlint = os.path.abspath(args.streamlint)
    if not os.access(args.streamlint, os.X_OK):
        sys.exit("bench: %s not built; run `cmake --build build --target streamlint`"
                 % args.streamlint)
    sources = args.sources or default_sources()

    workdir = args.workdir or tempfile.mkdtemp(prefix="streamlint-bench-")
    os.makedirs(workdir, exist_ok=True)
    try:
        paths, dropped = collect(sources)
        corpus, listfile, nfiles, nbytes = build_corpus(
            paths, workdir, int(args.max_mb * 1e6), not args.no_dedupe)
        mb = nbytes / 1e6
        print("corpus: %d files, %.1f MB from %s" % (nfiles, mb, ", ".join(sources)))
        if dropped:
            print("  left out: " + ", ".join("%d %s" % (n, r) for r, n in sorted(dropped.items())))
        if mb < args.min_mb:
            sys.exit("bench: corpus is %.1f MB, under --min-mb %.0f; add source dirs" % (mb, args.min_mb))

        snapshot = os.path.join(workdir, "streamlint")
        shutil.copy2(args.streamlint, snapshot)
        with open(snapshot, "rb") as f:
            sl_sha = hashlib.sha256(f.read()).hexdigest()[:12]
        print("binary: %s (sha256 %s, copied from %s)" % (snapshot, sl_sha, args.streamlint))
        args.streamlint = snapshot
        sl_cmd = streamlint_cmd(args, corpus, workdir)
        peer_cmd = [args.python, os.path.join(HERE, "astparse_peer.py"), listfile]
        print("streamlint: " + " ".join(sl_cmd))
        print("peer:       " + " ".join(peer_cmd))

        load_before = os.getloadavg()  # before any of our own runs add to it
        # Warm-up (page cache, lazy loading), untimed; it also validates both commands.
        warm_sl = timed(sl_cmd, workdir, "warm-sl")
        warm_peer = timed(peer_cmd, workdir, "warm-peer")
        # Exit 2 with only parse diagnostics is fine (tree-sitter rejected a construct that
        # CPython accepts; streamlint analysed the rest); anything else means a broken run.
        _, input_errors, _ = check_streamlint_run(warm_sl, workdir)
        if warm_sl["rc"] not in (0, 1, 2) or input_errors:
            sys.exit("bench: streamlint exited %d (%d input errors, e.g. %s)"
                     % (warm_sl["rc"], len(input_errors), input_errors[:3]))
        if warm_peer["rc"] != 0:
            sys.exit("bench: the ast.parse peer exited %d" % warm_peer["rc"])

        sl_runs, peer_runs = [], []
        for i in range(args.reps):
            order = [("sl", sl_cmd, sl_runs), ("peer", peer_cmd, peer_runs)]
            for tag, cmd, runs in (order if i % 2 == 0 else order[::-1]):
                run = timed(cmd, workdir, "%s-%d" % (tag, i))
                runs.append(run)
                print("  rep %d %-10s wall %7.3f s  user %7.2f s  sys %5.2f s  peak RSS %7.1f MB"
                      % (i + 1, "streamlint" if tag == "sl" else "ast.parse", run["wall_s"],
                         run.get("user_s", 0), run.get("sys_s", 0), run.get("rss_mb", 0)))

        load_after = os.getloadavg()
        parse_errors, input_errors, findings = check_streamlint_run(sl_runs[-1], workdir)
        with open(peer_runs[-1]["stdout"], encoding="utf-8") as f:
            peer_out = json.loads(f.read().strip().splitlines()[-1])
        by_rule = {}
        for fnd in findings:
            by_rule[fnd["rule"]] = by_rule.get(fnd["rule"], 0) + 1

        sl_wall, peer_wall = median(sl_runs, "wall_s"), median(peer_runs, "wall_s")
        sl_rss, peer_rss = median(sl_runs, "rss_mb"), median(peer_runs, "rss_mb")
        sl_max_rss = max(r["rss_mb"] for r in sl_runs)
        ratio = peer_wall / sl_wall
        res = {
            "corpus_files": nfiles, "corpus_mb": mb, "sources": sources, "reps": args.reps,
            "cores": len(os.sched_getaffinity(0)), "cpu": cpu_model(), "python": platform.python_version(),
            "streamlint_cmd": sl_cmd, "streamlint_sha256": sl_sha, "peer_cmd": peer_cmd,
            "streamlint": {"median_wall_s": sl_wall, "mb_per_s": mb / sl_wall,
                           "median_cpu_s": median_cpu(sl_runs), "median_rss_mb": sl_rss,
                           "max_rss_mb": sl_max_rss,
                           "walls": [r["wall_s"] for r in sl_runs],
                           "findings": len(findings), "findings_by_rule": by_rule,
                           "parse_errors": len(parse_errors),
                           "parse_error_lines": parse_errors[:10],
                           "input_errors": len(input_errors)},
            "ast_parse": {"median_wall_s": peer_wall, "mb_per_s": mb / peer_wall,
                          "median_cpu_s": median_cpu(peer_runs), "median_rss_mb": peer_rss,
                          "walls": [r["wall_s"] for r in peer_runs],
                          "failures": peer_out["failures"]},
            "ratio_ast_over_streamlint": ratio,
            "ratio_cpu_ast_over_streamlint": median_cpu(peer_runs) / median_cpu(sl_runs),
            "loadavg_1min_before_after": [load_before[0], load_after[0]],
        }
        report(res)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(res, f, indent=2)
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
        elif args.keep:
            print("kept: " + workdir)


def median_cpu(runs):
    return statistics.median(r.get("user_s", 0) + r.get("sys_s", 0) for r in runs)


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def report(r):
    sl, peer = r["streamlint"], r["ast_parse"]
    mark = lambda ok: "ok" if ok else "MISSED"
    print()
    print("medians of %d interleaved runs, %d files, %.1f MB, %d cores (%s), Python %s"
          % (r["reps"], r["corpus_files"], r["corpus_mb"], r["cores"], r["cpu"], r["python"]))
    print("  %-22s %9s %9s %9s %12s" % ("", "wall s", "MB/s", "CPU s", "peak RSS MB"))
    print("  %-22s %9.3f %9.2f %9.2f %12.1f" % ("streamlint check", sl["median_wall_s"],
          sl["mb_per_s"], sl["median_cpu_s"], sl["median_rss_mb"]))
    print("  %-22s %9.3f %9.2f %9.2f %12.1f" % ("ast.parse (1 process)", peer["median_wall_s"],
          peer["mb_per_s"], peer["median_cpu_s"], peer["median_rss_mb"]))
    print("  CPU time: streamlint %.2f MB per CPU-second, ast.parse %.2f (ratio %.2fx)"
          % (r["corpus_mb"] / sl["median_cpu_s"], r["corpus_mb"] / peer["median_cpu_s"],
             r["ratio_cpu_ast_over_streamlint"]))
    lb, la = r["loadavg_1min_before_after"]
    # Before: other work only. After: includes our own last run (~1 per busy thread).
    if lb > r["cores"] * 0.5 or la > r["cores"] + 1:
        print("  NOTE: 1-min load average %.1f before / %.1f after on %d cores: other work shared "
              "the CPUs, so wall times are inflated" % (lb, la, r["cores"]))
    print("  streamlint is %.2fx ast.parse's speed   (target >= %.1fx: %s)"
          % (r["ratio_ast_over_streamlint"], TARGET_RATIO,
             mark(r["ratio_ast_over_streamlint"] >= TARGET_RATIO)))
    print("  streamlint %.2f MB/s wall              (target >= %.0f MB/s: %s)"
          % (sl["mb_per_s"], TARGET_MBPS, mark(sl["mb_per_s"] >= TARGET_MBPS)))
    print("  streamlint peak RSS %.1f MB (max of runs) (target <= %.0f MB: %s)"
          % (sl["max_rss_mb"], TARGET_RSS_MB, mark(sl["max_rss_mb"] <= TARGET_RSS_MB)))
    rules = ", ".join("%s: %d" % kv for kv in sorted(sl["findings_by_rule"].items()))
    print("  streamlint: %d findings (%s), %d parse diagnostics, %d input errors; "
          "ast.parse failures: %d" % (sl["findings"], rules or "none", sl["parse_errors"],
                                     sl["input_errors"], peer["failures"]))
    for line in sl["parse_error_lines"]:
        print("    " + line)


if __name__ == "__main__":
    main()
