// test/integration/pe/ring.h - neighbours of this PE on the ring of all PEs.
#pragma once

#include "tdist/shmem.h"

namespace tdist::testing {

inline int next(int pe) { return (pe + 1) % shmem::n_pes(); }
inline int prev(int pe) { return (pe + shmem::n_pes() - 1) % shmem::n_pes(); }

}  // namespace tdist::testing
