#!/usr/bin/env python3
"""Write bench/splits.tsv: the development / held-out split of every benchmark repository.

The rule ignores every result, so it can be fixed before any tuning: a repository is `dev`
when the first hex digit of sha256(lowercase "owner/name") is even (0 2 4 6 8 a c e), else
`heldout`. Repositories are those of bench/mutants/repos.tsv (column repo), bench/recall/
fixes.tsv (column 1) and bench/precision/projects.tsv (column 2). Reserved repositories
(kept out of all mining and tuning; the precision set measures some of them) get split
`reserved`: they belong to neither half.

Usage: python3 bench/mutants/make_split.py [-o bench/splits.tsv]   (Python 3 standard library)
"""

import argparse
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)

# Repository names (the part after the owner, any case) that are reserved.
RESERVED = {n.lower() for n in [
    "DeepSpeed", "Megatron-LM", "ColossalAI", "apex", "fairscale", "torchtitan", "TransformerEngine",
    "torchrec", "pytorch-lightning", "accelerate", "nanotron", "torchgpipe", "tutel",
    "zero-bubble-pipeline-parallelism", "megablocks", "mamba", "PatrickStar", "BMTrain",
    "algorithmic-efficiency", "mlx-benchmark", "whittle", "style-based-gan-pytorch", "x-transformers",
    "llm-foundry"]}

SOURCES = [  # (set name, file, column index of owner/name)
    ("mutants", os.path.join(HERE, "repos.tsv"), 0),
    ("recall", os.path.join(BENCH, "recall", "fixes.tsv"), 0),
    ("precision", os.path.join(BENCH, "precision", "projects.tsv"), 1),
]


def split_of(repo):
    digit = hashlib.sha256(repo.lower().encode("utf-8")).hexdigest()[0]
    return "dev" if int(digit, 16) % 2 == 0 else "heldout"


def is_reserved(repo):
    return repo.split("/")[-1].lower() in RESERVED


def read_repos(path, column):
    repos = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f):
            cells = line.rstrip("\n").split("\t")
            if line.startswith("#") or not line.strip() or cells[column] == "repo":
                continue  # comments, blank lines, the header
            repos.append(cells[column])
    return repos


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default=os.path.join(BENCH, "splits.tsv"))
    args = ap.parse_args(argv)
    sets = {}
    for name, path, column in SOURCES:
        try:
            for repo in read_repos(path, column):
                sets.setdefault(repo, [])
                if name not in sets[repo]:
                    sets[repo].append(name)
        except (OSError, IndexError) as e:
            print(f"make_split.py: error: {path}: {e}", file=sys.stderr)
            return 2
    with open(args.output, "w", encoding="utf-8") as f:
        f.write("# split = dev if the first hex digit of sha256(lowercase 'owner/name') is even "
                "(0,2,4,6,8,a,c,e), else heldout; reserved repositories are in neither half "
                "(split 'reserved'). Made by bench/mutants/make_split.py before any tuning.\n")
        f.write("repo\tsplit\tsets\treserved\n")
        for repo in sorted(sets, key=str.lower):
            reserved = is_reserved(repo)
            split = "reserved" if reserved else split_of(repo)
            f.write(f"{repo}\t{split}\t{','.join(sets[repo])}\t{'yes' if reserved else 'no'}\n")
    counts = {}
    for repo in sets:
        s = "reserved" if is_reserved(repo) else split_of(repo)
        counts[s] = counts.get(s, 0) + 1
    print(f"{len(sets)} repositories -> {args.output}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
