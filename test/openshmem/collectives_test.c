/* Collectives on the world and on split teams: barriers and syncs, broadcast, collect, fcollect,
 * alltoall, alltoalls, every reduction, and the deprecated active-set forms. */
#include <complex.h>
#include <string.h>

#include "check.h"

enum { N = 6 };

static long psync[SHMEM_REDUCE_SYNC_SIZE];

/* Data of team PE p, element i. */
static int datum(int p, int i) { return p * 100 + i + 1; }

static void data_movement(shmem_team_t team) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  int *src = shmem_malloc(N * 4 * sizeof(int));
  int *dst = shmem_calloc(N * 4 * 4, sizeof(int));
  for (int i = 0; i < N * 4; ++i) src[i] = datum(me, i);

  for (int root = 0; root < n; ++root) {
    memset(dst, 0, N * sizeof(int));
    CHECK(shmem_int_broadcast(team, dst, src, N, root) == 0, "broadcast");
    for (int i = 0; i < N; ++i) CHECK(dst[i] == datum(root, i), "broadcast from %d [%d] = %d", root, i, dst[i]);
  }
  CHECK(shmem_broadcastmem(team, dst, src + 1, sizeof(int), n - 1) == 0, "broadcastmem");
  CHECK(dst[0] == datum(n - 1, 1), "broadcastmem");

  CHECK(shmem_int_fcollect(team, dst, src, N) == 0, "fcollect");
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < N; ++i) CHECK(dst[p * N + i] == datum(p, i), "fcollect [%d][%d]", p, i);

  /* collect: team PE p contributes p + 1 elements */
  CHECK(shmem_int_collect(team, dst, src, (size_t)me + 1) == 0, "collect");
  for (int p = 0, at = 0; p < n; at += ++p)
    for (int i = 0; i <= p; ++i) CHECK(dst[at + i] == datum(p, i), "collect [%d][%d]", p, i);
  CHECK(shmem_collectmem(team, dst, src, sizeof(int)) == 0, "collectmem");
  for (int p = 0; p < n; ++p) CHECK(dst[p] == datum(p, 0), "collectmem [%d]", p);

  /* alltoall: block j of my source goes to team PE j */
  CHECK(shmem_int_alltoall(team, dst, src, 2) == 0, "alltoall");
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < 2; ++i) CHECK(dst[p * 2 + i] == datum(p, me * 2 + i), "alltoall [%d][%d]", p, i);
  CHECK(shmem_alltoallmem(team, dst, src, sizeof(int)) == 0, "alltoallmem");
  for (int p = 0; p < n; ++p) CHECK(dst[p] == datum(p, me), "alltoallmem [%d]", p);

  /* alltoalls: 1 element per PE, source stride 2, dest stride 3 */
  memset(dst, 0, N * 4 * 4 * sizeof(int));
  CHECK(shmem_int_alltoalls(team, dst, src, 3, 2, 1) == 0, "alltoalls");
  for (int p = 0; p < n; ++p) {
    CHECK(dst[p * 3] == datum(p, me * 2), "alltoalls [%d] = %d", p, dst[p * 3]);
    if (p + 1 < n) CHECK(dst[p * 3 + 1] == 0, "alltoalls wrote between strides");
  }
  shmem_free(dst);
  shmem_free(src);
}

/* The same movements with blocks of `count` ints: past what a one-step call carries (256 bytes),
 * past what a step delivers into a dest of another node (64 KiB) but within an inbox (128 KiB),
 * then past both, where the data move otherwise. */
