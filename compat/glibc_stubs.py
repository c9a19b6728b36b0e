#!/usr/bin/env python3
"""Writes link-time stand-ins for glibc's shared libraries that offer only the symbol versions of
an older glibc, so that what links against them runs on that glibc (the manylinux floor).

A program linked against the machine's own libc.so.6 binds every symbol at its newest version:
pthread_create@GLIBC_2.34 on glibc >= 2.34, so the binary will not load on glibc 2.28 even though
2.28 has pthread_create (GLIBC_2.2.5, in libpthread). The stubs built here export each symbol at the
newest version that is not newer than the floor, and nothing newer, so the linker binds the old
versions, and a symbol the floor lacks fails the link instead of the user's machine. They are only
linked against, never loaded: at run time the real glibc answers, at the bound version.

usage: glibc_stubs.py --floor 2.28 --out DIR [--cc cc] [--libdir /lib/x86_64-linux-gnu]
Writes DIR/libc.so.6, libm.so.6, ld-linux-x86-64.so.2 and empty libpthread.so.0, libdl.so.2,
librt.so.1 (sonames only: before 2.34 their symbols lived there, so programs must still name
them), plus the linker names (libc.so ...). Exit 2 with the reason when it cannot.
"""
import argparse
import os
import re
import subprocess
import sys

# The libraries whose symbols are stubbed, by the soname the program records. The symbols of the
# others (libpthread, libdl, librt) moved into libc.so.6 in glibc 2.34; an old version of a
# symbol is found in whichever loaded library defines it (ld.so matches versions by name).
STUBBED = ["libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"]
EMPTY = {"libpthread.so.0": "libpthread.so", "libdl.so.2": "libdl.so", "librt.so.1": "librt.so"}
SYMBOL = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+(\d+)\s+(\w+)\s+(\w+)\s+\w+\s+(\w+)\s+([^@\s]+)@{1,2}(GLIBC_[0-9.]+)\s*(\(\d+\))?$")


def fail(msg):
    sys.stderr.write("glibc_stubs: %s\n" % msg)
    sys.exit(2)


def version_key(v):
    return tuple(int(x) for x in v[len("GLIBC_"):].split("."))


def exported(lib):
    """(name, size, type, version) of every defined, public GLIBC_x.y symbol of lib."""
    p = subprocess.run(["readelf", "-W", "--dyn-syms", lib], capture_output=True, text=True)
    if p.returncode != 0:
        fail("readelf %s: %s" % (lib, p.stderr.strip() or "failed"))
    out = []
    for line in p.stdout.splitlines():
        m = SYMBOL.match(line)
        if not m:
            continue
        size, typ, bind, ndx, name, version, _ = m.groups()
        if ndx in ("UND", "ABS") or typ in ("TLS", "NOTYPE") or bind == "LOCAL":
            continue
        out.append((name, int(size), typ, version))
    return out


def capped(symbols, floor):
    """name -> (size, type, version): each symbol at its newest version not newer than floor."""
    best = {}
    for name, size, typ, version in symbols:
        if version_key(version) > floor:
            continue
        if name not in best or version_key(version) > version_key(best[name][2]):
            best[name] = (size, typ, version)
    return best


def assembly(symbols):
    lines = ["\t.text"]
    for i, (name, (size, typ, _)) in enumerate(sorted(symbols.items())):
        if typ == "OBJECT":
            lines += ["\t.data", "\t.globl %s" % name, "\t.type %s, @object" % name,
                      "\t.size %s, %d" % (name, size), "%s:" % name, "\t.zero %d" % max(size, 1), "\t.text"]
        else:  # FUNC and GNU_IFUNC: a body is never run, only linked against
            lines += ["\t.globl %s" % name, "\t.type %s, @function" % name, "%s:" % name, "\tret"]
    lines.append('\t.section .note.GNU-stack,"",@progbits')
    return "\n".join(lines) + "\n"


def version_script(symbols, versions):
    """One node per version (all of them up to the floor, even empty ones), oldest first."""
    by_version = {v: [] for v in versions}
    for name, (_, _, version) in symbols.items():
        by_version[version].append(name)
    nodes, previous = [], None
    for v in sorted(by_version, key=version_key):
        names = "".join("  %s;\n" % n for n in sorted(by_version[v]))
        body = "global:\n%s" % names if names else ""
        if previous is None:
            body += "local: *;\n"
        nodes.append("%s {\n%s}%s;\n" % (v, body, " " + previous if previous else ""))
        previous = v
    return "".join(nodes)


def link(cc, out_dir, soname, asm, script):
    base = os.path.join(out_dir, soname)
    with open(base + ".s", "w") as f:
        f.write(asm)
    args = [cc, "-shared", "-nostdlib", "-o", base, base + ".s", "-Wl,-soname," + soname]
    if script is not None:
        with open(base + ".map", "w") as f:
            f.write(script)
        args.append("-Wl,--version-script=" + base + ".map")
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        fail("linking the %s stand-in: %s" % (soname, p.stderr.strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floor", required=True, help="oldest glibc to run on, e.g. 2.28")
    ap.add_argument("--out", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--libdir", default="/lib/x86_64-linux-gnu")
    ap.add_argument("--nonshared", default="/usr/lib/x86_64-linux-gnu/libc_nonshared.a")
    args = ap.parse_args()
    if not re.fullmatch(r"2\.\d+", args.floor):
        fail("--floor %s: expected 2.N" % args.floor)
    floor = version_key("GLIBC_" + args.floor)
    os.makedirs(args.out, exist_ok=True)
    for soname in STUBBED:
        lib = os.path.join(args.libdir, soname)
        if not os.path.exists(lib):
            fail("%s not found (not an x86-64 glibc system?)" % lib)
        all_symbols = exported(lib)
        versions = {v for _, _, _, v in all_symbols if version_key(v) <= floor}
        symbols = capped(all_symbols, floor)
        if not symbols:
            fail("%s has no symbol at GLIBC %s or older" % (lib, args.floor))
        link(args.cc, args.out, soname, assembly(symbols), version_script(symbols, versions))
    for soname in EMPTY:
        link(args.cc, args.out, soname, '\t.section .note.GNU-stack,"",@progbits\n', None)
    # Linker names: -lc takes libc.so, a script that adds what glibc keeps in a static archive.
    with open(os.path.join(args.out, "libc.so"), "w") as f:
        f.write("GROUP ( %s %s AS_NEEDED ( %s ) )\n" % (
            os.path.join(args.out, "libc.so.6"), args.nonshared,
            os.path.join(args.out, "ld-linux-x86-64.so.2")))
    for real, linker_name in [("libm.so.6", "libm.so")] + list(EMPTY.items()):
        path = os.path.join(args.out, linker_name)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(real, path)


if __name__ == "__main__":
    main()
