/* Team misuse: the routines that return an error return it (nonzero, with the reason on
 * stderr); one that cannot ends the job. Exits 0 only if a misuse went unnoticed. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  shmem_team_t team = 12345;
  int failures = 0;
  if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &team) == 0) ++failures;
  if (team != SHMEM_TEAM_INVALID) ++failures;
  if (shmem_team_sync(SHMEM_TEAM_INVALID) == 0) ++failures;
  int *x = shmem_malloc(4 * sizeof(int));
  if (shmem_int_broadcast(SHMEM_TEAM_WORLD, x, x, 1, n) == 0) ++failures;
  if (shmem_team_my_pe(42) != -1) ++failures;
  if (failures != 0) {
    fprintf(stderr, "team_misuse: %d misuses went unnoticed\n", failures);
    shmem_global_exit(1);
  }
  fprintf(stderr, "team_misuse: every misuse was refused\n");
  shmem_team_destroy(SHMEM_TEAM_WORLD);
  shmem_finalize();
  return 0;
}
