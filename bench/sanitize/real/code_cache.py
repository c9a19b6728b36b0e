"""Does the recorder's per-thread code-object cache hold a program's Python stacks? Under
`streamlint run`, N distinct functions of a file the recorder walks past (`.../site-packages/...`)
call one another along 60 fixed random paths of 30, the last one making a CUDA call (no GPU
needed: it fails fast and is recorded). Prints the time per call; `logcount.py` on the log then
gives the CodeDef records: about N when the cache holds the stacks, far more when it thrashes
(each miss writes the code object's definition again).

    streamlint run --out /tmp/cc -- python3 code_cache.py LIBCUDART N
    python3 logcount.py cc /tmp/cc
"""
import ctypes
import random
import sys
import time

query = ctypes.CDLL(sys.argv[1]).cudaEventQuery
n, depth, paths = int(sys.argv[2]), 30, 60
src = "".join(f"def f{i}(path, k):\n    if k == len(path):\n        query(None)\n        return\n    path[k](path, k + 1)\n"
              for i in range(n))
scope = {"query": query}
exec(compile(src, "/usr/lib/python3/site-packages/many_functions.py", "exec"), scope)
functions = [scope[f"f{i}"] for i in range(n)]
random.seed(1)
chains = [random.sample(functions, depth) for _ in range(paths)]
t = time.perf_counter()
for _ in range(300):
    for c in chains:
        c[0](c, 1)
print(f"{n} functions: {(time.perf_counter() - t) / (300 * paths) * 1e9:.0f} ns per call (depth {depth})")
