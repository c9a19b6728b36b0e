// SL904 bad: stream b reads what stream a writes, with no event wait between them.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float* p, int n, float v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v;
}
__global__ void scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2 * in[i];
}

int main() {
  const int n = 1 << 24;
  float *buf, *out;
  cudaMalloc(&buf, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  fill<<<256, 256, 0, a>>>(buf, n, 1.0f);
  cudaEventRecord(done, a);
#ifdef FIXED
  cudaStreamWaitEvent(b, done, 0);
#endif
  scale<<<256, 256, 0, b>>>(buf, out, n);  // bad: reads buf before stream a's fill is ordered
  float first = 0;
  cudaMemcpyAsync(&first, out, sizeof first, cudaMemcpyDeviceToHost, b);
  cudaStreamSynchronize(b);
  printf("%f\n", first);
  cudaFree(buf);
  cudaFree(out);
  return 0;
}
