/* RMA for every standard RMA type: put, get, p, g, iput, iget, put_nbi, get_nbi, in the default
 * and in a created context; the sized and byte forms; the C11 generic selections. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { N = 8 };

/* Values of PE `pe` for element i, distinct per PE and element and exact in every type. */
#define VALUE(TYPE, pe, i) ((TYPE)((pe) * 10 + (i) + 1))

#define TEST_TYPE(NAME, TYPE)                                                                  \
  static void test_##NAME(shmem_ctx_t ctx) {                                                   \
    const int me = shmem_my_pe(), to = next_pe(), from = prev_pe();                            \
    TYPE *dest = shmem_calloc(4 * N, sizeof(TYPE));                                            \
    TYPE *src = shmem_malloc(4 * N * sizeof(TYPE));                                            \
    TYPE local[4 * N];                                                                         \
    for (int i = 0; i < 4 * N; ++i) src[i] = VALUE(TYPE, me, i);                               \
    shmem_barrier_all();                                                                       \
    /* put: my first N to the next PE's dest[0..N) */                                          \
    shmem_ctx_##NAME##_put(ctx, dest, src, N, to);                                             \
    /* p: one element to dest[N] */                                                            \
    shmem_ctx_##NAME##_p(ctx, dest + N, VALUE(TYPE, me, 99 % 50), to);                         \
    /* iput: src[0], src[2], ... to dest[N + 1], dest[N + 4], ... */                           \
    shmem_ctx_##NAME##_iput(ctx, dest + N + 1, src, 3, 2, 3, to);                              \
    /* put_nbi: src[N..2N) to dest[2N..3N), completed by quiet */                              \
    shmem_ctx_##NAME##_put_nbi(ctx, dest + 2 * N, src + N, N, to);                             \
    shmem_ctx_quiet(ctx);                                                                      \
    shmem_barrier_all();                                                                       \
    for (int i = 0; i < N; ++i)                                                                \
      CHECK(dest[i] == VALUE(TYPE, from, i), #NAME "_put [%d]", i);                            \
    CHECK(dest[N] == VALUE(TYPE, from, 99 % 50), #NAME "_p");                                  \
    for (int k = 0; k < 3; ++k)                                                                \
      CHECK(dest[N + 1 + 3 * k] == VALUE(TYPE, from, 2 * k), #NAME "_iput [%d]", k);           \
    CHECK(dest[N + 2] == 0 && dest[N + 3] == 0, #NAME "_iput wrote between its strides");      \
    for (int i = 0; i < N; ++i)                                                                \
      CHECK(dest[2 * N + i] == VALUE(TYPE, from, N + i), #NAME "_put_nbi [%d]", i);            \
    /* get, g, iget, get_nbi from the next PE's src */                                         \
    memset(local, 0, sizeof local);                                                            \
    shmem_ctx_##NAME##_get(ctx, local, src, N, to);                                            \
    for (int i = 0; i < N; ++i) CHECK(local[i] == VALUE(TYPE, to, i), #NAME "_get [%d]", i);   \
    CHECK(shmem_ctx_##NAME##_g(ctx, src + 5, to) == VALUE(TYPE, to, 5), #NAME "_g");           \
    memset(local, 0, sizeof local);                                                            \
    shmem_ctx_##NAME##_iget(ctx, local, src + 1, 2, 3, 4, to);                                 \
    for (int k = 0; k < 4; ++k) CHECK(local[2 * k] == VALUE(TYPE, to, 1 + 3 * k), #NAME "_iget [%d]", k); \
    CHECK(local[1] == 0, #NAME "_iget wrote between its strides");                             \
    shmem_ctx_##NAME##_get_nbi(ctx, local, src + 3 * N, N, to);                                \
    shmem_ctx_quiet(ctx);                                                                      \
    for (int i = 0; i < N; ++i) CHECK(local[i] == VALUE(TYPE, to, 3 * N + i), #NAME "_get_nbi [%d]", i); \
    /* the default context's names */                                                          \
    shmem_##NAME##_put(dest + 3 * N, src + 2, 2, to);                                          \
    shmem_##NAME##_put_nbi(dest + 3 * N + 2, src + 4, 1, to);                                  \
    shmem_##NAME##_iput(dest + 3 * N + 3, src, 1, 1, 1, to);                                   \
    shmem_##NAME##_p(dest + 3 * N + 4, VALUE(TYPE, me, 7), to);                                \
    shmem_barrier_all();                                                                       \
    CHECK(dest[3 * N] == VALUE(TYPE, from, 2) && dest[3 * N + 1] == VALUE(TYPE, from, 3), #NAME "_put"); \
    CHECK(dest[3 * N + 2] == VALUE(TYPE, from, 4), #NAME "_put_nbi");                          \
    CHECK(dest[3 * N + 3] == VALUE(TYPE, from, 0), #NAME "_iput");                             \
    CHECK(dest[3 * N + 4] == VALUE(TYPE, from, 7), #NAME "_p");                                \
    CHECK(shmem_##NAME##_g(src + 6, to) == VALUE(TYPE, to, 6), #NAME "_g");                    \
    memset(local, 0, sizeof local);                                                            \
    shmem_##NAME##_get(local, src, 2, to);                                                     \
    shmem_##NAME##_get_nbi(local + 2, src + 2, 1, to);                                         \
    shmem_##NAME##_iget(local + 3, src + 3, 1, 1, 1, to);                                      \
    shmem_quiet();                                                                             \
    for (int i = 0; i < 4; ++i) CHECK(local[i] == VALUE(TYPE, to, i), #NAME " default get [%d]", i); \
    shmem_barrier_all();                                                                       \
    shmem_free(src);                                                                           \
    shmem_free(dest);                                                                          \
  }
RMA_TYPES(TEST_TYPE)

static void test_sized_and_bytes(void) {
  const int to = next_pe(), from = prev_pe(), me = shmem_my_pe();
  uint64_t *src = shmem_malloc(16 * sizeof(uint64_t));
  uint64_t *dest = shmem_calloc(16, sizeof(uint64_t));
  for (int i = 0; i < 16; ++i) src[i] = ((uint64_t)me << 32) | (uint64_t)(0x01020304u * (i + 1));
  shmem_barrier_all();
  shmem_put8(dest, src, 3, to);                      /* 3 bytes */
  shmem_put16((char *)dest + 8, src + 1, 2, to);     /* 4 bytes */
  shmem_put32(dest + 2, src + 2, 2, to);             /* 8 bytes */
  shmem_put64(dest + 3, src + 3, 2, to);             /* 16 bytes */
  shmem_put128(dest + 5, src + 5, 1, to);            /* 16 bytes */
  shmem_putmem(dest + 7, src + 7, 8, to);
  shmem_putmem_nbi(dest + 8, src + 8, 8, to);
  shmem_put64_nbi(dest + 9, src + 9, 1, to);
  shmem_iput64(dest + 10, src + 10, 2, 1, 2, to);    /* src[10], src[11] to dest[10], dest[12] */
  shmem_quiet();
  shmem_barrier_all();
  uint64_t expect[16];
  for (int i = 0; i < 16; ++i) expect[i] = ((uint64_t)from << 32) | (uint64_t)(0x01020304u * (i + 1));
  CHECK(memcmp(dest, expect, 3) == 0, "put8");
  CHECK(memcmp((char *)dest + 8, expect + 1, 4) == 0, "put16");
  CHECK(dest[2] == expect[2], "put32 dest[2]");
  CHECK(dest[3] == expect[3] && dest[4] == expect[4], "put64");
  CHECK(dest[5] == expect[5] && dest[6] == expect[6], "put128");
  CHECK(dest[7] == expect[7] && dest[8] == expect[8] && dest[9] == expect[9], "putmem, putmem_nbi, put64_nbi");
  CHECK(dest[10] == expect[10] && dest[11] == 0 && dest[12] == expect[11], "iput64");
  uint64_t local[16] = {0};
  shmem_get8(local, src, 5, to);
  shmem_get16((char *)local + 8, src + 1, 4, to);
  shmem_get32(local + 2, src + 2, 2, to);
  shmem_get64(local + 3, src + 3, 1, to);
  shmem_get128(local + 4, src + 4, 1, to);
  shmem_getmem(local + 6, src + 6, 8, to);
  shmem_getmem_nbi(local + 7, src + 7, 8, to);
  shmem_get64_nbi(local + 8, src + 8, 1, to);
  shmem_iget32(local + 9, src + 9, 2, 2, 2, to);     /* the two halves of src[9], src[10] */
  shmem_ctx_getmem(SHMEM_CTX_DEFAULT, local + 11, src + 11, 8, to);
  shmem_quiet();
  uint64_t theirs[16];
  for (int i = 0; i < 16; ++i) theirs[i] = ((uint64_t)to << 32) | (uint64_t)(0x01020304u * (i + 1));
  CHECK(memcmp(local, theirs, 5) == 0, "get8");
  for (int i = 1; i < 9; ++i) CHECK(local[i] == theirs[i], "get* [%d]", i);
  CHECK(memcmp(local + 9, theirs + 9, 4) == 0 && memcmp((char *)(local + 10), theirs + 10, 4) == 0, "iget32");
  CHECK(local[11] == theirs[11], "ctx_getmem");
  shmem_barrier_all();
  shmem_free(dest);
  shmem_free(src);
}

static void test_generic(void) {
  const int to = next_pe(), from = prev_pe(), me = shmem_my_pe();
  double *d = shmem_calloc(4, sizeof(double));
  long *l = shmem_calloc(4, sizeof(long));
  unsigned char *c = shmem_calloc(4, 1);
  double dv[2] = {me + 0.5, me + 1.5};
  shmem_put(d, dv, 2, to);
  shmem_p(l, (long)me * 3, to);
  shmem_p(SHMEM_CTX_DEFAULT, c, (unsigned char)(200 + me), to);
  shmem_barrier_all();
  CHECK(d[0] == from + 0.5 && d[1] == from + 1.5, "generic shmem_put on double");
  CHECK(l[0] == (long)from * 3, "generic shmem_p on long");
  CHECK(c[0] == (unsigned char)(200 + from), "generic ctx shmem_p on unsigned char");
  CHECK(shmem_g(l, to) == (long)me * 3, "generic shmem_g");
  double back[2];
  shmem_get(SHMEM_CTX_DEFAULT, back, d, 2, to);
  CHECK(back[0] == me + 0.5, "generic ctx shmem_get");
  shmem_barrier_all();
  shmem_free(c);
  shmem_free(l);
  shmem_free(d);
}

int main(void) {
  shmem_init();
  shmem_ctx_t ctx;
  CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "ctx_create");
#define RUN(NAME, TYPE) test_##NAME(SHMEM_CTX_DEFAULT); test_##NAME(ctx);
  RMA_TYPES(RUN)
  shmem_ctx_destroy(ctx);
  test_sized_and_bytes();
  test_generic();
  shmem_finalize();
  return 0;
}
