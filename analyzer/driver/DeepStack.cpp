#include "driver/DeepStack.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace sl {
namespace {

constexpr size_t kStackBytes = 512u << 20;
constexpr size_t kAltStackBytes = 64u << 10;

thread_local const std::string* t_input = nullptr;
thread_local uintptr_t t_stackLow = 0, t_stackHigh = 0;

void writeStr(const char* s) {
  ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

void onSegv(int sig, siginfo_t* info, void*) {
  auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  // A fault just below (or inside the guard of) this worker's stack is the stack running out.
  bool overflow = t_stackLow && addr + (1u << 20) >= t_stackLow && addr < t_stackHigh;
  if (overflow && t_input) {
    writeStr(t_input->c_str());
    writeStr(": error: nested too deeply to analyse (the analysis ran out of stack); no result for any file [input-error]\n");
    ::_exit(2);
  }
  // Anything else is a real crash: the default action, with its core dump.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = onSegv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
  });
}

void* threadMain(void* arg) {
  const auto* work = static_cast<const std::function<void()>*>(arg);
  std::vector<char> alt(kAltStackBytes);
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  sigaltstack(&ss, nullptr);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &low, &size);
    t_stackLow = reinterpret_cast<uintptr_t>(low);
    t_stackHigh = t_stackLow + size;
    pthread_attr_destroy(&attr);
  }
  (*work)();
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
  t_stackLow = t_stackHigh = 0;
  return nullptr;
}

}  // namespace

void setCurrentInput(const std::string* path) { t_input = path; }

void runOnDeepStacks(unsigned threads, const std::function<void()>& work) {
  installHandler();
  if (threads <= 1 && t_stackLow) {  // already on a deep stack, with the handler's alternate stack
    work();
    return;
  }
  std::vector<pthread_t> pool;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // STREAMLINT_STACK_MB: a smaller stack, so that a test can reach the overflow message.
  size_t stack = kStackBytes;
  if (const char* mb = std::getenv("STREAMLINT_STACK_MB"); mb && std::atoi(mb) > 0) stack = size_t(std::atoi(mb)) << 20;
  pthread_attr_setstacksize(&attr, stack);
  for (unsigned j = 0; j < std::max(1u, threads); ++j) {
    pthread_t t;
    if (pthread_create(&t, &attr, threadMain, const_cast<std::function<void()>*>(&work)) == 0) pool.push_back(t);
  }
  pthread_attr_destroy(&attr);
  if (pool.empty()) work();  // no thread could start (address space): the caller's stack
  for (auto t : pool) pthread_join(t, nullptr);
}

}  // namespace sl
