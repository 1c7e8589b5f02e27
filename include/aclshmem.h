/*
 * aclshmem.h - tdist's C API in aclshmem names.
 *
 * Host routines (init, heap, teams) and device routines (RMA, signals, waits, atomics, ordering,
 * barriers). On the cpu backend the device routines are callable from PE code and from program
 * instances of a launch.
 *
 * Errors: a routine that returns int reports a failure as an aclshmem_error_t, one that returns a
 * pointer as NULL, a query as -1. A routine that returns void (putmem, signal_op, barrier_all,
 * ...) cannot return one: it prints the failure to stderr and records it, and changes nothing.
 * Either way the message of the last failure on the calling thread is aclshmemx_last_error()
 * (it is not cleared by a call that succeeds).
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
/* TLS between the PEs and the bootstrap store for the inits that follow (seed 001 §5.1): with
 * enable, tls_info (tls_info_len bytes) is "ca=FILE;cert=FILE;key=FILE", PEM files of the job's CA,
 * this PE's certificate signed by it and its key; without, TLS is off (the default, unless
 * TDIST_TLS_CA/_CERT/_KEY are set). Checks the text, not yet the files (init does). */
int aclshmemx_set_conf_store_tls(int enable, const char *tls_info, uint32_t tls_info_len);
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
/* A CUmodule loaded by someone else (Triton's launcher, say) whose code links the device library
 * as bitcode (lib/libtdist_device.ll): the runtime fills its `tdist_device_state` global now when
 * initialized, at every later init, and zeroes it at finalize. *attached (may be NULL) is 1, or 0
 * when the module has no such global (it is left alone). Errors: the global's size is not this
 * runtime's (the bitcode and the library come from different builds), module is NULL, no CUDA
 * driver, or tdist built without the cuda backend. Needs no init. */
int aclshmemx_cuda_module_attach(void *module, int *attached);

/* ---- PE queries ---------------------------------------------------------------------------- */

int aclshmem_my_pe(void);
int aclshmem_n_pes(void);

/* ---- RMA ------------------------------------------------------------------------------------ */

void aclshmem_putmem(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_getmem(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe);
void aclshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe);

/* ---- signals -------------------------------------------------------------------------------- */

/* A signal word must be aligned to its size: sig_addr otherwise is an error. */
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
 * aclshmem_TYPE_... for the standard atomic types, by TYPE in the name:
 *   int int, long long, longlong long long, uint unsigned int, ulong unsigned long,
 *   ulonglong unsigned long long, int32 int32_t, int64 int64_t, uint32 uint32_t,
 *   uint64 uint64_t, size size_t, ptrdiff ptrdiff_t,
 * and, for p, g, atomic_fetch, atomic_set and atomic_swap only, float and double. Every address
 * must be aligned to its type's size (an error otherwise); pe is the PE whose copy is accessed.
 * The build checks the section below against its table; edit the table, then rewrite it with
 * `cmake --build <build> --target tdist_update_c_api_header`.
 */
/* BEGIN typed families: generated from host/c_api/generate_c_api.cpp */
/* Point put: a release store of value to dest on pe. */
void aclshmem_int_p(int *dest, int value, int pe);
void aclshmem_long_p(long *dest, long value, int pe);
void aclshmem_longlong_p(long long *dest, long long value, int pe);
void aclshmem_uint_p(unsigned int *dest, unsigned int value, int pe);
void aclshmem_ulong_p(unsigned long *dest, unsigned long value, int pe);
void aclshmem_ulonglong_p(unsigned long long *dest, unsigned long long value, int pe);
void aclshmem_float_p(float *dest, float value, int pe);
void aclshmem_double_p(double *dest, double value, int pe);
void aclshmem_int32_p(int32_t *dest, int32_t value, int pe);
void aclshmem_int64_p(int64_t *dest, int64_t value, int pe);
void aclshmem_uint32_p(uint32_t *dest, uint32_t value, int pe);
void aclshmem_uint64_p(uint64_t *dest, uint64_t value, int pe);
void aclshmem_size_p(size_t *dest, size_t value, int pe);
void aclshmem_ptrdiff_p(ptrdiff_t *dest, ptrdiff_t value, int pe);

