/*
 * shmem_bench.c - tdist-bench's measurements written against OpenSHMEM, as the peer that
 * bench/compare.sh runs right after ours.
 *
 *   oshcc -O2 -o shmem_bench shmem_bench.c
 *   SHMEM_SYMMETRIC_SIZE=160M oshrun --allow-run-as-root --oversubscribe --mca memory ^patcher \
 *       -np 2 ./shmem_bench all
 *
 * Flags, cases, iteration counts and output (RESULT lines with impl=openshmem, then a table) are
 * tools/tdist-bench's; keep the two in step. Each case does what the tdist one does call for call:
 *   put       PE 0: shmem_putmem + shmem_quiet to PE 1; memcpy between private buffers
 *   pingpong  pairs 0<->1, 2<->3, ... at once; shmem_long_p + shmem_long_wait_until(GE) on a
 *             monotone counter (OpenSHMEM 1.4 has no signal API, so --op signal is refused)
 *   ring      a token around all PEs, 0 -> 1 -> ... -> 0, with the same p + wait_until
 *   barrier   shmem_barrier_all
 */
#include <shmem.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { CASE_PUT = 1, CASE_PINGPONG = 2, CASE_RING = 3, CASE_BARRIER = 4 };
#define DEFAULT_LATENCY_ITERS 10000L
#define PAGE 4096u

struct options {
  int cases[4];
  int n_cases;
  int repeats;
  long iters;  /* 0: the case's default */
  long warmup; /* -1: one repeat's worth */
  size_t min_size, max_size, put_bytes;
  unsigned size_factor;
  int table;
};

struct result {
  const char *case_name;
  const char *variant;
  int pes;
  size_t size;
  long iters;
  int repeats;
  int bandwidth; /* GB/s when set, else microseconds */
  double median, min, max;
  double vcsw_per_iter, ivcsw_per_iter;
};

static struct result results[64];
static int n_results;

/* ---- timing and statistics ------------------------------------------------------------------ */

struct stopwatch {
  struct timespec begin;
  long begin_vcsw, begin_ivcsw;
  double seconds;
  long vcsw, ivcsw;
};

static void read_switches(long *voluntary, long *involuntary) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  *voluntary = usage.ru_nvcsw;
  *involuntary = usage.ru_nivcsw;
}

static void watch_start(struct stopwatch *w) {
  read_switches(&w->begin_vcsw, &w->begin_ivcsw);
  clock_gettime(CLOCK_MONOTONIC, &w->begin);
}

static void watch_stop(struct stopwatch *w) {
  struct timespec end;
  long vcsw, ivcsw;
  clock_gettime(CLOCK_MONOTONIC, &end);
  read_switches(&vcsw, &ivcsw);
  w->seconds = (double)(end.tv_sec - w->begin.tv_sec) + (end.tv_nsec - w->begin.tv_nsec) * 1e-9;
  w->vcsw = vcsw - w->begin_vcsw;
  w->ivcsw = ivcsw - w->begin_ivcsw;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summarize(double *samples, int n, struct result *r) {
  qsort(samples, (size_t)n, sizeof *samples, compare_doubles);
  r->median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  r->min = samples[0];
  r->max = samples[n - 1];
}

/* ---- output ----------------------------------------------------------------------------------- */

static const char *format_bytes(size_t bytes, char *text, size_t cap) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) snprintf(text, cap, "%zuMiB", bytes >> 20);
  else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0) snprintf(text, cap, "%zuKiB", bytes >> 10);
  else snprintf(text, cap, "%zuB", bytes);
  return text;
}

static void report(const struct result *r) {
  const char *key = r->bandwidth ? "gbps" : "us";
  if (n_results < (int)(sizeof results / sizeof results[0])) results[n_results++] = *r;
  printf("RESULT impl=openshmem case=%s%s%s pes=%d size=%zu iters=%ld repeats=%d median_%s=%.4f "
         "min_%s=%.4f max_%s=%.4f vcsw_per_iter=%.3f ivcsw_per_iter=%.3f\n",
         r->case_name, r->variant[0] ? " " : "", r->variant, r->pes, r->size, r->iters,
         r->repeats, key, r->median, key, r->min, key, r->max, r->vcsw_per_iter,
         r->ivcsw_per_iter);
  fflush(stdout);
}