static void data_movement_of(shmem_team_t team, size_t count) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  /* allocation is on the world team: the same size on every PE, whatever its team */
  int *src = shmem_malloc(count * shmem_n_pes() * sizeof(int));
  int *dst = shmem_malloc(count * shmem_n_pes() * sizeof(int));
  CHECK(src != NULL && dst != NULL, "%zu ints a block", count);
  for (size_t i = 0; i < count * n; ++i) src[i] = datum(me, (int)i);

  const int root = n - 1;
  memset(dst, 0, count * sizeof(int));
  CHECK(shmem_int_broadcast(team, dst, src, count, root) == 0, "broadcast of %zu", count);
  for (size_t i = 0; i < count; ++i) CHECK(dst[i] == datum(root, (int)i), "broadcast of %zu [%zu]", count, i);
  /* in place on the root: the others' dest is the root's source */
  if (me != root) memset(src, 0, count * sizeof(int));
  CHECK(shmem_int_broadcast(team, src, src, count, root) == 0, "broadcast in place of %zu", count);
  for (size_t i = 0; i < count; ++i) CHECK(src[i] == datum(root, (int)i), "broadcast in place of %zu [%zu]", count, i);
  for (size_t i = 0; i < count * n; ++i) src[i] = datum(me, (int)i);

  memset(dst, 0, count * n * sizeof(int));
  CHECK(shmem_int_fcollect(team, dst, src, count) == 0, "fcollect of %zu", count);
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < count; ++i)
      CHECK(dst[p * count + i] == datum(p, (int)i), "fcollect of %zu [%d][%zu]", count, p, i);

  /* collect: team PE p contributes count - p elements */
  memset(dst, 0, count * n * sizeof(int));
  CHECK(shmem_int_collect(team, dst, src, count - (size_t)me) == 0, "collect of %zu", count);
  for (int p = 0, at = 0; p < n; at += (int)count - p, ++p)
    for (int i = 0; i < (int)count - p; ++i)
      CHECK(dst[at + i] == datum(p, i), "collect of %zu [%d][%d]", count, p, i);

  memset(dst, 0, count * n * sizeof(int));
  CHECK(shmem_int_alltoall(team, dst, src, count) == 0, "alltoall of %zu", count);
  for (int p = 0; p < n; ++p)
    for (size_t i = 0; i < count; ++i)
      CHECK(dst[p * count + i] == datum(p, (int)(me * count + i)), "alltoall of %zu [%d][%zu]", count, p, i);

  /* a sum into another dest (across nodes, each step's part lands there as it is combined),
   * which writes nothing past its count */
  for (size_t i = 0; i < count * n; ++i) dst[i] = -7;
  CHECK(shmem_int_sum_reduce(team, dst, src, count) == 0, "sum_reduce into dest of %zu", count);
  for (size_t i = 0; i < count; ++i) {
    int expect = 0;
    for (int p = 0; p < n; ++p) expect += datum(p, (int)i);
    CHECK(dst[i] == expect, "sum_reduce into dest of %zu [%zu]: %d, expected %d", count, i, dst[i], expect);
  }
  for (size_t i = count; i < count * n; ++i) CHECK(dst[i] == -7, "sum_reduce of %zu wrote dest [%zu]", count, i);
  for (size_t i = 0; i < count; ++i) CHECK(src[i] == datum(me, (int)i), "sum_reduce of %zu changed its source", count);

  /* a sum in place */
  CHECK(shmem_int_sum_reduce(team, src, src, count) == 0, "sum_reduce of %zu", count);
  for (size_t i = 0; i < count; ++i) {
    int expect = 0;
    for (int p = 0; p < n; ++p) expect += datum(p, (int)i);
    CHECK(src[i] == expect, "sum_reduce of %zu [%zu]: %d, expected %d", count, i, src[i], expect);
  }
  shmem_free(dst);
  shmem_free(src);
}

/* Two members in different calls: both fail, and the next calls still move the right data. Where
 * the members are alone on their nodes, the failed broadcast's root had sent its block to the
 * others' inboxes, which nobody took: the next call's block must not be taken for it. */
