// test/kernels/delay.cpp - holdBack on every backend (the cuda kernel is in delay_cuda.cu).
#include "test/kernels/delay.h"

#include <string>

namespace tdist::kernels::testing {

#ifdef TDIST_KERNEL_TESTS_HAVE_CUDA
void spinOnStream(void *stream, std::chrono::microseconds delay);  // delay_cuda.cu
#endif

void holdBack(Context &ctx, std::chrono::microseconds delay) {
#ifdef TDIST_KERNEL_TESTS_HAVE_CUDA
  if (ctx.backend() == "cuda") return spinOnStream(ctx.stream(), delay);
#endif
  const auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace tdist::kernels::testing
