// Lowering of CUDA runtime/driver code, parsed against the real CUDA 13 headers.
#include <gmock/gmock.h>

#include "LoweringFixture.h"

using ::testing::HasSubstr;
using ::testing::Not;
using sl::test::Snippets;

namespace {

const char* kLaunches = R"(#include <cuda_runtime.h>
__global__ void k(const float* in, float* out) {}
void launches(float* d, const float* c, cudaStream_t param) {
  cudaStream_t s;
  cudaStreamCreate(&s);  // @create
  k<<<1, 1>>>(c, d);  // @omitted
  k<<<1, 1, 0, 0>>>(c, d);  // @zero
  k<<<1, 1, 0, nullptr>>>(c, d);  // @null
  k<<<1, 1, 0, cudaStreamLegacy>>>(c, d);  // @legacy
  k<<<1, 1, 0, cudaStreamPerThread>>>(c, d);  // @perthread
  k<<<1, 1, 0, s>>>(c, d);  // @side
  k<<<1, 1, 0, param>>>(c, d + 4);  // @param
  cudaEvent_t e;
  cudaEventCreate(&e);  // @ecreate
  cudaEventRecord(e, s);  // @record
  cudaStreamWaitEvent(param, e, 0);  // @wait
  cudaEventSynchronize(e);  // @esync
  cudaStreamSynchronize(s);  // @ssync
  cudaDeviceSynchronize();  // @dsync
  void* args[] = {&d};
  cudaLaunchKernel((const void*)&k, dim3(1), dim3(1), args, 0, s);  // @api-launch
}
)";

const char* kMemory = R"(#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdlib>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) abort(); } while (0)
void memory(size_t n, int step) {
  float* d = nullptr;
  float* p = nullptr;
  float* h = (float*)malloc(n);
  cudaMalloc(&d, n);  // @malloc
  cudaMallocHost(&p, n);  // @mallochost
  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);  // @memcpy
  cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0);  // @pageable
  cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, cudaStreamPerThread);  // @d2h
  cudaMemcpyAsync(d, p, n, cudaMemcpyHostToDevice);  // @pinned
  cudaMemsetAsync(d, 0, n);  // @memset
  float* d2 = nullptr;
  cudaMalloc(&d2, n);
  cudaMemcpy(d2, d, n, cudaMemcpyDefault);  // @d2d
  float* m = nullptr;
  cudaMallocManaged(&m, n);
  cudaMemcpy(m, d, n, cudaMemcpyDefault);  // @managed
  CHECK(cudaFree(d));  // @free
  CUdeviceptr dp;
  cuMemAlloc(&dp, n);  // @cumem
  for (int i = 0; i < 3; ++i) cudaDeviceSynchronize();  // @loop
  if (step % 100 == 0) cudaDeviceSynchronize();  // @guarded
  auto t0 = std::chrono::steady_clock::now();  // @clock
}
)";

const char* kMembers = R"(#include <cuda_runtime.h>
struct Runner {
  cudaStream_t stream_;
  float* buf_;
  void make();
};
void Runner::make() {
  cudaStreamCreate(&stream_);  // @member-stream
  cudaMalloc(&buf_, 4);  // @member-alloc
  cudaFree(this->buf_);  // @member-free
}
)";

class CudaLowering : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s = new Snippets("cuda");
    s->add("launches.cu", kLaunches);
    s->add("memory.cu", kMemory);
    s->add("members.cu", kMembers);
    s->add("syntax.cu", "void f( { }\n");
    s->add("missing.cpp", "#include \"no_such_header.h\"\nvoid f() {}\n");
    s->analyze();
  }
  static void TearDownTestSuite() { delete s; }
  static std::string at(const char* file, const char* marker, const std::string& rest) {
    return std::to_string(s->line(file, marker)) + " " + rest;
  }
  static Snippets* s;
};
Snippets* CudaLowering::s = nullptr;

TEST_F(CudaLowering, LaunchStreamsFollowTheLaunchArgument) {
  std::string f = s->function("launches.cu", "launches");
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "omitted", "work [k<<<>>>] on legacy! r=c,d w=d in fn")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "zero", "work [k<<<>>>] on legacy!")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "null", "work [k<<<>>>] on legacy!")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "legacy", "work [k<<<>>>] on legacy!")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "perthread", "work [k<<<>>>] on per-thread!")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "side", "work [k<<<>>>] on side:s!")));
  // Pointer arithmetic keeps the value's name; a const parameter is only read.
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "param", "work [k<<<>>>] on unknown:param! r=c,d w=d")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "api-launch", "work [cudaLaunchKernel] on side:s!")));
}