static void after_a_mismatch(shmem_team_t team) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  enum { kCount = 1024 }; /* 4 KiB: more than a one-step call carries in its record */
  int *src = shmem_malloc(kCount * shmem_n_pes() * sizeof(int));
  int *dst = shmem_malloc(kCount * shmem_n_pes() * sizeof(int));
  CHECK(src != NULL && dst != NULL, "after_a_mismatch");
  if (n > 1) {
    for (int i = 0; i < kCount; ++i) src[i] = datum(me, i);
    const int failed = me == 0 ? shmem_int_broadcast(team, dst, src, kCount, 0) : shmem_team_sync(team);
    CHECK(failed != 0, "a broadcast against a team_sync succeeded on team PE %d", me);
    for (int round = 1; round <= 3; ++round) {
      for (int i = 0; i < kCount; ++i) src[i] = 100000 * round + datum(me, i);
      CHECK(shmem_int_broadcast(team, dst, src, kCount, 0) == 0, "broadcast after a mismatch");
      for (int i = 0; i < kCount; ++i)
        CHECK(dst[i] == 100000 * round + datum(0, i), "round %d: broadcast after a mismatch [%d] = %d", round, i, dst[i]);
      CHECK(shmem_int_fcollect(team, dst, src, kCount) == 0, "fcollect after a mismatch");
      for (int p = 0; p < n; ++p)
        for (int i = 0; i < kCount; ++i)
          CHECK(dst[p * kCount + i] == 100000 * round + datum(p, i), "round %d: fcollect after a mismatch [%d][%d]",
                round, p, i);
    }
  }
  shmem_free(dst);
  shmem_free(src);
}

#define REDUCE_CHECK(TYPE, NAME, OP, EXPECT)                                                   \
  do {                                                                                         \
    CHECK(shmem_##NAME##_##OP##_reduce(team, dst, src, N) == 0, #NAME "_" #OP "_reduce");      \
    for (int i = 0; i < N; ++i) {                                                              \
      TYPE expect = (TYPE)(EXPECT);                                                            \
      CHECK(dst[i] == expect, #NAME "_" #OP "_reduce [%d]: %g, expected %g", i, (double)dst[i], (double)expect); \
    }                                                                                          \
  } while (0)

/* Team PE p contributes p + i + 1 (and bit p for the bitwise ones). */
#define TEST_REDUCE(NAME, TYPE)                                                                \
  static void reduce_##NAME(shmem_team_t team) {                                               \
    const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);                        \
    TYPE *src = shmem_malloc(N * sizeof(TYPE));                                                \
    TYPE *dst = shmem_malloc(N * sizeof(TYPE));                                                \
    for (int i = 0; i < N; ++i) src[i] = (TYPE)(me + i + 1);                                   \
    TYPE prod = 1;                                                                             \
    REDUCE_CHECK(TYPE, NAME, max, n + i);                                                      \
    REDUCE_CHECK(TYPE, NAME, min, i + 1);                                                      \
    REDUCE_CHECK(TYPE, NAME, sum, (long)n * (i + 1) + (long)n * (n - 1) / 2);                  \
    for (int i = 0; i < N; ++i) {                                                              \
      prod = 1;                                                                                \
      for (int p = 0; p < n; ++p) prod = (TYPE)(prod * (TYPE)(p + i + 1));                     \
      CHECK(shmem_##NAME##_prod_reduce(team, dst, src, N) == 0 && dst[i] == prod, #NAME "_prod_reduce [%d]", i); \
    }                                                                                          \
    /* in place */                                                                             \
    CHECK(shmem_##NAME##_sum_reduce(team, src, src, N) == 0, "in place");                      \
    for (int i = 0; i < N; ++i) CHECK(src[i] == (TYPE)((long)n * (i + 1) + (long)n * (n - 1) / 2), #NAME " in place [%d]", i); \
    shmem_free(dst);                                                                           \
    shmem_free(src);                                                                           \
  }
#define BITWISE_REDUCE(NAME, TYPE)                                                             \
  static void bitwise_##NAME(shmem_team_t team) {                                              \
    const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);                        \
    TYPE *src = shmem_malloc(2 * sizeof(TYPE));                                                \
    TYPE *dst = shmem_malloc(2 * sizeof(TYPE));                                                \
    src[0] = (TYPE)(1u << me);                                                                 \
    src[1] = (TYPE)(0x7fu & ~(1u << me));                                                      \
    unsigned all = (1u << n) - 1u;                                                             \
    CHECK(shmem_##NAME##_or_reduce(team, dst, src, 2) == 0 && dst[0] == (TYPE)all && dst[1] == (TYPE)(n > 1 ? 0x7f : 0x7e), #NAME "_or_reduce"); \
    CHECK(shmem_##NAME##_and_reduce(team, dst, src, 2) == 0 && dst[0] == (TYPE)(n == 1 ? 1 : 0) && dst[1] == (TYPE)(0x7fu & ~all), #NAME "_and_reduce"); \
    CHECK(shmem_##NAME##_xor_reduce(team, dst, src, 1) == 0 && dst[0] == (TYPE)all, #NAME "_xor_reduce"); \
    shmem_free(dst);                                                                           \
    shmem_free(src);                                                                           \
  }
#define MINMAX_TYPES(X)                                                                        \
  X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long) X(longlong, long long) \
  X(ptrdiff, ptrdiff_t) X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) \
  X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) \
  X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) \
  X(uint64, uint64_t) X(size, size_t) X(float, float) X(double, double) X(longdouble, long double)