static void print_table(void) {
  char size[32];
  printf("\n%-10s %-9s %-9s %4s %9s %8s %10s %10s %10s %6s  %s\n", "impl", "case", "variant",
         "pes", "size", "iters", "median", "min", "max", "unit", "vcsw/iter");
  for (int i = 0; i < n_results; ++i) {
    const struct result *r = &results[i];
    printf("%-10s %-9s %-9s %4d %9s %8ld %10.3f %10.3f %10.3f %6s  %.3f\n", "openshmem",
           r->case_name, r->variant, r->pes, format_bytes(r->size, size, sizeof size), r->iters,
           r->median, r->min, r->max, r->bandwidth ? "GB/s" : "us", r->vcsw_per_iter);
  }
  fflush(stdout);
}

/* ---- options ---------------------------------------------------------------------------------- */

static void usage(const char *program) {
  fprintf(stderr,
          "usage: %s CASE... [flags]   (run under oshrun)\n"
          "cases: put pingpong ring barrier all\n"
          "flags: --repeats R (5)  --iters K  --warmup W  --min-size S (4K)  --max-size S (64M)\n"
          "       --size-factor F (4)  --put-bytes B (256M)  --op p  --no-table\n"
          "Same meaning as tdist-bench's flags.\n",
          program);
}

/* Every PE parses the same arguments before shmem_init; only the first one complains. */
static int fail(const char *program, const char *message, const char *what) {
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank || strcmp(rank, "0") == 0) {
    fprintf(stderr, "%s: %s '%s'\n", program, message, what);
    usage(program);
  }
  return 0;
}

static int parse_size(const char *text, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (end == text || errno) return 0;
  if (*end == 'K' || *end == 'k') value <<= 10, ++end;
  else if (*end == 'M' || *end == 'm') value <<= 20, ++end;
  else if (*end == 'G' || *end == 'g') value <<= 30, ++end;
  if (strcmp(end, "") != 0 && strcmp(end, "B") != 0 && strcmp(end, "iB") != 0) return 0;
  *out = (size_t)value;
  return 1;
}

static int parse_long(const char *text, long min_value, long *out) {
  char *end;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < min_value) return 0;
  *out = value;
  return 1;
}

static void add_case(struct options *o, int c) {
  for (int i = 0; i < o->n_cases; ++i)
    if (o->cases[i] == c) return;
  o->cases[o->n_cases++] = c;
}

/* Returns 1 on success; on failure prints why and the usage. */
static int parse_options(int argc, char **argv, struct options *o) {
  memset(o, 0, sizeof *o);
  o->repeats = 5;
  o->warmup = -1;
  o->min_size = 4u << 10;
  o->max_size = 64u << 20;
  o->size_factor = 4;
  o->put_bytes = 256u << 20;
  o->table = 1;
  for (int i = 1; i < argc; ++i) {
    char flag[64];
    const char *arg = argv[i], *value = NULL;
    const char *eq = strchr(arg, '=');
    if (arg[0] == '-' && arg[1] == '-' && eq && (size_t)(eq - arg) < sizeof flag) {
      memcpy(flag, arg, (size_t)(eq - arg));
      flag[eq - arg] = '\0';
      value = eq + 1;
      arg = flag;
    }
    int wants_value = strcmp(arg, "--no-table") != 0 && arg[0] == '-';
    if (wants_value && !value) {
      if (i + 1 >= argc) return fail(argv[0], "missing value for", arg);
      value = argv[++i];
    }
    long number;
    if (strcmp(arg, "--repeats") == 0) {
      if (!parse_long(value, 1, &number) || number > 256)
        return fail(argv[0], "--repeats must be in 1..256, not", value);
      o->repeats = (int)number;
    } else if (strcmp(arg, "--iters") == 0) {
      if (!parse_long(value, 1, &o->iters)) return fail(argv[0], "bad --iters", value);
    } else if (strcmp(arg, "--warmup") == 0) {
      if (!parse_long(value, 0, &o->warmup)) return fail(argv[0], "bad --warmup", value);
    } else if (strcmp(arg, "--min-size") == 0) {
      if (!parse_size(value, &o->min_size)) return fail(argv[0], "bad --min-size", value);
    } else if (strcmp(arg, "--max-size") == 0) {
      if (!parse_size(value, &o->max_size)) return fail(argv[0], "bad --max-size", value);
    } else if (strcmp(arg, "--size-factor") == 0) {
      if (!parse_long(value, 2, &number)) return fail(argv[0], "bad --size-factor", value);
      o->size_factor = (unsigned)number;
    } else if (strcmp(arg, "--put-bytes") == 0) {
      if (!parse_size(value, &o->put_bytes)) return fail(argv[0], "bad --put-bytes", value);
    } else if (strcmp(arg, "--op") == 0) {
      if (strcmp(value, "p") != 0)
        return fail(argv[0], "OpenSHMEM 1.4 has no signal API; --op must be p, not", value);
    } else if (strcmp(arg, "--no-table") == 0) {
      o->table = 0;
    } else if (strcmp(arg, "put") == 0) {
      add_case(o, CASE_PUT);
    } else if (strcmp(arg, "pingpong") == 0) {
      add_case(o, CASE_PINGPONG);
    } else if (strcmp(arg, "ring") == 0) {
      add_case(o, CASE_RING);
    } else if (strcmp(arg, "barrier") == 0) {
      add_case(o, CASE_BARRIER);
    } else if (strcmp(arg, "all") == 0) {
      add_case(o, CASE_PUT);
      add_case(o, CASE_PINGPONG);
      add_case(o, CASE_RING);
      add_case(o, CASE_BARRIER);
    } else {
      return fail(argv[0], "unknown argument", arg);
    }
  }
  if (o->n_cases == 0) return fail(argv[0], "no case given", "");
  if (o->min_size == 0 || o->min_size > o->max_size)
    return fail(argv[0], "--min-size must be in 1..--max-size", "");
  return 1;
}

