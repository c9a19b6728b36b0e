// Where each thread came from (slog::ThreadRecord). pthread_create is wrapped so that a thread
// started while the recorder runs knows the thread and the user's Python line that started it:
// a DataLoader's pin-memory thread then points at `for batch in loader:`, NCCL's watchdog at
// `init_process_group(...)`, although none of their own frames is the user's. The report places
// such threads' calls there (analyzer/runtime/Timeline.cpp).
#pragma once
#include "Recorder.h"

namespace sl::ip {

// Writes this thread's ThreadRecord into `ts`, its fresh ring (threadStateSlow).
void recordThreadStart(ThreadState* ts);

}  // namespace sl::ip