TEST_F(CudaLowering, StreamsAndEvents) {
  std::string f = s->function("launches.cu", "launches");
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "create", "stream-create [cudaStreamCreate] on current v=s")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "ecreate", "event-create [cudaEventCreate] on current v=e")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "record", "event-record [cudaEventRecord] on side:s! v=e")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "wait", "wait [cudaStreamWaitEvent] on unknown:param! v=e")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "esync", "host-sync [cudaEventSynchronize] on current v=e sync=3")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "ssync", "host-sync [cudaStreamSynchronize] on side:s! sync=2")));
  EXPECT_THAT(f, HasSubstr(at("launches.cu", "dsync", "host-sync [cudaDeviceSynchronize] on current sync=1")));
}

TEST_F(CudaLowering, AllocationsCopiesAndTheirSyncs) {
  std::string f = s->function("memory.cu", "memory");
  // cudaMalloc: an allocation, then the implicit device synchronization. Its memory is ready
  // when the call returns, so it produces no value a stream would have to wait for; the sync
  // names what it allocates (not a write).
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "malloc", "alloc [cudaMalloc] on legacy in fn\n") +
                               at("memory.cu", "malloc", "host-sync [cudaMalloc] on current v=d sync=6")));
  // cudaMemcpyDefault between two cudaMalloc'd pointers: device to device, no host wait.
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "d2d", "copy [cudaMemcpy] on legacy v=d2 r=d w=d2 dir=3 pinned=0 in fn\n")));
  EXPECT_THAT(f, Not(HasSubstr(at("memory.cu", "d2d", "host-sync"))));
  // Managed memory may live on the host: the direction stays unknown and the host waits.
  EXPECT_THAT(f, Not(HasSubstr(at("memory.cu", "managed", "copy [cudaMemcpy] on legacy v=m r=d w=m dir=3"))));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "managed", "host-sync [cudaMemcpy]")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "mallochost", "host-sync [cudaMallocHost]")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "memcpy", "copy [cudaMemcpy] on legacy v=d r=h w=d dir=1 pinned=1")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "memcpy", "host-sync [cudaMemcpy] on current sync=5")));
  // Pageable (malloc) vs page-locked (cudaMallocHost) host memory; the host side of a D2H
  // copy is its destination.
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "pageable", "copy [cudaMemcpyAsync] on legacy! v=d r=h w=d dir=1 async pinned=1")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "d2h", "copy [cudaMemcpyAsync] on per-thread! v=h r=d w=h dir=2 async pinned=1")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "pinned", "copy [cudaMemcpyAsync] on legacy! v=d r=p w=d dir=1 async pinned=2")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "memset", "work [cudaMemsetAsync] on legacy! w=d")));
  // Driver API names arrive macro-renamed (cuMemAlloc_v2).
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "cumem", "alloc [cuMemAlloc] on legacy in fn")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "clock", "clock [std::chrono::steady_clock::now] on current v=t0")));
}

TEST_F(CudaLowering, MacroWrappersAreNotControlFlow) {
  std::string f = s->function("memory.cu", "memory");
  // CHECK's do/while(0) and if: the free runs once, unconditionally.
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "free", "free [cudaFree] on legacy v=d in fn\n")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "loop", "host-sync [cudaDeviceSynchronize] on current sync=1 in loop\n")));
  EXPECT_THAT(f, HasSubstr(at("memory.cu", "guarded", "host-sync [cudaDeviceSynchronize] on current sync=1 in guarded\n")));
}

TEST_F(CudaLowering, LegacyStreamWorkIsOrderedWithBlockingStreams) {
  // `s` was created by cudaStreamCreate (blocking): CUDA orders legacy-stream work after what s
  // queued before, and s's later work after it. `param`'s flags are unknown: no implicit wait.
  std::string f = s->function("launches.cu", "launches");
  std::string l = std::to_string(s->line("launches.cu", "omitted"));
  EXPECT_THAT(f, HasSubstr(l + " wait [implicit (legacy default stream)] on legacy! other=side:s in fn\n" +
                           l + " work [k<<<>>>] on legacy! r=c,d w=d in fn\n" +
                           l + " wait [implicit (legacy default stream)] on side:s! other=legacy in fn\n"));
  EXPECT_THAT(f, Not(HasSubstr("other=unknown:param")));
}

TEST_F(CudaLowering, MembersKeepTheirOwnerAndCudaFreeSyncsBeforeFreeing) {
  std::string f = s->function("members.cu", "Runner::make");
  EXPECT_THAT(f, HasSubstr(at("members.cu", "member-stream", "stream-create [cudaStreamCreate] on current v=this->stream_")));
  EXPECT_THAT(f, HasSubstr(at("members.cu", "member-alloc", "alloc [cudaMalloc] on legacy in fn")));
  EXPECT_THAT(f, HasSubstr(at("members.cu", "member-free", "host-sync [cudaFree] on current sync=1 in fn\n") +
                               at("members.cu", "member-free", "free [cudaFree] on legacy v=this->buf_ in fn\n")));
}

