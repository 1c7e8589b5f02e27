// host/openshmem/sync.cpp - shmem.h's signals, point-to-point synchronization, ordering,
// barriers and locks: names over the runtime's waits, signals, quiet/fence, team steps and atomics.
#include <cstdint>
#include <string>

#include "host/calls.h"
#include "host/openshmem/support.h"
#include "runtime/runtime_state.h"
#include "runtime/teams.h"

namespace host = tdist::host;
using tdist::host::WaitSet;
using tdist::openshmem::orExit;
using tdist::openshmem::returnCode;
using tdist::openshmem::toCmp;
using tdist::openshmem::valueOrExit;
using tdist::runtime::CollectiveApi;

namespace tdist::openshmem {
namespace {

void requireContext(shmem_ctx_t ctx, const char *call) {
  if (ctx == SHMEM_CTX_INVALID) {
    throw Error(ErrorCode::InvalidParam, std::string(call) + ": the context is SHMEM_CTX_INVALID");
  }
}

template <class T>
std::size_t waitSet(WaitSet kind, T *ivars, std::size_t nelems, const int *status, int cmp, const T *values,
                    T value, std::size_t *indices, bool block, const char *call) {
  return valueOrExit<std::size_t>([&] {
    if (kind == WaitSet::Some && indices == nullptr && nelems != 0) {
      throw Error(ErrorCode::InvalidParam, std::string(call) + ": indices is NULL");
    }
    return host::waitSet(kind, ivars, nelems, status, toCmp(cmp), values, value, indices, block, call);
  });
}


}  // namespace
}  // namespace tdist::openshmem

namespace oshmem = tdist::openshmem;

extern "C" {

// ---- signals ---------------------------------------------------------------------------------

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
  return valueOrExit<uint64_t>([&] {
    constexpr const char *call = "shmem_signal_fetch";
    return host::atomicFetch(sig_addr, tdist::runtime::requireState(call).my_pe, call);
  });
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return valueOrExit<uint64_t>(
      [&] { return host::signalWaitUntil(sig_addr, toCmp(cmp), cmp_value, "shmem_signal_wait_until"); });
}

// ---- point-to-point synchronization ------------------------------------------------------------

