"""PEP 517 build backend: `pip install .` (and pre-commit's `language: python` hook) builds the
native tool with CMake and packs it with build_wheel.py. python3 stdlib only, no build
requirements to download, so it works offline.

A source build needs a C++20 compiler, CMake, tree-sitter, nlohmann-json and toml++ from the
machine (named when missing, never installed: no apt, no root) and npm, with which the pinned
tree-sitter-python grammar is fetched into the user's cache (cmake/fetch-grammar.sh, checked
against its sha512). LLVM 19, when found, adds the C/C++ frontend to the wheel.
STREAMLINT_BUILD_DIR=DIR packs an existing build tree as it is instead of building (CI, or a
developer who just ran `make build`).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_wheel as packer  # noqa: E402  (the same packer `make wheel` uses)

ROOT = packer.ROOT


# What a source build needs from the machine. Named, never installed: a pre-commit hook or a
# `pip install` must not touch system packages, whoever runs it.
_TOOLS = {"cmake": "cmake", "c++": "g++", "npm": "npm", "openssl": "openssl"}
_HEADERS = {"tree_sitter/api.h": "libtree-sitter-dev", "nlohmann/json.hpp": "nlohmann-json3-dev",
            "toml++/toml.h": "libtomlplusplus-dev"}


def _missing_requirements():
    missing = [pkg for tool, pkg in _TOOLS.items() if not shutil.which(tool)]
    for header, pkg in _HEADERS.items():
        if not any(os.path.exists(os.path.join(d, header)) for d in ("/usr/include", "/usr/local/include")):
            missing.append(pkg)
    return missing


def _cache_dir():
    """Per-user and writable: $STREAMLINT_CACHE_DIR, else $XDG_CACHE_HOME/streamlint, else
    ~/.cache/streamlint. The grammar fetched once serves every later build of this user."""
    given = os.environ.get("STREAMLINT_CACHE_DIR")
    if given:
        return os.path.abspath(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "streamlint")


def _deps_dir():
    """Where the tree-sitter-python grammar is: the checkout's .deps/ when `make` put it there,
    else the user's cache, fetched by cmake/fetch-grammar.sh (npm pack, integrity-checked)."""
    checkout = os.path.join(ROOT, ".deps")
    if os.path.isfile(os.path.join(checkout, "tree-sitter-python-0.23.6", "src", "parser.c")):
        return checkout
    cache = _cache_dir()
    _run([os.path.join(ROOT, "cmake", "fetch-grammar.sh"), cache], "fetching the tree-sitter-python grammar")
    return cache


def _run(cmd, what):
    if subprocess.run(cmd, stdout=sys.stderr).returncode != 0:
        raise RuntimeError("streamlint: %s failed (%s); see above" % (what, " ".join(cmd)))


def _build_tree():
    given = os.environ.get("STREAMLINT_BUILD_DIR")
    if given:
        return os.path.abspath(given)
    missing = _missing_requirements()
    if missing:
        raise RuntimeError("streamlint: a source build needs %s (Debian/Ubuntu: sudo apt-get install %s); "
                           "or install a released wheel (docs/install.md)" % (", ".join(missing), " ".join(missing)))
    tree = os.path.join(ROOT, "build", "pip")
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(["cmake", "-S", ROOT, "-B", tree, *gen, "-DCMAKE_BUILD_TYPE=Release", "-DSL_BUILD_TESTS=OFF",
          "-DSL_DEPS_DIR=" + _deps_dir()], "configuring")
    jobs = ["-j", str(os.cpu_count() or 1)]
    _run(["cmake", "--build", tree, *jobs, "--target", "streamlint", "streamlint_interposer"], "building")
    # The C/C++ frontend only where LLVM 19 was found (its target exists then).
    subprocess.run(["cmake", "--build", tree, *jobs, "--target", "streamlint_cxx"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return tree


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tree = _build_tree()
    plugin = os.path.isfile(os.path.join(tree, "lib", "libstreamlint_cxx.so"))
    made = packer.build(tree, wheel_directory, bundle_cxx=plugin)
    return os.path.basename(made[0])
