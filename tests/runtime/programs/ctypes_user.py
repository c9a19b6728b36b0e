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


def far_below():
    # padding line 0: the call below sits 100 lines further down
    # padding line 1: the call below sits 99 lines further down
    # padding line 2: the call below sits 98 lines further down
    # padding line 3: the call below sits 97 lines further down
    # padding line 4: the call below sits 96 lines further down
    # padding line 5: the call below sits 95 lines further down
    # padding line 6: the call below sits 94 lines further down
    # padding line 7: the call below sits 93 lines further down
    # padding line 8: the call below sits 92 lines further down
    # padding line 9: the call below sits 91 lines further down
    # padding line 10: the call below sits 90 lines further down
    # padding line 11: the call below sits 89 lines further down
    # padding line 12: the call below sits 88 lines further down
    # padding line 13: the call below sits 87 lines further down
    # padding line 14: the call below sits 86 lines further down
    # padding line 15: the call below sits 85 lines further down
    # padding line 16: the call below sits 84 lines further down
    # padding line 17: the call below sits 83 lines further down
    # padding line 18: the call below sits 82 lines further down
    # padding line 19: the call below sits 81 lines further down
    # padding line 20: the call below sits 80 lines further down
    # padding line 21: the call below sits 79 lines further down
    # padding line 22: the call below sits 78 lines further down
    # padding line 23: the call below sits 77 lines further down
    # padding line 24: the call below sits 76 lines further down
    # padding line 25: the call below sits 75 lines further down
    # padding line 26: the call below sits 74 lines further down
    # padding line 27: the call below sits 73 lines further down
    # padding line 28: the call below sits 72 lines further down
    # padding line 29: the call below sits 71 lines further down
    # padding line 30: the call below sits 70 lines further down
    # padding line 31: the call below sits 69 lines further down
    # padding line 32: the call below sits 68 lines further down
    # padding line 33: the call below sits 67 lines further down
    # padding line 34: the call below sits 66 lines further down
    # padding line 35: the call below sits 65 lines further down
    # padding line 36: the call below sits 64 lines further down
    # padding line 37: the call below sits 63 lines further down
    # padding line 38: the call below sits 62 lines further down
    # padding line 39: the call below sits 61 lines further down
    # padding line 40: the call below sits 60 lines further down
    # padding line 41: the call below sits 59 lines further down
    # padding line 42: the call below sits 58 lines further down
    # padding line 43: the call below sits 57 lines further down
    # padding line 44: the call below sits 56 lines further down
    # padding line 45: the call below sits 55 lines further down
    # padding line 46: the call below sits 54 lines further down
    # padding line 47: the call below sits 53 lines further down
    # padding line 48: the call below sits 52 lines further down
    # padding line 49: the call below sits 51 lines further down
    # padding line 50: the call below sits 50 lines further down
    # padding line 51: the call below sits 49 lines further down
    # padding line 52: the call below sits 48 lines further down
    # padding line 53: the call below sits 47 lines further down
    # padding line 54: the call below sits 46 lines further down
    # padding line 55: the call below sits 45 lines further down
    # padding line 56: the call below sits 44 lines further down
    # padding line 57: the call below sits 43 lines further down
    # padding line 58: the call below sits 42 lines further down
    # padding line 59: the call below sits 41 lines further down
    # padding line 60: the call below sits 40 lines further down
    # padding line 61: the call below sits 39 lines further down
    # padding line 62: the call below sits 38 lines further down
    # padding line 63: the call below sits 37 lines further down
    # padding line 64: the call below sits 36 lines further down
    # padding line 65: the call below sits 35 lines further down
    # padding line 66: the call below sits 34 lines further down
    # padding line 67: the call below sits 33 lines further down
    # padding line 68: the call below sits 32 lines further down
    # padding line 69: the call below sits 31 lines further down
    # padding line 70: the call below sits 30 lines further down
    # padding line 71: the call below sits 29 lines further down
    # padding line 72: the call below sits 28 lines further down
    # padding line 73: the call below sits 27 lines further down
    # padding line 74: the call below sits 26 lines further down
    # padding line 75: the call below sits 25 lines further down
    # padding line 76: the call below sits 24 lines further down
    # padding line 77: the call below sits 23 lines further down
    # padding line 78: the call below sits 22 lines further down
    # padding line 79: the call below sits 21 lines further down
    # padding line 80: the call below sits 20 lines further down
    # padding line 81: the call below sits 19 lines further down
    # padding line 82: the call below sits 18 lines further down
    # padding line 83: the call below sits 17 lines further down
    # padding line 84: the call below sits 16 lines further down
    # padding line 85: the call below sits 15 lines further down
    # padding line 86: the call below sits 14 lines further down
    # padding line 87: the call below sits 13 lines further down
    # padding line 88: the call below sits 12 lines further down
    # padding line 89: the call below sits 11 lines further down
    # padding line 90: the call below sits 10 lines further down
    # padding line 91: the call below sits 9 lines further down
    # padding line 92: the call below sits 8 lines further down
    # padding line 93: the call below sits 7 lines further down
    # padding line 94: the call below sits 6 lines further down
    # padding line 95: the call below sits 5 lines further down
    # padding line 96: the call below sits 4 lines further down
    # padding line 97: the call below sits 3 lines further down
    # padding line 98: the call below sits 2 lines further down
    # padding line 99: the call below sits 1 lines further down
    cudart.cudaEventQuery(None)  # not blocking: must not be reported
    cudart.cudaStreamSynchronize(None)  # expect: cudaStreamSynchronize 1


wait_twice()
allocate()
far_below()
