/*
 * aclshmem.h - tdist's C API in aclshmem names.
 *
 * Host routines (init, heap, teams) and device routines (RMA, signals, waits, atomics, ordering,
 * barriers). On the cpu backend the device routines are callable from PE code and from program
 * instances of a launch. Every routine that can fail returns an aclshmem_error_t or NULL; the
 * message of the last failure on the calling thread is aclshmemx_last_error().
 */
#ifndef ACLSHMEM_H
#define ACLSHMEM_H

#include <stddef.h>
#include <stdint.h>

/* Everything declared here is exported from libtdist_runtime; the rest of it is hidden. */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors and status ------------------------------------------------------------------ */

typedef enum {
  ACLSHMEM_SUCCESS = 0,
  ACLSHMEM_INVALID_PARAM = -1,     /* bad argument: PE out of range, bad ip_port, bad size */
  ACLSHMEM_INVALID_VALUE = -2,     /* a value that the operation or target does not allow */
  ACLSHMEM_NOT_INITED = -3,        /* call before init or after finalize */
  ACLSHMEM_ALREADY_INITED = -4,    /* init while initialized */
  ACLSHMEM_BOOTSTRAP_ERROR = -5,   /* store unreachable, refused, or deadline passed */
  ACLSHMEM_SMEM_ERROR = -6,        /* shared-memory segment creation or mapping failed */
  ACLSHMEM_HEAP_EXHAUSTED = -7,    /* no free block large enough */
  ACLSHMEM_COLLECTIVE_MISMATCH = -8, /* PEs disagree on a collective call's arguments */
  ACLSHMEM_NOT_SUPPORTED = -9,     /* engine or feature not available on this backend */
  ACLSHMEM_INNER_ERROR = -10       /* system call failure or broken invariant */
} aclshmem_error_t;

typedef enum {
  ACLSHMEM_STATUS_NOT_INITIALIZED = 0,
  ACLSHMEM_STATUS_SHM_CREATED = 1,
  ACLSHMEM_STATUS_IS_INITIALIZED = 2,
  ACLSHMEM_STATUS_INVALID = 3
} aclshmemx_init_status_t;

/* Message of the last failed call on this thread ("" when none). */
const char *aclshmemx_last_error(void);

/* ---- init ---------------------------------------------------------------------------------- */

typedef enum {
  ACLSHMEM_DATA_OP_MTE = 1,  /* the calling core loads and stores peer memory */
  ACLSHMEM_DATA_OP_SDMA = 2, /* a copy engine carries non-blocking transfers */
  ACLSHMEM_DATA_OP_ROCE = 4,
  ACLSHMEM_DATA_OP_UDMA = 8
} aclshmem_data_op_engine_type_t;

/* Transport bits of aclshmemx_transport_mask(pe). */
enum {
  ACLSHMEM_TRANSPORT_MTE = 1,
  ACLSHMEM_TRANSPORT_ROCE = 2,
  ACLSHMEM_TRANSPORT_SDMA = 4,
  ACLSHMEM_TRANSPORT_UDMA = 8
};

typedef struct {
  int version;
  int data_op_engine_type;            /* bit-OR of aclshmem_data_op_engine_type_t; 0 = MTE */
  uint32_t shm_init_timeout;          /* seconds to reach the bootstrap store; 0 = default (120) */
  uint32_t shm_create_timeout;        /* seconds for heap creation and mapping; 0 = default (120) */
  uint32_t control_operation_timeout; /* seconds for bootstrap collectives; 0 = default (120) */
  int sockFd;                         /* PE 0: a listening socket to serve the store on; -1 = bind ip_port */
  uint32_t wait_timeout_ms;           /* deadline of every device wait; 0 = TDIST_WAIT_TIMEOUT or 120 s */
} aclshmem_init_optional_attr_t;

typedef struct {
  int my_pe;
  int n_pes;
  char ip_port[64];        /* "tcp://host:port" or "tcp6://[host]:port", 1024 < port < 65536 */
  uint64_t local_mem_size; /* bytes of symmetric heap available to aclshmem_malloc */
  aclshmem_init_optional_attr_t option_attr;
} aclshmemx_init_attr_t;

