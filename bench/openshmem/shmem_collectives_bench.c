/*
 * shmem_collectives_bench.c - OpenSHMEM collectives, timed: one source built by two
 * implementations' oshcc (tdist's and another's), so that bench/compare.sh --collectives runs the
 * same calls on both.
 *
 *   oshcc -O2 -o shmem_collectives_bench shmem_collectives_bench.c
 *   oshrun -np 4 ./shmem_collectives_bench [--repeats R] [--max-size BYTES | --sizes BYTES,...]
 *          [--cases reduce,broadcast,fcollect,alltoall]
 *
 * Only the routines both OpenSHMEM 1.4 and 1.5 have, on the world's active set (Debian's Open MPI
 * 4.1 implements 1.4, which has no teams): shmem_double_sum_to_all, shmem_broadcast64,
 * shmem_fcollect64, shmem_alltoall64. pSync arrays alternate between calls, as the specification
 * asks. Sizes are bytes per PE (each PE's contribution; alltoall: the block for each PE). Each
 * repeat is a barrier, `iters` calls, a barrier, timed on PE 0; each case's result is checked once.
 * Output: one line per case and size,
 *   RESULT impl=tdist|openshmem case=reduce|broadcast|fcollect|alltoall pes=N size=B iters=K
 *          median_us=... min_us=... max_us=...
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_REPEATS = 64 };

static long psync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE
                         ? (SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                              : SHMEM_ALLTOALL_SYNC_SIZE)
                         : (SHMEM_COLLECT_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE
                                                                               : SHMEM_ALLTOALL_SYNC_SIZE)];
static int me, npes;
static const char *impl;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void fail(const char *what, size_t bytes, long index) {
  fprintf(stderr, "PE %d: %s of %zu bytes: wrong result at %ld\n", me, what, bytes, index);
  shmem_global_exit(1);
}

struct buffers {
  double *source, *dest, *work;
  size_t max_bytes;
};

/* One call of `name` on `bytes` per PE with pSync[round % 2]. */
static void run_once(const char *name, struct buffers *b, size_t bytes, long round) {
  long *sync = psync[round % 2];
  if (strcmp(name, "reduce") == 0) {
    shmem_double_sum_to_all(b->dest, b->source, (int)(bytes / sizeof(double)), 0, 0, npes, b->work, sync);
  } else if (strcmp(name, "broadcast") == 0) {
    shmem_broadcast64(b->dest, b->source, bytes / 8, 0, 0, 0, npes, sync);
  } else if (strcmp(name, "fcollect") == 0) {
    shmem_fcollect64(b->dest, b->source, bytes / 8, 0, 0, npes, sync);
  } else {
    shmem_alltoall64(b->dest, b->source, bytes / 8, 0, 0, npes, sync);
  }
}

static void check(const char *name, struct buffers *b, size_t bytes) {
  const long n = (long)(bytes / sizeof(double));
  for (long i = 0; i < (long)(b->max_bytes / sizeof(double)) * npes; ++i) b->source[i] = me * 1000.0 + i;
  memset(b->dest, 0, b->max_bytes * npes);
  shmem_barrier_all();
  run_once(name, b, bytes, 0);
  shmem_barrier_all();
  for (long i = 0; i < n; ++i) {
    if (strcmp(name, "reduce") == 0) {
      if (b->dest[i] != 1000.0 * npes * (npes - 1) / 2 + (double)npes * i) fail(name, bytes, i);
    } else if (strcmp(name, "broadcast") == 0) {
      if (me != 0 && b->dest[i] != (double)i) fail(name, bytes, i);
    } else {
      for (int p = 0; p < npes; ++p) {
        const double expect = strcmp(name, "fcollect") == 0 ? p * 1000.0 + i : p * 1000.0 + me * n + i;
        if (b->dest[p * n + i] != expect) fail(name, bytes, p * n + i);
      }
    }
  }
}