/* Point get: an acquire load of source on pe. */
int aclshmem_int_g(const int *source, int pe);
long aclshmem_long_g(const long *source, int pe);
long long aclshmem_longlong_g(const long long *source, int pe);
unsigned int aclshmem_uint_g(const unsigned int *source, int pe);
unsigned long aclshmem_ulong_g(const unsigned long *source, int pe);
unsigned long long aclshmem_ulonglong_g(const unsigned long long *source, int pe);
float aclshmem_float_g(const float *source, int pe);
double aclshmem_double_g(const double *source, int pe);
int32_t aclshmem_int32_g(const int32_t *source, int pe);
int64_t aclshmem_int64_g(const int64_t *source, int pe);
uint32_t aclshmem_uint32_g(const uint32_t *source, int pe);
uint64_t aclshmem_uint64_g(const uint64_t *source, int pe);
size_t aclshmem_size_g(const size_t *source, int pe);
ptrdiff_t aclshmem_ptrdiff_g(const ptrdiff_t *source, int pe);

/* Waits until this PE's *ivar satisfies cmp (ACLSHMEM_CMP_*) value, within the wait deadline. */
void aclshmem_int_wait_until(int *ivar, int cmp, int value);
void aclshmem_long_wait_until(long *ivar, int cmp, long value);
void aclshmem_longlong_wait_until(long long *ivar, int cmp, long long value);
void aclshmem_uint_wait_until(unsigned int *ivar, int cmp, unsigned int value);
void aclshmem_ulong_wait_until(unsigned long *ivar, int cmp, unsigned long value);
void aclshmem_ulonglong_wait_until(unsigned long long *ivar, int cmp, unsigned long long value);
void aclshmem_int32_wait_until(int32_t *ivar, int cmp, int32_t value);
void aclshmem_int64_wait_until(int64_t *ivar, int cmp, int64_t value);
void aclshmem_uint32_wait_until(uint32_t *ivar, int cmp, uint32_t value);
void aclshmem_uint64_wait_until(uint64_t *ivar, int cmp, uint64_t value);
void aclshmem_size_wait_until(size_t *ivar, int cmp, size_t value);
void aclshmem_ptrdiff_wait_until(ptrdiff_t *ivar, int cmp, ptrdiff_t value);

/* 1 when this PE's *ivar satisfies cmp (ACLSHMEM_CMP_*) value now, else 0. */
int aclshmem_int_test(int *ivar, int cmp, int value);
int aclshmem_long_test(long *ivar, int cmp, long value);
int aclshmem_longlong_test(long long *ivar, int cmp, long long value);
int aclshmem_uint_test(unsigned int *ivar, int cmp, unsigned int value);
int aclshmem_ulong_test(unsigned long *ivar, int cmp, unsigned long value);
int aclshmem_ulonglong_test(unsigned long long *ivar, int cmp, unsigned long long value);
int aclshmem_int32_test(int32_t *ivar, int cmp, int32_t value);
int aclshmem_int64_test(int64_t *ivar, int cmp, int64_t value);
int aclshmem_uint32_test(uint32_t *ivar, int cmp, uint32_t value);
int aclshmem_uint64_test(uint64_t *ivar, int cmp, uint64_t value);
int aclshmem_size_test(size_t *ivar, int cmp, size_t value);
int aclshmem_ptrdiff_test(ptrdiff_t *ivar, int cmp, ptrdiff_t value);

/* Atomic load (acquire) of source on pe. */
int aclshmem_int_atomic_fetch(const int *source, int pe);
long aclshmem_long_atomic_fetch(const long *source, int pe);
long long aclshmem_longlong_atomic_fetch(const long long *source, int pe);
unsigned int aclshmem_uint_atomic_fetch(const unsigned int *source, int pe);
unsigned long aclshmem_ulong_atomic_fetch(const unsigned long *source, int pe);
unsigned long long aclshmem_ulonglong_atomic_fetch(const unsigned long long *source, int pe);
float aclshmem_float_atomic_fetch(const float *source, int pe);
double aclshmem_double_atomic_fetch(const double *source, int pe);
int32_t aclshmem_int32_atomic_fetch(const int32_t *source, int pe);
int64_t aclshmem_int64_atomic_fetch(const int64_t *source, int pe);
uint32_t aclshmem_uint32_atomic_fetch(const uint32_t *source, int pe);
uint64_t aclshmem_uint64_atomic_fetch(const uint64_t *source, int pe);
size_t aclshmem_size_atomic_fetch(const size_t *source, int pe);
ptrdiff_t aclshmem_ptrdiff_atomic_fetch(const ptrdiff_t *source, int pe);

