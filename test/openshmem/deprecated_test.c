/* Names deprecated before OpenSHMEM 1.5 that older programs use: start_pes, _my_pe, _num_pes,
 * shmalloc/shfree/shrealloc/shmemalign, the pre-1.4 atomics, shmem_TYPE_wait and shmem_wait, and
 * the cache routines; each must do what the routine that replaced it does. */
#include "check.h"

int main(void) {
  start_pes(0);
  const int me = _my_pe(), n = _num_pes();
  CHECK(me == shmem_my_pe() && n == shmem_n_pes(), "_my_pe/_num_pes");
  long *w = shmalloc(4 * sizeof(long));
  int *iw = shmemalign(64, 4 * sizeof(int));
  double *dw = shmalloc(sizeof(double));
  CHECK(w != NULL && iw != NULL && dw != NULL && ((unsigned long)iw % 64) == 0, "shmalloc/shmemalign");
  w[0] = w[1] = w[2] = w[3] = 0;
  iw[0] = iw[1] = 0;
  *dw = 0.0;
  shmem_barrier_all();

  shmem_long_add(&w[0], me + 1, 0);
  shmem_long_inc(&w[1], 0);
  (void)shmem_long_finc(&w[1], 0);
  (void)shmem_long_fadd(&w[2], 2, 0);
  shmem_int_inc(&iw[0], 0);
  shmem_barrier_all();
  if (me == 0) {
    CHECK(w[0] == (long)n * (n + 1) / 2, "shmem_long_add: %ld", w[0]);
    CHECK(w[1] == 2L * n, "shmem_long_inc + finc: %ld", w[1]);
    CHECK(w[2] == 2L * n, "shmem_long_fadd: %ld", w[2]);
    CHECK(iw[0] == n, "shmem_int_inc: %d", iw[0]);
  }
  shmem_barrier_all();
  if (me == n - 1) {
    CHECK(shmem_long_cswap(&w[3], 0, 7, 0) == 0, "shmem_long_cswap returns the old value");
    CHECK(shmem_long_swap(&w[3], 9, 0) == 7, "shmem_long_swap returns the old value");
    shmem_double_set(dw, 2.5, 0);
    CHECK(shmem_double_fetch(dw, 0) == 2.5, "shmem_double_set/fetch");
    CHECK(shmem_long_fetch(&w[3], 0) == 9, "shmem_long_fetch");
  }
  shmem_barrier_all();

  /* shmem_int_wait: returns once the word differs from the value */
  const int next = (me + 1) % n;
  shmem_int_p(&iw[1], 5, next);
  shmem_int_wait(&iw[1], 0);
  CHECK(iw[1] == 5, "shmem_int_wait: %d", iw[1]);
  shmem_barrier_all();
  w[3] = 0;
  shmem_barrier_all();
  shmem_long_p(&w[3], 3, next);
  shmem_wait(&w[3], 0);
  CHECK(w[3] == 3, "shmem_wait: %ld", w[3]);

  shmem_clear_cache_inv();
  shmem_set_cache_inv();
  shmem_clear_cache_line_inv(w);
  shmem_set_cache_line_inv(w);
  shmem_udcflush();
  shmem_udcflush_line(w);
  w = shrealloc(w, 8 * sizeof(long));
  CHECK(w != NULL, "shrealloc");
  shmem_barrier_all();
  shfree(dw);
  shfree(iw);
  shfree(w);
  if (me == 0) printf("deprecated names: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