typedef enum { ACLSHMEMX_INIT_WITH_DEFAULT = 0 } aclshmemx_bootstrap_t;

/* Fills attr with the given values and defaults for everything else. */
int aclshmemx_set_attributes(int my_pe, int n_pes, uint64_t local_mem_size, const char *ip_port,
                             aclshmemx_init_attr_t *attr);
int aclshmemx_init_attr(aclshmemx_bootstrap_t flags, aclshmemx_init_attr_t *attr);
/* Initializes from the environment that tdist-run sets (TDIST_PE, TDIST_N_PES, ...). */
int aclshmem_init(void);
int aclshmem_finalize(void);
int aclshmemx_init_status(void);
void aclshmem_global_exit(int status);

/* ---- heap (collective) --------------------------------------------------------------------- */

void *aclshmem_malloc(size_t size);
void *aclshmem_calloc(size_t nmemb, size_t size);
void *aclshmem_align(size_t alignment, size_t size);
void aclshmem_free(void *ptr);
void *aclshmemx_get_heap_base(void);
/* Address of ptr's symmetric counterpart on pe; NULL when pe is unreachable or ptr is not on
 * the heap. */
void *aclshmem_ptr(const void *ptr, int pe);
/* Bit-OR of ACLSHMEM_TRANSPORT_* that reach pe (0 for an invalid pe). */
uint32_t aclshmemx_transport_mask(int pe);

/* ---- PE queries ---------------------------------------------------------------------------- */

int aclshmem_my_pe(void);
int aclshmem_n_pes(void);

/* ---- RMA ------------------------------------------------------------------------------------ */

void aclshmem_putmem(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_getmem(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe);

/* ---- signals -------------------------------------------------------------------------------- */

enum { ACLSHMEM_SIGNAL_SET = 0, ACLSHMEM_SIGNAL_ADD = 1 };
enum {
  ACLSHMEM_CMP_EQ = 0,
  ACLSHMEM_CMP_NE = 1,
  ACLSHMEM_CMP_GT = 2,
  ACLSHMEM_CMP_GE = 3,
  ACLSHMEM_CMP_LT = 4,
  ACLSHMEM_CMP_LE = 5
};

/* Delivers nbytes to dest on pe, then updates sig on pe; the data arrives before the signal. */
void aclshmem_putmem_signal(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                            int32_t signal, int sig_op, int pe);
void aclshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                                int32_t signal, int sig_op, int pe);
void aclshmemx_signal_op(int32_t *sig_addr, int32_t signal, int sig_op, int pe);
int32_t aclshmem_signal_wait_until(int32_t *sig_addr, int cmp, int32_t cmp_value);
/* 64-bit signals (OpenSHMEM's uint64_t form, and int64). */
void aclshmemx_putmem_signal64(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe);
void aclshmemx_signal64_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t aclshmemx_signal64_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
void aclshmemx_signal_op_i64(int64_t *sig_addr, int64_t signal, int sig_op, int pe);
int64_t aclshmemx_signal_wait_until_i64(int64_t *sig_addr, int cmp, int64_t cmp_value);

