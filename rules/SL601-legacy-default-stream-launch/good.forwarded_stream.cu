// The same helpers, each call given the stream the file works on; a helper that replaces a null
// stream with the current one before launching is not flagged for being handed nullptr.
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

static void launch_on(float* x, int n, cudaStream_t stream, cudaStream_t fallback) {
  if (!stream) stream = fallback;
  scale<<<(n + 255) / 256, 256, 0, stream>>>(x, n);
}

void step(float* x, float* y, int n, cudaStream_t work) {
  launch_scale(x, n, work);
  launch_scale(y, n, work);
  scale_both(x, y, n, work);
  launch_on(x, n, nullptr, work);
  cudaStreamSynchronize(work);
}
