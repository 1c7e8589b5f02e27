/* check.h - what the OpenSHMEM conformance programs share: a check that ends the whole job
 * (shmem_global_exit) with the failed condition, and the tables of types they run over. */
#ifndef OPENSHMEM_TEST_CHECK_H
#define OPENSHMEM_TEST_CHECK_H

#include <shmem.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                          \
      fputc('\n', stderr);                                                                   \
      shmem_global_exit(1);                                                                  \
    }                                                                                        \
  } while (0)

/* The specification's standard RMA types (Table "Standard RMA Types and Names"). */
#define RMA_TYPES(X)                                                                         \
  X(float, float) X(double, double) X(longdouble, long double) X(char, char)                 \
  X(schar, signed char) X(short, short) X(int, int) X(long, long) X(longlong, long long)    \
  X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)                   \
  X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) \
  X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t)                 \
  X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)

/* Standard AMO types (and point-to-point synchronization types). */
#define AMO_TYPES(X)                                                                         \
  X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long) \
  X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t)   \
  X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)

/* Extended AMO types beyond the standard ones, and the bitwise AMO types. */
#define EXTENDED_ONLY_AMO_TYPES(X) X(float, float) X(double, double)
#define BITWISE_AMO_TYPES(X)                                                                 \
  X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long)            \
  X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t)

/* Point-to-point synchronization types: the standard AMO types, short and unsigned short
 * (deprecated in 1.5, still in it). */
#define P2P_TYPES(X) X(short, short) X(ushort, unsigned short) AMO_TYPES(X)

/* Reduction types by operation (Table "Reduction Types, Names and Supporting Operations"):
 * AND/OR/XOR, MAX/MIN, SUM/PROD. */
#define BITWISE_REDUCE_TYPES(X)                                                              \
  X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) \
  X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)      \
  X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t)               \
  X(uint64, uint64_t) X(size, size_t)
#define MINMAX_REDUCE_TYPES(X)                                                               \
  X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long)              \
  X(longlong, long long) X(ptrdiff, ptrdiff_t) X(uchar, unsigned char) X(ushort, unsigned short) \
  X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long)            \
  X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t)    \
  X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)               \
  X(float, float) X(double, double) X(longdouble, long double)
#define ARITH_REDUCE_TYPES(X)                                                                \
  MINMAX_REDUCE_TYPES(X) X(complexd, double _Complex) X(complexf, float _Complex)

/* The deprecated active-set reductions' types (*_to_all). */
#define BITWISE_TO_ALL_TYPES(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define MINMAX_TO_ALL_TYPES(X) BITWISE_TO_ALL_TYPES(X) X(float, float) X(double, double) X(longdouble, long double)
#define ARITH_TO_ALL_TYPES(X) MINMAX_TO_ALL_TYPES(X) X(complexd, double _Complex) X(complexf, float _Complex)

static inline int next_pe(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int prev_pe(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

#endif
