/* Active sets that are no team (OpenSHMEM's deprecated collectives): the even and the odd PEs at
 * once (disjoint sets on their own pSync), then overlapping sets one after the other on one pSync
 * (a barrier between), every collective kind and the set barrier, and a set of one PE. */
#include "check.h"

#define N 4

long psync_a[SHMEM_REDUCE_SYNC_SIZE];
long psync_b[SHMEM_REDUCE_SYNC_SIZE];
long work[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
long src[N * 8], dst[N * 8];

static void reset(long *psync) {
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
}

/* Members: start, start + stride, ... (size of them). */
static void check_set(int start, int log_stride, int size, long *psync, const char *name) {
  const int me = shmem_my_pe(), stride = 1 << log_stride;
  const int index = (me - start) / stride;
  for (int i = 0; i < N * 8; ++i) src[i] = 1000 * me + i;

  shmem_long_sum_to_all(dst, src, N, start, log_stride, size, work, psync);
  for (int i = 0; i < N; ++i) {
    long want = 0;
    for (int k = 0; k < size; ++k) want += 1000 * (start + k * stride) + i;
    CHECK(dst[i] == want, "%s sum_to_all[%d] = %ld, want %ld", name, i, dst[i], want);
  }
  shmem_barrier(start, log_stride, size, psync);

  const int root = size - 1; /* the set's last PE, an index in the set */
  for (int i = 0; i < N; ++i) dst[i] = -1;
  shmem_barrier(start, log_stride, size, psync);
  shmem_broadcast64(dst, src, N, root, start, log_stride, size, psync);
  for (int i = 0; i < N; ++i) {
    const long want = index == root ? -1 : 1000 * (start + root * stride) + i;
    CHECK(dst[i] == want, "%s broadcast64[%d] = %ld, want %ld", name, i, dst[i], want);
  }
  shmem_barrier(start, log_stride, size, psync);

  shmem_fcollect64(dst, src, 2, start, log_stride, size, psync);
  for (int k = 0; k < size; ++k)
    for (int i = 0; i < 2; ++i)
      CHECK(dst[2 * k + i] == 1000 * (start + k * stride) + i, "%s fcollect64 block %d", name, k);
  shmem_barrier(start, log_stride, size, psync);

  shmem_collect64(dst, src, (size_t)(index + 1), start, log_stride, size, psync);
  int at = 0;
  for (int k = 0; k < size; ++k)
    for (int i = 0; i <= k; ++i, ++at)
      CHECK(dst[at] == 1000 * (start + k * stride) + i, "%s collect64 block %d element %d", name, k, i);
  shmem_barrier(start, log_stride, size, psync);

  shmem_alltoall64(dst, src, 1, start, log_stride, size, psync);
  for (int k = 0; k < size; ++k)
    CHECK(dst[k] == 1000 * (start + k * stride) + index, "%s alltoall64 from member %d", name, k);
  shmem_barrier(start, log_stride, size, psync);
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i)
    CHECK(psync[i] == SHMEM_SYNC_VALUE, "%s left pSync[%d] = %ld", name, i, psync[i]);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  reset(psync_a);
  reset(psync_b);
  shmem_barrier_all();

  /* Disjoint sets at once: the even PEs on psync_a, the odd ones on psync_b. */
  if (me % 2 == 0) check_set(0, 1, (n + 1) / 2, psync_a, "even PEs");
  else check_set(1, 1, n / 2, psync_b, "odd PEs");
  shmem_barrier_all();

  /* Overlapping sets, one after the other, on the same pSync. */
  for (int round = 0; round < 3; ++round) {
    if (n > 1 && me < n - 1) check_set(0, 0, n - 1, psync_a, "PEs 0 .. n-2");
    shmem_barrier_all();
    if (n > 1 && me > 0) check_set(1, 0, n - 1, psync_a, "PEs 1 .. n-1");
    shmem_barrier_all();
  }

  /* A set of one PE: its own collectives, no peer. */
  check_set(me, 0, 1, psync_b, "this PE alone");
  shmem_barrier_all();
  if (me == 0) printf("active sets: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
