#!/usr/bin/env bash
# Records every example of examples/overlap (and the user's timing experiment) under `streamlint
# run` on a GPU machine: one log directory per program under OUTDIR/logs, binaries under
# OUTDIR/bin. Needs nvcc, cmake and torch; not LLVM or tree-sitter.
#   examples/overlap/record_on_gpu.sh OUTDIR
# Then, on any machine with the sources: streamlint report OUTDIR/logs/<name> <sources>.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: record_on_gpu.sh OUTDIR}
sl=${SL:-$root/build/bin/streamlint}
mkdir -p "$out/logs" "$out/bin"
export PYTHONUNBUFFERED=1

record() {  # record NAME CMD...: one log directory per program
  local name=$1; shift
  echo "== $name: $*"
  rm -rf "$out/logs/$name"
  # Exact counts for the demonstrations: time the GPU throughout (these runs are short).
  "$sl" run --gpu-timing always --out "$out/logs/$name" -- "$@" || echo "!! $name exited $?"
}

# CUDA C++: shared cudart so the runtime-API calls are the ones the recorder hooks by name.
for v in overlap_bad overlap_fixed; do
  nvcc -g -lineinfo -O2 -cudart shared -o "$out/bin/cuda_$v" "$here/cuda/$v.cu" || echo "!! nvcc $v"
done
# LibTorch C++ with torch's own CMake config.
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
cmake -S "$here/libtorch" -B "$out/build-libtorch" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/libtorch-cmake.log" 2>&1 &&
  cmake --build "$out/build-libtorch" -j "$(nproc)" >> "$out/libtorch-cmake.log" 2>&1 ||
  { echo "!! libtorch build failed"; tail -30 "$out/libtorch-cmake.log"; }
cp "$out"/build-libtorch/overlap_{bad,fixed} "$out/bin/" 2>/dev/null
torch_lib=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
export LD_LIBRARY_PATH="$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

record cuda-bad "$out/bin/cuda_overlap_bad"
record cuda-fixed "$out/bin/cuda_overlap_fixed"
record libtorch-bad "$out/bin/overlap_bad"
record libtorch-fixed "$out/bin/overlap_fixed"
py="$here/python/train_overlap.py"
record python-seed python3 "$py" --variant seed
record python-fixed python3 "$py" --variant fixed
# A smaller chunk: the host's Python launches take longer than the kernels, so the GPU idles
# between them and the streams have nothing to overlap.
record python-fixed-small python3 "$py" --variant fixed --tokens 128
record timing-seed python3 "$root/examples/python/seed/stream_timing_experiment.py"
record timing-fixed python3 "$root/examples/python/fixed/stream_timing_experiment.py"
