/* Atomics for every type of their class, blocking and _nbi, default and created context, and
 * the C11 generic selections. Every PE updates PE 0's words; PE 0 checks the sums. */
#include "check.h"

enum { kCounter, kSwap, kElection, kFetched, kBits, kSlots };

#define TEST_EXTENDED(NAME, TYPE)                                                              \
  static void extended_##NAME(shmem_ctx_t ctx) {                                               \
    const int me = shmem_my_pe(), to = next_pe(), from = prev_pe();                            \
    TYPE *w = shmem_calloc(kSlots, sizeof(TYPE));                                              \
    shmem_ctx_##NAME##_atomic_set(ctx, w + kSwap, (TYPE)(10 + me), to);                        \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_ctx_##NAME##_atomic_fetch(ctx, w + kSwap, me) == (TYPE)(10 + from), #NAME "_atomic_set/fetch"); \
    shmem_barrier_all();                                                                       \
    TYPE old = shmem_ctx_##NAME##_atomic_swap(ctx, w + kSwap, (TYPE)(20 + me), to);            \
    CHECK(old == (TYPE)(10 + me), #NAME "_atomic_swap returned the old value");                \
    shmem_barrier_all();                                                                       \
    TYPE fetched = 0;                                                                          \
    shmem_ctx_##NAME##_atomic_fetch_nbi(ctx, &fetched, w + kSwap, from);                       \
    shmem_ctx_quiet(ctx);                                                                      \
    CHECK(fetched == (TYPE)(20 + prev_pe_of(from)), #NAME "_atomic_fetch_nbi");                \
    shmem_barrier_all();                                                                       \
    shmem_ctx_##NAME##_atomic_swap_nbi(ctx, &fetched, w + kSwap, (TYPE)(30 + me), to);         \
    shmem_ctx_quiet(ctx);                                                                      \
    CHECK(fetched == (TYPE)(20 + me), #NAME "_atomic_swap_nbi");                               \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_##NAME##_atomic_fetch(w + kSwap, me) == (TYPE)(30 + from), #NAME "_atomic_swap_nbi stored"); \
    shmem_##NAME##_atomic_set(w + kFetched, (TYPE)me, me);                                     \
    CHECK(shmem_##NAME##_atomic_swap(w + kFetched, (TYPE)1, me) == (TYPE)me, #NAME "_atomic_swap"); \
    shmem_barrier_all();                                                                       \
    shmem_free(w);                                                                             \
  }

static int prev_pe_of(int pe) { return (pe + shmem_n_pes() - 1) % shmem_n_pes(); }


#define TEST_STANDARD(NAME, TYPE)                                                              \
  static void standard_##NAME(shmem_ctx_t ctx) {                                               \
    const int me = shmem_my_pe(), n = shmem_n_pes();                                           \
    TYPE *w = shmem_calloc(kSlots, sizeof(TYPE));                                              \
    shmem_barrier_all();                                                                       \
    /* 1 + 2 + 1 + 1 + 3 + 1 + 1 = 10 per PE on PE 0's counter */                             \
    shmem_ctx_##NAME##_atomic_add(ctx, w + kCounter, (TYPE)1, 0);                              \
    (void)shmem_ctx_##NAME##_atomic_fetch_add(ctx, w + kCounter, (TYPE)2, 0);                  \
    shmem_ctx_##NAME##_atomic_inc(ctx, w + kCounter, 0);                                       \
    (void)shmem_ctx_##NAME##_atomic_fetch_inc(ctx, w + kCounter, 0);                           \
    TYPE fetched = 0;                                                                          \
    shmem_ctx_##NAME##_atomic_fetch_add_nbi(ctx, &fetched, w + kCounter, (TYPE)3, 0);          \
    shmem_ctx_##NAME##_atomic_fetch_inc_nbi(ctx, &fetched, w + kCounter, 0);                   \
    shmem_##NAME##_atomic_inc(w + kCounter, 0);                                                \
    /* one PE wins the election on PE 0 */                                                     \
    TYPE old = shmem_ctx_##NAME##_atomic_compare_swap(ctx, w + kElection, (TYPE)0, (TYPE)(me + 1), 0); \
    shmem_ctx_quiet(ctx);                                                                      \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_##NAME##_atomic_fetch(w + kCounter, 0) == (TYPE)(10 * n), #NAME " counter: %lld", \
          (long long)shmem_##NAME##_atomic_fetch(w + kCounter, 0));                            \
    TYPE winner = shmem_##NAME##_atomic_fetch(w + kElection, 0);                               \
    CHECK(winner >= (TYPE)1 && winner <= (TYPE)n, #NAME "_atomic_compare_swap winner");        \
    CHECK((old == (TYPE)0) == (winner == (TYPE)(me + 1)), #NAME "_atomic_compare_swap old value"); \
    shmem_barrier_all();                                                                       \
    /* the loser's compare_swap leaves the word; the nbi form stores the old value */          \
    TYPE seen = 0;                                                                             \
    shmem_##NAME##_atomic_compare_swap_nbi(&seen, w + kElection, (TYPE)0, (TYPE)99, 0);        \
    shmem_quiet();                                                                             \
    CHECK(seen == winner, #NAME "_atomic_compare_swap_nbi fetched");                           \
    CHECK(shmem_##NAME##_atomic_fetch(w + kElection, 0) == winner, #NAME " a failed compare_swap changed the word"); \
    CHECK(shmem_##NAME##_atomic_fetch_add(w + kFetched, (TYPE)0, me) == (TYPE)0, #NAME "_atomic_fetch_add"); \
    CHECK(shmem_##NAME##_atomic_fetch_inc(w + kFetched, me) == (TYPE)0, #NAME "_atomic_fetch_inc"); \
    CHECK(shmem_##NAME##_atomic_compare_swap(w + kFetched, (TYPE)1, (TYPE)5, me) == (TYPE)1, #NAME "_atomic_compare_swap"); \
    shmem_##NAME##_atomic_add(w + kFetched, (TYPE)2, me);                                      \
    shmem_##NAME##_atomic_fetch_add_nbi(&seen, w + kFetched, (TYPE)1, me);                     \
    shmem_##NAME##_atomic_fetch_inc_nbi(&fetched, w + kFetched, me);                           \
    shmem_quiet();                                                                             \
    CHECK(seen == (TYPE)7 && fetched == (TYPE)8, #NAME " nbi fetches");                        \
    CHECK(shmem_ctx_##NAME##_atomic_fetch(ctx, w + kFetched, me) == (TYPE)9, #NAME " local sequence"); \
    shmem_barrier_all();                                                                       \
    shmem_free(w);                                                                             \
  }

#define TEST_BITWISE(NAME, TYPE)                                                               \
  static void bitwise_##NAME(shmem_ctx_t ctx) {                                                \
    const int me = shmem_my_pe(), n = shmem_n_pes();                                           \
    TYPE *w = shmem_calloc(kSlots, sizeof(TYPE));                                              \
    w[kBits] = (TYPE)0x7f;  /* PE 0's copy is the one changed */                               \
    w[kSwap] = (TYPE)0;                                                                        \
    shmem_barrier_all();                                                                       \
    /* PE p sets bit 8 + p, clears bit p, flips bit 16 + p twice then once */                  \
    shmem_ctx_##NAME##_atomic_or(ctx, w + kBits, (TYPE)((TYPE)1 << (8 + me)), 0);              \
    (void)shmem_ctx_##NAME##_atomic_fetch_and(ctx, w + kBits, (TYPE) ~((TYPE)1 << me), 0);     \
    shmem_ctx_##NAME##_atomic_xor(ctx, w + kBits, (TYPE)((TYPE)1 << (16 + me)), 0);            \
    (void)shmem_##NAME##_atomic_fetch_xor(w + kBits, (TYPE)((TYPE)1 << (16 + me)), 0);         \
    TYPE fetched = 0;                                                                          \
    shmem_##NAME##_atomic_fetch_xor_nbi(&fetched, w + kBits, (TYPE)((TYPE)1 << (16 + me)), 0);  \
    shmem_##NAME##_atomic_and(w + kFetched, (TYPE)0, 0);                                       \
    shmem_ctx_##NAME##_atomic_fetch_or_nbi(ctx, &fetched, w + kSwap, (TYPE)((TYPE)1 << me), 0); \
    shmem_##NAME##_atomic_fetch_and_nbi(&fetched, w + kFetched, (TYPE)0, 0);                   \
    (void)shmem_ctx_##NAME##_atomic_fetch_or(ctx, w + kFetched, (TYPE)0, 0);                   \
    shmem_quiet();                                                                             \
    shmem_barrier_all();                                                                       \
    TYPE expect = (TYPE)0x7f, low = 0;                                                         \
    for (int p = 0; p < n; ++p) {                                                              \
      expect = (TYPE)((expect | ((TYPE)1 << (8 + p)) | ((TYPE)1 << (16 + p))) & (TYPE) ~((TYPE)1 << p)); \
      low = (TYPE)(low | ((TYPE)1 << p));                                                      \
    }                                                                                          \
    CHECK(shmem_##NAME##_atomic_fetch(w + kBits, 0) == expect, #NAME " and/or/xor: %llx, expected %llx", \
          (unsigned long long)shmem_##NAME##_atomic_fetch(w + kBits, 0), (unsigned long long)expect); \
    CHECK(shmem_##NAME##_atomic_fetch(w + kSwap, 0) == low, #NAME "_atomic_fetch_or_nbi");     \
    CHECK(shmem_##NAME##_atomic_fetch(w + kFetched, 0) == (TYPE)0, #NAME " and/or with 0");     \
    shmem_barrier_all();                                                                       \
    shmem_free(w);                                                                             \
  }

AMO_TYPES(TEST_EXTENDED)
EXTENDED_ONLY_AMO_TYPES(TEST_EXTENDED)
AMO_TYPES(TEST_STANDARD)
BITWISE_AMO_TYPES(TEST_BITWISE)

/* The generic bitwise atomics on every bitwise AMO type, int32_t and int64_t included (whose
 * basic types, int and long, have no bitwise atomics of their own). */
#define TEST_GENERIC_BITWISE(NAME, TYPE)                                                         \
  static void generic_bitwise_##NAME(void) {                                                   \
    const int me = shmem_my_pe(), n = shmem_n_pes();                                           \
    TYPE *w = shmem_calloc(2, sizeof(TYPE)), expected = 0, fetched = 0;                        \
    for (int pe = 0; pe < n; ++pe) expected |= (TYPE)((TYPE)1 << (pe % 16));                  \
    shmem_barrier_all();                                                                       \
    shmem_atomic_or(w, (TYPE)((TYPE)1 << (me % 16)), 0);                                       \
    shmem_atomic_xor(SHMEM_CTX_DEFAULT, w + 1, (TYPE)1, 0);                                    \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_atomic_fetch_and(w, (TYPE)~(TYPE)0, 0) == expected, #NAME ": generic or");     \
    CHECK(shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, w + 1, (TYPE)0, 0) == (TYPE)(n % 2),       \
          #NAME ": generic xor");                                                              \
    shmem_barrier_all();                                                                       \
    if (me == 0) shmem_atomic_and(w, (TYPE)1, 0);                                              \
    shmem_barrier_all();                                                                       \
    shmem_atomic_fetch_or_nbi(&fetched, w, (TYPE)0, 0);                                        \
    shmem_quiet();                                                                             \
    CHECK(fetched == (TYPE)1, #NAME ": generic and, then fetch_or_nbi");                       \
    shmem_barrier_all();                                                                       \
    shmem_free(w);                                                                             \
  }
BITWISE_AMO_TYPES(TEST_GENERIC_BITWISE)

static void generic(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *l = shmem_calloc(2, sizeof(long));
  unsigned int *u = shmem_calloc(2, sizeof(unsigned int));
  double *d = shmem_calloc(2, sizeof(double));
  shmem_barrier_all();
  shmem_atomic_add(l, 2L, 0);
  shmem_atomic_inc(SHMEM_CTX_DEFAULT, l, 0);
  shmem_atomic_or(u, 1u << me, 0);
  shmem_atomic_set(d + me % 2, 0.25, me);
  shmem_barrier_all();
  CHECK(shmem_atomic_fetch(l, 0) == 3L * n, "generic atomic add/inc");
  CHECK(shmem_atomic_fetch_or(u, 0u, 0) == (n >= 32 ? ~0u : (1u << n) - 1u), "generic atomic or");
  CHECK(shmem_atomic_swap(d + me % 2, 0.5, me) == 0.25, "generic atomic swap on double");
  CHECK(shmem_atomic_compare_swap(l + 1, 0L, 7L, me) == 0L && shmem_atomic_fetch(l + 1, me) == 7L, "generic cswap");
  shmem_barrier_all();
  shmem_free(d);
  shmem_free(u);
  shmem_free(l);
}

int main(void) {
  shmem_init();
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
  shmem_ctx_t contexts[2] = {SHMEM_CTX_DEFAULT, ctx};
  for (int c = 0; c < 2; ++c) {
#define RUN_EXTENDED(NAME, TYPE) extended_##NAME(contexts[c]);
#define RUN_STANDARD(NAME, TYPE) standard_##NAME(contexts[c]);
#define RUN_BITWISE(NAME, TYPE) bitwise_##NAME(contexts[c]);
    AMO_TYPES(RUN_EXTENDED)
    EXTENDED_ONLY_AMO_TYPES(RUN_EXTENDED)
    AMO_TYPES(RUN_STANDARD)
    BITWISE_AMO_TYPES(RUN_BITWISE)
  }
  shmem_ctx_destroy(ctx);
  generic();
#define RUN_GENERIC_BITWISE(NAME, TYPE) generic_bitwise_##NAME();
  BITWISE_AMO_TYPES(RUN_GENERIC_BITWISE)
  shmem_finalize();
  return 0;
}
