/*
 * shmemx.h - tdist's extensions to the OpenSHMEM API (shmem.h).
 */
#ifndef TDIST_OPENSHMEMX_H
#define TDIST_OPENSHMEMX_H

#include <shmem.h>

#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Defined when the implementation is tdist. */
#define SHMEMX_TDIST 1

/* The reason of the last failed call on this thread ("" when none), as it was printed; a
 * routine that returns an error code (team splits, team-based collectives, contexts) leaves it. */
const char *shmemx_last_error(void);

/* The symmetric heap: its local base and its size in bytes (oshrun --heap, TDIST_HEAP_SIZE). */
void *shmemx_heap_base(void);
size_t shmemx_heap_size(void);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* TDIST_OPENSHMEMX_H */
