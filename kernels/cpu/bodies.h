// kernels/cpu/bodies.h - the cpu backend's bodies (kernels/cpu/*.cpp), the entries of its table
// (kernels/cpu/backend.cpp), and its epoch.
#pragma once

#include <cstdint>

#include "kernels/backend.h"

namespace tdist::kernels::cpu {

// The epoch of a call, or of a round of one: the context's next, taken by every PE alike. Signals
// written with it are SET to it; a waiter accepts it or any later one, so nothing is reset.
std::uint64_t nextEpoch(Context &ctx);

TDIST_KERNEL_BODIES

}  // namespace tdist::kernels::cpu
