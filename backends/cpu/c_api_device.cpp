// backends/cpu/c_api_device.cpp - the device half of aclshmem.h: thin shims over tdist::shmem.
#include "aclshmem.h"
#include "runtime/c_api_support.h"
#include "tdist/shmem.h"

using tdist::capi::guarded;
using tdist::capi::guardedValue;
namespace shmem = tdist::shmem;

namespace {

shmem::SignalOp toSignalOp(int op) { return static_cast<shmem::SignalOp>(op); }
shmem::Cmp toCmp(int cmp) { return static_cast<shmem::Cmp>(cmp); }

}  // namespace

extern "C" {

int aclshmem_my_pe(void) { return guardedValue(-1, [] { return shmem::my_pe(); }); }
int aclshmem_n_pes(void) { return guardedValue(-1, [] { return shmem::n_pes(); }); }

void aclshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { shmem::putmem(dest, source, nbytes, pe); });
}
void aclshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { shmem::getmem(dest, source, nbytes, pe); });
}
void aclshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { shmem::putmem_nbi(dest, source, nbytes, pe); });
}
void aclshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { shmem::getmem_nbi(dest, source, nbytes, pe); });
}

void aclshmem_putmem_signal(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                            int32_t signal, int sig_op, int pe) {
  guarded([&] { shmem::putmem_signal(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe); });
}
void aclshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                                int32_t signal, int sig_op, int pe) {
  guarded([&] { shmem::putmem_signal_nbi(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe); });
}
void aclshmemx_signal_op(int32_t *sig_addr, int32_t signal, int sig_op, int pe) {
  guarded([&] { shmem::signal_op(sig_addr, signal, toSignalOp(sig_op), pe); });
}
int32_t aclshmem_signal_wait_until(int32_t *sig_addr, int cmp, int32_t cmp_value) {
  return guardedValue<int32_t>(0, [&] { return shmem::signal_wait_until(sig_addr, toCmp(cmp), cmp_value); });
}
void aclshmemx_putmem_signal64(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe) {
  guarded([&] { shmem::putmem_signal(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe); });
}
void aclshmemx_signal64_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  guarded([&] { shmem::signal_op(sig_addr, signal, toSignalOp(sig_op), pe); });
}
uint64_t aclshmemx_signal64_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return guardedValue<uint64_t>(0, [&] { return shmem::signal_wait_until(sig_addr, toCmp(cmp), cmp_value); });
}
void aclshmemx_signal_op_i64(int64_t *sig_addr, int64_t signal, int sig_op, int pe) {
  guarded([&] { shmem::signal_op(sig_addr, signal, toSignalOp(sig_op), pe); });
}
int64_t aclshmemx_signal_wait_until_i64(int64_t *sig_addr, int cmp, int64_t cmp_value) {
  return guardedValue<int64_t>(0, [&] { return shmem::signal_wait_until(sig_addr, toCmp(cmp), cmp_value); });
}

// Typed families: one line per function and type, each forwarding to the template.
#define TDIST_C_POINT(NAME, TYPE)                                                              \
  void aclshmem_##NAME##_p(TYPE *dest, TYPE value, int pe) {                                   \
    guarded([&] { shmem::p<TYPE>(dest, value, pe); });                                         \
  }                                                                                            \
  TYPE aclshmem_##NAME##_g(const TYPE *source, int pe) {                                       \
    return guardedValue<TYPE>(0, [&] { return shmem::g<TYPE>(source, pe); });                 \
  }                                                                                            \
  TYPE aclshmem_##NAME##_atomic_fetch(const TYPE *source, int pe) {                            \
    return guardedValue<TYPE>(0, [&] { return shmem::atomic_fetch<TYPE>(source, pe); });      \
  }                                                                                            \
  void aclshmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe) {                          \
    guarded([&] { shmem::atomic_set<TYPE>(dest, value, pe); });                                \
  }                                                                                            \
  TYPE aclshmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe) {                         \
    return guardedValue<TYPE>(0, [&] { return shmem::atomic_swap<TYPE>(dest, value, pe); });  \
  }
#define TDIST_C_INTEGER(NAME, TYPE)                                                            \
  TDIST_C_POINT(NAME, TYPE)                                                                    \
  void aclshmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE value) {                         \
    guarded([&] { shmem::wait_until<TYPE>(ivar, toCmp(cmp), value); });                       \
  }                                                                                            \
  int aclshmem_##NAME##_test(TYPE *ivar, int cmp, TYPE value) {                                \
    return guardedValue(0, [&] { return shmem::test<TYPE>(ivar, toCmp(cmp), value) ? 1 : 0; }); \
  }                                                                                            \
  TYPE aclshmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) {      \
    return guardedValue<TYPE>(0, [&] { return shmem::atomic_compare_swap<TYPE>(dest, cond, value, pe); }); \
  }                                                                                            \
  void aclshmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe) {                          \
    guarded([&] { shmem::atomic_add<TYPE>(dest, value, pe); });                                \
  }                                                                                            \
  void aclshmem_##NAME##_atomic_inc(TYPE *dest, int pe) {                                      \
    guarded([&] { shmem::atomic_inc<TYPE>(dest, pe); });                                       \
  }                                                                                            \
  TYPE aclshmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe) {                    \
    return guardedValue<TYPE>(0, [&] { return shmem::atomic_fetch_add<TYPE>(dest, value, pe); }); \
  }                                                                                            \
  TYPE aclshmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe) {                                \
    return guardedValue<TYPE>(0, [&] { return shmem::atomic_fetch_inc<TYPE>(dest, pe); });    \
  }

TDIST_C_INTEGER(int, int)
TDIST_C_INTEGER(long, long)
TDIST_C_INTEGER(longlong, long long)
TDIST_C_INTEGER(uint, unsigned int)
TDIST_C_INTEGER(ulong, unsigned long)
TDIST_C_INTEGER(ulonglong, unsigned long long)
TDIST_C_INTEGER(int32, int32_t)
TDIST_C_INTEGER(int64, int64_t)
TDIST_C_INTEGER(uint32, uint32_t)
TDIST_C_INTEGER(uint64, uint64_t)
TDIST_C_INTEGER(size, size_t)
TDIST_C_INTEGER(ptrdiff, ptrdiff_t)
TDIST_C_POINT(float, float)
TDIST_C_POINT(double, double)
#undef TDIST_C_INTEGER
#undef TDIST_C_POINT

void aclshmem_quiet(void) { shmem::quiet(); }
void aclshmem_fence(void) { shmem::fence(); }
void aclshmem_barrier_all(void) { guarded([] { shmem::barrier_all(); }); }
void aclshmemx_barrier_all_vec(void) { guarded([] { shmem::barrier_all(); }); }
void aclshmem_sync_all(void) { guarded([] { shmem::sync_all(); }); }

}  // extern "C"
