"""The peer for bench/python: CPython's ast.parse over the same files, in one process.

Usage: astparse_peer.py LISTFILE
LISTFILE holds one path per line (the bench's copied corpus). Each file is read as bytes and
parsed with ast.parse, as a Python tool built on the standard library would. Prints one JSON
line: files, bytes, parse failures, and the in-process seconds spent reading + parsing.
"""
import ast
import json
import sys
import time


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    start = time.perf_counter()
    total = failures = 0
    for path in paths:
        with open(path, "rb") as src:
            data = src.read()
        total += len(data)
        try:
            ast.parse(data, filename=path)
        except (SyntaxError, ValueError):
            failures += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"files": len(paths), "bytes": total, "failures": failures,
                      "seconds_in_process": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
