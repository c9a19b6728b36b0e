#pragma once
#ifndef DEMO_CONFIGURED
#error "built without the project's flags"
#endif
#include <cuda_runtime.h>

void run_pipeline(const float* host, float* out, int n, int steps);
void run_per_thread(float* d, float* e, int n);
void stage_host(int n);
