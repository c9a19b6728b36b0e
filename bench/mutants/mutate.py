#!/usr/bin/env python3
"""Mutation sites of the stream-ordering benchmark, and how to apply one.

A mutation deletes one stream-ordering statement of a library file and puts a no-op in its
place that keeps every line number (so findings of the mutant and of the unmutated tree can be
compared line by line):

  Python  `X.wait_stream(...)`, `X.wait_event(...)`, `X.record_stream(...)`, `EV.wait(...)` on
          an event; found with `ast`: only statements of their own (an `ast.Expr` whose value is
          the call), never a call inside a larger expression. The statement's first line becomes
          `pass` at its indentation, its other lines become blank.
  C/C++   `cudaStreamWaitEvent(...);` (also wrapped in a check macro, `C10_CUDA_CHECK(...)`),
          `X.recordStream(...);` / `X.record_stream(...);`, `EV.block(...);` on an event; found by
          a line-based scan (there is no compile database). The statement becomes `(void)0;` on
          its first line, its other lines become blank.

Usage:
  mutate.py list [--mirrors DIR] [--repos a,b] [-o sites.tsv]   every site of repos.tsv's commits
  mutate.py apply TREE PATH LINE                                 mutate TREE/PATH at LINE in place
  mutate.py sites FILE...                                        the sites of files on disk

Python 3.11 standard library only.
"""

import argparse
import ast
import importlib.util
import os
import re
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))

# bench/recall/run.py's mirror conventions (both layouts of the fetch tool), loaded by path:
# both scripts are called run.py.
_spec = importlib.util.spec_from_file_location("recall_run", os.path.join(HERE, "..", "recall", "run.py"))
recall_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recall_run)
BadInput, find_mirror, git = recall_run.BadInput, recall_run.find_mirror, recall_run.git

PY_EXT = (".py",)
CXX_EXT = (".cpp", ".cc", ".cu", ".cuh", ".h", ".hpp")
SITE_COLUMNS = ["repo", "path", "line", "end_line", "lang", "kind", "text"]

# Not library code: a directory component like these, or a test file's name. Vendored code
# (third_party/...) is left out too: it is another project's code, possibly a reserved one's;
# and archive/ (streamlint's "deliberate code", and in practice a dead copy of older code).
EXCLUDED_DIR = re.compile(
    r"^(tests?|testing|benchmarks?|examples?|tutorials?|docs?|scripts?|tools|tasks"
    r"|third[_-]?party|3rdparty|vendor(ed)?|archived?)$", re.I)
EXCLUDED_FILE = re.compile(r"^(test_.*|.*_test\.[A-Za-z]+|conftest\.py)$")


def is_library_path(path):
    parts = path.split("/")
    if any(EXCLUDED_DIR.match(p) for p in parts[:-1]):
        return False
    return not EXCLUDED_FILE.match(parts[-1])


# ---------------------------------------------------------------------------------------
# event names: `ev.wait(s)` / `ev.block(s)` are only ordering calls when ev is an event, and
# `work.wait()` (a collective's handle) or `cond.wait()` are not. A name is taken for an event
# when one of its words is ev/evt/event (plural too): `ev`, `copy_event`, `h2d_evts`,
# `fwdEvent`, `ev0`; not `level`, `prev`, `device`.
#
# Python has host events too (threading, multiprocessing, asyncio: `stop_event.wait(0.5)`),
# and deleting their wait is no stream-ordering bug. So a Python `wait` is a site only when
#   - the file makes device events at all (`torch.cuda.Event(`, `torch.Event(`,
#     `get_accelerator().Event(`, `record_event(`: DEVICE_EVENT below),
#   - the receiver's name is not bound anywhere in the file to a host event
#     (`threading.Event()`, `mp.Event()`, `ctx.Event()`, `Manager().Event()`, `asyncio.Event()`,
#     or a bare `Event()` imported from threading/multiprocessing/asyncio),
#   - and its argument, if any, is not a timeout (a number, `timeout=`, or an expression naming
#     time/timeout/interval/deadline/poll): `Event.wait(stream)` takes a stream or nothing.

EVENT_WORDS = {"ev", "evs", "evt", "evts", "event", "events"}


