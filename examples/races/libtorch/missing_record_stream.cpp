// SL904 in LibTorch C++ (bad; -DFIXED builds the fixed one): a tensor read on a comm stream is
// freed without recordStream, and the caching allocator hands its memory to the next tensor of
// the default stream while the comm stream may still read it. The C++ twin of
// examples/races/bad/missing_record_stream.py.
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include <cstdio>

int main() {
  auto comm = c10::cuda::getStreamFromPool();
  auto main_stream = c10::cuda::getCurrentCUDAStream();
  for (int step = 0; step < 3; ++step) {
    auto grad = torch::randn({4096, 4096}, torch::kCUDA);  // produced on the default stream
    at::cuda::CUDAEvent ready;
    ready.record(main_stream);
    ready.block(comm);
    torch::Tensor bucket;
    {
      c10::cuda::CUDAStreamGuard guard(comm);
      bucket = grad * 0.5;  // the comm stream reads grad
    }
#ifdef FIXED
    c10::cuda::CUDACachingAllocator::recordStream(grad.storage().data_ptr(), comm);
#endif
    grad.reset();  // freed: without recordStream its memory goes back to the default stream at once
    auto fresh = torch::ones({4096, 4096}, torch::kCUDA);  // reuses grad's memory
    at::cuda::CUDAEvent done;
    done.record(comm);
    done.block(main_stream);
    std::printf("%d %f\n", step, (bucket[0][0] + fresh[0][0]).item<float>());
  }
}
