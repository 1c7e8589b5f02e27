/* A PE that calls a collective on an active set it is not in: a clear error, and the job ends. */
#include <shmem.h>

static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  if (shmem_my_pe() == 0) shmem_barrier(1, 0, n - 1, psync);  /* PEs 1 .. n-1 only */
  else shmem_barrier_all();                                     /* ended by PE 0's error */
  shmem_finalize();
  return 0;
}
