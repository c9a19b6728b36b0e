// Control flow in the C++ lowering: clang::CFG blocks on events, and the model's queries on
// them (dominates, mayFollow, alwaysRuns) and the call summaries built from them.
#include <gmock/gmock.h>

#include "LoweringFixture.h"
#include "model/StreamModel.h"

using sl::test::Snippets;

namespace {

const char* kFlow = R"(#include <cuda_runtime.h>
#include <stdexcept>
[[noreturn]] void fail(const char* why);
void early(cudaStream_t s, bool skip) {
  if (skip) return;
  cudaStreamSynchronize(s);  // @early-sync
}
void joined(float* d, cudaStream_t s, bool zero) {
  if (zero) cudaMemsetAsync(d, 0, 4, s);  // @joined-then
  cudaStreamSynchronize(s);  // @joined-sync
}
void checked(cudaStream_t s, int n) {
  if (n < 0) throw std::runtime_error("n");
  if (n > 1000) fail("too big");
  cudaStreamSynchronize(s);  // @checked-sync
}
void exclusive(float* d, bool a, cudaStream_t s) {
  if (a) {
    cudaMemsetAsync(d, 0, 4, s);  // @then
  } else {
    cudaMemsetAsync(d, 1, 4, s);  // @else
  }
  cudaDeviceSynchronize();  // @after
}
void loop(float* d, int n, cudaStream_t s) {
  for (int i = 0; i < n; ++i) {
    cudaMemsetAsync(d, 0, 4, s);  // @loop-first
    cudaStreamSynchronize(s);  // @loop-second
  }
}
void caller_early(cudaStream_t s) { early(s, false); }
void caller_checked(cudaStream_t s) { checked(s, 1); }
void caller_maybe(cudaStream_t s, bool b) { if (b) checked(s, 1); }
)";

class Flow : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s = new Snippets("flow");
    s->add("flow.cu", kFlow);
    s->analyze();
    ASSERT_EQ(s->result().modules.size(), 1u);
  }
  static void TearDownTestSuite() { delete s; }
  static const sl::model::Function& fn(const std::string& name) {
    const sl::model::Function* f = s->result().modules[0].find(name);
    if (!f) throw std::runtime_error("no function " + name);
    return *f;
  }
  // The index of the event on the marked line (the first, or the one of `kind`).
  static size_t event(const sl::model::Function& f, const char* marker) {
    unsigned line = s->line("flow.cu", marker);
    for (size_t i = 0; i < f.events.size(); ++i)
      if (f.events[i].loc.line == line) return i;
    ADD_FAILURE() << "no event at @" << marker;
    return f.events.size();
  }
  static Snippets* s;
};
Snippets* Flow::s = nullptr;

TEST_F(Flow, EveryFunctionGetsAGraphAndEveryCallABlock) {
  for (const char* name : {"early", "joined", "checked", "exclusive", "loop"}) {
    const auto& f = fn(name);
    EXPECT_FALSE(f.flow.empty()) << name;
    for (const auto& e : f.events) EXPECT_GE(e.block, 0) << name << ":" << e.loc.line;
  }
}

TEST_F(Flow, AnEarlyReturnSkipsWhatFollowsItButAThrowDoesNot) {
  EXPECT_FALSE(sl::model::alwaysRuns(fn("early"), event(fn("early"), "early-sync")));
  EXPECT_TRUE(sl::model::alwaysRuns(fn("joined"), event(fn("joined"), "joined-sync")));
  EXPECT_FALSE(sl::model::alwaysRuns(fn("joined"), event(fn("joined"), "joined-then")));
  // Paths that throw or call a noreturn function never return: the sync is on every one that does.
  EXPECT_TRUE(sl::model::alwaysRuns(fn("checked"), event(fn("checked"), "checked-sync")));
}

TEST_F(Flow, ExclusiveBranchesCannotFollowEachOther) {
  const auto& f = fn("exclusive");
  size_t then = event(f, "then"), other = event(f, "else"), after = event(f, "after");
  EXPECT_FALSE(sl::model::mayFollow(f, then, other));
  EXPECT_TRUE(sl::model::mayFollow(f, then, after));
  EXPECT_TRUE(sl::model::mayFollow(f, other, after));
  EXPECT_FALSE(sl::model::dominates(f, then, after));
  EXPECT_TRUE(sl::model::alwaysRuns(f, after));
}

TEST_F(Flow, ALoopBodyRunsAgainAfterItself) {
  const auto& f = fn("loop");
  size_t first = event(f, "loop-first"), second = event(f, "loop-second");
  EXPECT_TRUE(sl::model::dominates(f, first, second));
  EXPECT_TRUE(sl::model::mayFollow(f, second, first));  // the next iteration
  EXPECT_FALSE(sl::model::alwaysRuns(f, first));        // zero iterations
}

TEST_F(Flow, CallSummariesCountOnlyWhatRunsOnEveryPath) {
  sl::model::ModuleSummary sum(s->result().modules[0]);
  ASSERT_NE(sum.of("early"), nullptr);
  EXPECT_EQ(sum.of("early")->sync, nullptr);  // after `if (skip) return;`
  EXPECT_NE(sum.of("joined")->sync, nullptr);
  EXPECT_NE(sum.of("checked")->sync, nullptr);
  EXPECT_EQ(sum.of("caller_early")->sync, nullptr);
  EXPECT_NE(sum.of("caller_checked")->sync, nullptr);
  EXPECT_EQ(sum.of("caller_maybe")->sync, nullptr);  // the call itself is conditional
  EXPECT_TRUE(sum.of("joined")->gpuWork);  // work on some path still counts (may-fact)
}

}  // namespace
