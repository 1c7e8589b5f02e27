/* PEs that call a reduction with different sizes fail alike, each naming every PE's call. */
#include <shmem.h>

int main(void) {
  shmem_init();
  int *v = shmem_calloc(8, sizeof(int));
  int rc = shmem_int_sum_reduce(SHMEM_TEAM_WORLD, v, v, shmem_my_pe() == 0 ? 4 : 8);
  /* the reduction's error is its return code: end the job with it */
  shmem_global_exit(rc != 0 ? 3 : 0);
  return 0;
}