static long latency_iters(const struct options *o) { return o->iters > 0 ? o->iters : DEFAULT_LATENCY_ITERS; }
static long warmup_iters(const struct options *o, long iters) { return o->warmup >= 0 ? o->warmup : iters; }

static long put_iters(const struct options *o, size_t size) {
  if (o->iters > 0) return o->iters;
  long iters = (long)(o->put_bytes / size);
  return iters < 2 ? 2 : iters > 1000000 ? 1000000 : iters;
}

/* ---- cases ------------------------------------------------------------------------------------ */

/* count hand-overs of a monotone sequence number: the first PE sends, then waits for it back;
 * every other PE waits for it, then passes it on to `to` (the same as tdist-bench's relay). */
static void relay(long *counter, long *sequence, long count, int first, int to) {
  for (long i = 0; i < count; ++i) {
    ++*sequence;
    if (first) {
      shmem_long_p(counter, *sequence, to);
      shmem_long_wait_until(counter, SHMEM_CMP_GE, *sequence);
    } else {
      shmem_long_wait_until(counter, SHMEM_CMP_GE, *sequence);
      shmem_long_p(counter, *sequence, to);
    }
  }
}

static void keep_written(void *buffer) { __asm__ volatile("" : : "r"(buffer) : "memory"); }

/* `count` copies of `size` bytes into dest: putmem + quiet to PE 1 when put, else memcpy. */
static void copy_loop(size_t size, long count, int put, void *dest, const void *source) {
  for (long i = 0; i < count; ++i) {
    if (put) {
      shmem_putmem(dest, source, size, 1);
      shmem_quiet();
    } else {
      memcpy(dest, source, size);
      keep_written(dest);
    }
  }
}

struct bandwidth_samples {
  double gbps[256];
  int n;
  long vcsw, ivcsw;
};

static void time_copies(struct bandwidth_samples *s, size_t size, long iters, int put, void *dest,
                        const void *source) {
  struct stopwatch watch;
  watch_start(&watch);
  copy_loop(size, iters, put, dest, source);
  watch_stop(&watch);
  s->gbps[s->n++] = (double)size * (double)iters / watch.seconds / 1e9;
  s->vcsw += watch.vcsw;
  s->ivcsw += watch.ivcsw;
}

