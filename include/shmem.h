/*
 * shmem.h - the OpenSHMEM 1.5 C API on tdist.
 *
 * Every routine is a name over the runtime's own implementation (the one behind aclshmem.h and
 * tdist/shmem.h): the same heap, teams, waits, atomics, barriers and collectives. Build with
 * oshcc, run with oshrun (docs/OPENSHMEM.md).
 *
 * Errors: a routine the specification lets return an error does so (shmem_malloc: NULL;
 * shmem_team_split_*, team-based collectives, shmem_ctx_create: nonzero; team queries: -1) and
 * prints the reason, naming the routine, on stderr. Any other routine given bad input (a PE out
 * of range, an address off the symmetric heap, an invalid team, calls that differ between PEs)
 * prints the reason and ends the job with status 98. A wait past the runtime's wait deadline
 * prints what it waited for and ends the job with status 97.
 *
 * The per-type families are written once, over the type tables of the specification
 * (TDIST_SHMEM_*_TYPES below); the library defines them from the same tables.
 */
#ifndef TDIST_OPENSHMEM_H
#define TDIST_OPENSHMEM_H

#include <stddef.h>
#include <stdint.h>

/* Everything declared here is exported from libtdist_runtime. */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library constants ------------------------------------------------------------------- */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "tdist"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CTX_PRIVATE 1L
#define SHMEM_CTX_SERIALIZED 2L
#define SHMEM_CTX_NOSTORE 4L

/* The specification leaves the values to the implementation: these are the runtime's. */
#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

/* The active-set routines: pSync (at least 3 longs are used, on the set's first PE) joins the
 * members of a set that is no team, and is SHMEM_SYNC_VALUE again when a member returns; pWrk is
 * not used. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 8
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles ------------------------------------------------------------------------------ */

/* A team is the runtime's team index. Every PE of a job shares memory with every other (one
 * host), so the shared team is the world. */
typedef int shmem_team_t;
#define SHMEM_TEAM_WORLD ((shmem_team_t)0)
#define SHMEM_TEAM_SHARED ((shmem_team_t)0)
#define SHMEM_TEAM_INVALID ((shmem_team_t)-1)

typedef struct {
  int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* A context names a team; its operations are the runtime's (quiet and fence complete or order
 * all of this PE's operations, which is what they promise for the context, and more). */
typedef struct tdist_shmem_ctx *shmem_ctx_t;
extern struct tdist_shmem_ctx tdist_shmem_ctx_default;
#define SHMEM_CTX_DEFAULT (&tdist_shmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

#ifdef __cplusplus
typedef __complex__ float tdist_shmem_complexf;
typedef __complex__ double tdist_shmem_complexd;
#else
typedef float _Complex tdist_shmem_complexf;
typedef double _Complex tdist_shmem_complexd;
#endif

/* ---- type lists (X(TYPENAME, TYPE, A) for each row; A is passed through) ------------------- */
/* BEGIN type lists: generated from host/type_table.h */
/* Standard RMA types: those a generic selection tells apart, then the fixed-width ones. */
#define TDIST_SHMEM_GENERIC_RMA_TYPES(X, A)                                                        \
  X(float, float, A) X(double, double, A) X(longdouble, long double, A) X(char, char, A)           \
  X(schar, signed char, A) X(short, short, A) X(int, int, A) X(long, long, A)                      \
  X(longlong, long long, A) X(uchar, unsigned char, A) X(ushort, unsigned short, A)                \
  X(uint, unsigned int, A) X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A)
#define TDIST_SHMEM_RMA_TYPES(X, A)                                                                \
  TDIST_SHMEM_GENERIC_RMA_TYPES(X, A) X(int8, int8_t, A) X(int16, int16_t, A) X(int32, int32_t, A) \
  X(int64, int64_t, A) X(uint8, uint8_t, A) X(uint16, uint16_t, A) X(uint32, uint32_t, A)          \
  X(uint64, uint64_t, A) X(size, size_t, A) X(ptrdiff, ptrdiff_t, A)

/* Standard AMO types. */
#define TDIST_SHMEM_GENERIC_AMO_TYPES(X, A)                                                        \
  X(int, int, A) X(long, long, A) X(longlong, long long, A) X(uint, unsigned int, A)               \
  X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A)
#define TDIST_SHMEM_AMO_TYPES(X, A)                                                                \
  TDIST_SHMEM_GENERIC_AMO_TYPES(X, A) X(int32, int32_t, A) X(int64, int64_t, A)                    \
  X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A) X(ptrdiff, ptrdiff_t, A)

