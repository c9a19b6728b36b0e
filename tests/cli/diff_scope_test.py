"""`check --diff REV` on Python (driver/DiffScope.h): the changed files get exactly the findings a
full run gives them on their changed lines, although only they and the files their findings depend
on are analysed. Usage: diff_scope_test.py STREAMLINT REPO_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SL, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
PROJECT = os.path.join(ROOT, "rules", "SL302-host-sync-in-loop", "bad.project")
failures = []


def git(repo, *args):
    subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def check(repo, *args):
    r = subprocess.run([SL, "check", "--no-cache", "--format", "json", *args, repo], capture_output=True, text=True,
                       cwd=repo)
    if r.returncode not in (0, 1):
        failures.append(f"check {args}: exit {r.returncode}: {r.stderr}")
        return [], r.stderr
    found = [(os.path.relpath(os.path.join(repo, f["path"]), repo), f["line"], f["rule"])
             for f in json.loads(r.stdout)["findings"]]
    return sorted(found), r.stderr


def analysed(stderr):
    """Files analysed, from --diff's line on stderr."""
    for line in stderr.splitlines():
        if line.startswith("streamlint: --diff HEAD: "):
            return int(line.split(": ")[2].split()[0])
    return None


def expect(name, got, want):
    if got != want:
        failures.append(f"{name}: got {got}, want {want}")


def changed_lines(repo):
    out = subprocess.run(["git", "-C", repo, "diff", "-U0", "HEAD"], capture_output=True, text=True).stdout
    lines, path = set(), None
    for l in out.splitlines():
        if l.startswith("+++ b/"):
            path = l[6:]
        elif l.startswith("@@ "):
            plus = l.split(" +")[1].split(" ")[0]
            start, _, count = plus.partition(",")
            for n in range(int(start), int(start) + int(count or 1)):
                lines.add((path, n))
    return lines


def same_as_full_run(name, repo):
    """--diff HEAD == a full run's findings on the changed lines; returns --diff's findings."""
    full, _ = check(repo)
    touched = changed_lines(repo)
    want = [f for f in full if (f[0], f[1]) in touched]
    got, err = check(repo, "--diff", "HEAD")
    expect(name + ": --diff findings = full run on changed lines", got, want)
    return got, analysed(err)


def make_repo(tmp):
    repo = os.path.join(tmp, "repo")
    shutil.copytree(PROJECT, repo)
    # A helper module with an explicit sync, called from a loop of train.py (a callee summary
    # across files), and 30 modules nothing here imports.
    with open(os.path.join(repo, "syncs.py"), "w") as f:
        f.write("import torch\n\n\ndef barrier():\n    torch.cuda.synchronize()\n")
    with open(os.path.join(repo, "train.py"), "w") as f:
        f.write("import torch\n\nimport syncs\n\n\ndef train(model, x):\n    side = torch.cuda.Stream()\n"
                "    with torch.cuda.stream(side):\n        y = model(x)\n    return y\n")
    os.makedirs(os.path.join(repo, "other"))
    for i in range(30):
        with open(os.path.join(repo, "other", f"mod{i}.py"), "w") as f:
            f.write(f"import torch\n\n\ndef f{i}(x):\n    for _ in range(3):\n        x = x.cuda() * 2\n    return x\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo


with tempfile.TemporaryDirectory() as tmp:
    repo = make_repo(tmp)
    total = len([1 for d, _, files in os.walk(repo) if ".git" not in d for f in files if f.endswith(".py")])

    # No change: nothing is analysed.
    got, n = same_as_full_run("unchanged", repo)
    expect("unchanged: findings", got, [])
    expect("unchanged: files analysed", n, 0)

    # A changed line in a helper that only another file's per-step forward makes hot: the caller
    # (moe/experts.py, through moe/kernels/__init__.py's re-export) must be analysed too.
    path = os.path.join(repo, "moe", "kernels", "offsets.py")
    text = open(path).read().replace("+ 128  # expect: SL302", "+ 256  # expect: SL302")
    open(path, "w").write(text)
    got, n = same_as_full_run("hot helper", repo)
    expect("hot helper: the helper's finding", [g for g in got if g[2] == "SL302"],
           [("moe/kernels/offsets.py", 16, "SL302")])
    if n is None or not 3 <= n < total // 2:
        failures.append(f"hot helper: {n} of {total} files analysed; wanted the helper, its importers and callees only")
    git(repo, "checkout", "-q", ".")

    # A line added to a side-stream region that calls a helper of an unchanged file that
    # synchronizes (SL301): the callee's summary (syncs.py) must be analysed.
    path = os.path.join(repo, "train.py")
    text = open(path).read().replace("        y = model(x)\n", "        y = model(x)\n        syncs.barrier()\n")
    open(path, "w").write(text)
    got, n = same_as_full_run("callee summary", repo)
    expect("callee summary: the caller's finding", got, [("train.py", 10, "SL301")])
    if n is None or n >= total // 2:
        failures.append(f"callee summary: {n} of {total} files analysed")
    git(repo, "checkout", "-q", ".")

for f in failures:
    print("FAIL", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
