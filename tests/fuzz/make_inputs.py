"""Writes the large regression inputs of the hostile-input audit (issue 17) for the fuzz replay:
too big to commit, cheap to make. Each once crashed, hung or blew up memory.
    make_inputs.py OUT_DIR
"""
import os
import struct
import sys

out = sys.argv[1]
for target in ("python", "slog", "config"):
    os.makedirs(os.path.join(out, target), exist_ok=True)


def put(target, name, data):
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# tree-sitter 0.20.7 double-freed on 65,535 or more ERROR siblings.
put("python", "65535-open-parens.py", "(" * 65535)
put("python", "bracket-65535-stars.py", "[" + "*" * 65535)
# Recursive lowering past the 8 MB stack on long but legal code.
put("python", "attribute-chain-33k.py", "x = a" + ".b" * 33000 + "\n")
put("python", "chained-assignment-28k.py", "=".join(["x"] * 28000) + " = 1\n")
put("python", "nested-tuple-target-18k.py", "(" * 18000 + "a" + ",)" * 18000 + " = b\n")
# Quadratic lowering: 40 k statements in one function; a 10 MB list literal.
put("python", "function-40k-statements.py",
    "import torch\ndef f(x):\n" + "".join(f"    y{i} = x + {i}\n" for i in range(40000)))
put("python", "list-literal-10mb.py", "data = [" + ",".join(["1234567"] * 1250000) + "]\n")
# Non-UTF-8 text and a cut multi-byte character in a syntax error.
put("python", "latin1-syntax-error.py", b"x = '\xff\xfe' +\n" + "é".encode() * 30 + b" (\n")
# A config glob of 100,000 `?` (std::regex recursion).
put("config", "glob-100k-questions.toml", 'exclude = ["' + "?" * 100000 + '"]\n')
# A 500-byte log whose chunk claims 4 GiB.
header = b"SLOG\r\n\x1a\n" + struct.pack("<II", 1, 384) + b"\x00" * (384 - 16)
put("slog", "chunk-claims-4gib.slog", header + b"SLCK" + struct.pack("<III", 0xFFFFFFFF, 0, 1) + b"\x00" * 100)
# A header whose host and exe fields have no NUL (once read past their end with strlen).
put("slog", "header-without-nul.slog", header[:64] + b"h" * 64 + b"e" * 256)
