"""streamlint: finds CUDA stream misuse in PyTorch Python and C++/CUDA code, and measures it.

This package only carries the native tool: `streamlint` (the console script) runs
`_native/bin/streamlint`; the runtime recorder is `_native/lib/libstreamlint_interposer.so`.
"""
import os

__version__ = "0.0.0"  # replaced when the wheel is built (packaging/build_wheel.py)

NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")


def binary():
    """Path of the streamlint executable inside this package."""
    return os.path.join(NATIVE, "bin", "streamlint")