/* Extended AMO types (fetch, set, swap): the standard ones and float, double. */
#define TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES(X, A)                                               \
  X(int, int, A) X(long, long, A) X(longlong, long long, A) X(uint, unsigned int, A)               \
  X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A) X(float, float, A)                \
  X(double, double, A)
#define TDIST_SHMEM_EXTENDED_AMO_TYPES(X, A)                                                       \
  TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES(X, A) X(int32, int32_t, A) X(int64, int64_t, A)           \
  X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A) X(ptrdiff, ptrdiff_t, A)

/* Bitwise AMO types (and, or, xor). */
#define TDIST_SHMEM_GENERIC_BITWISE_AMO_TYPES(X, A)                                                \
  X(uint, unsigned int, A) X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A)          \
  X(int32, int32_t, A) X(int64, int64_t, A)
#define TDIST_SHMEM_BITWISE_AMO_TYPES(X, A)                                                        \
  TDIST_SHMEM_GENERIC_BITWISE_AMO_TYPES(X, A) X(uint32, uint32_t, A) X(uint64, uint64_t, A)

/* Point-to-point synchronization types: the standard AMO types, and short and unsigned short
 * (deprecated in 1.5, still part of it). */
#define TDIST_SHMEM_GENERIC_P2P_TYPES(X, A)                                                        \
  X(short, short, A) X(ushort, unsigned short, A) X(int, int, A) X(long, long, A)                  \
  X(longlong, long long, A) X(uint, unsigned int, A) X(ulong, unsigned long, A)                    \
  X(ulonglong, unsigned long long, A)
#define TDIST_SHMEM_P2P_TYPES(X, A)                                                                \
  TDIST_SHMEM_GENERIC_P2P_TYPES(X, A) X(int32, int32_t, A) X(int64, int64_t, A)                    \
  X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A) X(ptrdiff, ptrdiff_t, A)

/* Reduction types: bitwise (and, or, xor). */
#define TDIST_SHMEM_GENERIC_BITWISE_REDUCE_TYPES(X, A)                                             \
  X(uchar, unsigned char, A) X(ushort, unsigned short, A) X(uint, unsigned int, A)                 \
  X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A) X(int8, int8_t, A)                \
  X(int16, int16_t, A) X(int32, int32_t, A) X(int64, int64_t, A)
#define TDIST_SHMEM_BITWISE_REDUCE_TYPES(X, A)                                                     \
  TDIST_SHMEM_GENERIC_BITWISE_REDUCE_TYPES(X, A) X(uint8, uint8_t, A) X(uint16, uint16_t, A)       \
  X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A)

/* Reduction types: comparison (max, min). */
#define TDIST_SHMEM_GENERIC_MINMAX_REDUCE_TYPES(X, A)                                              \
  X(char, char, A) X(schar, signed char, A) X(short, short, A) X(int, int, A) X(long, long, A)     \
  X(longlong, long long, A) X(uchar, unsigned char, A) X(ushort, unsigned short, A)                \
  X(uint, unsigned int, A) X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A)          \
  X(float, float, A) X(double, double, A) X(longdouble, long double, A)
#define TDIST_SHMEM_MINMAX_REDUCE_TYPES(X, A)                                                      \
  TDIST_SHMEM_GENERIC_MINMAX_REDUCE_TYPES(X, A) X(ptrdiff, ptrdiff_t, A) X(int8, int8_t, A)        \
  X(int16, int16_t, A) X(int32, int32_t, A) X(int64, int64_t, A) X(uint8, uint8_t, A)              \
  X(uint16, uint16_t, A) X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A)

/* Reduction types: arithmetic (sum, prod). */
#define TDIST_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, A)                                               \
  X(char, char, A) X(schar, signed char, A) X(short, short, A) X(int, int, A) X(long, long, A)     \
  X(longlong, long long, A) X(uchar, unsigned char, A) X(ushort, unsigned short, A)                \
  X(uint, unsigned int, A) X(ulong, unsigned long, A) X(ulonglong, unsigned long long, A)          \
  X(float, float, A) X(double, double, A) X(longdouble, long double, A)                            \
  X(complexf, tdist_shmem_complexf, A) X(complexd, tdist_shmem_complexd, A)
