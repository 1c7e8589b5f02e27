// kernels/cuda/collectives.cu - AllGather, ReduceScatter and AllReduce on the cuda backend: the
// build of collectives_body.cuh that this job runs.
//
// The device trace's hooks (tdist/device/trace.cuh) are a branch on the device state's buffer
// when the job is not traced, and yet they cost: the hooks' code changes how the compiler
// schedules and allocates the kernels around them, and these are latency-bound kernels. Graph-
// replayed all_reduce at 2 PEs on one H200 measured 2-8 % slower with the hooks present and off
// than with them compiled out (docs/BENCHMARKS.md, "Cost of tracing"). So the collectives are
// compiled twice, and a job that is not traced runs the build without hooks.
#include "kernels/bodies.h"
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

void allGather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,
               std::uint64_t epoch) {
  if (tdist::trace::active()) {
    CallSpan call(ctx, "all_gather");
    return traced::allGather(ctx, input, output, config, epoch);
  }
  untraced::allGather(ctx, input, output, config, epoch);
}

void reduceScatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config,
                   std::uint64_t epoch) {
  if (tdist::trace::active()) {
    CallSpan call(ctx, "reduce_scatter");
    return traced::reduceScatter(ctx, input, output, config, epoch);
  }
  untraced::reduceScatter(ctx, input, output, config, epoch);
}

void allReduce(Context &ctx, const Tensor &input, Tensor &output, AllReduceAlgorithm algorithm,
               const AllReduceConfig &config, std::uint64_t epoch) {
  if (tdist::trace::active()) {
    CallSpan call(ctx, "all_reduce");
    return traced::allReduce(ctx, input, output, algorithm, config, epoch);
  }
  untraced::allReduce(ctx, input, output, algorithm, config, epoch);
}

}  // namespace tdist::kernels::cuda
