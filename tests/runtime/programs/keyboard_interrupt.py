"""A training loop's Ctrl-C: CUDA calls (through ctypes), then SIGINT; `except KeyboardInterrupt`
saves a checkpoint and exits 0. Modes: self (sends SIGINT to itself), wait (prints "ready" and
waits for someone else's SIGINT), uncaught (no except: Python dies of SIGINT, 130).
    keyboard_interrupt.py LIBCUDART CHECKPOINT MODE"""
import ctypes
import os
import signal
import sys
import time

cudart = ctypes.CDLL(sys.argv[1])
checkpoint, mode = sys.argv[2], sys.argv[3]
cudart.cudaDeviceSynchronize()  # recording starts at the first CUDA call
print("SIGINT handler:", getattr(signal.getsignal(signal.SIGINT), "__name__", signal.getsignal(signal.SIGINT)))
print("SIGTERM handler:", signal.getsignal(signal.SIGTERM))
sys.stdout.flush()
if mode == "uncaught":
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(30)
try:
    if mode == "self":
        os.kill(os.getpid(), signal.SIGINT)
    else:
        print("ready", flush=True)
    time.sleep(30)
    print("no KeyboardInterrupt")
    sys.exit(3)
except KeyboardInterrupt:
    cudart.cudaStreamSynchronize(None)
    with open(checkpoint, "w") as f:
        f.write("step 7\n")
    print("checkpoint saved")