static void report_bandwidth(struct bandwidth_samples *s, const char *case_name, size_t size,
                             long iters) {
  struct result res = {case_name, "", shmem_n_pes(), size, iters, s->n, 1, 0, 0, 0,
                       (double)s->vcsw / ((double)iters * s->n),
                       (double)s->ivcsw / ((double)iters * s->n)};
  summarize(s->gbps, s->n, &res);
  report(&res);
}

/* PE 0: memcpy and put repeats of one size, alternating, as tdist-bench does. */
static void time_bandwidth(const struct options *o, size_t size, void *dest, void *copy,
                           const void *source) {
  long iters = put_iters(o, size);
  struct bandwidth_samples memcpy_samples = {{0}, 0, 0, 0}, put_samples = {{0}, 0, 0, 0};
  for (long i = warmup_iters(o, iters); i > 0; --i) {
    copy_loop(size, 1, 0, copy, source);
    copy_loop(size, 1, 1, dest, source);
  }
  for (int r = 0; r < o->repeats; ++r) {
    time_copies(&memcpy_samples, size, iters, 0, copy, source);
    time_copies(&put_samples, size, iters, 1, dest, source);
  }
  report_bandwidth(&memcpy_samples, "memcpy", size, iters);
  report_bandwidth(&put_samples, "put", size, iters);
}

static int run_put(const struct options *o) {
  int origin = shmem_my_pe() == 0;
  if (shmem_n_pes() < 2) {
    if (origin) fprintf(stderr, "shmem_bench: put needs at least 2 PEs\n");
    return 0;
  }
  /* Page-aligned buffers everywhere, as tdist-bench: memcpy and put see the same alignment. */
  void *dest = shmem_align(PAGE, o->max_size);
  if (!dest) {
    fprintf(stderr, "shmem_bench: PE %d: shmem_malloc(%zu) failed; raise SHMEM_SYMMETRIC_SIZE\n",
            shmem_my_pe(), o->max_size);
    shmem_global_exit(1);
  }
  char *source = NULL, *copy = NULL;
  if (origin) {
    size_t rounded = (o->max_size + PAGE - 1) / PAGE * PAGE;
    source = aligned_alloc(PAGE, rounded);
    copy = aligned_alloc(PAGE, rounded);
    if (!source || !copy) shmem_global_exit(1);
    memset(source, 1, rounded);
    memset(copy, 0, rounded);
  }
  shmem_barrier_all();
  for (size_t size = o->min_size; size <= o->max_size; size *= o->size_factor) {
    if (origin) time_bandwidth(o, size, dest, copy, source);
    shmem_barrier_all();
  }
  free(copy);
  free(source);
  shmem_free(dest);
  return 1;
}

static int run_pingpong(const struct options *o) {
  int me = shmem_my_pe(), n = shmem_n_pes();
  if (n < 2) {
    if (me == 0) fprintf(stderr, "shmem_bench: pingpong needs at least 2 PEs\n");
    return 0;
  }
  int partner = me ^ 1, paired = partner < n, initiator = paired && me % 2 == 0;
  long iters = latency_iters(o), warmup = warmup_iters(o, iters);
  int repeats = o->repeats;

  long *counter = shmem_align(64, 64);
  double *gathered = shmem_malloc((size_t)n * repeats * sizeof(double));
  if (!counter || !gathered) shmem_global_exit(1);
  *counter = 0;
  memset(gathered, 0, (size_t)n * repeats * sizeof(double));
  long sequence = 0;
  double half_round_trips[repeats];
  long vcsw = 0, ivcsw = 0;
  shmem_barrier_all();

  for (int r = -1; r < repeats; ++r) {
    if (r >= 0) shmem_barrier_all();
    if (!paired) continue;
    long count = r < 0 ? warmup : iters;
    struct stopwatch watch;
    watch_start(&watch);
    relay(counter, &sequence, count, initiator, partner);
    watch_stop(&watch);
    if (r < 0) continue;
    half_round_trips[r] = watch.seconds * 1e6 / (double)iters / 2;
    vcsw += watch.vcsw;
    ivcsw += watch.ivcsw;
  }

  shmem_barrier_all();
  if (initiator && me != 0) {
    shmem_putmem(gathered + me * repeats, half_round_trips, repeats * sizeof(double), 0);
    shmem_quiet();
  }
  shmem_barrier_all();
  if (me == 0) {
    int pairs = n / 2;
    double samples[pairs * repeats];
    memcpy(samples, half_round_trips, sizeof half_round_trips);
    for (int pe = 2; pe + 1 < n; pe += 2)
      memcpy(samples + (pe / 2) * repeats, gathered + pe * repeats, repeats * sizeof(double));
    struct result res = {"pingpong", "op=p", n, 8, iters, repeats, 0, 0, 0, 0,
                         (double)vcsw / ((double)iters * repeats),
                         (double)ivcsw / ((double)iters * repeats)};
    summarize(samples, pairs * repeats, &res);
    report(&res);
  }
  shmem_free(gathered);
  shmem_free(counter);
  return 1;
}

