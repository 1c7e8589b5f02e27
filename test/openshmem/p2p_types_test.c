/* Point-to-point synchronization on every type the specification lists for it, short and
 * unsigned short (deprecated in 1.5, still part of it) included: wait_until and test, their
 * _all, _any and _some forms with and without a status mask, and the _vector forms, each by its
 * typed name and by its C11 generic name (which picks the routine by the element type: the
 * fixed-width types are names of basic ones).
 *
 * Each PE's set holds one word per PE; PE q puts q + 1 into word q of every PE's set, and every
 * PE waits on its own set. Before the puts, the tests see only zeros. */
#include <stdint.h>

#include "check.h"

#define MAX_PES 64

#define TEST_TYPE(NAME, TYPE)                                                                          \
  static void p2p_##NAME(void) {                                                                     \
    const int me = shmem_my_pe(), n = shmem_n_pes(), next = next_pe(), prev = prev_pe();             \
    const size_t k = (size_t)n, none = SIZE_MAX;                                                     \
    TYPE *ivars = shmem_calloc(k, sizeof(TYPE));                                                     \
    TYPE values[MAX_PES];                                                                            \
    size_t indices[MAX_PES], i, count;                                                               \
    int status[MAX_PES];                                                                             \
    CHECK(ivars != NULL, #NAME ": calloc");                                                          \
    for (i = 0; i < k; ++i) {                                                                        \
      values[i] = (TYPE)(i + 1);                                                                     \
      status[i] = i == 0; /* the mask leaves word 0 out */                                           \
    }                                                                                                \
    /* Every word is 0. */                                                                           \
    CHECK(shmem_##NAME##_test(&ivars[me], SHMEM_CMP_EQ, (TYPE)0) == 1, #NAME "_test EQ 0");          \
    CHECK(shmem_test(&ivars[me], SHMEM_CMP_NE, (TYPE)0) == 0, #NAME ": generic test NE 0");          \
    CHECK(shmem_##NAME##_test_all(ivars, k, NULL, SHMEM_CMP_EQ, (TYPE)0) == 1, #NAME "_test_all EQ 0"); \
    CHECK(shmem_test_all(ivars, k, NULL, SHMEM_CMP_GT, (TYPE)0) == 0, #NAME ": generic test_all GT 0"); \
    CHECK(shmem_##NAME##_test_any(ivars, k, NULL, SHMEM_CMP_GT, (TYPE)0) == none, #NAME "_test_any GT 0"); \
    i = shmem_test_any(ivars, k, status, SHMEM_CMP_EQ, (TYPE)0);                                     \
    CHECK(k == 1 ? i == none : (i >= 1 && i < k), #NAME ": generic test_any EQ 0 gave %zu", i);      \
    CHECK(shmem_##NAME##_test_some(ivars, k, indices, NULL, SHMEM_CMP_GT, (TYPE)0) == 0,             \
          #NAME "_test_some GT 0");                                                                  \
    CHECK(shmem_test_some(ivars, k, indices, NULL, SHMEM_CMP_LT, (TYPE)1) == k, #NAME ": generic test_some LT 1"); \
    CHECK(shmem_##NAME##_test_all_vector(ivars, k, NULL, SHMEM_CMP_LT, values) == 1,                 \
          #NAME "_test_all_vector LT");                                                              \
    CHECK(shmem_test_all_vector(ivars, k, NULL, SHMEM_CMP_EQ, values) == 0, #NAME ": generic test_all_vector EQ"); \
    CHECK(shmem_##NAME##_test_any_vector(ivars, k, NULL, SHMEM_CMP_EQ, values) == none,              \
          #NAME "_test_any_vector EQ");                                                              \
    CHECK(shmem_test_any_vector(ivars, k, NULL, SHMEM_CMP_NE, values) < k, #NAME ": generic test_any_vector NE"); \
    CHECK(shmem_##NAME##_test_some_vector(ivars, k, indices, NULL, SHMEM_CMP_EQ, values) == 0,       \
          #NAME "_test_some_vector EQ");                                                             \
    CHECK(shmem_test_some_vector(ivars, k, indices, status, SHMEM_CMP_LE, values) == k - 1,          \
          #NAME ": generic test_some_vector LE, masked");                                            \
    shmem_barrier_all();                                                                             \
                                                                                                     \
    for (int pe = 0; pe < n; ++pe) shmem_##NAME##_p(&ivars[me], (TYPE)(me + 1), pe);                 \
    /* One word: the previous PE's and the next one's, then word 0 by every comparison. */           \
    shmem_##NAME##_wait_until(&ivars[prev], SHMEM_CMP_EQ, (TYPE)(prev + 1));                         \
    shmem_wait_until(&ivars[next], SHMEM_CMP_GE, (TYPE)(next + 1));                                  \
    shmem_wait_until(&ivars[0], SHMEM_CMP_GT, (TYPE)0);                                              \
    shmem_wait_until(&ivars[0], SHMEM_CMP_NE, (TYPE)0);                                              \
    shmem_wait_until(&ivars[0], SHMEM_CMP_LT, (TYPE)2);                                              \
    shmem_wait_until(&ivars[0], SHMEM_CMP_LE, (TYPE)1);                                              \
    CHECK(ivars[prev] == (TYPE)(prev + 1) && ivars[next] == (TYPE)(next + 1) && ivars[0] == (TYPE)1, \
          #NAME ": the words after wait_until");                                                     \
    /* Sets: any word, then every word. */                                                           \
    i = shmem_##NAME##_wait_until_any(ivars, k, NULL, SHMEM_CMP_GT, (TYPE)0);                        \
    CHECK(i < k && ivars[i] == (TYPE)(i + 1), #NAME "_wait_until_any gave %zu", i);                  \
    i = shmem_wait_until_any(ivars, k, NULL, SHMEM_CMP_NE, (TYPE)0);                                 \
    CHECK(i < k && ivars[i] == (TYPE)(i + 1), #NAME ": generic wait_until_any gave %zu", i);         \
    shmem_##NAME##_wait_until_all(ivars, k, NULL, SHMEM_CMP_GT, (TYPE)0);                            \
    shmem_wait_until_all(ivars, k, status, SHMEM_CMP_GE, (TYPE)1);                                   \
    for (i = 0; i < k; ++i) CHECK(ivars[i] == (TYPE)(i + 1), #NAME ": word %zu after wait_until_all", i); \
    i = shmem_wait_until_any(ivars, k, status, SHMEM_CMP_GE, (TYPE)1);                               \
    CHECK(k == 1 ? i == none : (i >= 1 && i < k), #NAME ": generic wait_until_any, masked, gave %zu", i); \
    count = shmem_##NAME##_wait_until_some(ivars, k, indices, NULL, SHMEM_CMP_GE, (TYPE)1);          \
    CHECK(count == k, #NAME "_wait_until_some found %zu of %zu", count, k);                          \
    for (i = 0; i < count; ++i) CHECK(indices[i] == i, #NAME "_wait_until_some index [%zu] = %zu", i, indices[i]); \
    count = shmem_wait_until_some(ivars, k, indices, status, SHMEM_CMP_GT, (TYPE)0);                 \
    CHECK(count == k - 1, #NAME ": generic wait_until_some, masked, found %zu", count);              \
    for (i = 0; i < count; ++i) CHECK(indices[i] == i + 1, #NAME ": generic wait_until_some [%zu] = %zu", i, indices[i]); \
    /* Vectors: word i against values[i] = i + 1. */                                                 \
    shmem_##NAME##_wait_until_all_vector(ivars, k, NULL, SHMEM_CMP_EQ, values);                      \
    shmem_wait_until_all_vector(ivars, k, status, SHMEM_CMP_LE, values);                             \
    i = shmem_##NAME##_wait_until_any_vector(ivars, k, NULL, SHMEM_CMP_EQ, values);                  \
    CHECK(i < k, #NAME "_wait_until_any_vector gave %zu", i);                                        \
    i = shmem_wait_until_any_vector(ivars, k, status, SHMEM_CMP_GE, values);                         \
    CHECK(k == 1 ? i == none : (i >= 1 && i < k), #NAME ": generic wait_until_any_vector gave %zu", i); \
    count = shmem_##NAME##_wait_until_some_vector(ivars, k, indices, NULL, SHMEM_CMP_EQ, values);    \
    CHECK(count == k, #NAME "_wait_until_some_vector found %zu", count);                             \
    count = shmem_wait_until_some_vector(ivars, k, indices, status, SHMEM_CMP_EQ, values);           \
    CHECK(count == k - 1, #NAME ": generic wait_until_some_vector, masked, found %zu", count);       \
    /* Tests on the set words. */                                                                    \
    CHECK(shmem_##NAME##_test(&ivars[me], SHMEM_CMP_EQ, (TYPE)(me + 1)) == 1, #NAME "_test EQ");     \
    CHECK(shmem_test(&ivars[me], SHMEM_CMP_LT, (TYPE)(me + 1)) == 0, #NAME ": generic test LT");     \
    CHECK(shmem_##NAME##_test_all(ivars, k, NULL, SHMEM_CMP_GE, (TYPE)1) == 1, #NAME "_test_all GE 1"); \
    CHECK(shmem_test_all(ivars, k, NULL, SHMEM_CMP_EQ, (TYPE)1) == (k == 1), #NAME ": generic test_all EQ 1"); \
    CHECK(shmem_##NAME##_test_any(ivars, k, NULL, SHMEM_CMP_EQ, (TYPE)(me + 1)) == (size_t)me,       \
          #NAME "_test_any EQ");                                                                     \
    CHECK(shmem_test_any(ivars, k, status, SHMEM_CMP_EQ, (TYPE)1) == none, #NAME ": generic test_any, masked"); \
    CHECK(shmem_##NAME##_test_some(ivars, k, indices, NULL, SHMEM_CMP_GT, (TYPE)0) == k, #NAME "_test_some GT 0"); \
    CHECK(shmem_test_some(ivars, k, indices, status, SHMEM_CMP_GT, (TYPE)0) == k - 1,                \
          #NAME ": generic test_some, masked");                                                      \
    CHECK(shmem_##NAME##_test_all_vector(ivars, k, NULL, SHMEM_CMP_EQ, values) == 1,                 \
          #NAME "_test_all_vector EQ");                                                              \
    CHECK(shmem_test_all_vector(ivars, k, NULL, SHMEM_CMP_LT, values) == 0, #NAME ": generic test_all_vector LT"); \
    CHECK(shmem_##NAME##_test_any_vector(ivars, k, NULL, SHMEM_CMP_NE, values) == none,              \
          #NAME "_test_any_vector NE");                                                              \
    CHECK(shmem_test_any_vector(ivars, k, NULL, SHMEM_CMP_EQ, values) < k, #NAME ": generic test_any_vector EQ"); \
    CHECK(shmem_##NAME##_test_some_vector(ivars, k, indices, NULL, SHMEM_CMP_GE, values) == k,       \
          #NAME "_test_some_vector GE");                                                             \
    CHECK(shmem_test_some_vector(ivars, k, indices, NULL, SHMEM_CMP_GT, values) == 0,                \
          #NAME ": generic test_some_vector GT");                                                    \
    shmem_barrier_all();                                                                             \
    shmem_free(ivars);                                                                               \
  }
P2P_TYPES(TEST_TYPE)

/* shmem_short_wait, deprecated before 1.5 (wait_until NE): released by the previous PE's put. */
static void short_wait(void) {
  short *word = shmem_calloc(1, sizeof(short));
  CHECK(word != NULL, "calloc");
  shmem_barrier_all();
  shmem_short_p(word, (short)-3, next_pe());
  shmem_short_wait(word, 0);
  CHECK(*word == -3, "short_wait returned with %d", *word);
  shmem_barrier_all();
  shmem_free(word);
}

int main(void) {
  shmem_init();
  CHECK(shmem_n_pes() <= MAX_PES, "at most %d PEs", MAX_PES);
#define RUN(NAME, TYPE) p2p_##NAME();
  P2P_TYPES(RUN)
  short_wait();
  shmem_finalize();
  return 0;
}
