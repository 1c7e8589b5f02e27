/* Point-to-point synchronization: wait_until and test for every type, the _all, _any, _some
 * waits and tests with and without status masks, and their _vector forms. PE 0's words are set
 * by the other PEs' atomics; PE 0 waits. */
#include <stdint.h>

#include "check.h"

#define TEST_TYPE(NAME, TYPE)                                                                  \
  static void single_##NAME(void) {                                                            \
    const int to = next_pe();                                                                  \
    TYPE *flag = shmem_calloc(1, sizeof(TYPE));                                                \
    shmem_barrier_all();                                                                       \
    CHECK(shmem_##NAME##_test(flag, SHMEM_CMP_EQ, (TYPE)0) == 1, #NAME "_test EQ 0");          \
    CHECK(shmem_##NAME##_test(flag, SHMEM_CMP_GT, (TYPE)0) == 0, #NAME "_test GT 0");          \
    shmem_barrier_all();                                                                       \
    shmem_##NAME##_atomic_set(flag, (TYPE)7, to);                           \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_EQ, (TYPE)7);                                    \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_NE, (TYPE)0);                                    \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_GE, (TYPE)7);                                    \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_LE, (TYPE)7);                                    \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_GT, (TYPE)6);                                    \
    shmem_##NAME##_wait_until(flag, SHMEM_CMP_LT, (TYPE)8);                                    \
    CHECK(shmem_##NAME##_test(flag, SHMEM_CMP_EQ, (TYPE)7) == 1, #NAME "_test after the wait"); \
    shmem_barrier_all();                                                                       \
    shmem_free(flag);                                                                          \
  }
AMO_TYPES(TEST_TYPE)

/* PE p (p > 0) sets ivars[p - 1] of PE 0 to 1; PE 0 waits in the various ways. */
static void sets(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const size_t k = (size_t)(n > 1 ? n - 1 : 1);
  long *ivars = shmem_calloc(k + 1, sizeof(long));
  size_t indices[8];
  int status[8] = {0};
  shmem_barrier_all();
  if (me == 0) {
    CHECK(shmem_long_test_any(ivars, k, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any before any set");
    CHECK(shmem_long_test_some(ivars, k, indices, NULL, SHMEM_CMP_EQ, 1) == 0, "test_some before any set");
    CHECK(shmem_long_test_all(ivars, k, NULL, SHMEM_CMP_EQ, 0) == 1, "test_all EQ 0");
    CHECK(shmem_long_test_all(ivars, k, NULL, SHMEM_CMP_EQ, 1) == 0, "test_all before any set");
  }
  shmem_barrier_all();
  if (me != 0) shmem_long_atomic_set(ivars + me - 1, 1, 0);
  if (me == 0 && n > 1) {
    /* any: every index once, masking those already seen */
    for (size_t seen = 0; seen < k; ++seen) {
      size_t i = shmem_long_wait_until_any(ivars, k, status, SHMEM_CMP_EQ, 1);
      CHECK(i < k && status[i] == 0, "wait_until_any gave %zu", i);
      status[i] = 1;
    }
    CHECK(shmem_long_wait_until_any(ivars, k, status, SHMEM_CMP_EQ, 1) == SIZE_MAX, "all masked: SIZE_MAX");
    CHECK(shmem_long_test_any(ivars, k, status, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any all masked");
    shmem_long_wait_until_all(ivars, k, NULL, SHMEM_CMP_EQ, 1);
    CHECK(shmem_long_test_all(ivars, k, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all after the sets");
    size_t count = shmem_long_wait_until_some(ivars, k, indices, NULL, SHMEM_CMP_EQ, 1);
    CHECK(count == k, "wait_until_some found %zu of %zu", count, k);
    for (size_t i = 0; i < count; ++i) CHECK(indices[i] == i, "wait_until_some index [%zu] = %zu", i, indices[i]);
    status[0] = 1;
    for (size_t i = 1; i < k; ++i) status[i] = 0;
    CHECK(shmem_long_test_some(ivars, k, indices, status, SHMEM_CMP_EQ, 1) == k - 1, "test_some with a mask");
    /* vectors: word i against values[i] */
    long values[8];
    for (size_t i = 0; i < k; ++i) values[i] = 1;
    shmem_long_wait_until_all_vector(ivars, k, NULL, SHMEM_CMP_EQ, values);
    values[0] = 2;  /* word 0 is 1: no longer EQ; GE 1 holds for the others */
    CHECK(shmem_long_test_all_vector(ivars, k, NULL, SHMEM_CMP_EQ, values) == 0, "test_all_vector");
    size_t i = shmem_long_wait_until_any_vector(ivars, k, NULL, SHMEM_CMP_LT, values);
    CHECK(i == 0, "wait_until_any_vector gave %zu", i);
    CHECK(shmem_long_test_any_vector(ivars, k, NULL, SHMEM_CMP_LT, values) == 0, "test_any_vector");
    count = shmem_long_wait_until_some_vector(ivars, k, indices, NULL, SHMEM_CMP_NE, values);
    CHECK(count == 1 && indices[0] == 0, "wait_until_some_vector: %zu", count);
    CHECK(shmem_long_test_some_vector(ivars, k, indices, NULL, SHMEM_CMP_EQ, values) == k - 1, "test_some_vector");
    /* the generic names */
    shmem_wait_until_all(ivars, k, NULL, SHMEM_CMP_GT, 0L);
    CHECK(shmem_test_any(ivars, k, NULL, SHMEM_CMP_EQ, 1L) < k, "generic test_any");
  }
  shmem_barrier_all();
  shmem_free(ivars);
}

int main(void) {
  shmem_init();
#define RUN(NAME, TYPE) single_##NAME();
  AMO_TYPES(RUN)
  sets();
  shmem_finalize();
  return 0;
}
