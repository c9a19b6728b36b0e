// bad.default_stream.cu on the current stream: the launch follows the stream the caller made current.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void scale_inplace(at::Tensor x) {
  auto stream = at::cuda::getCurrentCUDAStream();
  scale<<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), x.numel());
}
