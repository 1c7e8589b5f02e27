// kernels/cuda/collectives_untraced.cu - the cuda collectives without the device trace's hooks,
// run by every job that is not traced (collectives.cu).
#undef TDIST_DEVICE_TRACE
#define TDIST_DEVICE_TRACE 0
#define TDIST_COLLECTIVES_FLAVOR untraced
#include "kernels/cuda/collectives_body.cuh"
