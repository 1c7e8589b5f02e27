/* Every routine that takes a count, at count 0: no error and no effect, whatever the pointers
 * (NULL here, and real symmetric objects whose bytes must stay as they were), and the routines
 * after them still work. RMA for every standard RMA type, the sized and byte forms, their
 * context and C11 generic names; put-with-signal of no bytes, which still delivers its signal;
 * the point-to-point sets of every point-to-point type; the team collectives for every type and
 * every reduction for every type of its operation; and the deprecated active-set collectives. */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define WORDS 16
#define SENTINEL 0x5a

static long psync[SHMEM_SYNC_SIZE]; /* SHMEM_SYNC_VALUE (0) everywhere */

/* Put-with-signal of no bytes adds 1 to the next PE's signal: how many this PE sent. */
static uint64_t *signals;
static uint64_t signals_sent;

#define ADD_SIGNAL(...) (__VA_ARGS__, ++signals_sent)

/* ---- RMA ------------------------------------------------------------------------------------ */

#define ZERO_RMA(NAME, TYPE)                                                                             \
  static void rma_##NAME(int pe) {                                                                     \
    shmem_##NAME##_put(NULL, NULL, 0, pe);                                                             \
    shmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                      \
    shmem_##NAME##_get(NULL, NULL, 0, pe);                                                             \
    shmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                      \
    shmem_##NAME##_put_nbi(NULL, NULL, 0, pe);                                                         \
    shmem_ctx_##NAME##_put_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                  \
    shmem_##NAME##_get_nbi(NULL, NULL, 0, pe);                                                         \
    shmem_ctx_##NAME##_get_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                  \
    shmem_##NAME##_iput(NULL, NULL, 1, 1, 0, pe);                                                      \
    shmem_ctx_##NAME##_iput(SHMEM_CTX_DEFAULT, NULL, NULL, 2, 3, 0, pe);                               \
    shmem_##NAME##_iget(NULL, NULL, 1, 1, 0, pe);                                                      \
    shmem_ctx_##NAME##_iget(SHMEM_CTX_DEFAULT, NULL, NULL, 3, 2, 0, pe);                               \
    ADD_SIGNAL(shmem_##NAME##_put_signal(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));            \
    ADD_SIGNAL(shmem_ctx_##NAME##_put_signal(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe)); \
    ADD_SIGNAL(shmem_##NAME##_put_signal_nbi(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));        \
    ADD_SIGNAL(shmem_ctx_##NAME##_put_signal_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1,         \
                                                 SHMEM_SIGNAL_ADD, pe));                               \
    /* the generic names */                                                                            \
    TYPE *none = NULL;                                                                                 \
    const TYPE *source = NULL;                                                                         \
    shmem_put(none, source, 0, pe);                                                                    \
    shmem_put(SHMEM_CTX_DEFAULT, none, source, 0, pe);                                                 \
    shmem_get(none, source, 0, pe);                                                                    \
    shmem_get(SHMEM_CTX_DEFAULT, none, source, 0, pe);                                                 \
    shmem_put_nbi(none, source, 0, pe);                                                                \
    shmem_get_nbi(SHMEM_CTX_DEFAULT, none, source, 0, pe);                                             \
    shmem_iput(none, source, 1, 1, 0, pe);                                                             \
    shmem_iget(SHMEM_CTX_DEFAULT, none, source, 1, 1, 0, pe);                                          \
    ADD_SIGNAL(shmem_put_signal(none, source, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));                   \
    ADD_SIGNAL(shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, none, source, 0, signals, 1, SHMEM_SIGNAL_ADD, pe)); \
  }
RMA_TYPES(ZERO_RMA)