/* Lap i: PE 0 hands i to PE 1, every other PE waits for i and hands it on, PE 0 waits for it to
 * come back around; time per hop. */
static int run_ring(const struct options *o) {
  int me = shmem_my_pe(), n = shmem_n_pes();
  if (n < 2) {
    if (me == 0) fprintf(stderr, "shmem_bench: ring needs at least 2 PEs\n");
    return 0;
  }
  int next = (me + 1) % n;
  long iters = latency_iters(o), warmup = warmup_iters(o, iters);
  long *counter = shmem_align(64, 64);
  if (!counter) shmem_global_exit(1);
  *counter = 0;
  long sequence = 0;
  double hops[o->repeats];
  long vcsw = 0, ivcsw = 0;
  shmem_barrier_all();

  for (int r = -1; r < o->repeats; ++r) {
    if (r >= 0) shmem_barrier_all();
    long count = r < 0 ? warmup : iters;
    struct stopwatch watch;
    watch_start(&watch);
    relay(counter, &sequence, count, me == 0, next);
    watch_stop(&watch);
    if (r < 0) continue;
    hops[r] = watch.seconds * 1e6 / (double)iters / n;
    vcsw += watch.vcsw;
    ivcsw += watch.ivcsw;
  }
  shmem_barrier_all();
  if (me == 0) {
    struct result res = {"ring", "op=p", n, 8, iters, o->repeats, 0, 0, 0, 0,
                         (double)vcsw / ((double)iters * o->repeats),
                         (double)ivcsw / ((double)iters * o->repeats)};
    summarize(hops, o->repeats, &res);
    report(&res);
  }
  shmem_free(counter);
  return 1;
}

static int run_barrier(const struct options *o) {
  long iters = latency_iters(o), warmup = warmup_iters(o, iters);
  double samples[o->repeats];
  long vcsw = 0, ivcsw = 0;
  for (long i = 0; i < warmup; ++i) shmem_barrier_all();
  for (int r = 0; r < o->repeats; ++r) {
    struct stopwatch watch;
    watch_start(&watch);
    for (long i = 0; i < iters; ++i) shmem_barrier_all();
    watch_stop(&watch);
    samples[r] = watch.seconds * 1e6 / (double)iters;
    vcsw += watch.vcsw;
    ivcsw += watch.ivcsw;
  }
  if (shmem_my_pe() == 0) {
    struct result res = {"barrier", "", shmem_n_pes(), 0, iters, o->repeats, 0, 0, 0, 0,
                         (double)vcsw / ((double)iters * o->repeats),
                         (double)ivcsw / ((double)iters * o->repeats)};
    summarize(samples, o->repeats, &res);
    report(&res);
  }
  return 1;
}

int main(int argc, char **argv) {
  struct options o;
  if (!parse_options(argc, argv, &o)) return 2;
  shmem_init();
  int ok = 1;
  if (shmem_my_pe() == 0)
    printf("# shmem_bench pes=%d repeats=%d iters=%ld warmup=%ld\n", shmem_n_pes(), o.repeats,
           o.iters, o.warmup);
  for (int i = 0; i < o.n_cases && ok; ++i) {
    switch (o.cases[i]) {
      case CASE_PUT: ok = run_put(&o); break;
      case CASE_PINGPONG: ok = run_pingpong(&o); break;
      case CASE_RING: ok = run_ring(&o); break;
      case CASE_BARRIER: ok = run_barrier(&o); break;
    }
  }
  shmem_barrier_all();
  if (ok && o.table && shmem_my_pe() == 0) print_table();
  shmem_finalize();
  return ok ? 0 : 1;
}
