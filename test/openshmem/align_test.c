/* shmem_align at every power of two that fits the symmetric heap, beyond the 2 MiB the heap's
 * pages are aligned to: the block is aligned on every PE (and in every PE's view of its peers,
 * shmem_ptr), it is one symmetric object (a put to it reaches the peer's block, a get reads it),
 * and the blocks stay usable together. Alignments that are no power of two or larger than the
 * heap give NULL on every PE, and the heap goes on working.
 *
 * Usage: align_test HEAP_MIB, the heap size the job was started with (oshrun --heap), a power of
 * two of at least 128. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MIB ((size_t)1 << 20)

static int aligned(const void *address, size_t alignment) { return (uintptr_t)address % alignment == 0; }

/* The block is aligned here and in this PE's view of every peer's copy. */
static void check_aligned(const void *block, size_t alignment) {
  CHECK(block != NULL, "shmem_align(%zu) gave NULL", alignment);
  CHECK(aligned(block, alignment), "shmem_align(%zu) gave %p", alignment, block);
  for (int pe = 0; pe < shmem_n_pes(); ++pe) {
    const void *peer = shmem_ptr(block, pe);
    CHECK(peer != NULL && aligned(peer, alignment), "shmem_ptr of the %zu-aligned block on PE %d: %p", alignment,
          pe, peer);
  }
}

/* Every PE puts a pattern of its own into the next PE's block, at both ends, then reads the
 * previous PE's pattern back from its own block and the next PE's pattern from the next PE. */
static void check_usable(unsigned char *block, size_t bytes, size_t alignment) {
  const int me = shmem_my_pe();
  unsigned char pattern[256], got[256];
  const size_t span = bytes < sizeof pattern ? bytes : sizeof pattern;
  for (size_t i = 0; i < span; ++i) pattern[i] = (unsigned char)(me * 31 + i + alignment / MIB);
  shmem_barrier_all();
  shmem_putmem(block, pattern, span, next_pe());
  shmem_putmem(block + bytes - span, pattern, span, next_pe());
  shmem_barrier_all();
  for (size_t i = 0; i < span; ++i) {
    const unsigned char expected = (unsigned char)(prev_pe() * 31 + i + alignment / MIB);
    CHECK(block[i] == expected && block[bytes - span + i] == expected,
          "%zu-aligned block, byte %zu: %u and %u, expected %u", alignment, i, block[i], block[bytes - span + i],
          expected);
  }
  shmem_getmem(got, block + bytes - span, span, next_pe());
  CHECK(memcmp(got, pattern, span) == 0, "get from the next PE's %zu-aligned block", alignment);
  shmem_barrier_all();
}

int main(int argc, char **argv) {
  shmem_init();
  CHECK(argc == 2 && atoi(argv[1]) >= 128, "usage: align_test HEAP_MIB (at least 128)");
  const size_t heap = (size_t)atoi(argv[1]) * MIB;

  /* The largest alignment: the heap's size (its first offset), before anything else. */
  size_t top = 1;
  while (top * 2 <= heap) top *= 2;
  CHECK(top == heap, "the heap's size, %zu, is to be a power of two", heap);
  void *whole = shmem_align(top, 4096);
  check_aligned(whole, top);
  check_usable(whole, 4096, top);
  shmem_free(whole);

  /* 4 MiB .. 64 MiB at once, with sizes around their alignments; and the small ones beside. */
  const size_t alignments[] = {4 * MIB, 8 * MIB, 16 * MIB, 32 * MIB, 64 * MIB, 2 * MIB, 64, 4096};
  const size_t sizes[] = {4 * MIB + 1, 1 * MIB, 100, 3 * MIB, 64, 2 * MIB, 8, 5000};
  enum { COUNT = sizeof alignments / sizeof alignments[0] };
  unsigned char *blocks[COUNT];
  for (int i = 0; i < COUNT; ++i) {
    blocks[i] = shmem_align(alignments[i], sizes[i]);
    check_aligned(blocks[i], alignments[i]);
  }
  for (int i = 0; i < COUNT; ++i) check_usable(blocks[i], sizes[i], alignments[i]);
  for (int i = 0; i < COUNT; ++i) {
    for (int j = i + 1; j < COUNT; ++j) {
      CHECK(blocks[i] + sizes[i] <= blocks[j] || blocks[j] + sizes[j] <= blocks[i], "blocks %d and %d overlap", i, j);
    }
  }

  /* Bad alignments: NULL on every PE, the heap unchanged. */
  CHECK(shmem_align(3 * MIB, 64) == NULL, "an alignment of 3 MiB (no power of two) gave a block");
  CHECK(shmem_align(0, 64) == NULL, "an alignment of 0 gave a block");
  CHECK(shmem_align(2 * top, 64) == NULL, "an alignment of %zu, larger than the heap, gave a block", 2 * top);
  /* Fits the heap, but the one offset aligned to the heap's size is taken now. */
  CHECK(shmem_align(top, top) == NULL, "a block of the whole heap while others are live");

  for (int i = 0; i < COUNT; ++i) shmem_free(blocks[i]);
  /* The heap goes on: the largest alignment again, and a block of it in a realloc'd neighbourhood. */
  long *small = shmem_malloc(100 * sizeof(long));
  void *again = shmem_align(top / 2, top / 2);
  check_aligned(again, top / 2);
  check_usable(again, top / 2, top / 2);
  small = shmem_realloc(small, 1000 * sizeof(long));
  CHECK(small != NULL, "realloc after the aligned blocks");
  shmem_free(small);
  shmem_free(again);
  shmem_finalize();
  return 0;
}
