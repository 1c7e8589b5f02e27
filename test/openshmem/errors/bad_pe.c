/* An RMA call to a PE outside the job ends the job, naming the call. */
#include <shmem.h>

int main(void) {
  shmem_init();
  int *x = shmem_malloc(sizeof(int));
  shmem_int_p(x, 1, shmem_n_pes());
  shmem_finalize();
  return 0;
}
