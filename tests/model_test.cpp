#include <gtest/gtest.h>

#include "model/StreamModel.h"
#include "rules/RuleHelpers.h"

using namespace sl::model;

namespace {

// function: [0 root] -> [1 region on s] -> [2 loop]; [3 branch] under root
Function sample() {
  Function f;
  f.name = "f";
  f.scopes = {Scope{ScopeKind::Function, -1, {}, {}},
              Scope{ScopeKind::StreamRegion, 0, {2, 1}, StreamRef::side("s")},
              Scope{ScopeKind::Loop, 1, {3, 1}, {}},
              Scope{ScopeKind::Branch, 0, {5, 1}, {}}};
  auto ev = [&](EventKind k, int scope, uint32_t line) {
    Event e;
    e.kind = k;
    e.scope = scope;
    e.loc = {line, 1};
    e.stream = effectiveStream(f, scope);
    f.events.push_back(e);
  };
  ev(EventKind::Alloc, 0, 1);      // 0
  ev(EventKind::Wait, 1, 2);       // 1
  ev(EventKind::Work, 2, 3);       // 2
  ev(EventKind::HostSync, 3, 5);   // 3 (in a branch)
  ev(EventKind::Work, 0, 6);       // 4
  f.events[0].value = "x";
  f.events[2].writes = {"y"};
  f.events[2].reads = {"x"};
  return f;
}

}  // namespace

TEST(StreamModel, ScopesNestAndRegionsGiveTheirStream) {
  Function f = sample();
  EXPECT_TRUE(scopeWithin(f, 2, 1));
  EXPECT_FALSE(scopeWithin(f, 3, 1));
  EXPECT_EQ(enclosingSideRegion(f, 2), 1);
  EXPECT_EQ(enclosingSideRegion(f, 3), -1);
  EXPECT_EQ(effectiveStream(f, 2), StreamRef::side("s"));
  EXPECT_EQ(effectiveStream(f, 0).kind, StreamKind::Current);
}

TEST(StreamModel, RegionBackOnCurrentStreamEndsSideContext) {
  Function f = sample();
  f.scopes.push_back(Scope{ScopeKind::StreamRegion, 1, {}, StreamRef::current()});
  EXPECT_EQ(enclosingSideRegion(f, 4), -1);
}

TEST(StreamModel, DominanceIsStructural) {
  Function f = sample();
  EXPECT_TRUE(dominates(f, 0, 2));   // root event before a nested one
  EXPECT_FALSE(dominates(f, 3, 4));  // an event in a branch does not dominate later code
  EXPECT_FALSE(dominates(f, 2, 0));  // never backwards
}

TEST(StreamModel, ProducerAndSummaryPropagateThroughCalls) {
  Module m;
  m.functions.push_back(sample());
  Function caller;
  caller.name = "g";
  caller.scopes = {Scope{}};
  Event call;
  call.kind = EventKind::Call;
  call.callee = "f";
  caller.events.push_back(call);
  m.functions.push_back(caller);
  ModuleSummary s(m);
  ASSERT_NE(s.of("g"), nullptr);
  EXPECT_NE(s.of("g")->sync, nullptr);
  EXPECT_NE(s.of("g")->alloc, nullptr);
  EXPECT_EQ(s.of("nope"), nullptr);
  EXPECT_EQ(sl::rules::producerOf(m.functions[0], "x", 2), 0);
  EXPECT_EQ(sl::rules::producerOf(m.functions[0], "y", 5), 2);
  EXPECT_EQ(sl::rules::producerOf(m.functions[0], "z", 5), -1);
}
