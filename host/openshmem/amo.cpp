// host/openshmem/amo.cpp - shmem.h's atomics: names over the runtime's remote atomics. The
// _nbi forms complete before they return (which a non-blocking atomic may do): they store the old
// value into fetch, a local object.
#include "host/calls.h"
#include "host/openshmem/support.h"

namespace oshmem = tdist::openshmem;
namespace host = tdist::host;

namespace tdist::openshmem {
namespace {

// The runtime's atomic on the context's PE, by the name of the user's call.
template <class T, class Op>
T atomic(shmem_ctx_t ctx, int pe, const char *call, Op &&op) {
  return valueOrExit<T>([&] { return op(worldPe(ctx, pe, call)); });
}

template <class T, class Op>
void atomicInto(T *fetch, shmem_ctx_t ctx, int pe, const char *call, Op &&op) {
  orExit([&] {
    if (fetch == nullptr) throw Error(ErrorCode::InvalidParam, std::string(call) + ": fetch is NULL");
    *fetch = op(worldPe(ctx, pe, call));
  });
}

template <class Op>
void atomicVoid(shmem_ctx_t ctx, int pe, const char *call, Op &&op) {
  orExit([&] { op(worldPe(ctx, pe, call)); });
}

}  // namespace
}  // namespace tdist::openshmem

// [&](int world) { return CALL; } over the world PE of the call.
#define TDIST_SHMEM_ON(CALL) [&](int world) { return CALL; }

extern "C" {

#define TDIST_SHMEM_DEFINE_EXTENDED_AMO(TYPENAME, TYPE, A)                                              \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      TYPE, TYPENAME##_atomic_fetch, (const TYPE *source, int pe),                                      \
      oshmem::atomic<TYPE>(ctx, pe, call, TDIST_SHMEM_ON(host::atomicFetch(source, world, call))))    \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, TYPENAME##_atomic_set, (TYPE * dest, TYPE value, int pe),                                   \
      oshmem::atomicVoid(ctx, pe, call, TDIST_SHMEM_ON(host::atomicSet(dest, value, world, call))))   \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      TYPE, TYPENAME##_atomic_swap, (TYPE * dest, TYPE value, int pe),                                  \
      oshmem::atomic<TYPE>(ctx, pe, call, TDIST_SHMEM_ON(host::atomicSwap(dest, value, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, TYPENAME##_atomic_fetch_nbi, (TYPE * fetch, const TYPE *source, int pe),                    \
      oshmem::atomicInto(fetch, ctx, pe, call, TDIST_SHMEM_ON(host::atomicFetch(source, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_swap_nbi, (TYPE * fetch, TYPE * dest, TYPE value, int pe), \
                               oshmem::atomicInto(fetch, ctx, pe, call,                                 \
                                                  TDIST_SHMEM_ON(host::atomicSwap(dest, value, world, call))))
TDIST_SHMEM_EXTENDED_AMO_TYPES(TDIST_SHMEM_DEFINE_EXTENDED_AMO, _)

#define TDIST_SHMEM_DEFINE_STANDARD_AMO(TYPENAME, TYPE, A)                                              \
  TDIST_SHMEM_DEFINE_CTX_FORMS(TYPE, TYPENAME##_atomic_compare_swap, (TYPE * dest, TYPE cond, TYPE value, int pe), \
                               oshmem::atomic<TYPE>(ctx, pe, call,                                      \
                                                    TDIST_SHMEM_ON(host::atomicCompareSwap(dest, cond, value, \
                                                                                             world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      TYPE, TYPENAME##_atomic_fetch_inc, (TYPE * dest, int pe),                                         \
      oshmem::atomic<TYPE>(ctx, pe, call, TDIST_SHMEM_ON(host::atomicFetchInc(dest, world, call))))   \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_inc, (TYPE * dest, int pe),                      \
                               oshmem::atomicVoid(ctx, pe, call,                                        \
                                                  TDIST_SHMEM_ON(host::atomicInc(dest, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      TYPE, TYPENAME##_atomic_fetch_add, (TYPE * dest, TYPE value, int pe),                             \
      oshmem::atomic<TYPE>(ctx, pe, call, TDIST_SHMEM_ON(host::atomicFetchAdd(dest, value, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_add, (TYPE * dest, TYPE value, int pe),          \
                               oshmem::atomicVoid(ctx, pe, call,                                        \
                                                  TDIST_SHMEM_ON(host::atomicAdd(dest, value, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_compare_swap_nbi,                                \
                               (TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe),              \
                               oshmem::atomicInto(fetch, ctx, pe, call,                                 \
                                                  TDIST_SHMEM_ON(host::atomicCompareSwap(dest, cond, value, \
                                                                                           world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_fetch_inc_nbi, (TYPE * fetch, TYPE * dest, int pe), \
                               oshmem::atomicInto(fetch, ctx, pe, call,                                 \
                                                  TDIST_SHMEM_ON(host::atomicFetchInc(dest, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_fetch_add_nbi, (TYPE * fetch, TYPE * dest, TYPE value, int pe), \
                               oshmem::atomicInto(fetch, ctx, pe, call,                                 \
                                                  TDIST_SHMEM_ON(host::atomicFetchAdd(dest, value, world, call))))
TDIST_SHMEM_AMO_TYPES(TDIST_SHMEM_DEFINE_STANDARD_AMO, _)

// OP is _and, _or or _xor; FETCH the runtime's atomicFetchAnd, ... (the non-fetching forms
// discard the old value).
#define TDIST_SHMEM_DEFINE_BITWISE_AMO(TYPENAME, TYPE, OP, FETCH)                                       \
  TDIST_SHMEM_DEFINE_CTX_FORMS(TYPE, TYPENAME##_atomic_fetch##OP, (TYPE * dest, TYPE value, int pe),    \
                               oshmem::atomic<TYPE>(ctx, pe, call,                                      \
                                                    TDIST_SHMEM_ON(host::FETCH(dest, value, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic##OP, (TYPE * dest, TYPE value, int pe),          \
                               oshmem::atomicVoid(ctx, pe, call,                                        \
                                                  TDIST_SHMEM_ON(host::FETCH(dest, value, world, call)))) \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_atomic_fetch##OP##_nbi,                                 \
                               (TYPE * fetch, TYPE * dest, TYPE value, int pe),                         \
                               oshmem::atomicInto(fetch, ctx, pe, call,                                 \
                                                  TDIST_SHMEM_ON(host::FETCH(dest, value, world, call))))
#define TDIST_SHMEM_DEFINE_BITWISE_AMOS(TYPENAME, TYPE, A)                    \
  TDIST_SHMEM_DEFINE_BITWISE_AMO(TYPENAME, TYPE, _and, atomicFetchAnd)        \
  TDIST_SHMEM_DEFINE_BITWISE_AMO(TYPENAME, TYPE, _or, atomicFetchOr)          \
  TDIST_SHMEM_DEFINE_BITWISE_AMO(TYPENAME, TYPE, _xor, atomicFetchXor)
TDIST_SHMEM_BITWISE_AMO_TYPES(TDIST_SHMEM_DEFINE_BITWISE_AMOS, _)

}  // extern "C"
