/* Clearing a lock this PE does not hold is an error. */
#include <shmem.h>

int main(void) {
  shmem_init();
  long *lock = shmem_calloc(1, sizeof(long));
  shmem_clear_lock(lock);
  shmem_finalize();
  return 0;
}