#define TDIST_SHMEM_ARITH_REDUCE_TYPES(X, A)                                                       \
  TDIST_SHMEM_GENERIC_ARITH_REDUCE_TYPES(X, A) X(ptrdiff, ptrdiff_t, A) X(int8, int8_t, A)         \
  X(int16, int16_t, A) X(int32, int32_t, A) X(int64, int64_t, A) X(uint8, uint8_t, A)              \
  X(uint16, uint16_t, A) X(uint32, uint32_t, A) X(uint64, uint64_t, A) X(size, size_t, A)

/* The deprecated active-set reductions (*_to_all): bitwise. */
#define TDIST_SHMEM_BITWISE_TO_ALL_TYPES(X, A)                                                     \
  X(short, short, A) X(int, int, A) X(long, long, A) X(longlong, long long, A)

/* The deprecated active-set reductions: comparison. */
#define TDIST_SHMEM_MINMAX_TO_ALL_TYPES(X, A)                                                      \
  X(short, short, A) X(int, int, A) X(long, long, A) X(longlong, long long, A) X(float, float, A)  \
  X(double, double, A) X(longdouble, long double, A)

/* The deprecated active-set reductions: arithmetic. */
#define TDIST_SHMEM_ARITH_TO_ALL_TYPES(X, A)                                                       \
  X(short, short, A) X(int, int, A) X(long, long, A) X(longlong, long long, A) X(float, float, A)  \
  X(double, double, A) X(longdouble, long double, A) X(complexf, tdist_shmem_complexf, A)          \
  X(complexd, tdist_shmem_complexd, A)
/* END type lists */

/* Sized RMA: X(BITS, A). */
#define TDIST_SHMEM_RMA_SIZES(X, A) X(8, A) X(16, A) X(32, A) X(64, A) X(128, A)

/* ---- setup, exit and queries -------------------------------------------------------------- */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);  /* provides at most SHMEM_THREAD_SERIALIZED */
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);

/* ---- symmetric heap (collective over the world) ------------------------------------------- */

void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void shmem_free(void *ptr);

/* ---- teams and contexts ------------------------------------------------------------------- */

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- RMA ---------------------------------------------------------------------------------- */
/* In the shmem_ctx_ forms, pe is a PE of the context's team. */

#define TDIST_SHMEM_DECLARE_RMA(TYPENAME, TYPE, A)                                                 \
  void shmem_##TYPENAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);              \
  void shmem_ctx_##TYPENAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##TYPENAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);              \
  void shmem_ctx_##TYPENAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##TYPENAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);          \
  void shmem_ctx_##TYPENAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##TYPENAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);          \
  void shmem_ctx_##TYPENAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe); \
  void shmem_##TYPENAME##_p(TYPE *dest, TYPE value, int pe);                                       \
  void shmem_ctx_##TYPENAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                  \
  TYPE shmem_##TYPENAME##_g(const TYPE *source, int pe);                                           \
  TYPE shmem_ctx_##TYPENAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                      \
  void shmem_##TYPENAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##TYPENAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, \
                                   ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_##TYPENAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_##TYPENAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, \
                                   ptrdiff_t sst, size_t nelems, int pe);                          \
  void shmem_##TYPENAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, \
                                     uint64_t signal, int sig_op, int pe);                         \
  void shmem_ctx_##TYPENAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
  void shmem_##TYPENAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, \
                                         uint64_t signal, int sig_op, int pe);                     \
  void shmem_ctx_##TYPENAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
TDIST_SHMEM_RMA_TYPES(TDIST_SHMEM_DECLARE_RMA, _)

/* Sized forms: elements of BITS bits (put8 ... put128). */
#define TDIST_SHMEM_DECLARE_SIZED_RMA(BITS, A)                                                     \
  void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                     \
  void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                     \
  void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
  void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t nelems, int pe);                                                \
  void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                            size_t nelems, int pe);                                                \
  void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                                uint64_t signal, int sig_op, int pe);                              \
  void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
  void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                    uint64_t signal, int sig_op, int pe);                          \
  void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
TDIST_SHMEM_RMA_SIZES(TDIST_SHMEM_DECLARE_SIZED_RMA, _)

/* Bytes. */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

/* ---- signals (uint64_t words; the data of a put-with-signal arrives before its signal) ----- */

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                         int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics ------------------------------------------------------------------------------ */

