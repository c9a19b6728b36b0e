// A launch helper that rightly takes its stream from the caller, called with no stream: the
// default argument (0) and a nullptr put the work on the legacy default stream, in a file that
// otherwise runs on its own stream. The finding is at the call; a note shows the launch.
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

static void launch_scale(float* x, int n, cudaStream_t stream = 0) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
}

static void scale_both(float* x, float* y, int n, cudaStream_t stream) {
  launch_scale(x, n, stream);
  launch_scale(y, n, stream);
}

void step(float* x, float* y, int n, cudaStream_t work) {
  launch_scale(x, n, work);
  launch_scale(y, n);             // expect: SL601
  scale_both(x, y, n, nullptr);   // expect: SL601
  cudaStreamSynchronize(work);
}