/* Atomic store (release) of value to dest on pe. */
void aclshmem_int_atomic_set(int *dest, int value, int pe);
void aclshmem_long_atomic_set(long *dest, long value, int pe);
void aclshmem_longlong_atomic_set(long long *dest, long long value, int pe);
void aclshmem_uint_atomic_set(unsigned int *dest, unsigned int value, int pe);
void aclshmem_ulong_atomic_set(unsigned long *dest, unsigned long value, int pe);
void aclshmem_ulonglong_atomic_set(unsigned long long *dest, unsigned long long value, int pe);
void aclshmem_float_atomic_set(float *dest, float value, int pe);
void aclshmem_double_atomic_set(double *dest, double value, int pe);
void aclshmem_int32_atomic_set(int32_t *dest, int32_t value, int pe);
void aclshmem_int64_atomic_set(int64_t *dest, int64_t value, int pe);
void aclshmem_uint32_atomic_set(uint32_t *dest, uint32_t value, int pe);
void aclshmem_uint64_atomic_set(uint64_t *dest, uint64_t value, int pe);
void aclshmem_size_atomic_set(size_t *dest, size_t value, int pe);
void aclshmem_ptrdiff_atomic_set(ptrdiff_t *dest, ptrdiff_t value, int pe);

/* Stores value to dest on pe; returns the old value. */
int aclshmem_int_atomic_swap(int *dest, int value, int pe);
long aclshmem_long_atomic_swap(long *dest, long value, int pe);
long long aclshmem_longlong_atomic_swap(long long *dest, long long value, int pe);
unsigned int aclshmem_uint_atomic_swap(unsigned int *dest, unsigned int value, int pe);
unsigned long aclshmem_ulong_atomic_swap(unsigned long *dest, unsigned long value, int pe);
unsigned long long aclshmem_ulonglong_atomic_swap(unsigned long long *dest, unsigned long long value, int pe);
float aclshmem_float_atomic_swap(float *dest, float value, int pe);
double aclshmem_double_atomic_swap(double *dest, double value, int pe);
int32_t aclshmem_int32_atomic_swap(int32_t *dest, int32_t value, int pe);
int64_t aclshmem_int64_atomic_swap(int64_t *dest, int64_t value, int pe);
uint32_t aclshmem_uint32_atomic_swap(uint32_t *dest, uint32_t value, int pe);
uint64_t aclshmem_uint64_atomic_swap(uint64_t *dest, uint64_t value, int pe);
size_t aclshmem_size_atomic_swap(size_t *dest, size_t value, int pe);
ptrdiff_t aclshmem_ptrdiff_atomic_swap(ptrdiff_t *dest, ptrdiff_t value, int pe);

/* Stores value to dest on pe if it holds cond; returns the old value either way. */
int aclshmem_int_atomic_compare_swap(int *dest, int cond, int value, int pe);
long aclshmem_long_atomic_compare_swap(long *dest, long cond, long value, int pe);
long long aclshmem_longlong_atomic_compare_swap(long long *dest, long long cond, long long value, int pe);
unsigned int aclshmem_uint_atomic_compare_swap(unsigned int *dest, unsigned int cond, unsigned int value, int pe);
unsigned long aclshmem_ulong_atomic_compare_swap(unsigned long *dest, unsigned long cond, unsigned long value, int pe);
unsigned long long aclshmem_ulonglong_atomic_compare_swap(unsigned long long *dest, unsigned long long cond, unsigned long long value, int pe);
int32_t aclshmem_int32_atomic_compare_swap(int32_t *dest, int32_t cond, int32_t value, int pe);
int64_t aclshmem_int64_atomic_compare_swap(int64_t *dest, int64_t cond, int64_t value, int pe);
uint32_t aclshmem_uint32_atomic_compare_swap(uint32_t *dest, uint32_t cond, uint32_t value, int pe);
uint64_t aclshmem_uint64_atomic_compare_swap(uint64_t *dest, uint64_t cond, uint64_t value, int pe);
size_t aclshmem_size_atomic_compare_swap(size_t *dest, size_t cond, size_t value, int pe);
ptrdiff_t aclshmem_ptrdiff_atomic_compare_swap(ptrdiff_t *dest, ptrdiff_t cond, ptrdiff_t value, int pe);

