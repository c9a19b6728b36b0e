// Memory allocated on one stream, used on another, released with no record_stream or wait.
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
  }
}  // expect: SL201

void stream_ordered(float* y, int n, cudaStream_t a, cudaStream_t b) {
  float* scratch = nullptr;
  cudaMallocAsync(&scratch, n * sizeof(float), a);
  cudaStreamSynchronize(a);
  consume<<<1, 256, 0, b>>>(scratch, y, n);
  cudaFreeAsync(scratch, a);  // expect: SL201
}