#define BITWISE_TYPES(X)                                                                       \
  X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) \
  X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)      \
  X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
MINMAX_TYPES(TEST_REDUCE)
BITWISE_TYPES(BITWISE_REDUCE)

static void complex_and_generic(shmem_team_t team) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  double _Complex *z = shmem_malloc(2 * sizeof *z);
  double *d = shmem_malloc(2 * sizeof *d);
  z[0] = me + 1.0 * I;
  d[0] = me;
  CHECK(shmem_complexd_sum_reduce(team, z + 1, z, 1) == 0, "complexd_sum_reduce");
  CHECK(creal(z[1]) == n * (n - 1) / 2.0 && cimag(z[1]) == n, "complexd sum");
  CHECK(shmem_max_reduce(team, d + 1, d, 1) == 0 && d[1] == n - 1, "generic max_reduce");
  CHECK(shmem_broadcast(team, d + 1, d, 1, 0) == 0 && d[1] == 0, "generic broadcast");
  shmem_free(d);
  shmem_free(z);
}

static void active_sets(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *src = shmem_malloc(4 * sizeof(long));
  long *dst = shmem_calloc(4 * 4, sizeof(long));
  long *work = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(long));
  src[0] = me + 1;
  src[1] = 10 * (me + 1);
  shmem_barrier(0, 0, n, psync);
  shmem_long_sum_to_all(dst, src, 2, 0, 0, n, work, psync);
  CHECK(dst[0] == (long)n * (n + 1) / 2 && dst[1] == 10L * n * (n + 1) / 2, "long_sum_to_all");
  shmem_long_max_to_all(dst, src, 1, 0, 0, n, work, psync);
  CHECK(dst[0] == n, "long_max_to_all");
  dst[0] = -1;
  shmem_broadcast64(dst, src, 2, 0, 0, 0, n, psync);
  if (me == 0) CHECK(dst[0] == -1, "an active-set broadcast leaves the root's dest");
  else CHECK(dst[0] == 1 && dst[1] == 10, "broadcast64");
  shmem_fcollect64(dst, src, 1, 0, 0, n, psync);
  for (int p = 0; p < n; ++p) CHECK(dst[p] == p + 1, "fcollect64 [%d]", p);
  shmem_collect32(dst, src, 2, 0, 0, n, psync);  /* two 32-bit halves: one long per PE */
  for (int p = 0; p < n; ++p) CHECK(dst[p] == p + 1, "collect32 [%d]", p);
  shmem_sync(0, 0, n, psync);
  shmem_sync_all();
  shmem_free(work);
  shmem_free(dst);
  shmem_free(src);
}

