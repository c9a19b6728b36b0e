"""A thread that runs none of the user's code (CI has no driver: calls fail with 35 but are real).
A DataLoader's pin-memory thread runs torch's pin_memory.py under threading.py; SL901 must place
its calls at the user line that started the thread (the recorder's thread record), not at a
library line nor at the user line that happened to run last before them. runtime_test.py reads
`expect:`."""
import ctypes
import sys
import threading

cudart = ctypes.CDLL(sys.argv[1])
pin_memory = {}
# The library's thread body, under the file name torch gives its pin-memory loop.
exec(compile("def loop(rt, n):\n    for _ in range(n):\n        rt.cudaDeviceSynchronize()\n",
             "/opt/venv/lib/python3.12/site-packages/torch/utils/data/_utils/pin_memory.py", "exec"), pin_memory)


def start_pinning():
    worker = threading.Thread(target=pin_memory["loop"], args=(cudart, 3))
    worker.start()  # expect: cudaDeviceSynchronize 3
    return worker


def main():
    buf = ctypes.c_void_p()
    cudart.cudaMalloc(ctypes.byref(buf), ctypes.c_size_t(1 << 20))  # expect: cudaMalloc 1
    worker = start_pinning()
    worker.join()
    cudart.cudaStreamSynchronize(None)  # expect: cudaStreamSynchronize 1


main()