#define ZERO_SIZED_RMA(BITS)                                                                             \
  static void rma_##BITS(int pe) {                                                                     \
    shmem_put##BITS(NULL, NULL, 0, pe);                                                                \
    shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                         \
    shmem_get##BITS(NULL, NULL, 0, pe);                                                                \
    shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                         \
    shmem_put##BITS##_nbi(NULL, NULL, 0, pe);                                                          \
    shmem_ctx_put##BITS##_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                   \
    shmem_get##BITS##_nbi(NULL, NULL, 0, pe);                                                          \
    shmem_ctx_get##BITS##_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);                                   \
    shmem_iput##BITS(NULL, NULL, 1, 1, 0, pe);                                                         \
    shmem_ctx_iput##BITS(SHMEM_CTX_DEFAULT, NULL, NULL, 1, 1, 0, pe);                                  \
    shmem_iget##BITS(NULL, NULL, 1, 1, 0, pe);                                                         \
    shmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, NULL, NULL, 1, 1, 0, pe);                                  \
    ADD_SIGNAL(shmem_put##BITS##_signal(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));             \
    ADD_SIGNAL(shmem_ctx_put##BITS##_signal(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe)); \
    ADD_SIGNAL(shmem_put##BITS##_signal_nbi(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));         \
    ADD_SIGNAL(shmem_ctx_put##BITS##_signal_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1,          \
                                                SHMEM_SIGNAL_ADD, pe));                                \
  }
ZERO_SIZED_RMA(8)
ZERO_SIZED_RMA(16)
ZERO_SIZED_RMA(32)
ZERO_SIZED_RMA(64)
ZERO_SIZED_RMA(128)

static void rma_mem(int pe) {
  shmem_putmem(NULL, NULL, 0, pe);
  shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
  shmem_getmem(NULL, NULL, 0, pe);
  shmem_ctx_getmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
  shmem_putmem_nbi(NULL, NULL, 0, pe);
  shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
  shmem_getmem_nbi(NULL, NULL, 0, pe);
  shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, pe);
  ADD_SIGNAL(shmem_putmem_signal(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));
  ADD_SIGNAL(shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));
  ADD_SIGNAL(shmem_putmem_signal_nbi(NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));
  ADD_SIGNAL(shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, NULL, NULL, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));
}

/* Count 0 on real objects: pe's block and this PE's stay as they were. */
static void rma_on_objects(unsigned char *block, int pe) {
  unsigned char local[WORDS];
  memset(local, 0x11, sizeof local);
  shmem_putmem(block, local, 0, pe);
  shmem_putmem_nbi(block, local, 0, pe);
  shmem_getmem(block, block, 0, pe);
  shmem_getmem_nbi(local, block, 0, pe);
  shmem_int_put((int *)block, (const int *)local, 0, pe);
  shmem_int_iput((int *)block, (const int *)local, 1, 1, 0, pe);
  shmem_long_iget((long *)local, (const long *)block, 1, 1, 0, pe);
  shmem_put64(block, local, 0, pe);
  ADD_SIGNAL(shmem_putmem_signal(block, local, 0, signals, 1, SHMEM_SIGNAL_ADD, pe));
  shmem_quiet();
  for (int i = 0; i < WORDS; ++i) CHECK(local[i] == 0x11, "a get of no bytes changed local byte %d", i);
}

/* ---- point-to-point sets -------------------------------------------------------------------- */