#define TDIST_SHMEM_DECLARE_EXTENDED_AMO(TYPENAME, TYPE, A)                                        \
  TYPE shmem_##TYPENAME##_atomic_fetch(const TYPE *source, int pe);                                \
  TYPE shmem_ctx_##TYPENAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);           \
  void shmem_##TYPENAME##_atomic_set(TYPE *dest, TYPE value, int pe);                              \
  void shmem_ctx_##TYPENAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);         \
  TYPE shmem_##TYPENAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                             \
  TYPE shmem_ctx_##TYPENAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);        \
  void shmem_##TYPENAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);               \
  void shmem_ctx_##TYPENAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, int pe); \
  void shmem_##TYPENAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);            \
  void shmem_ctx_##TYPENAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
TDIST_SHMEM_EXTENDED_AMO_TYPES(TDIST_SHMEM_DECLARE_EXTENDED_AMO, _)

#define TDIST_SHMEM_DECLARE_STANDARD_AMO(TYPENAME, TYPE, A)                                        \
  TYPE shmem_##TYPENAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);          \
  TYPE shmem_ctx_##TYPENAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, TYPE value, int pe); \
  TYPE shmem_##TYPENAME##_atomic_fetch_inc(TYPE *dest, int pe);                                    \
  TYPE shmem_ctx_##TYPENAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);               \
  void shmem_##TYPENAME##_atomic_inc(TYPE *dest, int pe);                                          \
  void shmem_ctx_##TYPENAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                     \
  TYPE shmem_##TYPENAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);                        \
  TYPE shmem_ctx_##TYPENAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);   \
  void shmem_##TYPENAME##_atomic_add(TYPE *dest, TYPE value, int pe);                              \
  void shmem_ctx_##TYPENAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);         \
  void shmem_##TYPENAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe); \
  void shmem_ctx_##TYPENAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE cond, \
                                                      TYPE value, int pe);                         \
  void shmem_##TYPENAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);                   \
  void shmem_ctx_##TYPENAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, int pe); \
  void shmem_##TYPENAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);       \
  void shmem_ctx_##TYPENAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
TDIST_SHMEM_AMO_TYPES(TDIST_SHMEM_DECLARE_STANDARD_AMO, _)

/* OP is _and, _or or _xor (spelled so, since and, or and xor are operators in C++ and macros
 * of <iso646.h>). */
#define TDIST_SHMEM_DECLARE_BITWISE_AMO_OP(TYPENAME, TYPE, OP)                                     \
  TYPE shmem_##TYPENAME##_atomic_fetch##OP(TYPE *dest, TYPE value, int pe);                        \
  TYPE shmem_ctx_##TYPENAME##_atomic_fetch##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);   \
  void shmem_##TYPENAME##_atomic##OP(TYPE *dest, TYPE value, int pe);                              \
  void shmem_ctx_##TYPENAME##_atomic##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);         \
  void shmem_##TYPENAME##_atomic_fetch##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);     \
  void shmem_ctx_##TYPENAME##_atomic_fetch##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
TDIST_SHMEM_BITWISE_AMO_TYPES(TDIST_SHMEM_DECLARE_BITWISE_AMO_OP, _and)
TDIST_SHMEM_BITWISE_AMO_TYPES(TDIST_SHMEM_DECLARE_BITWISE_AMO_OP, _or)
TDIST_SHMEM_BITWISE_AMO_TYPES(TDIST_SHMEM_DECLARE_BITWISE_AMO_OP, _xor)


/* ---- point-to-point synchronization (on words of this PE, changed by peers' atomics) ------- */
/* _all/_any/_some: the words whose status entry is 0 (all when status is NULL); _any returns an
 * index (SIZE_MAX when none is left), _some the number of indices it wrote. Every point-to-point
 * type, short and unsigned short included. */

#define TDIST_SHMEM_DECLARE_P2P(TYPENAME, TYPE, A)                                                 \
  void shmem_##TYPENAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                         \
  void shmem_##TYPENAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##TYPENAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##TYPENAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                            int cmp, TYPE cmp_value);                              \
  void shmem_##TYPENAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                                TYPE *cmp_values);                                 \
  size_t shmem_##TYPENAME##_wait_until_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                                  TYPE *cmp_values);                               \
  size_t shmem_##TYPENAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, \
                                                   const int *status, int cmp, TYPE *cmp_values);  \
  int shmem_##TYPENAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                                \
  int shmem_##TYPENAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##TYPENAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value); \
  size_t shmem_##TYPENAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                      TYPE cmp_value);                                             \
  int shmem_##TYPENAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values); \
  size_t shmem_##TYPENAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                            TYPE *cmp_values);                                     \
  size_t shmem_##TYPENAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                             int cmp, TYPE *cmp_values);
