// A LibTorch extension (plain C++, no nvcc) that launches and copies on stream 0 while the
// caller may have made a side stream current.
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>
#include <ATen/ATen.h>

void scale_kernel(float* x, float a, int64_t n);  // a __global__ defined in a .cu file

at::Tensor scaled_copy(const at::Tensor& x, float a) {
  at::Tensor out = at::empty_like(x);
  int64_t n = x.numel();
  cudaMemcpyAsync(out.data_ptr<float>(), x.data_ptr<float>(), n * sizeof(float),  // expect: SL601
                  cudaMemcpyDeviceToDevice);
  float* ptr = out.data_ptr<float>();
  void* args[] = {&ptr, &a, &n};
  cudaLaunchKernel(reinterpret_cast<const void*>(&scale_kernel), dim3((n + 255) / 256),  // expect: SL601
                   dim3(256), args, 0, nullptr);
  return out;
}
