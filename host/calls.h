// host/calls.h - the host calls behind tdist/shmem.h, aclshmem.h and shmem.h, each told the
// name of the call the user made.
//
// tdist::shmem's templates pass their C++ name (tdist::shmem::p), each aclshmem shim its C name
// (aclshmem_int32_p), so that an error and aclshmemx_last_error() name what the user called.
// Defined in rma.cpp, signal.cpp and atomic.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/collective.h"
#include "runtime/control_block.h"
#include "tdist/shmem.h"

namespace tdist::host {

// Transfers; blocking ones are complete on return, non-blocking ones once quiet returns.
void put(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call);
void get(void *dest, const void *source, std::size_t nbytes, int pe, bool blocking, const char *call);

// Point put (a release store) and get (an acquire load) of one word on pe.
template <class T> void pointPut(T *dest, T value, int pe, const char *call);
template <class T> T pointGet(const T *source, int pe, const char *call);

// Signals: S is int32_t, int64_t or uint64_t.
template <class S>
void signalledPut(void *dest, const void *source, std::size_t nbytes, S *sig_addr, S signal,
                  shmem::SignalOp op, int pe, bool blocking, const char *call);
template <class S> void signalOp(S *sig_addr, S signal, shmem::SignalOp op, int pe, const char *call);
template <class S> S signalWaitUntil(S *sig_addr, shmem::Cmp cmp, S value, const char *call);

// Point-to-point synchronization on a local symmetric variable.
template <class T> void waitUntil(T *ivar, shmem::Cmp cmp, T value, const char *call);
template <class T> bool test(T *ivar, shmem::Cmp cmp, T value, const char *call);

// Atomics on pe's copy of dest.
template <class T> T atomicFetch(const T *source, int pe, const char *call);
template <class T> void atomicSet(T *dest, T value, int pe, const char *call);
template <class T> T atomicSwap(T *dest, T value, int pe, const char *call);
template <class T> T atomicCompareSwap(T *dest, T cond, T value, int pe, const char *call);
template <class T> void atomicAdd(T *dest, T value, int pe, const char *call);
template <class T> void atomicInc(T *dest, int pe, const char *call);
template <class T> T atomicFetchAdd(T *dest, T value, int pe, const char *call);
template <class T> T atomicFetchInc(T *dest, int pe, const char *call);

// Bitwise atomics on pe's copy of dest; each returns the old value.
template <class T> T atomicFetchAnd(T *dest, T value, int pe, const char *call);
template <class T> T atomicFetchOr(T *dest, T value, int pe, const char *call);
template <class T> T atomicFetchXor(T *dest, T value, int pe, const char *call);

// Waits on (or, with block false, tests) the nelems words ivars[0..nelems) of this PE, those
// whose status entry is 0 (every one when status is null), each against values[i] (value when
// values is null), under one deadline for the call. All: every word satisfies cmp (returns 1, or
// 0 when a test finds one that does not). Any: returns the index of one word that satisfies it
// (SIZE_MAX when none is left to wait for, or none does on a test). Some: writes the indices of
// those that satisfy it to indices and returns how many (0 on a test that finds none).
enum class WaitSet { All, Any, Some };
template <class T>
std::size_t waitSet(WaitSet kind, T *ivars, std::size_t nelems, const int *status, shmem::Cmp cmp,
                    const T *values, T value, std::size_t *indices, bool block, const char *call);

// Ordering and barriers over the world team, by the name and API of the user's call.
void barrierAll(const char *call, runtime::CollectiveApi api);  // quiet, then sync
void syncAll(const char *call, runtime::CollectiveApi api);

// Collectives on a team, pulled by each member from its peers' symmetric source, between two
// steps of the team (the first also agrees on the arguments: a member whose call differs fails
// every member). root is a team PE. Broadcast updates the root's dest too unless `skip_root`.
struct CollectiveCall {
  const char *call;
  runtime::CollectiveApi api;
};
void broadcast(int team, void *dest, const void *source, std::size_t bytes, int root, bool skip_root,
               const CollectiveCall &call);
// Concatenates every member's source in team order; `fixed`: all contribute the same bytes.
void collect(int team, void *dest, const void *source, std::size_t bytes, bool fixed, const CollectiveCall &call);
// Block j of bytes of member i's source goes to block i of member j's dest.
void alltoall(int team, void *dest, const void *source, std::size_t bytes, const CollectiveCall &call);
// Element k of block j (strided by sst elements) of member i's source goes to element k of block
// i (strided by dst) of member j's dest; blocks are nelems elements of elem_bytes.
void alltoalls(int team, void *dest, const void *source, std::ptrdiff_t dst, std::ptrdiff_t sst,
               std::size_t nelems, std::size_t elem_bytes, const CollectiveCall &call);
// dest[k] = source[k] of member 0 op source[k] of member 1 op ..., in team order; dest may be source.
template <class T>
void reduce(int team, T *dest, const T *source, std::size_t nreduce, runtime::ReduceOp op, const CollectiveCall &call);

// A lock word (long, symmetric, 0 when free) held on PE 0; set waits within the deadline.
void setLock(long *lock, const char *call);
bool testLock(long *lock, const char *call);  // true when it was taken by someone else
void clearLock(long *lock, const char *call);

}  // namespace tdist::host
