// Lowering of LibTorch code, parsed against the LibTorch headers set-up extracts (or $LIBTORCH).
#include <gmock/gmock.h>

#include "LoweringFixture.h"

using ::testing::HasSubstr;
using ::testing::Not;
using sl::test::Snippets;

namespace {

const char* kTorch = R"(#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/nonzero.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/cuda.h>

__global__ void k(const float* in, float* out) {}

at::Tensor guarded(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  auto cur = at::cuda::getCurrentCUDAStream();
  at::Tensor y = at::empty({8}, x.options());  // @alloc-outside
  {
    c10::cuda::CUDAStreamGuard guard(side);  // @guard
    at::Tensor t = at::empty({8}, x.options());  // @alloc-inside
    k<<<1, 1, 0, side>>>(x.data_ptr<float>(), t.data_ptr<float>());  // @launch-side
    k<<<1, 1, 0, cur.stream()>>>(x.data_ptr<float>(), y.data_ptr<float>());  // @launch-cur
    t.record_stream(cur);  // @record
    c10::cuda::CUDACachingAllocator::recordStream(y.storage().data_ptr(), side);  // @alloc-record
  }  // @end
  at::cuda::CUDAEvent ev;  // @event
  ev.record(side);  // @ev-record
  ev.block(cur);  // @ev-block
  ev.synchronize();  // @ev-sync
  side.synchronize();  // @stream-sync
  c10::cuda::stream_synchronize(side);  // @stream-sync2
  torch::cuda::synchronize();  // @device-sync
  float v = y.item<float>();  // @item
  at::Tensor h = y.cpu();  // @cpu
  at::Tensor h2 = y.to(at::kCPU, /*non_blocking=*/true);  // @to
  at::Tensor nz = at::nonzero(y);  // @nonzero
  return y;
}

void set_current(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  auto prev = at::cuda::getCurrentCUDAStream();
  at::cuda::setCurrentCUDAStream(side);  // @set
  at::Tensor z = x.add(1);  // @in-set
  at::cuda::setCurrentCUDAStream(prev);  // @reset
  at::Tensor w = x.mul(2);  // @after-set
  z = x.mul(3);  // @reassign
}  // @set-end

void optional_guard(c10::optional<c10::Stream> s, at::Tensor x) {
  c10::cuda::OptionalCUDAStreamGuard g(s);  // @optional
  x.mul_(2);  // @inplace
}
)";

const char* kHelpers = R"(#pragma once
#include <ATen/cuda/CUDAContext.h>
#include <c10/core/Event.h>
inline c10::Event make_event(const at::cuda::CUDAStream& s) {
  c10::Event e(c10::DeviceType::CUDA);
  e.record(s);
  return e;
}
inline void stream_wait(const at::cuda::CUDAStream& a, const at::cuda::CUDAStream& b) {
  a.unwrap().wait(make_event(b));
}
)";

const char* kUses = R"(#include <ATen/ops/empty_like.h>
#include "helpers.h"
std::tuple<at::Tensor, c10::optional<at::Tensor>> f(const at::Tensor& x, bool with) {
  auto comm = at::cuda::getStreamFromPool();
  auto cur = at::cuda::getCurrentCUDAStream();
  stream_wait(comm, cur);  // @helper
  at::Tensor y = at::empty_like(x);
  c10::optional<at::Tensor> z;
  if (with) z = at::empty_like(x);  // @optional
  return {y, z};
}
)";

class TorchLowering : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s = new Snippets("torch");
    s->add("ext.cu", kTorch);
    s->add("helpers.h", kHelpers, /*input=*/false);
    s->add("uses.cu", kUses);
    s->analyze();
  }
  static void TearDownTestSuite() { delete s; }
  static std::string at(const char* marker, const std::string& rest) {
    return std::to_string(s->line("ext.cu", marker)) + " " + rest;
  }
  static Snippets* s;
};
Snippets* TorchLowering::s = nullptr;

TEST_F(TorchLowering, ParsesCleanlyAgainstTheLibTorchHeaders) {
  for (const auto& d : s->result().diagnostics) ADD_FAILURE() << d.message;
  EXPECT_EQ(s->result().analyzed, 2u);
}

TEST_F(TorchLowering, ProjectHelpersAreWalkedAtTheCallSite) {
  // stream_wait(comm, cur) in the project's header: record on `cur`, `comm` waits, both at the call.
  std::string f = s->function("uses.cu", "f");
  std::string l = std::to_string(s->line("uses.cu", "helper"));
  EXPECT_THAT(f, HasSubstr(l + " event-record [c10::Event::record] on current! v=e in fn\n" + l +
                           " wait [c10::Stream::wait] on side:comm! v=<event> in fn\n"));
}

TEST_F(TorchLowering, OptionalTensorsAndReturnedTuples) {
  std::string f = s->function("uses.cu", "f");
  EXPECT_THAT(f, HasSubstr(std::to_string(s->line("uses.cu", "optional")) + " alloc [at::empty_like] on current v=z w=z in branch\n"));
  // Both are returned in the tuple: neither dies at the closing brace.
  EXPECT_THAT(f, Not(HasSubstr("free [~Tensor]")));
}

