// kernels/cuda/collectives.cu - AllGather, ReduceScatter and AllReduce on the cuda backend: the
// build of collectives_body.cuh that this job runs.
//
// The device trace's hooks (tdist/device/trace.cuh) are a branch on the device state's buffer
// when the job is not traced, and yet they cost: the hooks' code changes how the compiler
// schedules and allocates the kernels around them, and these are latency-bound kernels. Graph-
// replayed all_reduce at 2 PEs on one H200 measured 2-8 % slower with the hooks present and off
// than with them compiled out (docs/BENCHMARKS.md, "Cost of tracing"). So the collectives are
// compiled twice, and a job that is not traced runs the build without hooks.
#include "kernels/cuda/bodies.h"
#include "kernels/cuda/collectives_flavors.h"
#include "tdist/cuda.h"
#include "tdist/trace.h"

namespace tdist::kernels::cuda {
namespace {

// A traced call's span on its stream (the context's, else the PE's).
struct CallSpan : tdist::cuda::StreamSpan {
  CallSpan(Context &ctx, const char *name)
      : StreamSpan(ctx.stream() != nullptr ? static_cast<cudaStream_t>(ctx.stream()) : tdist::cuda::stream(),
                   tdist::trace::Category::Call, name) {}
};

}  // namespace

void allGather(Context &ctx, const AllGatherCall &call) {
  if (tdist::trace::active()) {
    CallSpan span(ctx, "all_gather");
    return traced::allGather(ctx, call);
  }
  untraced::allGather(ctx, call);
}

void reduceScatter(Context &ctx, const ReduceScatterCall &call) {
  if (tdist::trace::active()) {
    CallSpan span(ctx, "reduce_scatter");
    return traced::reduceScatter(ctx, call);
  }
  untraced::reduceScatter(ctx, call);
}

void allReduce(Context &ctx, const AllReduceCall &call) {
  if (tdist::trace::active()) {
    CallSpan span(ctx, "all_reduce");
    return traced::allReduce(ctx, call);
  }
  untraced::allReduce(ctx, call);
}

}  // namespace tdist::kernels::cuda