TDIST_SHMEM_P2P_TYPES(TDIST_SHMEM_DECLARE_P2P, _)

/* ---- ordering, barriers, locks ------------------------------------------------------------ */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);  /* deprecated */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);     /* deprecated */

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);  /* 0 when this call took the lock */

/* ---- collectives -------------------------------------------------------------------------- */
/* Team-based ones return 0, or nonzero (with the reason on stderr). The active-set ones run on
 * the world team, or on a team made earlier with the same PEs (docs/OPENSHMEM.md). */

#define TDIST_SHMEM_DECLARE_COLLECTIVES(TYPENAME, TYPE, A)                                         \
  int shmem_##TYPENAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, int PE_root); \
  int shmem_##TYPENAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems); \
  int shmem_##TYPENAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems); \
  int shmem_##TYPENAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems); \
  int shmem_##TYPENAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, ptrdiff_t dst, \
                                   ptrdiff_t sst, size_t nelems);
TDIST_SHMEM_RMA_TYPES(TDIST_SHMEM_DECLARE_COLLECTIVES, _)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);

#define TDIST_SHMEM_DECLARE_ACTIVE_SET_COLLECTIVES(BITS, A)                                        \
  void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                             int logPE_stride, int PE_size, long *pSync);                          \
  void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                           int PE_size, long *pSync);                                              \
  void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync);                                             \
  void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, \
                            int PE_size, long *pSync);                                             \
  void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                             int PE_start, int logPE_stride, int PE_size, long *pSync);
TDIST_SHMEM_DECLARE_ACTIVE_SET_COLLECTIVES(32, _)
TDIST_SHMEM_DECLARE_ACTIVE_SET_COLLECTIVES(64, _)

/* Reductions: dest[i] = source[i] of team PE 0 op source[i] of PE 1 op ..., in PE order
 * (deterministic for floating point); dest may be source. */
/* FAMILY is the routine's name after the type: and_reduce, ..., prod_to_all. */
#define TDIST_SHMEM_DECLARE_REDUCE(TYPENAME, TYPE, FAMILY)                                         \
  int shmem_##TYPENAME##_##FAMILY(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce);
#define TDIST_SHMEM_DECLARE_TO_ALL(TYPENAME, TYPE, FAMILY)                                         \
  void shmem_##TYPENAME##_##FAMILY(TYPE *dest, const TYPE *source, int nreduce, int PE_start,      \
                                   int logPE_stride, int PE_size, TYPE *pWrk, long *pSync);
#define TDIST_SHMEM_REDUCTIONS(X)                                                                  \
  TDIST_SHMEM_BITWISE_REDUCE_TYPES(X, and_reduce) TDIST_SHMEM_BITWISE_REDUCE_TYPES(X, or_reduce)   \
  TDIST_SHMEM_BITWISE_REDUCE_TYPES(X, xor_reduce) TDIST_SHMEM_MINMAX_REDUCE_TYPES(X, max_reduce)   \
  TDIST_SHMEM_MINMAX_REDUCE_TYPES(X, min_reduce) TDIST_SHMEM_ARITH_REDUCE_TYPES(X, sum_reduce)     \
  TDIST_SHMEM_ARITH_REDUCE_TYPES(X, prod_reduce)
#define TDIST_SHMEM_TO_ALL_REDUCTIONS(X)                                                           \
  TDIST_SHMEM_BITWISE_TO_ALL_TYPES(X, and_to_all) TDIST_SHMEM_BITWISE_TO_ALL_TYPES(X, or_to_all)   \
  TDIST_SHMEM_BITWISE_TO_ALL_TYPES(X, xor_to_all) TDIST_SHMEM_MINMAX_TO_ALL_TYPES(X, max_to_all)   \
  TDIST_SHMEM_MINMAX_TO_ALL_TYPES(X, min_to_all) TDIST_SHMEM_ARITH_TO_ALL_TYPES(X, sum_to_all)     \
  TDIST_SHMEM_ARITH_TO_ALL_TYPES(X, prod_to_all)
TDIST_SHMEM_REDUCTIONS(TDIST_SHMEM_DECLARE_REDUCE)
TDIST_SHMEM_TO_ALL_REDUCTIONS(TDIST_SHMEM_DECLARE_TO_ALL)

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

