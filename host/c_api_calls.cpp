// host/c_api_calls.cpp - the communication calls of aclshmem.h (what aclshmem calls its device
// API: RMA, signals, atomics, waits, collectives), on the host: thin shims over the calls of
// calls.h, each passing its own name for the errors it reports. The typed families
// (aclshmem_int32_p, ...) are generated from the table in c_api/generate_c_api.cpp.
#include "aclshmem.h"
#include "host/calls.h"
#include "runtime/c_api_support.h"
#include "tdist/shmem.h"

using tdist::capi::guarded;
using tdist::capi::guardedValue;
namespace host = tdist::host;
namespace shmem = tdist::shmem;

namespace {

shmem::SignalOp toSignalOp(int op) { return static_cast<shmem::SignalOp>(op); }
shmem::Cmp toCmp(int cmp) { return static_cast<shmem::Cmp>(cmp); }

}  // namespace

extern "C" {

int aclshmem_my_pe(void) { return guardedValue(-1, [] { return shmem::my_pe(); }); }
int aclshmem_n_pes(void) { return guardedValue(-1, [] { return shmem::n_pes(); }); }

void aclshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { host::put(dest, source, nbytes, pe, true, "aclshmem_putmem"); });
}
void aclshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { host::get(dest, source, nbytes, pe, true, "aclshmem_getmem"); });
}
void aclshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { host::put(dest, source, nbytes, pe, false, "aclshmem_putmem_nbi"); });
}
void aclshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  guarded([&] { host::get(dest, source, nbytes, pe, false, "aclshmem_getmem_nbi"); });
}

// Signals: int32 in the aclshmem names, uint64 in the signal64 ones, int64 in the _i64 ones.
void aclshmem_putmem_signal(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                            int32_t signal, int sig_op, int pe) {
  guarded([&] {
    host::signalledPut(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe, true,
                         "aclshmem_putmem_signal");
  });
}
void aclshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, int32_t *sig_addr,
                                int32_t signal, int sig_op, int pe) {
  guarded([&] {
    host::signalledPut(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe, false,
                         "aclshmem_putmem_signal_nbi");
  });
}
void aclshmemx_signal_op(int32_t *sig_addr, int32_t signal, int sig_op, int pe) {
  guarded([&] { host::signalOp(sig_addr, signal, toSignalOp(sig_op), pe, "aclshmemx_signal_op"); });
}
int32_t aclshmem_signal_wait_until(int32_t *sig_addr, int cmp, int32_t cmp_value) {
  return guardedValue<int32_t>(0, [&] {
    return host::signalWaitUntil(sig_addr, toCmp(cmp), cmp_value, "aclshmem_signal_wait_until");
  });
}
void aclshmemx_putmem_signal64(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe) {
  guarded([&] {
    host::signalledPut(dest, source, nbytes, sig_addr, signal, toSignalOp(sig_op), pe, true,
                         "aclshmemx_putmem_signal64");
  });
}
void aclshmemx_signal64_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  guarded([&] { host::signalOp(sig_addr, signal, toSignalOp(sig_op), pe, "aclshmemx_signal64_op"); });
}
uint64_t aclshmemx_signal64_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return guardedValue<uint64_t>(0, [&] {
    return host::signalWaitUntil(sig_addr, toCmp(cmp), cmp_value, "aclshmemx_signal64_wait_until");
  });
}
void aclshmemx_signal_op_i64(int64_t *sig_addr, int64_t signal, int sig_op, int pe) {
  guarded([&] { host::signalOp(sig_addr, signal, toSignalOp(sig_op), pe, "aclshmemx_signal_op_i64"); });
}
int64_t aclshmemx_signal_wait_until_i64(int64_t *sig_addr, int cmp, int64_t cmp_value) {
  return guardedValue<int64_t>(0, [&] {
    return host::signalWaitUntil(sig_addr, toCmp(cmp), cmp_value, "aclshmemx_signal_wait_until_i64");
  });
}

void aclshmem_quiet(void) { shmem::quiet(); }
void aclshmem_fence(void) { shmem::fence(); }
void aclshmem_barrier_all(void) { guarded([] { shmem::barrier_all(); }); }
void aclshmemx_barrier_all_vec(void) { guarded([] { shmem::barrier_all(); }); }
void aclshmem_sync_all(void) { guarded([] { shmem::sync_all(); }); }

}  // extern "C"