static void measure(const char *name, struct buffers *b, size_t bytes, int repeats) {
  const long iters = bytes <= 4096 ? 2000 : bytes <= 65536 ? 300 : 30;
  double times[MAX_REPEATS];
  check(name, b, bytes);
  for (long i = 0; i < iters / 10 + 1; ++i) run_once(name, b, bytes, i);  /* warm-up */
  long round = 0;
  for (int r = 0; r < repeats; ++r) {
    shmem_barrier_all();
    const double start = now_us();
    for (long i = 0; i < iters; ++i) run_once(name, b, bytes, round++);
    shmem_barrier_all();
    times[r] = (now_us() - start) / iters;
  }
  if (me != 0) return;
  double sorted[MAX_REPEATS];
  memcpy(sorted, times, sizeof(double) * repeats);
  qsort(sorted, repeats, sizeof(double), compare_doubles);
  printf("RESULT impl=%s case=%s pes=%d size=%zu iters=%ld median_us=%.4f min_us=%.4f max_us=%.4f\n", impl, name,
         npes, bytes, iters, sorted[repeats / 2], sorted[0], sorted[repeats - 1]);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int repeats = 5;
  size_t max_bytes = 1u << 20;
  size_t sizes[16];
  int n_sizes = 0; /* 0: 8 B to --max-size, x32 a step */
  const char *cases[] = {"reduce", "broadcast", "fcollect", "alltoall"};
  int wanted[4] = {1, 1, 1, 1};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = atoi(argv[++i]);
    else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) max_bytes = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
      for (char *item = strtok(argv[++i], ","); item != NULL && n_sizes < 16; item = strtok(NULL, ","))
        sizes[n_sizes++] = strtoull(item, NULL, 0);
    } else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
      memset(wanted, 0, sizeof wanted);
      for (char *item = strtok(argv[++i], ","); item != NULL; item = strtok(NULL, ",")) {
        int known = 0;
        for (int c = 0; c < 4; ++c) {
          if (strcmp(item, cases[c]) == 0) wanted[c] = known = 1;
        }
        if (!known) {
          fprintf(stderr, "%s: --cases takes reduce, broadcast, fcollect and alltoall, got %s\n", argv[0], item);
          return 2;
        }
      }
    } else {
      fprintf(stderr, "usage: %s [--repeats R] [--max-size BYTES | --sizes BYTES,BYTES...] [--cases NAME,...]\n",
              argv[0]);
      return 2;
    }
  }
  for (int i = 0; i < n_sizes; ++i) {
    if (sizes[i] < 8 || sizes[i] % 8 != 0) {
      fprintf(stderr, "%s: --sizes takes multiples of 8 bytes, got %zu\n", argv[0], sizes[i]);
      return 2;
    }
    if (i == 0 || sizes[i] > max_bytes) max_bytes = sizes[i];
  }
  if (repeats < 1 || repeats > MAX_REPEATS || max_bytes < 8) {
    fprintf(stderr, "%s: --repeats takes 1..%d, --max-size at least 8\n", argv[0], MAX_REPEATS);
    return 2;
  }
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  impl = strcmp(name, "tdist") == 0 ? "tdist" : "openshmem";
  for (int s = 0; s < 2; ++s)
    for (size_t i = 0; i < sizeof psync[s] / sizeof psync[s][0]; ++i) psync[s][i] = SHMEM_SYNC_VALUE;

  struct buffers b;
  b.max_bytes = max_bytes;
  b.source = shmem_malloc(max_bytes * npes);
  b.dest = shmem_malloc(max_bytes * npes);
  size_t work = max_bytes / sizeof(double) / 2 + 1;
  if (work < SHMEM_REDUCE_MIN_WRKDATA_SIZE) work = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
  b.work = shmem_malloc(work * sizeof(double));
  if (b.source == NULL || b.dest == NULL || b.work == NULL) {
    fprintf(stderr, "PE %d: the symmetric heap cannot hold 2 x %zu bytes\n", me, max_bytes * npes);
    shmem_global_exit(1);
  }
  for (int c = 0; c < 4; ++c) {
    if (!wanted[c]) continue;
    if (n_sizes > 0) {
      for (int i = 0; i < n_sizes; ++i) measure(cases[c], &b, sizes[i], repeats);
    } else {
      for (size_t bytes = 8; bytes <= max_bytes; bytes *= 32) measure(cases[c], &b, bytes, repeats);
    }
  }
  shmem_barrier_all();
  shmem_free(b.work);
  shmem_free(b.dest);
  shmem_free(b.source);
  shmem_finalize();
  return 0;
}
