"""streamlint_recording's part flags (runtime.recording_parts): the same call recorded whole,
without its Python line (16) and without its native backtrace (32), in that order. CI has no
driver: the calls fail with 35 but are recorded."""
import ctypes
import sys

cudart = ctypes.CDLL(sys.argv[1])
rec = ctypes.CDLL(None).streamlint_recording
rec.argtypes = [ctypes.c_int]
for mode in (2, 2 | 16, 2 | 32, 1):
    rec(mode)
    cudart.cudaStreamSynchronize(None)
