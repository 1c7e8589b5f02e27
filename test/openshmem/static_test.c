/* Remotely accessible static data: global and static variables are symmetric (OpenSHMEM 1.5,
 * "data objects"): initial values survive shmem_init, and RMA, atomics, signals, waits and
 * collectives reach every PE's copy of them, as they reach heap objects. Constant objects stay
 * what the loader made them, read-only and private, whichever linker laid the program out (the
 * test suite links this program with each of bfd, gold and lld too). */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "check.h"

#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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

/* Constant objects with relocations (.data.rel.ro of a position-independent program): the loader
 * writes the addresses into them, then makes their pages read-only (PT_GNU_RELRO), as it does
 * with the GOT and C++ vtables. They are no PE's writable data. */
static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
int (*const operations[2])(int) = {twice, thrice};
const char *const operation_names[2] = {"twice", "thrice"};

/* The pages that the loader made read-only after relocation: those of the program's PT_GNU_RELRO
 * segment, its end rounded down as the loader rounds it. */
struct relro {
  uintptr_t first, last;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *out) {
  (void)size;
  struct relro *relro = out;
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *h = &info->dlpi_phdr[i];
    if (h->p_type != PT_GNU_RELRO) continue;
    relro->first = (info->dlpi_addr + h->p_vaddr) & ~(page - 1);
    relro->last = (info->dlpi_addr + h->p_vaddr + h->p_memsz) & ~(page - 1);
  }
  return 1; /* the first object is the program */
}

/* The line of /proc/self/maps that maps address, without its newline; "" if none. */
static void mapping_of(const void *address, char *line, size_t size) {
  FILE *maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL, "opening /proc/self/maps");
  int found = 0;
  while (!found && fgets(line, (int)size, maps) != NULL) {
    unsigned long start = 0, end = 0;
    found = sscanf(line, "%lx-%lx", &start, &end) == 2 && (uintptr_t)address >= start && (uintptr_t)address < end;
  }
  fclose(maps);
  if (!found) line[0] = 0;
  line[strcspn(line, "\n")] = 0;
}

/* Read-only data that needed relocations is still the loader's, read-only and private, after
 * shmem_init: not moved with the writable data, not writable here, and unreachable from a peer;
 * the writable data beside it is shared memory. */
static void check_read_only_after_relocation(void) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  struct relro relro = {0, 0};
  dl_iterate_phdr(find_relro, &relro);
  CHECK(relro.last > relro.first, "the program has no page that is read-only after relocation (PT_GNU_RELRO)");
#ifdef __PIE__
  CHECK((uintptr_t)operations >= relro.first && (uintptr_t)(operations + 2) <= relro.last &&
            (uintptr_t)operation_names >= relro.first && (uintptr_t)(operation_names + 2) <= relro.last,
        "the constant tables with relocations (%p, %p) are not in the RELRO pages [%#lx, %#lx)", (void *)operations,
        (void *)operation_names, (unsigned long)relro.first, (unsigned long)relro.last);
#endif
  char line[512];
  for (uintptr_t at = relro.first; at < relro.last; at += page) {
    mapping_of((const void *)at, line, sizeof line);
    const char *perms = strchr(line, ' ');
    CHECK(perms != NULL && strncmp(perms + 1, "r--p", 4) == 0 && strstr(line, "memfd:") == NULL,
          "the RELRO page %#lx is not the loader's read-only private page after shmem_init: %s", (unsigned long)at,
          line);
  }
  /* The process cannot write it: the kernel refuses to store into it (EFAULT), as a store
   * instruction would fault. The bytes offered are the table's own. */
  int fds[2];
  CHECK(pipe(fds) == 0, "pipe");
  CHECK(write(fds[1], (const void *)operations, sizeof operations[0]) == (ssize_t)sizeof operations[0], "write");
  errno = 0;
  const ssize_t stored = read(fds[0], (void *)operations, sizeof operations[0]);
  CHECK(stored < 0 && errno == EFAULT, "read() into the constant table stored %zd bytes (errno %d)", stored, errno);
  close(fds[0]);
  close(fds[1]);
  /* No PE can reach it: it is not symmetric. */
  for (int pe = 0; pe < shmem_n_pes(); ++pe) {
    CHECK(shmem_addr_accessible(operations, pe) == 0, "a constant table with relocations is accessible on PE %d", pe);
    CHECK(shmem_addr_accessible(operation_names, pe) == 0, "a constant table of strings is accessible on PE %d", pe);
    CHECK(shmem_ptr(operations, pe) == NULL, "shmem_ptr of a constant table with relocations on PE %d", pe);
  }
  CHECK(operations[1](4) == 12 && strcmp(operation_names[0], "twice") == 0, "the constant tables changed");
  /* The program's writable data is shared memory. */
  mapping_of(&counter, line, sizeof line);
  CHECK(strstr(line, " rw-s ") != NULL && strstr(line, "memfd:") != NULL, "&counter is not in shared memory: %s",
        line);
  mapping_of(initialized, line, sizeof line);
  CHECK(strstr(line, " rw-s ") != NULL && strstr(line, "memfd:") != NULL, "initialized is not in shared memory: %s",
        line);
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
  check_read_only_after_relocation();
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

  /* shmem_ptr: a load/store address of the peer's copy where the peer's memory is loaded and
     stored directly, as for its symmetric heap (none for a PE reached through the network) */
  long *peer_counter = shmem_ptr(&counter, next_pe());
  long *heap_word = shmem_malloc(sizeof(long));
  const int direct = shmem_ptr(heap_word, next_pe()) != NULL;
  CHECK((peer_counter != NULL) == direct, "shmem_ptr of a global on PE %d: %p, of the heap: %s", next_pe(),
        (void *)peer_counter, direct ? "an address" : "NULL");
  shmem_free(heap_word);
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
