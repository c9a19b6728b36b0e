"""PEP 517 build backend: `pip install .` (and pre-commit's `language: python` hook) builds the
native tool with CMake and packs it with build_wheel.py. python3 stdlib only, no build
requirements to download, so it works offline.

A source build needs what `make build` needs (cmake/setup-deps.sh installs it on Debian 12:
a C++20 compiler, CMake, Ninja, tree-sitter, nlohmann-json, toml++, the CUDA headers; LLVM 19 for
the C/C++ frontend, which is bundled when it was built). STREAMLINT_BUILD_DIR=DIR packs an
existing build tree as it is instead of building (CI, or a developer who just ran `make build`).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_wheel as packer  # noqa: E402  (the same packer `make wheel` uses)

ROOT = packer.ROOT


def _build_tree():
    given = os.environ.get("STREAMLINT_BUILD_DIR")
    if given:
        return os.path.abspath(given)
    tree = os.path.join(ROOT, "build", "pip")
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    setup = os.path.join(ROOT, "cmake", "setup-deps.sh")
    for cmd in ([setup] if os.path.exists(setup) and os.geteuid() == 0 else []) + [
            ["cmake", "-S", ROOT, "-B", tree, *gen, "-DCMAKE_BUILD_TYPE=Release", "-DSL_BUILD_TESTS=OFF"],
            ["cmake", "--build", tree, "--target", "streamlint", "streamlint_interposer"]]:
        if subprocess.run(cmd if isinstance(cmd, list) else [cmd], stdout=sys.stderr).returncode != 0:
            raise RuntimeError("streamlint: %s failed; see above (cmake/setup-deps.sh lists what a "
                               "source build needs)" % " ".join(cmd if isinstance(cmd, list) else [cmd]))
    # The C/C++ frontend only where LLVM 19 was found (its target exists then).
    subprocess.run(["cmake", "--build", tree, "--target", "streamlint_cxx"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return tree


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tree = _build_tree()
    plugin = os.path.isfile(os.path.join(tree, "lib", "libstreamlint_cxx.so"))
    made = packer.build(tree, wheel_directory, bundle_cxx=plugin)
    return os.path.basename(made[0])
