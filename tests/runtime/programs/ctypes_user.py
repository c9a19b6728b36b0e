"""Python calling libcudart through ctypes (CI has no driver: calls fail with 35 but are real).
SL901 must point at the lines inside the user's functions; runtime_test.py reads `expect:`."""
import ctypes
import sys

cudart = ctypes.CDLL(sys.argv[1])


def wait_twice():
    for _ in range(2):
        cudart.cudaDeviceSynchronize()  # expect: cudaDeviceSynchronize 2


def allocate():
    p = ctypes.c_void_p()
    cudart.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(1 << 20))  # expect: cudaMalloc 1


wait_twice()
allocate()