TEST_F(TorchLowering, GuardOpensARegionUntilTheClosingBrace) {
  std::string f = s->function("ext.cu", "guarded");
  EXPECT_THAT(f, HasSubstr(at("alloc-outside", "alloc [at::empty] on current v=y w=y in fn\n")));
  EXPECT_THAT(f, HasSubstr(at("alloc-inside", "alloc [at::empty] on side:side v=t w=t in region(side:side)\n")));
  EXPECT_THAT(f, HasSubstr(at("launch-side", "work [k<<<>>>] on side:side! r=x,t w=t in region(side:side)\n")));
  // CUDAStream::stream() and the implicit conversion to cudaStream_t name the same stream.
  EXPECT_THAT(f, HasSubstr(at("launch-cur", "work [k<<<>>>] on current! r=x,y w=y in region(side:side)\n")));
  EXPECT_THAT(f, HasSubstr(at("record", "record-stream [at::Tensor::record_stream] on side:side v=t other=current")));
  EXPECT_THAT(f, HasSubstr(at("alloc-record", "record-stream [c10::cuda::CUDACachingAllocator::recordStream] on side:side v=y other=side:side")));
  // The guard's scope end is a lifetime event: t dies at the brace, inside the region (it was
  // declared after the guard, so it is destroyed first); y is returned, so it is not freed.
  EXPECT_THAT(f, HasSubstr(at("end", "free [~Tensor] on side:side v=t in region(side:side)\n")));
  EXPECT_THAT(f, Not(HasSubstr("free [~Tensor] on current v=y")));
  EXPECT_THAT(f, HasSubstr(at("event", "event-create [at::cuda::CUDAEvent] on current v=ev in fn\n")));
}

TEST_F(TorchLowering, EventsStreamsAndHostSyncs) {
  std::string f = s->function("ext.cu", "guarded");
  EXPECT_THAT(f, HasSubstr(at("ev-record", "event-record [at::cuda::CUDAEvent::record] on side:side! v=ev")));
  EXPECT_THAT(f, HasSubstr(at("ev-block", "wait [at::cuda::CUDAEvent::block] on current! v=ev")));
  EXPECT_THAT(f, HasSubstr(at("ev-sync", "host-sync [at::cuda::CUDAEvent::synchronize] on current v=ev sync=3")));
  EXPECT_THAT(f, HasSubstr(at("stream-sync", "host-sync [c10::cuda::CUDAStream::synchronize] on side:side! sync=2")));
  EXPECT_THAT(f, HasSubstr(at("stream-sync2", "host-sync [c10::cuda::stream_synchronize] on side:side! sync=2")));
  EXPECT_THAT(f, HasSubstr(at("device-sync", "host-sync [torch::cuda::synchronize] on current sync=1")));
  EXPECT_THAT(f, HasSubstr(at("item", "host-sync [at::Tensor::item] on current r=y sync=4")));
  EXPECT_THAT(f, HasSubstr(at("cpu", "copy [at::Tensor::cpu] on current v=h r=y w=h dir=2 pinned=1")));
  EXPECT_THAT(f, HasSubstr(at("cpu", "host-sync [at::Tensor::cpu] on current sync=5")));
  EXPECT_THAT(f, HasSubstr(at("to", "copy [at::Tensor::to] on current v=h2 r=y w=h2 dir=2 async")));
  EXPECT_THAT(f, Not(HasSubstr(at("to", "host-sync"))));
  EXPECT_THAT(f, HasSubstr(at("nonzero", "work [at::nonzero] on current r=y w=nz in fn\n") +
                               at("nonzero", "host-sync [at::nonzero] on current sync=4")));
}

TEST_F(TorchLowering, SetCurrentStreamOpensARegionUntilReset) {
  std::string f = s->function("ext.cu", "set_current");
  EXPECT_THAT(f, HasSubstr(at("in-set", "work [at::Tensor::add] on side:side r=x w=z in region(side:side)\n")));
  EXPECT_THAT(f, HasSubstr(at("after-set", "work [at::Tensor::mul] on current r=x w=w in fn\n")));
  // Reassignment releases the previous value before the new one is produced.
  EXPECT_THAT(f, HasSubstr(at("reassign", "free [Tensor::operator=] on current v=z in fn\n") +
                               at("reassign", "work [at::Tensor::mul] on current r=x w=z in fn\n")));
  EXPECT_THAT(f, HasSubstr(at("set-end", "free [~Tensor] on current v=w in fn\n") +
                               at("set-end", "free [~Tensor] on current v=z in fn\n")));
}

TEST_F(TorchLowering, OptionalGuardAndInPlaceOps) {
  std::string f = s->function("ext.cu", "optional_guard");
  EXPECT_THAT(f, HasSubstr(at("inplace", "work [at::Tensor::mul_] on unknown:s r=x w=x in region(unknown:s)\n")));
}

}  // namespace
