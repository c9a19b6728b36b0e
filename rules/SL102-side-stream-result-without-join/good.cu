// Join before using the side stream's result.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime.h>

__global__ void fill(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f;
}

void copy_back(float* d_y, float* h_y, int n) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<(n + 255) / 256, 256, 0, s>>>(d_y, n);
  cudaStreamSynchronize(s);
  cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
}

at::Tensor square_then_sum(const at::Tensor& x) {
  at::Tensor out = at::empty_like(x);
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent done;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    at::mul_out(out, x, x);
    done.record(side);
  }
  done.block(at::cuda::getCurrentCUDAStream());
  return out.sum();
}

void event_join(float* d_y, float* h_y, int n) {
  // The host waits for an event recorded on `s` after the kernel (cuda-samples StreamPriorities).
  cudaStream_t s;
  cudaEvent_t done;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEventCreate(&done);
  fill<<<(n + 255) / 256, 256, 0, s>>>(d_y, n);
  cudaEventRecord(done, s);
  cudaEventSynchronize(done);
  cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
}

void one_branch_each(float* d_y, float* h_y, int n, bool big, cudaStream_t s) {
  // The side-stream launch and the legacy-stream launch are on exclusive branches; the result
  // is read after a device-wide sync (cuda-samples cdpAdvancedQuicksort).
  if (big) {
    fill<<<(n + 255) / 256, 256, 0, s>>>(d_y, n);
  } else {
    fill<<<1, 256>>>(d_y, n);
  }
  cudaDeviceSynchronize();
  cudaMemcpy(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
}
