// Workers with deep stacks, and a clear error instead of a crash when even that is not enough.
// The Python lowering recurses over the syntax tree: legal code such as a 33,000-long attribute
// chain or a 28,000-long chained assignment overflowed the 8 MiB default stack (issue 17). Each
// worker gets 512 MiB of stack (address space; only touched pages cost memory), and if a file
// still exhausts it, a SIGSEGV handler on an alternate stack names the file being analysed and
// exits 2. A fault that is not a stack overflow is left to crash as it would.
// STREAMLINT_STACK_MB overrides the stack size (tests use it to reach the message).
#pragma once
#include <functional>
#include <string>

namespace sl {

// Runs `work` on `threads` threads with deep stacks and waits for them. One thread asked for
// from a thread that already has a deep stack runs `work` right there: a caller that is itself
// a deep-stack worker (the fuzz target runs each input in one) starts no thread per stage.
void runOnDeepStacks(unsigned threads, const std::function<void()>& work);

// Names the input the calling thread is working on, for the overflow message (a path that
// outlives the call; nullptr: none).
void setCurrentInput(const std::string* path);

}  // namespace sl