/* ---- C11 generic selections --------------------------------------------------------------- */
/* shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source, nelems, pe), ...: the
 * form is chosen by the number of arguments, the type by the first pointer's element type. */

/* ---- names deprecated before 1.5, still in its deprecated API and in many programs ----------
 * Each is the routine that replaced it: the pre-1.4 atomics (finc, fadd, cswap, swap, fetch, set,
 * inc, add), shmem_TYPE_wait (wait_until NE), start_pes, _my_pe, _num_pes, shmalloc and kin, and
 * the cache routines, which have nothing to do on a coherent machine. */
#define TDIST_SHMEM_DEPRECATED_AMO(TYPENAME, TYPE)                                                           \
  static inline TYPE shmem_##TYPENAME##_finc(TYPE *dest, int pe) { return shmem_##TYPENAME##_atomic_fetch_inc(dest, pe); } \
  static inline TYPE shmem_##TYPENAME##_fadd(TYPE *dest, TYPE value, int pe) {                               \
    return shmem_##TYPENAME##_atomic_fetch_add(dest, value, pe);                                             \
  }                                                                                                          \
  static inline TYPE shmem_##TYPENAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe) {                   \
    return shmem_##TYPENAME##_atomic_compare_swap(dest, cond, value, pe);                                    \
  }                                                                                                          \
  static inline void shmem_##TYPENAME##_inc(TYPE *dest, int pe) { shmem_##TYPENAME##_atomic_inc(dest, pe); } \
  static inline void shmem_##TYPENAME##_add(TYPE *dest, TYPE value, int pe) {                                \
    shmem_##TYPENAME##_atomic_add(dest, value, pe);                                                          \
  }                                                                                                          \
  static inline void shmem_##TYPENAME##_wait(TYPE *ivar, TYPE cmp_value) {                                   \
    shmem_##TYPENAME##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                                            \
  }
#define TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(TYPENAME, TYPE)                                                  \
  static inline TYPE shmem_##TYPENAME##_swap(TYPE *dest, TYPE value, int pe) {                               \
    return shmem_##TYPENAME##_atomic_swap(dest, value, pe);                                                  \
  }                                                                                                          \
  static inline TYPE shmem_##TYPENAME##_fetch(const TYPE *source, int pe) {                                  \
    return shmem_##TYPENAME##_atomic_fetch(source, pe);                                                      \
  }                                                                                                          \
  static inline void shmem_##TYPENAME##_set(TYPE *dest, TYPE value, int pe) { shmem_##TYPENAME##_atomic_set(dest, value, pe); }
