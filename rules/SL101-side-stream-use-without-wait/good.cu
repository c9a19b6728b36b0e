// The consuming stream waits for the producer: an event recorded after the producing work.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void produce(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = float(i);
}

__global__ void consume(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

void two_streams(float* x, float* y, int n) {
  cudaStream_t a, b;
  cudaEvent_t produced;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  produce<<<(n + 255) / 256, 256, 0, a>>>(x, n);
  cudaEventRecord(produced, a);
  cudaStreamWaitEvent(b, produced, 0);
  consume<<<(n + 255) / 256, 256, 0, b>>>(x, y, n);
}

void legacy_then_blocking(float* x, float* y, int n) {
  // A stream created without cudaStreamNonBlocking waits for the legacy default stream.
  cudaStream_t s;
  cudaStreamCreate(&s);
  produce<<<(n + 255) / 256, 256>>>(x, n);
  consume<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}

at::Tensor side_sin(const at::Tensor& x) {
  at::Tensor y = at::mul(x, 2);
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  c10::cuda::CUDAStreamGuard guard(side);
  ready.block(side);
  at::Tensor z = at::sin(y);
  return z;
}

void fresh_allocation(float* y, int n, cudaStream_t s) {
  // cudaMalloc's memory is ready when the call returns: no stream has work on it yet.
  // (A false positive found in NVIDIA cuda-samples' matrixMul and StreamPriorities.)
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  consume<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}

void copy_in_branch(float* x, const float* h, float* y, int n, bool async_copy) {
  // The blocking stream's implicit wait for the legacy stream runs right after the copy, in the
  // same branch: whenever the copy produced x, the wait ordered it (cuda-samples
  // UnifiedMemoryPerf).
  cudaStream_t s;
  cudaStreamCreate(&s);
  if (async_copy) {
    cudaMemcpyAsync(x, h, n * sizeof(float), cudaMemcpyHostToDevice, s);
  } else {
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
  }
  consume<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}

void either_stream(float* x, float* y, int n, bool on_a) {
  // Produced and consumed on one stream per branch: the launch on `a` never runs before the
  // one on `b` (exclusive branches).
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  if (on_a) {
    produce<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    consume<<<(n + 255) / 256, 256, 0, a>>>(x, y, n);
  } else {
    consume<<<(n + 255) / 256, 256, 0, b>>>(x, y, n);
  }
}

void early_out(float* x, float* y, int n, bool only_produce) {
  // The producing path returns before the side stream's launch.
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  if (only_produce) {
    produce<<<(n + 255) / 256, 256, 0, a>>>(x, n);
    return;
  }
  consume<<<(n + 255) / 256, 256, 0, b>>>(x, y, n);
}

void drained_by_blocking_copy(float* y, const float* h_params, float* d_params, int n, cudaStream_t s) {
  // cudaMemset queues on the legacy stream; the synchronous cudaMemcpy after it returns only
  // once the legacy stream's earlier work is done, so `s` reads an initialised buffer
  // (cuda-samples cdpAdvancedQuicksort).
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaMemcpy(d_params, h_params, 16, cudaMemcpyHostToDevice);
  consume<<<(n + 255) / 256, 256, 0, s>>>(x, y, n);
}
