/* Setup, queries and the symmetric heap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(void) {
  int provided = -1;
  CHECK(shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided) == 0, "init_thread failed");
  CHECK(provided == SHMEM_THREAD_FUNNELED, "provided %d", provided);
  shmem_query_thread(&provided);
  CHECK(provided == SHMEM_THREAD_FUNNELED, "query_thread gave %d", provided);

  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(n >= 1 && me >= 0 && me < n, "my_pe %d of %d", me, n);
  CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == n, "world team");
  CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == n, "shared team has %d PEs", shmem_team_n_pes(SHMEM_TEAM_SHARED));
  CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "invalid team's my_pe");

  int major = 0, minor = 0;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_version(&major, &minor);
  shmem_info_get_name(name);
  CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 && minor == 5, "%d.%d", major, minor);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name '%s'", name);

  for (int pe = 0; pe < n; ++pe) CHECK(shmem_pe_accessible(pe) == 1, "PE %d not accessible", pe);
  CHECK(shmem_pe_accessible(n) == 0 && shmem_pe_accessible(-1) == 0, "PEs outside the job are accessible");

  long *block = shmem_malloc(64 * sizeof(long));
  CHECK(block != NULL, "malloc");
  long on_stack = 0;
  CHECK(shmem_addr_accessible(block, next_pe()) == 1, "heap block not accessible");
  CHECK(shmem_addr_accessible(&on_stack, next_pe()) == 0, "a stack address is accessible");
  CHECK(shmem_addr_accessible(block, n) == 0, "an address on a PE outside the job is accessible");

  /* shmem_ptr: every PE of one host shares memory: a store through it is a put. A PE reached
   * through the network alone (TDIST_TRANSPORT=ucx, as if on another host) has no pointer. */
  const char *transport = getenv("TDIST_TRANSPORT");
  const char *nodes = getenv("TDIST_N_NODES");
  const int per_node = n / (nodes != NULL ? atoi(nodes) : 1);
  const int network = next_pe() != me && ((transport != NULL && strcmp(transport, "ucx") == 0) ||
                                          next_pe() / per_node != me / per_node);
  long *peer = shmem_ptr(block, next_pe());
  CHECK(network ? peer == NULL : peer != NULL, "shmem_ptr of a heap block is %p", (void *)peer);
  CHECK(shmem_ptr(&on_stack, next_pe()) == NULL, "shmem_ptr of a stack address");
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, block, me) == block, "team_ptr to myself");
  if (network) shmem_long_p(block, 1000 + me, next_pe());
  else peer[0] = 1000 + me;
  shmem_barrier_all();
  CHECK(block[0] == 1000 + prev_pe(), "store through shmem_ptr: %ld", block[0]);

  int *zeroed = shmem_calloc(100, sizeof(int));
  CHECK(zeroed != NULL, "calloc");
  for (int i = 0; i < 100; ++i) CHECK(zeroed[i] == 0, "calloc'ed [%d] = %d", i, zeroed[i]);

  void *aligned = shmem_align(4096, 100);
  CHECK(aligned != NULL && ((uintptr_t)aligned % 4096) == 0, "align: %p", aligned);

  for (int i = 0; i < 64; ++i) block[i] = me * 100 + i;
  long *grown = shmem_realloc(block, 4096 * sizeof(long));
  CHECK(grown != NULL, "realloc");
  for (int i = 0; i < 64; ++i) CHECK(grown[i] == me * 100 + i, "realloc lost [%d] = %ld", i, grown[i]);
  grown[4095] = me;
  shmem_barrier_all();
  CHECK(shmem_long_g(grown + 4095, next_pe()) == next_pe(), "the grown block is symmetric");

  void *hinted = shmem_malloc_with_hints(256, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
  CHECK(hinted != NULL, "malloc_with_hints");
  CHECK(shmem_malloc(0) == NULL, "malloc(0)");

  shmem_free(hinted);
  shmem_free(aligned);
  shmem_free(zeroed);
  shmem_free(grown);
  shmem_free(NULL);
  CHECK(shmem_realloc(NULL, 128) != NULL, "realloc(NULL) allocates");
  shmem_finalize();
  return 0;
}