TDIST_SHMEM_DEPRECATED_AMO(int, int)
TDIST_SHMEM_DEPRECATED_AMO(long, long)
TDIST_SHMEM_DEPRECATED_AMO(longlong, long long)
TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(int, int)
TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(long, long)
TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(longlong, long long)
TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(float, float)
TDIST_SHMEM_DEPRECATED_EXTENDED_AMO(double, double)
#undef TDIST_SHMEM_DEPRECATED_AMO
#undef TDIST_SHMEM_DEPRECATED_EXTENDED_AMO
static inline void shmem_short_wait(short *ivar, short cmp_value) { shmem_short_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
static inline void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
static inline void start_pes(int npes) {
  (void)npes; /* the job's PE count is the launcher's */
  shmem_init();
}
static inline int _my_pe(void) { return shmem_my_pe(); }
static inline int _num_pes(void) { return shmem_n_pes(); }
static inline void *shmalloc(size_t size) { return shmem_malloc(size); }
static inline void shfree(void *ptr) { shmem_free(ptr); }
static inline void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
static inline void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
static inline void shmem_clear_cache_inv(void) {}
static inline void shmem_set_cache_inv(void) {}
static inline void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
static inline void shmem_set_cache_line_inv(void *dest) { (void)dest; }
static inline void shmem_udcflush(void) {}
static inline void shmem_udcflush_line(void *dest) { (void)dest; }

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

#define TDIST_SHMEM_ARGC(...) TDIST_SHMEM_ARGC_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TDIST_SHMEM_ARGC_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define TDIST_SHMEM_PASTE(a, b) TDIST_SHMEM_PASTE_(a, b)
#define TDIST_SHMEM_PASTE_(a, b) a##b
#define TDIST_SHMEM_BY_COUNT(name, ...) TDIST_SHMEM_PASTE(name, TDIST_SHMEM_ARGC(__VA_ARGS__))(__VA_ARGS__)

#define TDIST_SHMEM_ENTRY(TYPENAME, TYPE, FAMILY) , TYPE: shmem_##TYPENAME##_##FAMILY
#define TDIST_SHMEM_CTX_ENTRY(TYPENAME, TYPE, FAMILY) , TYPE: shmem_ctx_##TYPENAME##_##FAMILY
/* The FAMILY routine of LIST for the element type of pointer p. */
#define TDIST_SHMEM_SELECT(LIST, FAMILY, p) _Generic(*(p) LIST(TDIST_SHMEM_ENTRY, FAMILY))
#define TDIST_SHMEM_SELECT_CTX(LIST, FAMILY, p) _Generic(*(p) LIST(TDIST_SHMEM_CTX_ENTRY, FAMILY))
#define TDIST_SHMEM_GENERIC(LIST, FAMILY, p, ...) TDIST_SHMEM_SELECT(LIST, FAMILY, p)(p, __VA_ARGS__)
#define TDIST_SHMEM_GENERIC_CTX(LIST, FAMILY, ctx, p, ...) TDIST_SHMEM_SELECT_CTX(LIST, FAMILY, p)(ctx, p, __VA_ARGS__)

/* RMA */
#define shmem_put(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_put_, __VA_ARGS__)
#define TDIST_SHMEM_put_4(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, put, __VA_ARGS__)
#define TDIST_SHMEM_put_5(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, put, __VA_ARGS__)
#define shmem_get(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_get_, __VA_ARGS__)
#define TDIST_SHMEM_get_4(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, get, __VA_ARGS__)
#define TDIST_SHMEM_get_5(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, get, __VA_ARGS__)
#define shmem_put_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_put_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_put_nbi_4(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, put_nbi, __VA_ARGS__)
#define TDIST_SHMEM_put_nbi_5(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_get_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_get_nbi_4(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, get_nbi, __VA_ARGS__)
#define TDIST_SHMEM_get_nbi_5(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, get_nbi, __VA_ARGS__)
#define shmem_p(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_p_, __VA_ARGS__)
#define TDIST_SHMEM_p_3(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, p, __VA_ARGS__)
#define TDIST_SHMEM_p_4(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, p, __VA_ARGS__)
#define shmem_g(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_g_, __VA_ARGS__)
#define TDIST_SHMEM_g_2(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, g, __VA_ARGS__)
#define TDIST_SHMEM_g_3(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, g, __VA_ARGS__)
#define shmem_iput(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_iput_, __VA_ARGS__)
#define TDIST_SHMEM_iput_6(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, iput, __VA_ARGS__)
#define TDIST_SHMEM_iput_7(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, iput, __VA_ARGS__)
#define shmem_iget(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_iget_, __VA_ARGS__)
#define TDIST_SHMEM_iget_6(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, iget, __VA_ARGS__)
#define TDIST_SHMEM_iget_7(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, iget, __VA_ARGS__)
#define shmem_put_signal(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_put_signal_, __VA_ARGS__)
#define TDIST_SHMEM_put_signal_7(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, put_signal, __VA_ARGS__)
#define TDIST_SHMEM_put_signal_8(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_put_signal_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_put_signal_nbi_7(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, put_signal_nbi, __VA_ARGS__)
#define TDIST_SHMEM_put_signal_nbi_8(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_RMA_TYPES, put_signal_nbi, __VA_ARGS__)

/* atomics */
#define shmem_atomic_fetch(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_2(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_fetch, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_3(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_set_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_set_3(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_set, __VA_ARGS__)
#define TDIST_SHMEM_atomic_set_4(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_swap_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_swap_3(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_swap, __VA_ARGS__)
#define TDIST_SHMEM_atomic_swap_4(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_nbi_3(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_nbi_4(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_swap_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_swap_nbi_4(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_swap_nbi_5(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_EXTENDED_AMO_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_compare_swap_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_compare_swap_4(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_compare_swap, __VA_ARGS__)
#define TDIST_SHMEM_atomic_compare_swap_5(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_compare_swap_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_compare_swap_nbi_5(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_compare_swap_nbi_6(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_inc_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_inc_2(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_inc, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_inc_3(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_inc_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_inc_nbi_3(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_inc_nbi_4(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_inc_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_inc_2(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_inc, __VA_ARGS__)
#define TDIST_SHMEM_atomic_inc_3(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_add_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_add_3(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_add, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_add_4(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_add_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_add_nbi_4(...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_add_nbi_5(...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_add_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_add_3(...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_add, __VA_ARGS__)
#define TDIST_SHMEM_atomic_add_4(...) TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_AMO_TYPES, atomic_add, __VA_ARGS__)
#define TDIST_SHMEM_BITWISE_GENERIC(FAMILY, ...) \
  TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_BITWISE_AMO_TYPES, FAMILY, __VA_ARGS__)
