/* An active set that is neither the world nor a team cannot be synchronized: a clear error. */
#include <shmem.h>

static long psync[SHMEM_BARRIER_SYNC_SIZE];

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  if (me == 0) shmem_barrier_all();  /* ended by the others' error */
  else shmem_barrier(1, 0, n - 1, psync);
  shmem_finalize();
  return 0;
}
