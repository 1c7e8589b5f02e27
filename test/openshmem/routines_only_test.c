/* Every family of the API where only the routines touch symmetric memory: the program never loads
 * or stores a symmetric object itself, it reads results back with shmem_getmem from its own PE.
 * Such a program runs where the symmetric heap is not host memory (the cuda backend: GPU memory)
 * as it runs on the host. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int prev_of(int me, int n) { return (me + n - 1) % n; }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n, prev = prev_of(me, n);
  enum { kCount = 64 };

  /* calloc: zeroed by the runtime, seen through a get. */
  long *x = shmem_calloc(kCount, sizeof(long));
  CHECK(x != NULL, "calloc");
  long got[kCount];
  memset(got, 0xff, sizeof got);
  shmem_getmem(got, x, sizeof got, me);
  for (int i = 0; i < kCount; ++i) CHECK(got[i] == 0, "calloc'ed [%d] = %ld", i, got[i]);
  shmem_barrier_all(); /* every PE has seen its zeros before any PE puts */

  /* put, get, p, g. */
  long mine[kCount];
  for (int i = 0; i < kCount; ++i) mine[i] = me * 1000 + i;
  shmem_long_put(x, mine, kCount, next);
  shmem_barrier_all();
  shmem_long_get(got, x, kCount, me);
  for (int i = 0; i < kCount; ++i) CHECK(got[i] == prev * 1000 + i, "put [%d] = %ld", i, got[i]);
  CHECK(shmem_long_g(x + 5, next) == me * 1000 + 5, "g: %ld", shmem_long_g(x + 5, next));
  shmem_barrier_all();
  shmem_long_p(x + 7, -me, next);
  shmem_barrier_all();
  CHECK(shmem_long_g(x + 7, me) == -prev, "p: %ld", shmem_long_g(x + 7, me));

  /* iput: every other element, then iget them back in a row; put_nbi and get_nbi with quiet. */
  int *strided = shmem_calloc(2 * 16, sizeof(int));
  int row[16], back[16];
  for (int i = 0; i < 16; ++i) row[i] = me * 100 + i;
  shmem_int_iput(strided, row, 2, 1, 16, next);
  shmem_barrier_all();
  shmem_int_iget(back, strided, 1, 2, 16, me);
  for (int i = 0; i < 16; ++i) CHECK(back[i] == prev * 100 + i, "iput/iget [%d] = %d", i, back[i]);
  shmem_barrier_all();
  shmem_int_put_nbi(strided, row, 16, next);
  shmem_quiet();
  shmem_barrier_all();
  memset(back, 0, sizeof back);
  shmem_int_get_nbi(back, strided, 16, me);
  shmem_quiet();
  for (int i = 0; i < 16; ++i) CHECK(back[i] == prev * 100 + i, "put_nbi [%d] = %d", i, back[i]);

  /* Atomics: every PE adds me + 1 to PE 0's counter; compare-and-swap and swap on the next PE's. */
  long long *counter = shmem_calloc(2, sizeof(long long));
  shmem_longlong_atomic_add(counter, me + 1, 0);
  (void)shmem_longlong_atomic_fetch_inc(counter + 1, next);
  shmem_barrier_all();
  CHECK(shmem_longlong_atomic_fetch(counter, 0) == (long long)n * (n + 1) / 2, "add: %lld",
        shmem_longlong_atomic_fetch(counter, 0));
  CHECK(shmem_longlong_atomic_fetch(counter + 1, me) == 1, "fetch_inc: %lld", shmem_longlong_atomic_fetch(counter + 1, me));
  shmem_barrier_all();
  CHECK(shmem_longlong_atomic_compare_swap(counter + 1, 1, 10 + me, next) == 1, "compare_swap saw another value");
  shmem_barrier_all();
  CHECK(shmem_longlong_atomic_swap(counter + 1, 0, me) == 10 + prev, "swap");
  uint64_t *bits = shmem_calloc(1, sizeof(uint64_t));
  shmem_uint64_atomic_or(bits, (uint64_t)1 << (me % 64), 0);
  shmem_barrier_all();
  const uint64_t all = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
  CHECK(shmem_uint64_atomic_fetch(bits, 0) == all, "or: %llx", (unsigned long long)shmem_uint64_atomic_fetch(bits, 0));

  /* Signals: the data and its signal to the next PE, which waits for it on the host. */
  uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
  long *data = shmem_calloc(kCount, sizeof(long));
  shmem_barrier_all();
  shmem_long_put_signal(data, mine, kCount, sig, (uint64_t)(100 + me), SHMEM_SIGNAL_SET, next);
  CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)(100 + prev)) == (uint64_t)(100 + prev), "signal value");
  CHECK(shmem_signal_fetch(sig) == (uint64_t)(100 + prev), "signal_fetch");
  shmem_long_get(got, data, kCount, me);
  for (int i = 0; i < kCount; ++i) CHECK(got[i] == prev * 1000 + i, "put_signal [%d] = %ld", i, got[i]);

  /* Point-to-point: wait_until and wait_until_any on words that the previous PE sets. */
  int *flags = shmem_calloc(4, sizeof(int));
  shmem_barrier_all();
  shmem_int_atomic_set(flags + 2, 7, next);
  shmem_int_wait_until(flags + 2, SHMEM_CMP_EQ, 7);
  CHECK(shmem_int_test(flags + 2, SHMEM_CMP_GE, 7) == 1, "test after the wait");
  CHECK(shmem_int_test(flags + 1, SHMEM_CMP_NE, 0) == 0, "test of an untouched word");
  size_t index = shmem_int_wait_until_any(flags, 4, NULL, SHMEM_CMP_GT, 0);
  CHECK(index == 2, "wait_until_any gave %zu", index);

  /* Collectives on the world: broadcast from the last PE, fcollect, alltoall, a sum. */
  long *src = shmem_malloc(n * 4 * sizeof(long));
  long *dst = shmem_malloc(n * 4 * sizeof(long));
  long local[4 * 8];
  for (int i = 0; i < 4 * n && i < 4 * 8; ++i) local[i] = me * 100 + i;
  shmem_long_put(src, local, 4 * n, me);
  shmem_barrier_all();
  CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, n - 1) == 0, "broadcast");
  long seen[4 * 8];
  shmem_long_get(seen, dst, 4, me);
  for (int i = 0; i < 4; ++i) CHECK(seen[i] == (n - 1) * 100 + i, "broadcast [%d] = %ld", i, seen[i]);
  CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 4) == 0, "fcollect");
  shmem_long_get(seen, dst, 4 * n, me);
  for (int pe = 0; pe < n; ++pe)
    for (int i = 0; i < 4; ++i) CHECK(seen[pe * 4 + i] == pe * 100 + i, "fcollect [%d][%d] = %ld", pe, i, seen[pe * 4 + i]);
  CHECK(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 4) == 0, "alltoall");
  shmem_long_get(seen, dst, 4 * n, me);
  for (int pe = 0; pe < n; ++pe)
    for (int i = 0; i < 4; ++i)
      CHECK(seen[pe * 4 + i] == pe * 100 + me * 4 + i, "alltoall [%d][%d] = %ld", pe, i, seen[pe * 4 + i]);
  CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4) == 0, "sum_reduce");
  shmem_long_get(seen, dst, 4, me);
  for (int i = 0; i < 4; ++i)
    CHECK(seen[i] == 100L * n * (n - 1) / 2 + (long)n * i, "sum [%d] = %ld", i, seen[i]);

  /* A split team: the even PEs, their max. */
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0, "split");
  if (evens != SHMEM_TEAM_INVALID) {
    CHECK(shmem_long_max_reduce(evens, dst, src, 4) == 0, "max_reduce");
    shmem_long_get(seen, dst, 4, me);
    const int last_even = (n - 1) / 2 * 2;
    for (int i = 0; i < 4; ++i) CHECK(seen[i] == last_even * 100 + i, "max [%d] = %ld", i, seen[i]);
    shmem_team_sync(evens);
    shmem_team_destroy(evens);
  }

  /* A lock around a read-modify-write of PE 0's word done with get and put. */
  long *lock = shmem_calloc(1, sizeof(long));
  long *total = shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  for (int round = 0; round < 3; ++round) {
    shmem_set_lock(lock);
    const long value = shmem_long_g(total, 0);
    shmem_long_p(total, value + 1, 0);
    shmem_quiet();
    shmem_clear_lock(lock);
  }
  shmem_barrier_all();
  CHECK(shmem_long_g(total, 0) == 3L * n, "locked increments: %ld", shmem_long_g(total, 0));

  shmem_barrier_all();
  shmem_free(total);
  shmem_free(lock);
  shmem_free(dst);
  shmem_free(src);
  shmem_free(flags);
  shmem_free(data);
  shmem_free(sig);
  shmem_free(bits);
  shmem_free(counter);
  shmem_free(strided);
  shmem_free(x);
  if (me == 0) printf("routines only: %d PEs passed\n", n);
  shmem_finalize();
  return 0;
}
