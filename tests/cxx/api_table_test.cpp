// The API table: names as Clang spells them (macro-renamed, inline namespaces) find their rows.
#include <gtest/gtest.h>

#include "cxx/CudaApiTable.h"

using namespace sl::cxx;

TEST(ApiTable, StripsMacroSuffixesAndInlineNamespaces) {
  EXPECT_EQ(normalizeApiName("cuMemAlloc_v2"), "cuMemAlloc");
  EXPECT_EQ(normalizeApiName("cuMemcpyHtoDAsync_v2_ptsz"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(normalizeApiName("cudaMemcpyAsync_ptsz"), "cudaMemcpyAsync");
  EXPECT_EQ(normalizeApiName("std::chrono::_V2::steady_clock::now"), "std::chrono::steady_clock::now");
  EXPECT_EQ(normalizeApiName("at::TensorBase::record_stream"), "at::Tensor::record_stream");
  EXPECT_EQ(normalizeApiName("at::cuda::getStreamFromPool"), "c10::cuda::getStreamFromPool");
  // Not a suffix to strip: the name would become too short to be an API.
  EXPECT_EQ(normalizeApiName("f_v2"), "f_v2");
}

TEST(ApiTable, RowsCarryTheArgumentPositionsOfTheHeaders) {
  const ApiEntry* e = lookupApi("cudaMemcpyAsync");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->op, ApiOp::Copy);
  EXPECT_EQ(e->stream, 4);
  EXPECT_EQ(e->dir, 3);
  EXPECT_TRUE(e->async);
  e = lookupApi("cudaMalloc");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->op, ApiOp::Alloc);
  EXPECT_EQ(e->sync, sl::model::SyncKind::Allocation);
  e = lookupApi("cuLaunchKernel");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->stream, 8);
  e = lookupApi("cudaStreamWaitEvent");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->op, ApiOp::Wait);
  EXPECT_EQ(lookupApi("cudaGetDevice"), nullptr);
}

TEST(ApiTable, ClassifiesTypesAndFactories) {
  EXPECT_TRUE(isTensorFactory("at::empty"));
  EXPECT_TRUE(isTensorFactory("torch::zeros_like"));
  EXPECT_FALSE(isTensorFactory("at::matmul"));
  EXPECT_FALSE(isTensorFactory("std::empty"));
  EXPECT_TRUE(isStreamGuardType("c10::cuda::CUDAStreamGuard"));
  EXPECT_TRUE(isStreamGuardType("c10::cuda::OptionalCUDAStreamGuard"));
  EXPECT_TRUE(isStreamGuardType("c10::cuda::CUDAMultiStreamGuard"));
  EXPECT_FALSE(isStreamGuardType("c10::cuda::CUDAGuard"));  // a device guard, not a stream
  EXPECT_EQ(copyDirFromKind("cudaMemcpyDeviceToHost"), sl::model::CopyDir::DeviceToHost);
  EXPECT_EQ(copyDirFromKind("cudaMemcpyDefault"), sl::model::CopyDir::Unknown);
}
