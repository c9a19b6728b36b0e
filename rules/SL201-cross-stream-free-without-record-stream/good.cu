// Tell the allocator about the other stream, or make the freeing stream wait for it.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void consume(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2 * x[i];
}

void side_consume(const at::Tensor& x, at::Tensor& out) {
  at::Tensor tmp = at::empty_like(x);
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  {
    c10::cuda::CUDAStreamGuard guard(side);
    ready.block(side);
    consume<<<1, 256, 0, side>>>(tmp.data_ptr<float>(), out.data_ptr<float>(), int(x.numel()));
    tmp.record_stream(side);
  }
}

void stream_ordered(float* y, int n, cudaStream_t a, cudaStream_t b) {
  float* scratch = nullptr;
  cudaEvent_t used;
  cudaEventCreate(&used);
  cudaMallocAsync(&scratch, n * sizeof(float), a);
  cudaStreamSynchronize(a);
  consume<<<1, 256, 0, b>>>(scratch, y, n);
  cudaEventRecord(used, b);
  cudaStreamWaitEvent(a, used, 0);
  cudaFreeAsync(scratch, a);
}

void synchronous_free(float* y, int n, cudaStream_t b) {
  // cudaFree waits for the whole device before it releases the memory.
  float* scratch = nullptr;
  cudaMalloc(&scratch, n * sizeof(float));
  consume<<<1, 256, 0, b>>>(scratch, y, n);
  cudaFree(scratch);
}
