/* Many threads, some short-lived (their rings are recycled), all calling CUDA: every call must be
 * either in the log or counted as dropped — never silently lost. Prints the number of calls. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>

enum { kLong = 6, kCallsLong = 20000, kShort = 60, kCallsShort = 50 };

static void* worker(void* arg) {
  long n = (long)arg;
  for (long i = 0; i < n; ++i) cudaStreamQuery(0);
  return NULL;
}

int main(void) {
  pthread_t t[kLong];
  for (int i = 0; i < kLong; ++i) pthread_create(&t[i], NULL, worker, (void*)(long)kCallsLong);
  for (int i = 0; i < kShort; ++i) { /* thread churn, as DataLoader pin-memory threads do */
    pthread_t s;
    pthread_create(&s, NULL, worker, (void*)(long)kCallsShort);
    pthread_join(s, NULL);
  }
  for (int i = 0; i < kLong; ++i) pthread_join(t[i], NULL);
  printf("calls=%d\n", kLong * kCallsLong + kShort * kCallsShort);
  return 0;
}