/* Small calls back to back with no barrier between them, each source overwritten as soon as its
 * call returns: a member that runs ahead into the next calls must not change what a slower one
 * still reads of an earlier call (small ones carry their bytes in the agreement step, in a double
 * buffer; larger ones protect the sources with a second step). Both sizes, many rounds. */
static void back_to_back(shmem_team_t team) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  enum { kRounds = 300, kBig = 512 };
  long *src = shmem_malloc(kBig * sizeof(long));
  long *dst = shmem_malloc((size_t)shmem_n_pes() * kBig * sizeof(long)); /* the same on every PE of the world */
  for (int round = 0; round < kRounds; ++round) {
    const size_t count = round % 3 == 2 ? kBig : 1; /* 8 bytes, or 4 KiB */
    const int root = round % n;
    for (size_t i = 0; i < count; ++i) src[i] = 1000L * me + round + (long)i;
    CHECK(shmem_long_broadcast(team, dst, src, count, root) == 0, "broadcast");
    for (size_t i = 0; i < count; ++i) src[i] = -1; /* the source changes at once */
    for (size_t i = 0; i < count; ++i)
      CHECK(dst[i] == 1000L * root + round + (long)i, "round %d broadcast [%zu] = %ld", round, i, dst[i]);

    for (size_t i = 0; i < count; ++i) src[i] = 1000L * me + round + (long)i;
    CHECK(shmem_long_fcollect(team, dst, src, count) == 0, "fcollect");
    for (size_t i = 0; i < count; ++i) src[i] = -2;
    for (int p = 0; p < n; ++p)
      for (size_t i = 0; i < count; ++i)
        CHECK(dst[p * count + i] == 1000L * p + round + (long)i, "round %d fcollect [%d][%zu]", round, p, i);

    for (size_t i = 0; i < count; ++i) src[i] = me + round + (long)i;
    CHECK(shmem_long_sum_reduce(team, dst, src, count) == 0, "sum_reduce");
    for (size_t i = 0; i < count; ++i) src[i] = -3;
    for (size_t i = 0; i < count; ++i)
      CHECK(dst[i] == (long)n * (round + (long)i) + (long)n * (n - 1) / 2, "round %d sum [%zu] = %ld", round, i, dst[i]);

    /* alltoall of one long a pair: block p of my source goes to team PE p */
    for (int p = 0; p < n; ++p) src[p] = 1000L * me + 10L * p + round;
    CHECK(shmem_long_alltoall(team, dst, src, 1) == 0, "alltoall");
    for (int p = 0; p < n; ++p) src[p] = -4;
    for (int p = 0; p < n; ++p)
      CHECK(dst[p] == 1000L * p + 10L * me + round, "round %d alltoall [%d] = %ld", round, p, dst[p]);
  }
  CHECK(shmem_team_sync(team) == 0, "sync after the rounds");
  shmem_free(dst);
  shmem_free(src);
}

/* Large reductions back to back (more than an inbox: across nodes, in steps; where every member
 * is alone on its node, a reduce-scatter then an all-gather), in place and into another dest in
 * turn, then broadcasts and fcollects, each source overwritten as soon as its call returns: no
 * member may still read a source, or write a dest, of a call another has returned from. */