#define TDIST_SHMEM_DEFINE_P2P(TYPENAME, TYPE, A)                                                          \
  void shmem_##TYPENAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value) {                                \
    orExit([&] { host::waitUntil(ivar, toCmp(cmp), cmp_value, "shmem_" #TYPENAME "_wait_until"); });    \
  }                                                                                                        \
  void shmem_##TYPENAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) { \
    oshmem::waitSet<TYPE>(WaitSet::All, ivars, nelems, status, cmp, nullptr, cmp_value, nullptr, true,        \
                          "shmem_" #TYPENAME "_wait_until_all");                                           \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) { \
    return oshmem::waitSet<TYPE>(WaitSet::Any, ivars, nelems, status, cmp, nullptr, cmp_value, nullptr, true, \
                                 "shmem_" #TYPENAME "_wait_until_any");                                    \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status,  \
                                            int cmp, TYPE cmp_value) {                                     \
    return oshmem::waitSet<TYPE>(WaitSet::Some, ivars, nelems, status, cmp, nullptr, cmp_value, indices, true, \
                                 "shmem_" #TYPENAME "_wait_until_some");                                   \
  }                                                                                                        \
  void shmem_##TYPENAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                                TYPE *cmp_values) {                                        \
    oshmem::waitSet<TYPE>(WaitSet::All, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), nullptr, true,        \
                          "shmem_" #TYPENAME "_wait_until_all_vector");                                    \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_wait_until_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                                  TYPE *cmp_values) {                                      \
    return oshmem::waitSet<TYPE>(WaitSet::Any, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), nullptr, true, \
                                 "shmem_" #TYPENAME "_wait_until_any_vector");                             \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices,             \
                                                   const int *status, int cmp, TYPE *cmp_values) {         \
    return oshmem::waitSet<TYPE>(WaitSet::Some, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), indices, true, \
                                 "shmem_" #TYPENAME "_wait_until_some_vector");                            \
  }                                                                                                        \
  int shmem_##TYPENAME##_test(TYPE *ivar, int cmp, TYPE cmp_value) {                                       \
    return valueOrExit<int>(                                                                               \
        [&] { return host::test(ivar, toCmp(cmp), cmp_value, "shmem_" #TYPENAME "_test") ? 1 : 0; });    \
  }                                                                                                        \
  int shmem_##TYPENAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) {  \
    return static_cast<int>(oshmem::waitSet<TYPE>(WaitSet::All, ivars, nelems, status, cmp, nullptr, cmp_value, \
                                                  nullptr, false, "shmem_" #TYPENAME "_test_all"));        \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value) { \
    return oshmem::waitSet<TYPE>(WaitSet::Any, ivars, nelems, status, cmp, nullptr, cmp_value, nullptr, false, \
                                 "shmem_" #TYPENAME "_test_any");                                          \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                      TYPE cmp_value) {                                                    \
    return oshmem::waitSet<TYPE>(WaitSet::Some, ivars, nelems, status, cmp, nullptr, cmp_value, indices, false, \
                                 "shmem_" #TYPENAME "_test_some");                                         \
  }                                                                                                        \
  int shmem_##TYPENAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,             \
                                         TYPE *cmp_values) {                                               \
    return static_cast<int>(oshmem::waitSet<TYPE>(WaitSet::All, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), \
                                                  nullptr, false, "shmem_" #TYPENAME "_test_all_vector")); \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,          \
                                            TYPE *cmp_values) {                                            \
    return oshmem::waitSet<TYPE>(WaitSet::Any, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), nullptr, false, \
                                 "shmem_" #TYPENAME "_test_any_vector");                                   \
  }                                                                                                        \
  size_t shmem_##TYPENAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status, \
                                             int cmp, TYPE *cmp_values) {                                  \
    return oshmem::waitSet<TYPE>(WaitSet::Some, ivars, nelems, status, cmp, cmp_values, static_cast<TYPE>(0), indices, false, \
                                 "shmem_" #TYPENAME "_test_some_vector");                                  \
  }
TDIST_SHMEM_P2P_TYPES(TDIST_SHMEM_DEFINE_P2P, _)

// ---- ordering and barriers ---------------------------------------------------------------------

void shmem_fence(void) { tdist::shmem::fence(); }
void shmem_quiet(void) { tdist::shmem::quiet(); }
void shmem_ctx_fence(shmem_ctx_t ctx) {
  orExit([&] {
    oshmem::requireContext(ctx, "shmem_ctx_fence");
    tdist::shmem::fence();
  });
}
void shmem_ctx_quiet(shmem_ctx_t ctx) {
  orExit([&] {
    oshmem::requireContext(ctx, "shmem_ctx_quiet");
    tdist::shmem::quiet();
  });
}

void shmem_barrier_all(void) {
  orExit([] { host::barrierAll("shmem_barrier_all", CollectiveApi::ShmemBarrierAll); });
}

void shmem_sync_all(void) {
  orExit([] { host::syncAll("shmem_sync_all", CollectiveApi::ShmemSyncAll); });
}

int shmem_team_sync(shmem_team_t team) {
  return returnCode([&] { tdist::runtime::syncTeam(team, "shmem_team_sync", CollectiveApi::ShmemTeamSync); });
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  constexpr const char *call = "shmem_barrier";
  oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call,
                      [&](int team) { tdist::runtime::barrierTeam(team, call, CollectiveApi::ShmemBarrier); });
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
  constexpr const char *call = "shmem_sync";
  oshmem::onActiveSet(PE_start, logPE_stride, PE_size, pSync, call,
                      [&](int team) { tdist::runtime::syncTeam(team, call, CollectiveApi::ShmemSync); });
}

// ---- locks -----------------------------------------------------------------------------------

void shmem_set_lock(long *lock) {
  orExit([&] { host::setLock(lock, "shmem_set_lock"); });
}

void shmem_clear_lock(long *lock) {
  orExit([&] { host::clearLock(lock, "shmem_clear_lock"); });
}

int shmem_test_lock(long *lock) {
  return valueOrExit<int>([&] { return host::testLock(lock, "shmem_test_lock") ? 1 : 0; });
}

}  // extern "C"
