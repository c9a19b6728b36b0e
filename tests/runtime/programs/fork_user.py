"""Forks; the child calls CUDA through ctypes and leaves with os._exit, like a DataLoader worker."""
import ctypes
import os
import sys

cudart = ctypes.CDLL(sys.argv[1])
cudart.cudaDeviceSynchronize()  # expect: cudaDeviceSynchronize 1
pid = os.fork()
if pid == 0:
    cudart.cudaStreamSynchronize(None)  # expect: cudaStreamSynchronize 1
    os._exit(0)
os.waitpid(pid, 0)