def is_event_name(name):
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)       # fwdEvent -> fwd_Event
    words = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", words).lower()  # CUDAEvent -> CUDA_Event
    return any(w in EVENT_WORDS for w in re.split(r"[_\d]+", words) if w)


def receiver_name(node):
    """The name that a method's receiver is known by: `self.copy_event[i]` -> copy_event."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def makes_event(value):
    """`torch.cuda.Event(...)`, `Event(...)`, `get_accelerator().Event()`, `s.record_event()`."""
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return name in ("Event", "record_event")


DEVICE_EVENT = re.compile(
    rb"\b(cuda|torch|npu|xpu|musa|mlu|device\w*|get_accelerator\(\)|get_torch_device\(\))\s*\.\s*Event\s*\("
    rb"|record_event\s*\(")
HOST_EVENT_MODULES = {"threading", "multiprocessing", "mp", "asyncio", "ctx", "mp_ctx", "manager"}
TIMEOUT_WORDS = re.compile(r"time|timeout|interval|deadline|poll", re.I)


def host_event_names(tree):
    """Names bound in the file to a threading/multiprocessing/asyncio event."""
    bare = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("threading", "multiprocessing", "asyncio"):
            bare.update(a.asname or a.name for a in node.names if a.name == "Event")
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and re.match(
                r"^(threading|multiprocessing|mp|asyncio)\.Event$", ast.unparse(node.annotation)):
            host = True  # `stop: threading.Event = field(default_factory=threading.Event)`
        elif not (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call)):
            continue
        else:
            f = node.value.func
            host = (isinstance(f, ast.Name) and f.id in bare) or (
                isinstance(f, ast.Attribute) and f.attr == "Event"
                and ((isinstance(f.value, ast.Name) and f.value.id.lower() in HOST_EVENT_MODULES)
                     or (isinstance(f.value, ast.Call)
                         and getattr(f.value.func, "attr", getattr(f.value.func, "id", "")) == "Manager")))
        if host:
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                n = receiver_name(t)
                if n:
                    names.add(n)
    return names


def timeout_argument(call):
    if any(k.arg == "timeout" for k in call.keywords):
        return True
    for a in call.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, (int, float)):
            return True
        if TIMEOUT_WORDS.search(ast.unparse(a)):
            return True
    return False


def event_names_assigned(func):
    """Names bound in this function (not in nested ones) to a new event."""
    names = set()
    for node in walk_own(func):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and makes_event(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                n = receiver_name(t)
                if n:
                    names.add(n)
    return names


def walk_own(scope):
    """The nodes of a function or module body, without descending into nested functions."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


PY_KINDS = {"wait_stream": "wait_stream", "wait_event": "wait_event",
            "record_stream": "record_stream", "wait": "event.wait"}


