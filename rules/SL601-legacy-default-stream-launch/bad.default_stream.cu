// A LibTorch extension that launches on the device's default stream: the Python caller may have
// made a side stream current (`with torch.cuda.stream(s):`), and the launch ignores it.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void scale_inplace(at::Tensor x) {
  auto stream = at::cuda::getDefaultCUDAStream();
  scale<<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), x.numel());  // expect: SL601
}