TEST_F(CudaLowering, ParseFailuresNameTheFileAndTheFirstErrorAndTheRunGoesOn) {
  const auto& r = s->result();
  EXPECT_EQ(r.translationUnits, 5u);
  EXPECT_EQ(r.analyzed, 5u);  // the missing include is skipped; the syntax error recovers
  ASSERT_EQ(r.diagnostics.size(), 2u);
  bool sawMissing = false, sawSyntax = false;
  for (const auto& d : r.diagnostics) {
    EXPECT_EQ(d.ruleId, "parse-error");
    if (d.path == s->path("missing.cpp")) {
      sawMissing = true;
      EXPECT_THAT(d.message, HasSubstr("'no_such_header.h' file not found"));
      EXPECT_THAT(d.message, HasSubstr("analysed what parsed, without the header"));
      EXPECT_EQ(d.properties.value("missingHeader", std::string()), "no_such_header.h");
      EXPECT_FALSE(d.properties.value("skipped", true));
      EXPECT_EQ(d.loc.line, 1u);
    }
    if (d.path == s->path("syntax.cu")) {
      sawSyntax = true;
      // The first error's place is the diagnostic's own location; the message names no file again.
      EXPECT_EQ(d.loc.line, 1u);
      EXPECT_THAT(d.message, HasSubstr("could not parse: "));
      EXPECT_THAT(d.message, Not(HasSubstr("syntax.cu")));
    }
  }
  EXPECT_TRUE(sawMissing && sawSyntax);
}

// Extensions written for CUDA 12 align their TMA descriptors to 64 bytes; CUDA 13's cuda.h
// declares 128, and Clang rejects the smaller request (nvcc and GCC accept it). Both seen in
// real extensions (flashinfer, DeepEP).
TEST(CudaLoweringHeaders, Cuda13HeaderQuirksParse) {
  Snippets s("tmap");
  s.add("tma.cu", "#include <cuda.h>\nvoid f() {\n  alignas(64) CUtensorMap a{};\n"
                  "  alignas(128) CUtensorMap b{};\n  (void)a; (void)b;\n}\n");
  // Clang's CUDA wrapper defines __CUDACC__ empty; nvcc (and CUDA 13's nccl_device headers)
  // expect a value.
  s.add("cudacc.cu", "#include <nccl_device/utility.h>\n#if __CUDACC__\nint on_cuda = 1;\n#endif\n"
                     "__device__ void st(uint4* q, uint4 v) { __stwt(q, v); __stcg(q, __ldcg(q)); }\n");
  s.analyze();
  for (const auto& d : s.result().diagnostics) ADD_FAILURE() << d.message;
  EXPECT_EQ(s.result().analyzed, 2u);
}

// What consumes an event (Function::eventUses): waits, syncs, timings, helpers handed it,
// copies into other variables; not the create, the record, the destroy or a null check.
TEST(CudaLoweringEvents, EventUsesAreWhatConsumesAnEvent) {
  Snippets s("evuses");
  s.add("e.cu", R"(#include <cuda_runtime.h>
void later(cudaEvent_t e);
struct Ctx { cudaEvent_t a, b, c, d, kept, unused; cudaStream_t s; };
void f(Ctx* x, cudaStream_t t) {
  if (!x->unused) cudaEventCreate(&x->unused);
  cudaEventRecord(x->unused, x->s);
  cudaEventRecord(x->a, x->s);
  cudaStreamWaitEvent(t, x->a, 0);
  cudaEventSynchronize(x->b);
  float ms;
  cudaEventElapsedTime(&ms, x->c, x->c);
  later(x->d);
  cudaEvent_t copy = x->kept;
  cudaEventDestroy(x->unused);
}
)");
  s.analyze();
  std::string f = s.function("e.cu", "f");
  EXPECT_THAT(f, HasSubstr("event-uses x->a,x->b,x->c,x->d,x->kept\n"));
}

TEST(CudaLoweringPerThread, OmittedStreamIsThePerThreadStreamUnderPerThreadDefault) {
  Snippets s("ptds");
  s.add("k.cu", "__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); k<<<1, 1, 0, 0>>>(); }\n");
  s.analyze({"-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"});
  std::string f = s.function("k.cu", "f");
  EXPECT_THAT(f, HasSubstr("work [k<<<>>>] on per-thread!"));
  EXPECT_THAT(f, Not(HasSubstr("legacy")));
}

}  // namespace
