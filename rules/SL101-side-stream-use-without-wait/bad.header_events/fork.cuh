// The project's header creates the events of a fork; the .cu file that uses them records and
// waits. What the header creates counts for the records of every file that includes it.
#pragma once
#include <cuda_runtime.h>
#include <vector>

struct Fork {
  cudaEvent_t forked = nullptr;
  std::vector<cudaEvent_t> joined;
  explicit Fork(int n) : joined(n) {
    cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
    for (auto& e : joined) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  }
};
