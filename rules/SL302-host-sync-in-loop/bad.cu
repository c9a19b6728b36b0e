// The host waits for the GPU on every iteration.
#include <cuda_runtime.h>

__global__ void step_kernel(float* x, float* loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.99f;
  if (i == 0) *loss = x[0];
}

float train(float* d_x, float* d_loss, int n, int steps, cudaStream_t stream) {
  float loss = 0;
  for (int step = 0; step < steps; ++step) {
    step_kernel<<<(n + 255) / 256, 256, 0, stream>>>(d_x, d_loss, n);
    cudaMemcpy(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost);  // expect: SL302
    cudaStreamSynchronize(stream);  // explicit: deliberate, not flagged
  }
  return loss;
}

__global__ void scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

void churn(const float* d_in, float* d_out, int n, int steps, cudaStream_t stream) {
  // A scratch buffer allocated and freed per step: both calls wait for the whole device.
  for (int step = 0; step < steps; ++step) {
    float* scratch = nullptr;
    cudaMalloc(&scratch, n * sizeof(float));  // expect: SL302
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_in, scratch, n);
    scale<<<(n + 255) / 256, 256, 0, stream>>>(scratch, d_out, n);
    cudaFree(scratch);
  }
}