static void large_back_to_back(shmem_team_t team) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  enum { kRounds = 12, kCount = 40001 }; /* 320 KiB of longs, not a multiple of any team's size */
  long *src = shmem_malloc(kCount * sizeof(long));
  long *dst = shmem_malloc(kCount * sizeof(long));
  CHECK(src != NULL && dst != NULL, "large_back_to_back");
  for (int round = 0; round < kRounds; ++round) {
    long *into = round % 2 == 0 ? dst : src;
    for (int i = 0; i < kCount; ++i) src[i] = 1000L * me + round * 7L + i;
    CHECK(shmem_long_sum_reduce(team, into, src, kCount) == 0, "round %d: large sum_reduce", round);
    long *result = into;
    if (into == dst) for (int i = 0; i < kCount; ++i) src[i] = -5; /* the source changes at once */
    for (int i = 0; i < kCount; ++i) {
      const long expect = 1000L * n * (n - 1) / 2 + (long)n * (round * 7L + i);
      CHECK(result[i] == expect, "round %d: large sum_reduce %s [%d] = %ld, expected %ld", round,
            into == src ? "in place" : "into dest", i, result[i], expect);
    }
    for (int i = 0; i < kCount; ++i) dst[i] = -6; /* and so does dest */

    /* a broadcast and an fcollect the same way: their later parts land in the others' dest,
     * which must not happen before a member has entered the call (it still reads the last) */
    const int root = round % n;
    for (int i = 0; i < kCount; ++i) src[i] = 1000L * me + round * 3L + i;
    CHECK(shmem_long_broadcast(team, dst, src, kCount, root) == 0, "round %d: large broadcast", round);
    for (int i = 0; i < kCount; ++i) src[i] = -7;
    if (me != root) {
      for (int i = 0; i < kCount; ++i)
        CHECK(dst[i] == 1000L * root + round * 3L + i, "round %d: large broadcast [%d] = %ld", round, i, dst[i]);
    }
  }
  long *all = shmem_malloc((size_t)shmem_n_pes() * kCount * sizeof(long)); /* the same on every PE of the world */
  CHECK(all != NULL, "large fcollect dest");
  for (int round = 0; round < kRounds / 2; ++round) {
    for (int i = 0; i < kCount; ++i) src[i] = 1000L * me + round * 5L + i;
    CHECK(shmem_long_fcollect(team, all, src, kCount) == 0, "round %d: large fcollect", round);
    for (int i = 0; i < kCount; ++i) src[i] = -8;
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < kCount; ++i)
        CHECK(all[(size_t)p * kCount + i] == 1000L * p + round * 5L + i, "round %d: large fcollect [%d][%d] = %ld",
              round, p, i, all[(size_t)p * kCount + i]);
  }
  shmem_free(all);
  CHECK(shmem_team_sync(team) == 0, "sync after the large rounds");
  shmem_free(dst);
  shmem_free(src);
}

static void on_team(shmem_team_t team) {
  CHECK(shmem_team_sync(team) == 0, "team_sync");
  data_movement(team);
  data_movement_of(team, 1000);
  data_movement_of(team, 30000);
  data_movement_of(team, 100000);
  after_a_mismatch(team);
  back_to_back(team);
  large_back_to_back(team);
#define RUN_REDUCE(NAME, TYPE) reduce_##NAME(team);
#define RUN_BITWISE(NAME, TYPE) bitwise_##NAME(team);
  MINMAX_TYPES(RUN_REDUCE)
  BITWISE_TYPES(RUN_BITWISE)
  complex_and_generic(team);
  CHECK(shmem_sync(team) == 0, "generic sync");
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  on_team(SHMEM_TEAM_WORLD);
  active_sets();

  /* the even PEs, and the odd ones, as teams; each runs everything on its own */
  shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0, "split even");
  if (n > 1) CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0, "split odd");
  CHECK((me % 2 == 0) == (even != SHMEM_TEAM_INVALID), "even membership");
  CHECK((me % 2 == 1) == (odd != SHMEM_TEAM_INVALID), "odd membership");
  on_team(me % 2 == 0 ? even : odd);

  /* an active set that matches the even team runs on it */
  long *v = shmem_malloc(sizeof(long));
  long *s = shmem_malloc(sizeof(long));
  if (me % 2 == 0) {
    long work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    *v = me;
    shmem_long_sum_to_all(s, v, 1, 0, 1, (n + 1) / 2, work, psync);
    long expect = 0;
    for (int p = 0; p < n; p += 2) expect += p;
    CHECK(*s == expect, "sum_to_all over the even active set: %ld", *s);
    shmem_barrier(0, 1, (n + 1) / 2, psync);
  }
  shmem_barrier_all();
  shmem_free(s);
  shmem_free(v);
  if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
  if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
  shmem_finalize();
  return 0;
}