#define TDIST_SHMEM_BITWISE_GENERIC_CTX(FAMILY, ...) \
  TDIST_SHMEM_GENERIC_CTX(TDIST_SHMEM_GENERIC_BITWISE_AMO_TYPES, FAMILY, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_and_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_and_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_and, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_and_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_or_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_or_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_or, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_or_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_xor_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_xor_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_xor, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_xor_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_and_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_and_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_and, __VA_ARGS__)
#define TDIST_SHMEM_atomic_and_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_or_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_or_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_or, __VA_ARGS__)
#define TDIST_SHMEM_atomic_or_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_xor_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_xor_3(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_xor, __VA_ARGS__)
#define TDIST_SHMEM_atomic_xor_4(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_and_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_and_nbi_4(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_and_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_and_nbi_5(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_or_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_or_nbi_4(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_or_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_or_nbi_5(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_atomic_fetch_xor_nbi_, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_xor_nbi_4(...) TDIST_SHMEM_BITWISE_GENERIC(atomic_fetch_xor_nbi, __VA_ARGS__)
#define TDIST_SHMEM_atomic_fetch_xor_nbi_5(...) TDIST_SHMEM_BITWISE_GENERIC_CTX(atomic_fetch_xor_nbi, __VA_ARGS__)

/* point-to-point synchronization */
#define TDIST_SHMEM_P2P_GENERIC(FAMILY, ...) TDIST_SHMEM_GENERIC(TDIST_SHMEM_GENERIC_P2P_TYPES, FAMILY, __VA_ARGS__)
#define shmem_wait_until(...) TDIST_SHMEM_P2P_GENERIC(wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) TDIST_SHMEM_P2P_GENERIC(wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) TDIST_SHMEM_P2P_GENERIC(wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) TDIST_SHMEM_P2P_GENERIC(wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) TDIST_SHMEM_P2P_GENERIC(wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) TDIST_SHMEM_P2P_GENERIC(wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) TDIST_SHMEM_P2P_GENERIC(wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) TDIST_SHMEM_P2P_GENERIC(test, __VA_ARGS__)
#define shmem_test_all(...) TDIST_SHMEM_P2P_GENERIC(test_all, __VA_ARGS__)
#define shmem_test_any(...) TDIST_SHMEM_P2P_GENERIC(test_any, __VA_ARGS__)
#define shmem_test_some(...) TDIST_SHMEM_P2P_GENERIC(test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) TDIST_SHMEM_P2P_GENERIC(test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) TDIST_SHMEM_P2P_GENERIC(test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) TDIST_SHMEM_P2P_GENERIC(test_some_vector, __VA_ARGS__)

/* collectives: (team, dest, ...) */
#define TDIST_SHMEM_TEAM_GENERIC(LIST, FAMILY, team, dest, ...) TDIST_SHMEM_SELECT(LIST, FAMILY, dest)(team, dest, __VA_ARGS__)
#define shmem_broadcast(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, broadcast, __VA_ARGS__)
#define shmem_collect(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, collect, __VA_ARGS__)
#define shmem_fcollect(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_RMA_TYPES, alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_BITWISE_REDUCE_TYPES, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_MINMAX_REDUCE_TYPES, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_MINMAX_REDUCE_TYPES, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_ARITH_REDUCE_TYPES, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) TDIST_SHMEM_TEAM_GENERIC(TDIST_SHMEM_GENERIC_ARITH_REDUCE_TYPES, prod_reduce, __VA_ARGS__)

/* shmem_sync(team) is shmem_team_sync; shmem_sync(PE_start, logPE_stride, PE_size, pSync) the
 * deprecated active-set form. */
#define shmem_sync(...) TDIST_SHMEM_BY_COUNT(TDIST_SHMEM_sync_, __VA_ARGS__)
#define TDIST_SHMEM_sync_1(team) shmem_team_sync(team)
#define TDIST_SHMEM_sync_4(...) shmem_sync(__VA_ARGS__)

#endif /* C11 */

#endif /* TDIST_OPENSHMEM_H */
