"""Python calling libcudart from code generated at run time, as torch.compile's inductor output
and torch.fx modules are (CI has no driver: calls fail with 35 but are real). SL901 must point at
the user's line that called into the generated code, not into it; runtime_test.py reads `expect:`."""
import ctypes
import sys

cudart = ctypes.CDLL(sys.argv[1])
generated = {}
# The file names torch gives them: the inductor cache and fx's `<eval_with_key>`.
exec(compile("def call(rt):\n    rt.cudaDeviceSynchronize()\n", "/tmp/torchinductor_user/ab/cabc.py", "exec"), generated)
fx = {}
exec(compile("def forward(rt):\n    rt.cudaStreamSynchronize(None)\n", "<eval_with_key>.3", "exec"), fx)


def step():
    generated["call"](cudart)  # expect: cudaDeviceSynchronize 1
    fx["forward"](cudart)  # expect: cudaStreamSynchronize 1


step()
