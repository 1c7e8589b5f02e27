// kernels/cuda/collectives_traced.cu - the cuda collectives with the device trace's hooks, run
// by a traced job (collectives.cu). A build with TDIST_DEVICE_TRACE=0 compiles them out here too.
#ifndef TDIST_DEVICE_TRACE
#define TDIST_DEVICE_TRACE 1
#endif
#define TDIST_COLLECTIVES_FLAVOR traced
#include "kernels/cuda/collectives_body.cuh"
