/* Put-with-signal (typed, sized, bytes; blocking and _nbi; SET and ADD; contexts), signal_fetch
 * and signal_wait_until on uint64_t signals. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { N = 16 };

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), to = next_pe(), from = prev_pe();
  int *data = shmem_calloc(8 * N, sizeof(int));
  uint64_t *sig = shmem_calloc(8, sizeof(uint64_t));
  int mine[N];
  for (int i = 0; i < N; ++i) mine[i] = me * 1000 + i;
  shmem_barrier_all();

  /* SET: the data is there when the signal is */
  shmem_int_put_signal(data, mine, N, sig, 1, SHMEM_SIGNAL_SET, to);
  CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1) == 1, "signal_wait_until returns the value");
  for (int i = 0; i < N; ++i) CHECK(data[i] == from * 1000 + i, "int_put_signal [%d] = %d", i, data[i]);

  /* ADD from every PE onto PE 0's counter, with the bytes, sized and nbi forms */
  shmem_putmem_signal(data + N + me, mine, sizeof(int), sig + 1, 1, SHMEM_SIGNAL_ADD, 0);
  shmem_put32_signal(data + 2 * N + me, mine + 1, 1, sig + 1, 2, SHMEM_SIGNAL_ADD, 0);
  shmem_putmem_signal_nbi(data + 3 * N + me, mine + 2, sizeof(int), sig + 1, 3, SHMEM_SIGNAL_ADD, 0);
  shmem_ctx_int_put_signal_nbi(SHMEM_CTX_DEFAULT, data + 4 * N + me, mine + 3, 1, sig + 1, 4, SHMEM_SIGNAL_ADD, 0);
  shmem_put_signal(data + 5 * N + me, mine + 4, 1, sig + 1, 10, SHMEM_SIGNAL_ADD, 0);  /* C11 generic */
  shmem_quiet();
  if (me == 0) {
    const uint64_t total = 20u * (uint64_t)n;
    CHECK(shmem_signal_wait_until(sig + 1, SHMEM_CMP_GE, total) == total, "ADD signals");
    for (int p = 0; p < n; ++p) {
      for (int k = 0; k < 5; ++k) CHECK(data[(k + 1) * N + p] == p * 1000 + k, "signalled data of PE %d form %d", p, k);
    }
    CHECK(shmem_signal_fetch(sig + 1) == total, "signal_fetch");
  }
  shmem_barrier_all();

  /* Large puts with signals (across nodes UCX's put, fence and atomic): the data are there when
   * the signal is, and a blocking put's source may change as soon as it returns, a non-blocking
   * one's after quiet. */
  enum { kBig = 300000 }; /* 1.2 MB of ints */
  int *big = shmem_malloc(kBig * sizeof(int));
  int *source = malloc(kBig * sizeof(int));
  CHECK(big != NULL && source != NULL, "large put_signal buffers");
  for (int i = 0; i < kBig; ++i) source[i] = me * 7 + i;
  shmem_int_put_signal(big, source, kBig, sig + 3, 1, SHMEM_SIGNAL_SET, to);
  for (int i = 0; i < kBig; ++i) source[i] = -1;
  CHECK(shmem_signal_wait_until(sig + 3, SHMEM_CMP_EQ, 1) == 1, "large put_signal's signal");
  for (int i = 0; i < kBig; ++i) CHECK(big[i] == from * 7 + i, "large put_signal [%d] = %d", i, big[i]);
  shmem_barrier_all(); /* every PE has read its copy before the next put lands there */
  for (int i = 0; i < kBig; ++i) source[i] = me * 11 + i;
  shmem_int_put_signal_nbi(big, source, kBig, sig + 4, 2, SHMEM_SIGNAL_SET, to);
  shmem_quiet();
  for (int i = 0; i < kBig; ++i) source[i] = -2;
  CHECK(shmem_signal_wait_until(sig + 4, SHMEM_CMP_EQ, 2) == 2, "large put_signal_nbi's signal");
  for (int i = 0; i < kBig; ++i) CHECK(big[i] == from * 11 + i, "large put_signal_nbi [%d] = %d", i, big[i]);
  shmem_barrier_all();
  free(source);
  shmem_free(big);

  /* a context on the odd PEs: PE numbers are the team's */
  shmem_team_t odd = SHMEM_TEAM_INVALID;
  if (n >= 2) CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0, "split odd");
  if (odd != SHMEM_TEAM_INVALID) {
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(odd, 0, &ctx) == 0, "team_create_ctx");
    const int tme = shmem_team_my_pe(odd), tn = shmem_team_n_pes(odd);
    shmem_ctx_putmem_signal(ctx, data + 6 * N, mine, sizeof mine[0], sig + 2, (uint64_t)(tme + 5),
                            SHMEM_SIGNAL_SET, (tme + 1) % tn);
    const uint64_t expect = (uint64_t)((tme + tn - 1) % tn + 5);
    CHECK(shmem_signal_wait_until(sig + 2, SHMEM_CMP_EQ, expect) == expect, "ctx signal");
    CHECK(data[6 * N] == shmem_team_translate_pe(odd, (tme + tn - 1) % tn, SHMEM_TEAM_WORLD) * 1000,
          "ctx put_signal went to the team's PE");
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(odd);
  }
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(data);
  shmem_finalize();
  return 0;
}
