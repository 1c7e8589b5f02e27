/* A standard OpenSHMEM program whose every printed line is determined by the PE count: the same
 * source built with two implementations must print the same lines (in any order). Each PE prints
 * "PE <me>: <what> <values>" for RMA, atomics, point-to-point waits, collectives on the world
 * (as an active set) and static data. It keeps to what OpenSHMEM 1.4 already had (and 1.5 keeps),
 * so that Open MPI's implementation (1.4) runs it too: the *_to_all reductions and the sized
 * broadcast/collect/alltoall with pSync and pWrk, no teams, no put-with-signal. */
#include <shmem.h>
#include <stdio.h>

#define N 8
#define MAX(a, b) ((a) > (b) ? (a) : (b))

long global_words[N]; /* static data */
int global_flag;
long psync[SHMEM_REDUCE_SYNC_SIZE];        /* one per kind of collective, each reused after a barrier */
long psync_bcast[SHMEM_BCAST_SYNC_SIZE];
long psync_alltoall[SHMEM_ALLTOALL_SYNC_SIZE];
long lwork[MAX(N / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)];
double dwork[MAX(N / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)];

static void line(const char *what, const long *v, int count) {
  char text[512];
  int at = snprintf(text, sizeof text, "PE %d: %s", shmem_my_pe(), what);
  for (int i = 0; i < count && at < (int)sizeof text - 24; ++i) at += snprintf(text + at, sizeof text - at, " %ld", v[i]);
  printf("%s\n", text);
  fflush(stdout);
}

static void dline(const char *what, const double *v, int count) {
  long as_long[N];
  for (int i = 0; i < count; ++i) as_long[i] = (long)(v[i] * 1000.0);
  line(what, as_long, count);
}

/* A barrier after each collective: its pSync may be used again, and its dest read. */
static void between(void) { shmem_barrier_all(); }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  long *src = shmem_calloc(N * n, sizeof(long));
  long *dst = shmem_calloc(N * n, sizeof(long));
  long *counter = shmem_calloc(1, sizeof(long));
  int *flag = shmem_calloc(1, sizeof(int));
  double *dsrc = shmem_calloc(N, sizeof(double));
  double *ddst = shmem_calloc(N, sizeof(double));
  for (int i = 0; i < N * n; ++i) src[i] = 100 * me + i;
  for (int i = 0; i < N; ++i) dsrc[i] = me + 0.25 * i;
  for (size_t i = 0; i < sizeof psync / sizeof psync[0]; ++i) psync[i] = SHMEM_SYNC_VALUE;
  for (size_t i = 0; i < sizeof psync_bcast / sizeof psync_bcast[0]; ++i) psync_bcast[i] = SHMEM_SYNC_VALUE;
  for (size_t i = 0; i < sizeof psync_alltoall / sizeof psync_alltoall[0]; ++i) psync_alltoall[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();

  /* RMA */
  shmem_long_put(dst, src, N, next);
  shmem_barrier_all();
  line("put from prev", dst, N);
  long got[N];
  shmem_long_get(got, src, N, next);
  line("get from next", got, N);
  long strided[N / 2];
  shmem_long_iget(strided, src, 1, 2, N / 2, prev);
  line("iget stride 2 from prev", strided, N / 2);
  long g = shmem_long_g(src + 3, next);
  line("g src[3] of next", &g, 1);
  shmem_barrier_all();

  /* atomics: the final values only (the order of fetches depends on timing) */
  shmem_long_atomic_add(counter, me + 1, 0);
  shmem_long_atomic_inc(counter, 0);
  shmem_barrier_all();
  long total = shmem_long_atomic_fetch(counter, 0);
  line("counter on PE 0", &total, 1);
  shmem_barrier_all();
  if (me == 0) {
    long old = shmem_long_atomic_compare_swap(counter, total, -5, 0);
    long now = shmem_long_atomic_fetch(counter, 0);
    long v[2] = {old, now};
    line("compare_swap old now", v, 2);
  }
  shmem_barrier_all();

  /* point-to-point: a flag set by the previous PE after its data */
  shmem_long_put(dst, src, N, next);
  shmem_fence();
  shmem_int_p(flag, me + 1, next);
  shmem_int_wait_until(flag, SHMEM_CMP_EQ, prev + 1);
  long f = *flag;
  line("flag from prev", &f, 1);
  line("data before the flag", dst, N);
  shmem_barrier_all();

  /* static data */
  shmem_long_put(global_words, src, N, next);
  shmem_int_p(&global_flag, 1, next);
  shmem_barrier_all();
  line("global_words from prev", global_words, N);
  long gf = global_flag;
  line("global_flag", &gf, 1);
  shmem_barrier_all();

  /* collectives on the world (active set 0, 0, n) */
  shmem_long_sum_to_all(dst, src, N, 0, 0, n, lwork, psync);
  between();
  line("sum_to_all", dst, N);
  shmem_long_max_to_all(dst, src, N, 0, 0, n, lwork, psync);
  between();
  line("max_to_all", dst, N);
  shmem_long_min_to_all(dst, src, N, 0, 0, n, lwork, psync);
  between();
  line("min_to_all", dst, N);
  shmem_long_xor_to_all(dst, src, N, 0, 0, n, lwork, psync);
  between();
  line("xor_to_all", dst, N);
  shmem_double_sum_to_all(ddst, dsrc, N, 0, 0, n, dwork, psync);
  between();
  dline("double sum_to_all x1000", ddst, N);
  shmem_double_prod_to_all(ddst, dsrc, N, 0, 0, n, dwork, psync);
  between();
  dline("double prod_to_all x1000", ddst, N);
  shmem_broadcast64(dst, src, N, n - 1, 0, 0, n, psync_bcast);
  between();
  line("broadcast64 from the last PE (the root's dest is not written)", dst, me == n - 1 ? 0 : N);
  /* No shmem_fcollect64 or shmem_collect64 here: in this program Open MPI 4.1.4's returned other
   * PEs' blocks from wrong offsets at 3 and 4 PEs (tdist's are checked in collectives_test.c). */
  shmem_alltoall64(dst, src, 2, 0, 0, n, psync_alltoall);
  between();
  line("alltoall64 2 each", dst, 2 * n);

  shmem_barrier_all();

  shmem_free(ddst);
  shmem_free(dsrc);
  shmem_free(flag);
  shmem_free(counter);
  shmem_free(dst);
  shmem_free(src);
  shmem_finalize();
  return 0;
}
