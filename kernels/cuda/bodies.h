// kernels/cuda/bodies.h - the cuda backend's bodies (kernels/cuda/*.cu), the entries of its table
// (kernels/cuda/backend.cpp). Their epoch is the device's (kernels/cuda/common.cuh).
#pragma once

#include "kernels/backend.h"

namespace tdist::kernels::cuda {

TDIST_KERNEL_BODIES

// Frees what the GEMM bodies keep per (device, stream): called when the last Context is destroyed.
void releaseLanes();

}  // namespace tdist::kernels::cuda