def python_sites(source):
    """(line, end_line, kind) of every ordering statement of a Python source (bytes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
    lines = source.splitlines()
    device_events = bool(DEVICE_EVENT.search(source))
    host_events = host_event_names(tree) if device_events else set()
    sites = []
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope in scopes:
        events = None
        for node in walk_own(scope):
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
                continue
            f = node.value.func
            if not (isinstance(f, ast.Attribute) and f.attr in PY_KINDS):
                continue
            if f.attr == "wait":
                if not device_events or timeout_argument(node.value):
                    continue
                if events is None:
                    events = event_names_assigned(scope)
                recv = f.value
                name = receiver_name(recv)
                made_here = isinstance(recv, ast.Call) and makes_event(recv)
                if not (made_here or (name and (is_event_name(name) or name in events))):
                    continue
                if name in host_events:
                    continue
            if not owns_lines(lines, node):
                continue  # shares a line with other code (`if x: s.wait_stream(t)`, `a; b`)
            sites.append((node.lineno, node.end_lineno, PY_KINDS[f.attr]))
    return sorted(sites)


def owns_lines(lines, node):
    """The statement is alone on its lines: only blanks before it, blanks or a comment after.
    (ast's columns are UTF-8 byte offsets, hence bytes.)"""
    first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
    if first[: node.col_offset].strip():
        return False
    rest = last[node.end_col_offset:].strip()
    return not rest or rest.startswith(b"#")


# ---------------------------------------------------------------------------------------
# C/C++/CUDA: a line-based scan. A statement starts at the beginning of a line (after blanks)
# with one of the calls below and ends at the `;` after its parentheses close (possibly lines
# later). Lines inside comments, strings or preprocessor macros are not looked at, nor a line
# that continues an expression (the previous code line ends in `=`, `,`, `(`, an operator...).

CHECK_MACRO = r"(?:[A-Z_][A-Z0-9_]*(?:::[A-Z_][A-Z0-9_]*)*\s*\(\s*)?"   # C10_CUDA_CHECK(
RECEIVER = r"[A-Za-z_][\w:]*(?:(?:\.|->)[A-Za-z_]\w*|\[[^\]\n]*\]|\(\))*"
CXX_PATTERNS = [
    ("cudaStreamWaitEvent", re.compile(r"^\s*" + CHECK_MACRO + r"(?:::)?cudaStreamWaitEvent\s*\(")),
    ("recordStream", re.compile(r"^\s*(" + RECEIVER + r")\s*(?:\.|->)\s*(?:recordStream|record_stream)\s*\(")),
    ("event.block", re.compile(r"^\s*(" + RECEIVER + r")\s*(?:\.|->)\s*block\s*\(")),
]
CONTINUES = re.compile(r"([=,(+\-*/%&|^<>?:!]|\b(return|throw|co_return))\s*$")


def strip_cxx(text):
    """The source with comments and string/char literals replaced by blanks (same length and
    newlines), so that the scan sees code only."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (text[j - 1] if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def statement_end(code_lines, start):
    """The index of the line where the statement starting at code_lines[start] ends (its `;`
    after the parentheses close), and whether only blanks follow the `;`; None if unclear."""
    depth = 0
    opened = False
    for k in range(start, min(start + 40, len(code_lines))):
        line = code_lines[k]
        for pos, ch in enumerate(line):
            if ch == "(":
                depth += 1
                opened = True
            elif ch == ")":
                depth -= 1
                if depth < 0:
                    return None
            elif ch in "{}":
                return None  # a lambda or a block inside: not a plain call statement
            elif ch == ";":
                if opened and depth == 0:
                    return k, not line[pos + 1:].strip()
                if depth == 0:
                    return None
    return None


def cxx_sites(source):
    text = source.decode("utf-8", errors="replace")
    code = strip_cxx(text).split("\n")
    sites = []
    prev_code = ""
    in_macro = False
    for i, line in enumerate(code):
        macro_line = in_macro or line.lstrip().startswith("#")
        in_macro = macro_line and line.rstrip().endswith("\\")
        if macro_line:
            continue
        for kind, pat in CXX_PATTERNS:
            m = pat.match(line)
            if not m:
                continue
            if kind == "event.block":
                name = re.findall(r"[A-Za-z_]\w*", m.group(1))[-1]
                if not is_event_name(name):
                    continue
            if CONTINUES.search(prev_code):
                continue
            end = statement_end(code, i)
            if end is None or not end[1]:
                continue
            sites.append((i + 1, end[0] + 1, kind))
            break
        if line.strip():
            prev_code = line.rstrip()
    return sites


def file_sites(path, source):
    """(line, end_line, lang, kind) of a file's sites; None for Python that does not parse."""
    if path.endswith(PY_EXT):
        found = python_sites(source)
        return None if found is None else [(a, b, "py", k) for a, b, k in found]
    if path.endswith(CXX_EXT):
        return [(a, b, "cxx", k) for a, b, k in cxx_sites(source)]
    return []


# A cheap pre-filter for `git grep`: files that cannot hold a site are never read.
GREP = r"wait_stream|wait_event|record_stream|recordStream|cudaStreamWaitEvent|\.wait\(|\.block\(|->block\("


# ---------------------------------------------------------------------------------------
# applying a mutation


def mutate_source(source, line, end_line, lang):
    """The source with the statement on lines line..end_line replaced by a no-op (same lines)."""
    lines = source.splitlines(keepends=True)
    first = lines[line - 1]
    indent = first[: len(first) - len(first.lstrip())]
    eol = first[len(first.rstrip(b"\r\n")):]
    lines[line - 1] = indent + (b"pass" if lang == "py" else b"(void)0;") + eol
    for k in range(line, end_line):
        lines[k] = lines[k][len(lines[k].rstrip(b"\r\n")):]
    return b"".join(lines)


def apply(tree, path, line, end_line, lang):
    """Mutate tree/path in place; returns the original bytes (write them back to revert)."""
    full = os.path.join(tree, path)
    with open(full, "rb") as f:
        original = f.read()
    with open(full, "wb") as f:
        f.write(mutate_source(original, line, end_line, lang))
    return original


def first_line(source, line):
    lines = source.splitlines()
    return lines[line - 1].decode("utf-8", errors="replace").strip() if line <= len(lines) else ""


# ---------------------------------------------------------------------------------------


def read_tsv(path):
    """Rows of a tab-separated file with a header line, as dicts (`#` lines are comments)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror}")
    if not lines:
        raise BadInput(f"{path}: no header line")
    header = lines[0].split("\t")
    rows = []
    for no, line in enumerate(lines[1:], 2):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise BadInput(f"{path}: row {no} has {len(cells)} columns, expected {len(header)}")
        rows.append(dict(zip(header, cells)))
    return rows


def write_tsv(path, columns, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\t".join(columns) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")).replace("\t", " ").replace("\n", " ") for c in columns) + "\n")


def read_repos(path=os.path.join(HERE, "repos.tsv")):
    return [(r["repo"], r["commit"]) for r in read_tsv(path)]


def repo_sites(git_dir, repo, commit):
    """Every site of the repository's library files at commit, and the number of files."""
    p = subprocess.run(["git", f"--git-dir={git_dir}", "grep", "-l", "-E", GREP, commit, "--",
                        *[f"*{e}" for e in PY_EXT + CXX_EXT]], capture_output=True)
    if p.returncode not in (0, 1):
        raise BadInput(f"git grep in {git_dir}: {p.stderr.decode(errors='replace').strip()}")
    paths = [l.split(":", 1)[1] for l in p.stdout.decode("utf-8", errors="replace").splitlines()]
    sites, files = [], 0
    for path in sorted(paths):
        if not is_library_path(path):
            continue
        source = git(git_dir, "show", f"{commit}:{path}", binary=True)
        found = file_sites(path, source)
        if not found:
            continue
        files += 1
        for a, b, lang, kind in found:
            sites.append({"repo": repo, "path": path, "line": a, "end_line": b, "lang": lang,
                          "kind": kind, "text": first_line(source, a).replace("\t", " ")})
    return sites, files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list", help="write every site of repos.tsv's commits to sites.tsv")
    ls.add_argument("--mirrors", default="/work/.mirror")
    ls.add_argument("--repos", default="", help="only these owner/name, comma separated")
    ls.add_argument("--repos-tsv", default=os.path.join(HERE, "repos.tsv"))
    ls.add_argument("-o", "--output", default=os.path.join(HERE, "sites.tsv"))
    ap_ = sub.add_parser("apply", help="mutate TREE/PATH at LINE in place")
    ap_.add_argument("tree")
    ap_.add_argument("path")
    ap_.add_argument("line", type=int)
    st = sub.add_parser("sites", help="print the sites of files on disk")
    st.add_argument("files", nargs="+")
    args = ap.parse_args(argv)

    try:
        if args.cmd == "sites":
            for name in args.files:
                with open(name, "rb") as f:
                    source = f.read()
                for a, b, lang, kind in file_sites(name, source) or []:
                    print(f"{name}:{a}-{b}\t{lang}\t{kind}\t{first_line(source, a)}")
            return 0
        if args.cmd == "apply":
            full = os.path.join(args.tree, args.path)
            with open(full, "rb") as f:
                found = [s for s in file_sites(args.path, f.read()) or [] if s[0] == args.line]
            if not found:
                raise BadInput(f"{full}: no mutation site at line {args.line}")
            a, b, lang, _ = found[0]
            apply(args.tree, args.path, a, b, lang)
            return 0
        wanted = {r for r in args.repos.split(",") if r}
        rows = []
        for repo, commit in read_repos(args.repos_tsv):
            if wanted and repo not in wanted:
                continue
            git_dir = find_mirror(args.mirrors, repo)
            sites, files = repo_sites(git_dir, repo, commit)
            print(f"{repo}: {files} files, {len(sites)} sites", file=sys.stderr)
            rows.extend(sites)
        write_tsv(args.output, SITE_COLUMNS, rows)
        print(f"{len(rows)} sites -> {args.output}", file=sys.stderr)
    except (BadInput, OSError) as e:
        print(f"mutate.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