/* ---- typed point RMA, waits and atomics ------------------------------------------------------
 * For each (NAME, TYPE) of the standard atomic types
 *   int int, long long, longlong long long, uint unsigned, ulong unsigned long,
 *   ulonglong unsigned long long, int32 int32_t, int64 int64_t, uint32 uint32_t,
 *   uint64 uint64_t, size size_t, ptrdiff ptrdiff_t
 * and, for p/g/fetch/set/swap only, float float and double double:
 *   void aclshmem_NAME_p(TYPE *dest, TYPE value, int pe);
 *   TYPE aclshmem_NAME_g(const TYPE *source, int pe);
 *   void aclshmem_NAME_wait_until(TYPE *ivar, int cmp, TYPE value);
 *   int  aclshmem_NAME_test(TYPE *ivar, int cmp, TYPE value);
 *   TYPE aclshmem_NAME_atomic_fetch(const TYPE *source, int pe);
 *   void aclshmem_NAME_atomic_set(TYPE *dest, TYPE value, int pe);
 *   TYPE aclshmem_NAME_atomic_swap(TYPE *dest, TYPE value, int pe);
 *   TYPE aclshmem_NAME_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);
 *   void aclshmem_NAME_atomic_add(TYPE *dest, TYPE value, int pe);
 *   void aclshmem_NAME_atomic_inc(TYPE *dest, int pe);
 *   TYPE aclshmem_NAME_atomic_fetch_add(TYPE *dest, TYPE value, int pe);
 *   TYPE aclshmem_NAME_atomic_fetch_inc(TYPE *dest, int pe);
 */
#define ACLSHMEM_DECLARE_POINT_(NAME, TYPE)                                         \
  void aclshmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                         \
  TYPE aclshmem_##NAME##_g(const TYPE *source, int pe);                             \
  TYPE aclshmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                  \
  void aclshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                \
  TYPE aclshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);
#define ACLSHMEM_DECLARE_INTEGER_(NAME, TYPE)                                       \
  ACLSHMEM_DECLARE_POINT_(NAME, TYPE)                                               \
  void aclshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE value);               \
  int aclshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE value);                      \
  TYPE aclshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe); \
  void aclshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                \
  void aclshmem_##NAME##_atomic_inc(TYPE *dest, int pe);                            \
  TYPE aclshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);          \
  TYPE aclshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);

ACLSHMEM_DECLARE_INTEGER_(int, int)
ACLSHMEM_DECLARE_INTEGER_(long, long)
ACLSHMEM_DECLARE_INTEGER_(longlong, long long)
ACLSHMEM_DECLARE_INTEGER_(uint, unsigned int)
ACLSHMEM_DECLARE_INTEGER_(ulong, unsigned long)
ACLSHMEM_DECLARE_INTEGER_(ulonglong, unsigned long long)
ACLSHMEM_DECLARE_INTEGER_(int32, int32_t)
ACLSHMEM_DECLARE_INTEGER_(int64, int64_t)
ACLSHMEM_DECLARE_INTEGER_(uint32, uint32_t)
ACLSHMEM_DECLARE_INTEGER_(uint64, uint64_t)
ACLSHMEM_DECLARE_INTEGER_(size, size_t)
ACLSHMEM_DECLARE_INTEGER_(ptrdiff, ptrdiff_t)
ACLSHMEM_DECLARE_POINT_(float, float)
ACLSHMEM_DECLARE_POINT_(double, double)
#undef ACLSHMEM_DECLARE_INTEGER_
#undef ACLSHMEM_DECLARE_POINT_

/* ---- ordering and barriers ------------------------------------------------------------------ */

void aclshmem_quiet(void);
void aclshmem_fence(void);
void aclshmem_barrier_all(void);
void aclshmemx_barrier_all_vec(void);
void aclshmem_sync_all(void);

/* ---- teams ---------------------------------------------------------------------------------- */

typedef int aclshmem_team_t;
#define ACLSHMEM_TEAM_INVALID (-1)
#define ACLSHMEM_TEAM_WORLD 0

/* Collective over parent: PEs start, start + stride, ... (size of them) form new_team; PEs
 * outside it get ACLSHMEM_TEAM_INVALID. */
int aclshmem_team_split_strided(aclshmem_team_t parent, int start, int stride, int size,
                                aclshmem_team_t *new_team);
int aclshmem_team_translate_pe(aclshmem_team_t src_team, int src_pe, aclshmem_team_t dest_team);
int aclshmem_team_my_pe(aclshmem_team_t team);
int aclshmem_team_n_pes(aclshmem_team_t team);
void aclshmem_team_destroy(aclshmem_team_t team);
void aclshmem_barrier(aclshmem_team_t team);
void aclshmem_team_sync(aclshmem_team_t team);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* ACLSHMEM_H */
