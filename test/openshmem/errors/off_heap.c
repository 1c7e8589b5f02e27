/* A put whose dest is not symmetric ends the job, naming the call and the argument. */
#include <shmem.h>

int main(void) {
  shmem_init();
  int local[4] = {0};
  int *source = shmem_malloc(sizeof local);
  shmem_int_put(local, source, 4, 0);
  shmem_finalize();
  return 0;
}
