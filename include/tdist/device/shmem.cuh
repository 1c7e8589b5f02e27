// tdist/device/shmem.cuh - the whole device library of the cuda backend, for CUDA C++ kernels.
//
// One include gives a kernel every primitive in namespace tdist::device: the `dl` primitives
// (dl.cuh), signals and waits (signal.cuh), one-sided transfers (rma.cuh), atomics (atomic.cuh)
// and barriers (team.cuh). Everything is header-only and __forceinline__, so a kernel needs
// neither -rdc nor a device library to link; each translation unit holds its own copy of the
// device state, which the runtime fills at init (state.cuh).
//
// Memory order, as on every backend: signal SET is a release store, ADD a release reduction, waits
// spin on acquire loads with a deadline, remote atomics are acq_rel, quiet/fence are fence.sc; all
// at system scope, or at GPU scope when every PE of the job runs on this GPU (ptx.cuh). The enums are the host API's: tdist::shmem::SignalOp and Cmp (tdist/shmem.h),
// tdist::dl::SignalOp and Token (tdist/dl.h).
#pragma once

#include "tdist/device/state.cuh"
#include "tdist/device/ptx.cuh"
#include "tdist/device/wait.cuh"
#include "tdist/device/dl.cuh"
#include "tdist/device/signal.cuh"
#include "tdist/device/rma.cuh"
#include "tdist/device/atomic.cuh"
#include "tdist/device/team.cuh"
