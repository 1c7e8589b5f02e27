/* A wait that nothing satisfies ends at the wait deadline with what it waited for. */
#include <shmem.h>

int main(void) {
  shmem_init();
  long *flag = shmem_calloc(1, sizeof(long));
  shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
  shmem_finalize();
  return 0;
}
