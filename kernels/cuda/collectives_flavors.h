// kernels/cuda/collectives_flavors.h - the two builds of the cuda collectives (collectives.cu).
#pragma once

#include "kernels/backend.h"

namespace tdist::kernels::cuda {

#define TDIST_CUDA_COLLECTIVES_DECLARATIONS            \
  void allGather(Context &ctx, const AllGatherCall &call);         \
  void reduceScatter(Context &ctx, const ReduceScatterCall &call); \
  void allReduce(Context &ctx, const AllReduceCall &call);

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
