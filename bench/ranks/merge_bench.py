"""Merging rank summaries (issue 14): make one summary from real logs with
`streamlint report --summary`, turn it into N ranks' summaries (rank, pid, host, arrival times,
busy times varied; every communicator made N ranks wide so that all collectives align across
the N ranks), then time `streamlint report DIR` over them and report its peak memory.

    python3 bench/ranks/merge_bench.py --streamlint build/bin/streamlint \
        --logs tests/runtime/fixtures/ranks/ddp-nccl --ranks 1000 [--work /tmp/sl-ranks]

Prints the summary size, the merge's wall time and peak RSS. The target is <= 10 s for 1,000.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--streamlint", required=True)
    ap.add_argument("--logs", required=True, help="a directory of real .slog logs (one node's ranks)")
    ap.add_argument("--ranks", type=int, default=1000)
    ap.add_argument("--per-node", type=int, default=8, help="ranks per generated summary file (one per node)")
    ap.add_argument("--work", default="/tmp/sl-ranks-bench")
    ap.add_argument("--seed", type=int, default=14)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(os.path.join(a.work, "summaries"))
    base = os.path.join(a.work, "base.json")
    p = subprocess.run([a.streamlint, "report", "--summary", base, a.logs], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"summary step failed ({p.returncode}): {p.stderr}")
    ranks = json.load(open(base))["ranks"]
    calls = sum(len(r["collectives"]) for r in ranks)
    print(f"base summary: {len(ranks)} ranks from {a.logs}, {calls} NCCL calls, {os.path.getsize(base)} bytes")
    fields = ranks[0]["collectiveFields"]
    arrive, nranks = fields.index("arriveNs"), fields.index("nranks")

    files = 0
    for node in range(0, a.ranks, a.per_node):
        out = []
        for r in range(node, min(node + a.per_node, a.ranks)):
            src = json.loads(json.dumps(ranks[r % len(ranks)]))
            src.update(rank=r, localRank=r % a.per_node, worldSize=a.ranks, pid=100000 + r,
                       host=f"node{r // a.per_node:04d}")
            for k in ("computeNs", "commNs", "exposedNs", "runNs"):
                src[k] = int(src[k] * rng.uniform(0.9, 1.1))
            late = rng.randint(0, 200000)  # this rank's usual lateness, up to 200 us
            for row in src["collectives"]:
                row[arrive] += late + rng.randint(0, 20000)
                row[nranks] = a.ranks
            out.append(src)
        with open(os.path.join(a.work, "summaries", f"node{node // a.per_node:04d}.json"), "w") as f:
            json.dump({"streamlintRankSummary": 1, "ranks": out}, f)
        files += 1
    total = sum(os.path.getsize(os.path.join(a.work, "summaries", f)) for f in os.listdir(os.path.join(a.work, "summaries")))
    print(f"generated {a.ranks} rank summaries in {files} files, {total / 1e6:.1f} MB")

    # wait4 gives this child's own peak RSS (RUSAGE_CHILDREN would include the summary step).
    t0 = time.monotonic()
    with open(os.path.join(a.work, "merge.stderr"), "w") as err:
        m = subprocess.Popen([a.streamlint, "report", os.path.join(a.work, "summaries"), "--format", "json"],
                             stdout=subprocess.PIPE, stderr=err)
        out = m.stdout.read()
        _, status, usage = os.wait4(m.pid, 0)
        m.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    if m.returncode not in (0, 1):
        sys.exit(f"merge failed ({m.returncode}): {open(os.path.join(a.work, 'merge.stderr')).read()}")
    doc = json.loads(out)
    aligned = len(doc["run"]["ranks"]["alignedCollectives"])
    peak = usage.ru_maxrss / 1024
    print(f"merge of {a.ranks} ranks: {wall:.2f} s wall, peak RSS {peak:.0f} MB, "
          f"{aligned} collectives aligned, {len(doc['findings'])} findings "
          f"(straggler: rank {doc['run']['ranks'].get('straggler')})")


if __name__ == "__main__":
    main()
