/* Remotely accessible static data: global and static variables are symmetric (OpenSHMEM 1.5,
 * "data objects"): initial values survive shmem_init, and RMA, atomics, signals, waits and
 * collectives reach every PE's copy of them, as they reach heap objects. */
#include "check.h"

#include <stdint.h>

long counter;                             /* .bss */
int initialized[4] = {1, 2, 3, 4};        /* .data */
static double file_static[8];             /* file scope, internal linkage */
int from_prev = -1;                       /* written by the previous PE */
long sums[4];
long totals[4];
long broadcast_into[4];

static uint64_t *arrival(void) {
  static uint64_t sig; /* function-local static */
  return &sig;
}

int main(void) {
  CHECK(initialized[0] == 1 && initialized[3] == 4, "initialized data changed before shmem_init");
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(initialized[0] == 1 && initialized[3] == 4, "initialized data changed by shmem_init");
  for (int pe = 0; pe < n; ++pe) {
    CHECK(shmem_addr_accessible(&counter, pe) == 1, "&counter not accessible on PE %d", pe);
    CHECK(shmem_addr_accessible(arrival(), pe) == 1, "a function-local static not accessible on PE %d", pe);
  }
  shmem_barrier_all();

  /* put / get / p / g */
  const int mine[4] = {10 * me, 10 * me + 1, 10 * me + 2, 10 * me + 3};
  shmem_int_put(initialized, mine, 4, next_pe());
  shmem_int_p(&from_prev, me, next_pe());
  shmem_barrier_all();
  for (int i = 0; i < 4; ++i) CHECK(initialized[i] == 10 * prev_pe() + i, "initialized[%d] = %d", i, initialized[i]);
  CHECK(from_prev == prev_pe(), "from_prev = %d", from_prev);
  int got[4] = {0};
  shmem_int_get(got, initialized, 4, next_pe());
  for (int i = 0; i < 4; ++i) CHECK(got[i] == 10 * me + i, "get from the next PE: got[%d] = %d", i, got[i]);
  CHECK(shmem_int_g(&from_prev, next_pe()) == me, "g of the next PE's from_prev");

  /* shmem_ptr: a load/store address of the peer's copy (every PE of this job shares memory) */
  long *peer_counter = shmem_ptr(&counter, next_pe());
  CHECK(peer_counter != NULL, "shmem_ptr of a global on PE %d", next_pe());
  shmem_barrier_all();

  /* atomics: every PE adds me + 1 to PE 0's counter */
  shmem_long_atomic_add(&counter, me + 1, 0);
  shmem_barrier_all();
  if (me == 0) CHECK(counter == (long)n * (n + 1) / 2, "counter = %ld", counter);
  CHECK(shmem_long_atomic_fetch(&counter, 0) == (long)n * (n + 1) / 2, "atomic fetch of PE 0's counter");
  shmem_barrier_all();

  /* put with signal into a file-static array, signal on a function-local static */
  double values[8];
  for (int i = 0; i < 8; ++i) values[i] = me + i / 8.0;
  shmem_double_put_signal(file_static, values, 8, arrival(), (uint64_t)(me + 1), SHMEM_SIGNAL_SET, next_pe());
  CHECK(shmem_signal_wait_until(arrival(), SHMEM_CMP_EQ, (uint64_t)(prev_pe() + 1)) == (uint64_t)(prev_pe() + 1),
        "signal_wait_until on a static signal");
  for (int i = 0; i < 8; ++i) CHECK(file_static[i] == prev_pe() + i / 8.0, "file_static[%d] = %g", i, file_static[i]);

  /* a wait on a global set by the previous PE */
  shmem_barrier_all();
  shmem_int_p(&from_prev, 1000 + me, next_pe());
  shmem_int_wait_until(&from_prev, SHMEM_CMP_EQ, 1000 + prev_pe());

  /* collectives with static source and dest */
  for (int i = 0; i < 4; ++i) sums[i] = me * 4 + i;
  shmem_barrier_all();
  CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, totals, sums, 4) == 0, "sum_reduce");
  for (int i = 0; i < 4; ++i) {
    long want = 0;
    for (int pe = 0; pe < n; ++pe) want += pe * 4 + i;
    CHECK(totals[i] == want, "totals[%d] = %ld, want %ld", i, totals[i], want);
  }
  CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, broadcast_into, sums, 4, n - 1) == 0, "broadcast");
  for (int i = 0; i < 4; ++i) CHECK(broadcast_into[i] == (n - 1) * 4 + i, "broadcast_into[%d]", i);

  shmem_barrier_all();
  if (me == 0) printf("static data: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
