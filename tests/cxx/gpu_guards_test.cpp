// The GPU configuration of a file's #if guards (GpuGuards.h), for files without a compile command.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cxx/GpuGuards.h"

using namespace sl::cxx;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(GpuGuards, DefinesTheSwitchesThatKeepStreamCode) {
  GpuGuards g = gpuGuardMacros(
      "#include <ATen/ATen.h>\n"
      "#if defined(USE_GPU)\n#include <ATen/cuda/CUDAContext.h>\n#endif\n"
      "void f() {\n#ifdef WITH_CUDA\n  auto s = at::cuda::getStreamFromPool();\n#else\n  cpu();\n#endif\n}\n");
  EXPECT_THAT(g.macros, ElementsAre("USE_GPU", "WITH_CUDA"));
  EXPECT_EQ(g.line, 2u);
}

TEST(GpuGuards, ElseOfANegatedSwitchAndCompoundConditions) {
  GpuGuards g = gpuGuardMacros(
      "#ifndef CPU_ONLY\n#else\n#endif\n"  // nothing GPU in either branch
      "#if !defined(NO_CUDA)\n  cpu();\n#else\n  cudaStream_t s;\n#endif\n"
      "#if defined(HAS_NCCL) && !defined(USE_ROCM)\n  k<<<1, 1, 0, s>>>();\n#endif\n");
  EXPECT_THAT(g.macros, ElementsAre("HAS_NCCL", "NO_CUDA"));
}

TEST(GpuGuards, LeavesVersionsReservedNamesDebugSwitchesAndOwnDefinesAlone) {
  GpuGuards g = gpuGuardMacros(
      "#if CUDA_VERSION >= 12000\n  cudaStream_t a;\n#endif\n"      // a header's value
      "#ifdef __CUDACC__\n  k<<<1, 1>>>();\n#endif\n"                // the compiler's
      "#ifdef DEBUG_SYNC\n  cudaDeviceSynchronize();\n#endif\n"      // no stream code
      "#define HAVE_STREAMS 1\n#ifdef HAVE_STREAMS\n  cudaEvent_t e;\n#endif\n"  // the file's own
      "#if TORCH_VERSION_GE(2, 1)\n  cudaStream_t b;\n#endif\n");     // a function-like macro
  EXPECT_THAT(g.macros, IsEmpty());
  EXPECT_EQ(g.line, 0u);
}

TEST(GpuGuards, NestedStreamCodeCountsForEveryEnclosingGuardAndContinuationsJoin) {
  GpuGuards g = gpuGuardMacros(
      "#if defined(USE_GPU) && \\\n    defined(USE_STREAMS) // comment\n"
      "#if CUDART_VERSION > 11000\n  cudaStream_t s;\n#endif\n#endif\n");
  EXPECT_THAT(g.macros, ElementsAre("USE_GPU", "USE_STREAMS"));
  EXPECT_NE(gpuGuardsNote(g).find("-UUSE_GPU -UUSE_STREAMS"), std::string::npos);
}

TEST(GpuGuards, FeatureSwitchesOfUnconditionalGpuCodeStayOff) {
  GpuGuards g = gpuGuardMacros(
      "#include <cuda_runtime.h>\nvoid f(cudaStream_t a, cudaStream_t b, cudaEvent_t e) {\n"
      "  cudaEventRecord(e, a);\n#ifdef FIXED\n  cudaStreamWaitEvent(b, e, 0);\n#endif\n}\n");
  EXPECT_THAT(g.macros, IsEmpty());
}
