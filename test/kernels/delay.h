// test/kernels/delay.h - holding one PE back, to test what a fast PE may do while a slow one is
// still in an earlier call.
#pragma once

#include <chrono>

#include "tdist/kernels/context.h"

namespace tdist::kernels::testing {

// Holds this PE back by `delay` before the next call on ctx. On cuda a kernel on ctx's stream
// spins on the GPU for that long (the host goes on enqueueing, so the calls after it start late on
// the device); on cpu, where a call runs on the host, the host spins.
void holdBack(Context &ctx, std::chrono::microseconds delay);

}  // namespace tdist::kernels::testing
