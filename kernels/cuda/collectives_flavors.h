// kernels/cuda/collectives_flavors.h - the two builds of the cuda collectives (collectives.cu).
#pragma once

#include <cstdint>

#include "tdist/kernels/collectives.h"

namespace tdist::kernels::cuda {

#define TDIST_CUDA_COLLECTIVES_DECLARATIONS                                                              \
  void allGather(Context &ctx, const Tensor &input, Tensor &output, const AllGatherConfig &config,      \
                 std::uint64_t epoch);                                                                   \
  void reduceScatter(Context &ctx, const Tensor &input, Tensor &output, const ReduceScatterConfig &config, \
                     std::uint64_t epoch);                                                               \
  void allReduce(Context &ctx, const Tensor &input, Tensor &output, AllReduceAlgorithm algorithm,      \
                 const AllReduceConfig &config, std::uint64_t epoch);

// With the device trace's hooks (tdist/device/trace.cuh): what a traced job runs.
namespace traced {
TDIST_CUDA_COLLECTIVES_DECLARATIONS
}
// Without them (TDIST_DEVICE_TRACE=0): what every other job runs.
namespace untraced {
TDIST_CUDA_COLLECTIVES_DECLARATIONS
}

#undef TDIST_CUDA_COLLECTIVES_DECLARATIONS

}  // namespace tdist::kernels::cuda
