/* Teams (split_strided, split_2d, translate, get_config, destroy), contexts on teams, and locks. */
#include "check.h"

static void strided_and_translate(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_team_t evens;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0, "split");
  if (me % 2 == 0) {
    CHECK(evens != SHMEM_TEAM_INVALID, "an even PE is in the team");
    CHECK(shmem_team_my_pe(evens) == me / 2 && shmem_team_n_pes(evens) == (n + 1) / 2, "even team numbering");
    for (int p = 0; p < shmem_team_n_pes(evens); ++p)
      CHECK(shmem_team_translate_pe(evens, p, SHMEM_TEAM_WORLD) == 2 * p, "translate team PE %d", p);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, evens) == me / 2, "translate into the team");
    if (n > 1) CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, evens) == -1, "PE 1 is not in the team");
    shmem_team_config_t config = {-1};
    CHECK(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &config) == 0 && config.num_contexts == 0, "config");

    /* a sub-team of the sub-team: every other even PE */
    shmem_team_t quarter;
    const int qn = (shmem_team_n_pes(evens) + 1) / 2;
    CHECK(shmem_team_split_strided(evens, 0, 2, qn, NULL, 0, &quarter) == 0, "nested split");
    CHECK((me % 4 == 0) == (quarter != SHMEM_TEAM_INVALID), "nested membership");
    if (quarter != SHMEM_TEAM_INVALID) {
      CHECK(shmem_team_translate_pe(quarter, shmem_team_my_pe(quarter), SHMEM_TEAM_WORLD) == me, "nested translate");
      shmem_team_destroy(quarter);
    }
    CHECK(shmem_team_sync(evens) == 0, "sync");
    shmem_team_destroy(evens);
  } else {
    CHECK(evens == SHMEM_TEAM_INVALID, "an odd PE is not in the team");
  }
  shmem_barrier_all();
}

static void two_dimensional(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int xrange = n >= 4 ? 2 : 1;
  shmem_team_t x, y;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
  CHECK(x != SHMEM_TEAM_INVALID && y != SHMEM_TEAM_INVALID, "every PE is in an x and a y team");
  CHECK(shmem_team_my_pe(x) == me % xrange, "x team PE %d", shmem_team_my_pe(x));
  CHECK(shmem_team_my_pe(y) == me / xrange, "y team PE %d", shmem_team_my_pe(y));
  CHECK(shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD) == me - me % xrange, "x team's PE 0");
  CHECK(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD) == me % xrange, "y team's PE 0");
  int *sum = shmem_malloc(2 * sizeof(int));
  sum[0] = me;
  CHECK(shmem_int_sum_reduce(x, sum + 1, sum, 1) == 0, "reduce on x");
  int expect = 0;
  for (int p = me - me % xrange; p < me - me % xrange + shmem_team_n_pes(x); ++p) expect += p;
  CHECK(sum[1] == expect, "sum over the x team: %d, expected %d", sum[1], expect);
  CHECK(shmem_int_sum_reduce(y, sum + 1, sum, 1) == 0, "reduce on y");
  expect = 0;
  for (int p = me % xrange; p < n; p += xrange) expect += p;
  CHECK(sum[1] == expect, "sum over the y team: %d, expected %d", sum[1], expect);
  shmem_free(sum);
  shmem_team_destroy(x);
  shmem_team_destroy(y);
}

static void contexts(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_team_t team = SHMEM_TEAM_INVALID;
  shmem_team_t *split_to = &team;
  /* the PEs above 0, as a team whose PE 0 is world PE 1 */
  if (n > 1) CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, n - 1, NULL, 0, split_to) == 0, "split");
  int *box = shmem_calloc(1, sizeof(int));
  shmem_ctx_t world_ctx;
  CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &world_ctx) == 0, "ctx_create");
  shmem_team_t got;
  CHECK(shmem_ctx_get_team(world_ctx, &got) == 0 && got == SHMEM_TEAM_WORLD, "ctx_get_team of the world");
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &got) == 0 && got == SHMEM_TEAM_WORLD, "default ctx team");
  if (team != SHMEM_TEAM_INVALID) {
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0, "team_create_ctx");
    CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team, "ctx_get_team");
    /* team PE 0 is world PE 1 */
    shmem_ctx_int_atomic_add(ctx, box, me, 0);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
  }
  shmem_barrier_all();
  if (me == 1) CHECK(*box == n * (n - 1) / 2, "adds through the team's context reached world PE 1: %d", *box);
  shmem_ctx_destroy(world_ctx);
  shmem_barrier_all();
  if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
  shmem_free(box);
}

static void locks(void) {
  const int n = shmem_n_pes();
  long *lock = shmem_calloc(1, sizeof(long));
  long *counter = shmem_calloc(1, sizeof(long));
  for (int round = 0; round < 20; ++round) {
    shmem_set_lock(lock);
    /* a read-modify-write that only the lock makes safe */
    long value = shmem_long_g(counter, 0);
    shmem_long_p(counter, value + 1, 0);
    shmem_quiet();
    shmem_clear_lock(lock);
  }
  while (shmem_test_lock(lock) != 0) {
  }
  long value = shmem_long_g(counter, 0);
  shmem_long_p(counter, value + 1, 0);
  shmem_clear_lock(lock);
  shmem_barrier_all();
  CHECK(shmem_long_g(counter, 0) == 21L * n, "counter under the lock: %ld", shmem_long_g(counter, 0));
  shmem_barrier_all();
  shmem_free(counter);
  shmem_free(lock);
}

int main(void) {
  shmem_init();
  strided_and_translate();
  two_dimensional();
  contexts();
  locks();
  shmem_finalize();
  return 0;
}