/* Adds value to dest on pe. */
void aclshmem_int_atomic_add(int *dest, int value, int pe);
void aclshmem_long_atomic_add(long *dest, long value, int pe);
void aclshmem_longlong_atomic_add(long long *dest, long long value, int pe);
void aclshmem_uint_atomic_add(unsigned int *dest, unsigned int value, int pe);
void aclshmem_ulong_atomic_add(unsigned long *dest, unsigned long value, int pe);
void aclshmem_ulonglong_atomic_add(unsigned long long *dest, unsigned long long value, int pe);
void aclshmem_int32_atomic_add(int32_t *dest, int32_t value, int pe);
void aclshmem_int64_atomic_add(int64_t *dest, int64_t value, int pe);
void aclshmem_uint32_atomic_add(uint32_t *dest, uint32_t value, int pe);
void aclshmem_uint64_atomic_add(uint64_t *dest, uint64_t value, int pe);
void aclshmem_size_atomic_add(size_t *dest, size_t value, int pe);
void aclshmem_ptrdiff_atomic_add(ptrdiff_t *dest, ptrdiff_t value, int pe);

/* Adds 1 to dest on pe. */
void aclshmem_int_atomic_inc(int *dest, int pe);
void aclshmem_long_atomic_inc(long *dest, int pe);
void aclshmem_longlong_atomic_inc(long long *dest, int pe);
void aclshmem_uint_atomic_inc(unsigned int *dest, int pe);
void aclshmem_ulong_atomic_inc(unsigned long *dest, int pe);
void aclshmem_ulonglong_atomic_inc(unsigned long long *dest, int pe);
void aclshmem_int32_atomic_inc(int32_t *dest, int pe);
void aclshmem_int64_atomic_inc(int64_t *dest, int pe);
void aclshmem_uint32_atomic_inc(uint32_t *dest, int pe);
void aclshmem_uint64_atomic_inc(uint64_t *dest, int pe);
void aclshmem_size_atomic_inc(size_t *dest, int pe);
void aclshmem_ptrdiff_atomic_inc(ptrdiff_t *dest, int pe);

/* Adds value to dest on pe; returns the old value. */
int aclshmem_int_atomic_fetch_add(int *dest, int value, int pe);
long aclshmem_long_atomic_fetch_add(long *dest, long value, int pe);
long long aclshmem_longlong_atomic_fetch_add(long long *dest, long long value, int pe);
unsigned int aclshmem_uint_atomic_fetch_add(unsigned int *dest, unsigned int value, int pe);
unsigned long aclshmem_ulong_atomic_fetch_add(unsigned long *dest, unsigned long value, int pe);
unsigned long long aclshmem_ulonglong_atomic_fetch_add(unsigned long long *dest, unsigned long long value, int pe);
int32_t aclshmem_int32_atomic_fetch_add(int32_t *dest, int32_t value, int pe);
int64_t aclshmem_int64_atomic_fetch_add(int64_t *dest, int64_t value, int pe);
uint32_t aclshmem_uint32_atomic_fetch_add(uint32_t *dest, uint32_t value, int pe);
uint64_t aclshmem_uint64_atomic_fetch_add(uint64_t *dest, uint64_t value, int pe);
size_t aclshmem_size_atomic_fetch_add(size_t *dest, size_t value, int pe);
ptrdiff_t aclshmem_ptrdiff_atomic_fetch_add(ptrdiff_t *dest, ptrdiff_t value, int pe);

/* Adds 1 to dest on pe; returns the old value. */
int aclshmem_int_atomic_fetch_inc(int *dest, int pe);
long aclshmem_long_atomic_fetch_inc(long *dest, int pe);
long long aclshmem_longlong_atomic_fetch_inc(long long *dest, int pe);
unsigned int aclshmem_uint_atomic_fetch_inc(unsigned int *dest, int pe);
unsigned long aclshmem_ulong_atomic_fetch_inc(unsigned long *dest, int pe);
unsigned long long aclshmem_ulonglong_atomic_fetch_inc(unsigned long long *dest, int pe);
int32_t aclshmem_int32_atomic_fetch_inc(int32_t *dest, int pe);
int64_t aclshmem_int64_atomic_fetch_inc(int64_t *dest, int pe);
uint32_t aclshmem_uint32_atomic_fetch_inc(uint32_t *dest, int pe);
uint64_t aclshmem_uint64_atomic_fetch_inc(uint64_t *dest, int pe);
size_t aclshmem_size_atomic_fetch_inc(size_t *dest, int pe);
ptrdiff_t aclshmem_ptrdiff_atomic_fetch_inc(ptrdiff_t *dest, int pe);
/* END typed families */

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