#define ZERO_P2P(NAME, TYPE)                                                                             \
  static void p2p_##NAME(void) {                                                                       \
    const size_t none = SIZE_MAX;                                                                      \
    TYPE *ivars = NULL;                                                                                \
    shmem_##NAME##_wait_until_all(NULL, 0, NULL, SHMEM_CMP_EQ, (TYPE)1);                               \
    CHECK(shmem_##NAME##_wait_until_any(NULL, 0, NULL, SHMEM_CMP_EQ, (TYPE)1) == none, #NAME "_wait_until_any"); \
    CHECK(shmem_##NAME##_wait_until_some(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, (TYPE)1) == 0, #NAME "_wait_until_some"); \
    shmem_##NAME##_wait_until_all_vector(NULL, 0, NULL, SHMEM_CMP_EQ, NULL);                           \
    CHECK(shmem_##NAME##_wait_until_any_vector(NULL, 0, NULL, SHMEM_CMP_EQ, NULL) == none,             \
          #NAME "_wait_until_any_vector");                                                             \
    CHECK(shmem_##NAME##_wait_until_some_vector(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, NULL) == 0,         \
          #NAME "_wait_until_some_vector");                                                            \
    CHECK(shmem_##NAME##_test_all(NULL, 0, NULL, SHMEM_CMP_EQ, (TYPE)1) == 1, #NAME "_test_all");      \
    CHECK(shmem_##NAME##_test_any(NULL, 0, NULL, SHMEM_CMP_EQ, (TYPE)1) == none, #NAME "_test_any");   \
    CHECK(shmem_##NAME##_test_some(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, (TYPE)1) == 0, #NAME "_test_some"); \
    CHECK(shmem_##NAME##_test_all_vector(NULL, 0, NULL, SHMEM_CMP_EQ, NULL) == 1, #NAME "_test_all_vector"); \
    CHECK(shmem_##NAME##_test_any_vector(NULL, 0, NULL, SHMEM_CMP_EQ, NULL) == none, #NAME "_test_any_vector"); \
    CHECK(shmem_##NAME##_test_some_vector(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, NULL) == 0,               \
          #NAME "_test_some_vector");                                                                  \
    shmem_wait_until_all(ivars, 0, NULL, SHMEM_CMP_NE, (TYPE)0);                                       \
    CHECK(shmem_wait_until_any(ivars, 0, NULL, SHMEM_CMP_NE, (TYPE)0) == none, #NAME ": generic wait_until_any"); \
    CHECK(shmem_wait_until_some(ivars, 0, NULL, NULL, SHMEM_CMP_NE, (TYPE)0) == 0, #NAME ": generic wait_until_some"); \
    shmem_wait_until_all_vector(ivars, 0, NULL, SHMEM_CMP_NE, ivars);                                  \
    CHECK(shmem_test_all(ivars, 0, NULL, SHMEM_CMP_NE, (TYPE)0) == 1, #NAME ": generic test_all");     \
    CHECK(shmem_test_any_vector(ivars, 0, NULL, SHMEM_CMP_NE, ivars) == none, #NAME ": generic test_any_vector"); \
    CHECK(shmem_test_some(ivars, 0, NULL, NULL, SHMEM_CMP_NE, (TYPE)0) == 0, #NAME ": generic test_some"); \
  }
P2P_TYPES(ZERO_P2P)

/* ---- team collectives ----------------------------------------------------------------------- */

#define TEAM(EXPR) CHECK((EXPR) == 0, "%s returned nonzero", #EXPR)

#define ZERO_COLLECTIVES(NAME, TYPE)                                                                     \
  static void collectives_##NAME(void) {                                                               \
    TYPE *none = NULL;                                                                                 \
    const TYPE *source = NULL;                                                                         \
    TEAM(shmem_##NAME##_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0));                                \
    TEAM(shmem_##NAME##_collect(SHMEM_TEAM_WORLD, NULL, NULL, 0));                                     \
    TEAM(shmem_##NAME##_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0));                                    \
    TEAM(shmem_##NAME##_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0));                                    \
    TEAM(shmem_##NAME##_alltoalls(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0));                             \
    TEAM(shmem_broadcast(SHMEM_TEAM_WORLD, none, source, 0, 0));                                       \
    TEAM(shmem_collect(SHMEM_TEAM_WORLD, none, source, 0));                                            \
    TEAM(shmem_fcollect(SHMEM_TEAM_WORLD, none, source, 0));                                           \
    TEAM(shmem_alltoall(SHMEM_TEAM_WORLD, none, source, 0));                                           \
    TEAM(shmem_alltoalls(SHMEM_TEAM_WORLD, none, source, 2, 2, 0));                                    \
  }
RMA_TYPES(ZERO_COLLECTIVES)

static void collectives_mem(void) {
  TEAM(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0));
  TEAM(shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0));
  TEAM(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0));
  TEAM(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0));
  TEAM(shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0));
}

#define ZERO_REDUCE(NAME, TYPE, OP)                                                                      \
  TEAM(shmem_##NAME##_##OP##_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0));                                 \
  TEAM(shmem_##OP##_reduce(SHMEM_TEAM_WORLD, (TYPE *)NULL, (const TYPE *)NULL, 0));
#define ZERO_BITWISE_REDUCE(NAME, TYPE) ZERO_REDUCE(NAME, TYPE, and) ZERO_REDUCE(NAME, TYPE, or) ZERO_REDUCE(NAME, TYPE, xor)
#define ZERO_MINMAX_REDUCE(NAME, TYPE) ZERO_REDUCE(NAME, TYPE, max) ZERO_REDUCE(NAME, TYPE, min)
#define ZERO_ARITH_REDUCE(NAME, TYPE) ZERO_REDUCE(NAME, TYPE, sum) ZERO_REDUCE(NAME, TYPE, prod)

static void reductions(void) {
  BITWISE_REDUCE_TYPES(ZERO_BITWISE_REDUCE)
  MINMAX_REDUCE_TYPES(ZERO_MINMAX_REDUCE)
  ARITH_REDUCE_TYPES(ZERO_ARITH_REDUCE)
}

/* Count 0 on real objects: dest stays as it was on every PE. */
static void collectives_on_objects(unsigned char *dest, const unsigned char *source) {
  TEAM(shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, source, 0, 0));
  TEAM(shmem_fcollectmem(SHMEM_TEAM_WORLD, dest, source, 0));
  TEAM(shmem_collectmem(SHMEM_TEAM_WORLD, dest, source, 0));
  TEAM(shmem_alltoallmem(SHMEM_TEAM_WORLD, dest, source, 0));
  TEAM(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, (int *)dest, (const int *)source, 0));
  TEAM(shmem_long_max_reduce(SHMEM_TEAM_WORLD, (long *)dest, (const long *)source, 0));
  TEAM(shmem_uint_xor_reduce(SHMEM_TEAM_WORLD, (unsigned int *)dest, (const unsigned int *)source, 0));
  shmem_broadcast64(dest, source, 0, 0, 0, 0, shmem_n_pes(), psync);
  shmem_int_sum_to_all((int *)dest, (const int *)source, 0, 0, 0, shmem_n_pes(), NULL, psync);
}

/* ---- active-set collectives (deprecated) ---------------------------------------------------- */

#define ZERO_TO_ALL(NAME, TYPE, OP) \
  shmem_##NAME##_##OP##_to_all(NULL, NULL, 0, start, stride, size, NULL, psync);
#define ZERO_BITWISE_TO_ALL(NAME, TYPE) ZERO_TO_ALL(NAME, TYPE, and) ZERO_TO_ALL(NAME, TYPE, or) ZERO_TO_ALL(NAME, TYPE, xor)
#define ZERO_MINMAX_TO_ALL(NAME, TYPE) ZERO_TO_ALL(NAME, TYPE, max) ZERO_TO_ALL(NAME, TYPE, min)
#define ZERO_ARITH_TO_ALL(NAME, TYPE) ZERO_TO_ALL(NAME, TYPE, sum) ZERO_TO_ALL(NAME, TYPE, prod)

/* On the world (start 0, stride 1, every PE) and, with 2 PEs or more, on the set of PE 0 alone. */
static void active_sets(int start, int stride, int size) {
  if (shmem_my_pe() < start || (shmem_my_pe() - start) % (1 << stride) != 0 ||
      (shmem_my_pe() - start) >> stride >= size) {
    return;
  }
  shmem_broadcast32(NULL, NULL, 0, 0, start, stride, size, psync);
  shmem_broadcast64(NULL, NULL, 0, 0, start, stride, size, psync);
  shmem_collect32(NULL, NULL, 0, start, stride, size, psync);
  shmem_collect64(NULL, NULL, 0, start, stride, size, psync);
  shmem_fcollect32(NULL, NULL, 0, start, stride, size, psync);
  shmem_fcollect64(NULL, NULL, 0, start, stride, size, psync);
  shmem_alltoall32(NULL, NULL, 0, start, stride, size, psync);
  shmem_alltoall64(NULL, NULL, 0, start, stride, size, psync);
  shmem_alltoalls32(NULL, NULL, 1, 1, 0, start, stride, size, psync);
  shmem_alltoalls64(NULL, NULL, 1, 1, 0, start, stride, size, psync);
  BITWISE_TO_ALL_TYPES(ZERO_BITWISE_TO_ALL)
  MINMAX_TO_ALL_TYPES(ZERO_MINMAX_TO_ALL)
  ARITH_TO_ALL_TYPES(ZERO_ARITH_TO_ALL)
}

/* ---- the routines after them ---------------------------------------------------------------- */

static void still_working(long *block) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long mine[4] = {me, me + 1, me + 2, me + 3}, got[4] = {0};
  shmem_long_put(block, mine, 4, next_pe());
  shmem_barrier_all();
  for (int i = 0; i < 4; ++i) CHECK(block[i] == prev_pe() + i, "put after count 0: [%d] = %ld", i, block[i]);
  shmem_long_get(got, block, 4, next_pe());
  for (int i = 0; i < 4; ++i) CHECK(got[i] == me + i, "get after count 0: [%d] = %ld", i, got[i]);
  shmem_barrier_all();
  block[4] = me + 1;
  TEAM(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, block + 5, block + 4, 1));
  CHECK(block[5] == (long)n * (n + 1) / 2, "sum_reduce after count 0: %ld", block[5]);
  TEAM(shmem_long_broadcast(SHMEM_TEAM_WORLD, block + 6, block + 4, 1, n - 1));
  CHECK(block[6] == n, "broadcast after count 0: %ld", block[6]);
  TEAM(shmem_long_fcollect(SHMEM_TEAM_WORLD, block + 8, block + 4, 1));
  for (int pe = 0; pe < n && pe < 8; ++pe) CHECK(block[8 + pe] == pe + 1, "fcollect after count 0: [%d]", pe);
  shmem_long_sum_to_all(block + 7, block + 4, 1, 0, 0, n, NULL, psync);
  CHECK(block[7] == (long)n * (n + 1) / 2, "sum_to_all after count 0: %ld", block[7]);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int n = shmem_n_pes(), to = next_pe();
  CHECK(n <= 8, "at most 8 PEs");
  signals = shmem_calloc(2, sizeof(uint64_t));
  unsigned char *bytes = shmem_malloc(2 * WORDS);
  long *block = shmem_calloc(16, sizeof(long));
  CHECK(signals != NULL && bytes != NULL && block != NULL, "allocation");
  memset(bytes, SENTINEL, 2 * WORDS);

  /* No memory: NULL from every allocation routine. */
  CHECK(shmem_malloc(0) == NULL, "malloc(0)");
  CHECK(shmem_calloc(0, 8) == NULL && shmem_calloc(8, 0) == NULL, "calloc of no bytes");
  CHECK(shmem_align(4096, 0) == NULL, "align of no bytes");
  CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL, "malloc_with_hints(0)");
  CHECK(shmem_realloc(NULL, 0) == NULL, "realloc(NULL, 0)");
  shmem_barrier_all();

#define RUN_RMA(NAME, TYPE) rma_##NAME(to);
  RMA_TYPES(RUN_RMA)
  rma_8(to);
  rma_16(to);
  rma_32(to);
  rma_64(to);
  rma_128(to);
  rma_mem(to);
  rma_on_objects(bytes, to);
  /* Each PE sends to the next one, so each receives as many adds as it sent. */
  shmem_signal_wait_until(signals, SHMEM_CMP_EQ, signals_sent);
  shmem_putmem_signal(NULL, NULL, 0, signals + 1, 42, SHMEM_SIGNAL_SET, to);
  CHECK(shmem_signal_wait_until(signals + 1, SHMEM_CMP_EQ, 42) == 42, "SET of no bytes");
  shmem_barrier_all();
  CHECK(shmem_signal_fetch(signals) == signals_sent, "signal %llu, sent %llu",
        (unsigned long long)shmem_signal_fetch(signals), (unsigned long long)signals_sent);
  for (int i = 0; i < 2 * WORDS; ++i) CHECK(bytes[i] == SENTINEL, "RMA of no bytes changed byte %d", i);

#define RUN_P2P(NAME, TYPE) p2p_##NAME();
  P2P_TYPES(RUN_P2P)

#define RUN_COLLECTIVES(NAME, TYPE) collectives_##NAME();
  RMA_TYPES(RUN_COLLECTIVES)
  collectives_mem();
  reductions();
  collectives_on_objects(bytes, bytes + WORDS);
  shmem_barrier_all();
  for (int i = 0; i < 2 * WORDS; ++i) CHECK(bytes[i] == SENTINEL, "a collective of no bytes changed byte %d", i);

  active_sets(0, 0, n);
  if (n > 1) active_sets(0, 0, 1);
  shmem_barrier_all();

  still_working(block);
  shmem_free(block);
  shmem_free(bytes);
  shmem_free(signals);
  shmem_finalize();
  return 0;
}
