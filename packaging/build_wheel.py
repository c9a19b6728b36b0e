#!/usr/bin/env python3
"""Builds the streamlint wheels from a CMake build directory (python3 stdlib only; no network).

  streamlint-VERSION-py3-none-manylinux_2_N_x86_64.whl
      the checker (Python frontend built in), the runtime recorder, `run` and `report`;
      needs nothing but glibc >= 2.N (N is read from the binaries' symbol versions).
  streamlint_cxx-VERSION-py3-none-manylinux_2_N_x86_64.whl   (--cxx)
      the Clang 19 C/C++ frontend plugin; needs LLVM 19's shared libraries on the machine
      (Debian/Ubuntu: apt install libclang-cpp19 libllvm19).

usage: build_wheel.py --build BUILD_DIR --out DIST_DIR [--version V] [--cxx]
The version is what the built binary says (`streamlint --version`: `git describe` of the source
tree at build time, cmake/version.cmake: v0.2.0 -> 0.2.0, 5 commits later -> 0.2.0.post5+gSHA,
0.1.0.dev0+gSHA when there is no tag). --version V only checks that it is V (a release).
"""
import argparse
import base64
import hashlib
import os
import re
import stat
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def fail(msg):
    sys.stderr.write("build_wheel: %s\n" % msg)
    sys.exit(2)


def binary_version(exe):
    """The version the built binary states (`streamlint --version`; cmake/version.cmake made it
    from git describe): the wheel is named by it, so pip and the tool never disagree."""
    p = subprocess.run([exe, "--version"], capture_output=True, text=True)
    m = re.match(r"streamlint (\S+)$", p.stdout.strip())
    if p.returncode != 0 or not m:
        fail("%s --version did not say its version (%r)" % (exe, p.stdout + p.stderr))
    return m.group(1)


def glibc_floor(paths):
    """The newest GLIBC_x.y symbol version the binaries need: the manylinux tag they honour."""
    best = (2, 17)
    for p in paths:
        out = subprocess.run(["objdump", "-T", p], capture_output=True, text=True).stdout
        for major, minor in re.findall(r"GLIBC_(\d+)\.(\d+)", out):
            best = max(best, (int(major), int(minor)))
    return best


def configured_floor(build_dir):
    """SL_GLIBC_FLOOR of the build (compat/CMakeLists.txt): the oldest glibc it was linked for and
    is tested on. The tag claims no older one even where the symbols alone would allow it."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            m = re.search(r"^SL_GLIBC_FLOOR:STRING=2\.(\d+)$", f.read(), re.M)
    except OSError:
        return (2, 17)
    return (2, int(m.group(1))) if m else (2, 17)


def record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def write_wheel(out_dir, dist, version, tag, files, metadata, entry_points=None):
    """files: [(arcname, bytes, executable)]."""
    info = "%s-%s.dist-info" % (dist, version)
    meta = [("%s/METADATA" % info, metadata.encode(), False),
            ("%s/WHEEL" % info, ("Wheel-Version: 1.0\nGenerator: streamlint build_wheel.py\n"
                                 "Root-Is-Purelib: false\nTag: %s\n" % tag).encode(), False)]
    if entry_points:
        meta.append(("%s/entry_points.txt" % info, entry_points.encode(), False))
    entries = files + meta
    record = "\n".join(record_line(a, d) for a, d, _ in entries) + "\n%s/RECORD,,\n" % info
    path = os.path.join(out_dir, "%s-%s-%s.whl" % (dist, version, tag))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data, executable in entries + [("%s/RECORD" % info, record.encode(), False)]:
            zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            z.writestr(zi, data)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def stripped(path, tmp_dir):
    """A stripped copy (the debug info triples the download); the original if strip is missing."""
    out = os.path.join(tmp_dir, os.path.basename(path))
    p = subprocess.run(["strip", "--strip-unneeded", "-o", out, path], capture_output=True)
    return read(out if p.returncode == 0 else path)


def build(build_dir, out_dir, version=None, cxx_wheel=False, bundle_cxx=False):
    """Writes the wheels; returns their paths. bundle_cxx puts the C/C++ plugin into the main
    wheel (a source install, which built it for this machine's LLVM)."""
    exe = os.path.join(build_dir, "bin", "streamlint")
    interposer = os.path.join(build_dir, "lib", "libstreamlint_interposer.so")
    # `run --sanitize` puts this directory first on PYTHONPATH (bin/../share/streamlint/python).
    sitecustomize = os.path.join(build_dir, "share", "streamlint", "python", "sitecustomize.py")
    plugin = os.path.join(build_dir, "lib", "libstreamlint_cxx.so")
    for p in [exe, interposer, sitecustomize] + ([plugin] if cxx_wheel or bundle_cxx else []):
        if not os.path.isfile(p):
            fail("%s is missing: build first (make build)" % p)
    built = binary_version(exe)
    if version and version != built:
        fail("--version %s, but %s says %s: configure with -DSL_VERSION_OVERRIDE=%s and rebuild"
             % (version, exe, built, version))
    version = built
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, ".strip")
    os.makedirs(tmp, exist_ok=True)
    major, minor = max(glibc_floor([exe, interposer]), configured_floor(build_dir))
    tag = "py3-none-manylinux_%d_%d_x86_64" % (major, minor)

    init = read(os.path.join(HERE, "streamlint", "__init__.py")).decode()
    init = init.replace('__version__ = "0.0.0"', '__version__ = "%s"' % version)
    files = [("streamlint/__init__.py", init.encode(), False),
             ("streamlint/__main__.py", read(os.path.join(HERE, "streamlint", "__main__.py")), False),
             ("streamlint/_native/bin/streamlint", stripped(exe, tmp), True),
             ("streamlint/_native/lib/libstreamlint_interposer.so", stripped(interposer, tmp), False),
             ("streamlint/_native/share/streamlint/python/sitecustomize.py", read(sitecustomize), False)]
    if bundle_cxx:
        files.append(("streamlint/_native/lib/libstreamlint_cxx.so", stripped(plugin, tmp), False))
    readme = read(os.path.join(ROOT, "README.md")).decode()
    metadata = ("Metadata-Version: 2.1\nName: streamlint\nVersion: %s\n"
                "Summary: Finds CUDA stream misuse in PyTorch code, statically and at run time\n"
                "Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n%s" % (version, readme))
    made = [write_wheel(out_dir, "streamlint", version, tag, files, metadata,
                        "[console_scripts]\nstreamlint = streamlint.__main__:main\n")]
    if cxx_wheel:
        cmajor, cminor = glibc_floor([plugin])
        ctag = "py3-none-manylinux_%d_%d_x86_64" % (cmajor, cminor)
        cfiles = [("streamlint/_native/lib/libstreamlint_cxx.so", stripped(plugin, tmp), False)]
        cmeta = ("Metadata-Version: 2.1\nName: streamlint-cxx\nVersion: %s\n"
                 "Summary: The Clang 19 C/C++/CUDA frontend of streamlint (needs LLVM 19's shared libraries)\n"
                 "Requires-Dist: streamlint==%s\n" % (version, version))
        made.append(write_wheel(out_dir, "streamlint_cxx", version, ctag, cfiles, cmeta))
    for f in os.listdir(tmp):
        os.remove(os.path.join(tmp, f))
    os.rmdir(tmp)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", help="fail unless the binary states this version")
    ap.add_argument("--cxx", action="store_true", help="also the C/C++ frontend wheel")
    args = ap.parse_args()
    for m in build(args.build, args.out, args.version, cxx_wheel=args.cxx):
        print(m)


if __name__ == "__main__":
    main()
