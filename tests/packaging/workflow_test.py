"""Runs the GitHub Actions workflow of docs/github-actions.md as written: its `run:` steps in
order, in a temporary git repository holding the seed examples, with STREAMLINT_WHEEL pointing
at the wheel built from this tree (the workflow downloads a release's). `uses:` steps are
GitHub's own actions and are skipped. Checks that the SARIF the workflow uploads is schema-valid
and holds the seed's findings. usage: workflow_test.py BUILD_DIR (from the repository root)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.getcwd()


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def main():
    build = os.path.abspath(sys.argv[1])
    doc = open(os.path.join(ROOT, "docs", "github-actions.md"), encoding="utf-8").read()
    block = re.search(r"```yaml\n(# \.github/workflows/streamlint\.yml\n.*?)```", doc, re.S)
    if not block:
        fail("no workflow block in docs/github-actions.md")
    workflow = yaml.safe_load(block.group(1))
    steps = workflow["jobs"]["streamlint"]["steps"]
    with tempfile.TemporaryDirectory() as tmp:
        dist = os.path.join(tmp, "dist")
        made = subprocess.run([sys.executable, "packaging/build_wheel.py", "--build", build, "--out", dist],
                              capture_output=True, text=True)
        if made.returncode != 0:
            fail("build_wheel: " + made.stderr)
        repo = os.path.join(tmp, "repo")
        shutil.copytree(os.path.join(ROOT, "examples", "python", "seed"), repo)
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run(["git", "add", "."], cwd=repo, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seed"], cwd=repo, check=True)
        runner_temp = os.path.join(tmp, "runner")
        os.mkdir(runner_temp)
        github_path = os.path.join(tmp, "github_path")
        open(github_path, "w").close()
        env = dict(os.environ, **{k: str(v) for k, v in workflow.get("env", {}).items()})
        env.update(STREAMLINT_WHEEL=made.stdout.split()[0], RUNNER_TEMP=runner_temp, GITHUB_PATH=github_path,
                   STREAMLINT_NO_CACHE="1")
        ran = 0
        for step in steps:
            if "run" not in step:
                continue
            # GITHUB_PATH entries are on PATH for the later steps, as on a runner.
            extra = [l.strip() for l in open(github_path) if l.strip()]
            env["PATH"] = os.pathsep.join(extra[::-1] + [os.environ["PATH"]])
            p = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True)
            if p.returncode != 0:
                fail("step %r exited %d:\n%s%s" % (step.get("name"), p.returncode, p.stdout, p.stderr))
            ran += 1
        if ran < 2:
            fail("the workflow has %d run steps" % ran)
        sarif = os.path.join(repo, "streamlint.sarif")
        v = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "cli", "sarif_validate.py"), sarif],
                           capture_output=True, text=True)
        if v.returncode != 0:
            fail("SARIF invalid: " + v.stdout + v.stderr)
        rules = sorted(r["ruleId"] for r in json.load(open(sarif))["runs"][0]["results"])
        if rules != ["SL303", "SL303", "SL401", "SL501", "SL501"]:
            fail("findings: %s" % rules)
    print("workflow: %d run steps passed; SARIF valid with the seed's 5 findings" % ran)


if __name__ == "__main__":
    main()
