// Read back occasionally (an interval guard) and once after the loop.
#include <cstdio>
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
    if (step % 100 == 0) {
      cudaMemcpyAsync(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, stream);
      cudaStreamSynchronize(stream);
      std::printf("step %d loss %f\n", step, loss);
    }
  }
  cudaMemcpyAsync(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  return loss;
}

void setup(float** bufs, cudaStream_t* streams, int count, size_t bytes) {
  // One buffer per stream, allocated once: no GPU work in this loop to stall
  // (cuda-samples simpleMultiCopy / simpleMultiGPU).
  for (int i = 0; i < count; ++i) {
    cudaMalloc(&bufs[i], bytes);
    cudaStreamCreate(&streams[i]);
  }
}

void setup_cleared(int** bufs, int** staging, int devices, size_t bytes) {
  // One buffer per device, cleared as it is allocated: the only GPU work initialises what the
  // loop allocates, so there is nothing to stall (cuda-samples p2pBandwidthLatencyTest).
  for (int d = 0; d < devices; ++d) {
    cudaSetDevice(d);
    cudaMalloc(&bufs[d], bytes);
    cudaMemset(bufs[d], 0, bytes);
    cudaHostAlloc(&staging[d], bytes, cudaHostAllocDefault);
  }
}

void ping_pong(size_t bytes) {
  // A device-to-device cudaMemcpy does not make the host wait (cuda-samples simpleP2P).
  float *g0, *g1;
  cudaMalloc(&g0, bytes);
  cudaMalloc(&g1, bytes);
  for (int i = 0; i < 100; ++i) {
    if (i % 2 == 0) cudaMemcpy(g1, g0, bytes, cudaMemcpyDefault);
    else cudaMemcpy(g0, g1, bytes, cudaMemcpyDefault);
    cudaMemcpy(g0, g1, bytes, cudaMemcpyDeviceToDevice);
  }
}

__global__ void scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

void no_churn(const float* d_in, float* d_out, int n, int steps, cudaStream_t stream) {
  // The scratch buffer is allocated once; per-step buffers come from the stream's pool.
  float* scratch = nullptr;
  cudaMalloc(&scratch, n * sizeof(float));
  for (int step = 0; step < steps; ++step) {
    float* tmp = nullptr;
    cudaMallocAsync(&tmp, n * sizeof(float), stream);
    scale<<<(n + 255) / 256, 256, 0, stream>>>(d_in, scratch, n);
    scale<<<(n + 255) / 256, 256, 0, stream>>>(scratch, tmp, n);
    scale<<<(n + 255) / 256, 256, 0, stream>>>(tmp, d_out, n);
    cudaFreeAsync(tmp, stream);
  }
  cudaFree(scratch);
}
