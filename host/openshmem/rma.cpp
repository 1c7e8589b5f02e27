// host/openshmem/rma.cpp - shmem.h's RMA and put-with-signal: names over the runtime's
// transfers (host::put / get), point puts and gets, and signalled puts on uint64_t signals.
#include <cstdint>

#include "host/calls.h"
#include "host/openshmem/support.h"

namespace tdist::openshmem {
namespace {

void put(shmem_ctx_t ctx, void *dest, const void *source, std::size_t bytes, int pe, bool blocking,
         const char *call) {
  orExit([&] { host::put(dest, source, bytes, worldPe(ctx, pe, call), blocking, call); });
}

void get(shmem_ctx_t ctx, void *dest, const void *source, std::size_t bytes, int pe, bool blocking,
         const char *call) {
  orExit([&] { host::get(dest, source, bytes, worldPe(ctx, pe, call), blocking, call); });
}

// Element i of source (stride sst) to element i of dest (stride dst), each a blocking transfer:
// put to pe's dest, or get from pe's source.
void strided(bool put, shmem_ctx_t ctx, void *dest, const void *source, std::ptrdiff_t dst, std::ptrdiff_t sst,
             std::size_t nelems, std::size_t elem_bytes, int pe, const char *call) {
  orExit([&] {
    const int world = worldPe(ctx, pe, call);
    for (std::size_t i = 0; i < nelems; ++i) {
      auto *to = static_cast<std::byte *>(dest) + i * dst * elem_bytes;
      const auto *from = static_cast<const std::byte *>(source) + i * sst * elem_bytes;
      if (put) host::put(to, from, elem_bytes, world, true, call);
      else host::get(to, from, elem_bytes, world, true, call);
    }
  });
}

void putSignal(shmem_ctx_t ctx, void *dest, const void *source, std::size_t bytes, std::uint64_t *sig_addr,
               std::uint64_t signal, int sig_op, int pe, bool blocking, const char *call) {
  orExit([&] {
    host::signalledPut(dest, source, bytes, sig_addr, signal, toSignalOp(sig_op), worldPe(ctx, pe, call),
                         blocking, call);
  });
}

// A point put and get: the runtime's release store and acquire load for words it can access
// atomically, a one-element transfer for wider ones (long double).
template <class T>
void p(shmem_ctx_t ctx, T *dest, T value, int pe, const char *call) {
  orExit([&] {
    if constexpr (sizeof(T) <= sizeof(std::uint64_t)) {
      host::pointPut(dest, value, worldPe(ctx, pe, call), call);
    } else {
      host::put(dest, &value, sizeof(T), worldPe(ctx, pe, call), true, call);
    }
  });
}

template <class T>
T g(shmem_ctx_t ctx, const T *source, int pe, const char *call) {
  return valueOrExit<T>([&] {
    if constexpr (sizeof(T) <= sizeof(std::uint64_t)) {
      return host::pointGet(source, worldPe(ctx, pe, call), call);
    } else {
      T value;
      host::get(&value, source, sizeof(T), worldPe(ctx, pe, call), true, call);
      return value;
    }
  });
}

}  // namespace
}  // namespace tdist::openshmem

namespace oshmem = tdist::openshmem;

extern "C" {

#define TDIST_SHMEM_DEFINE_RMA(TYPENAME, TYPE, A)                                                       \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_put, (TYPE *dest, const TYPE *source, size_t nelems, int pe), \
                               oshmem::put(ctx, dest, source, nelems * sizeof(TYPE), pe, true, call))     \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_get, (TYPE *dest, const TYPE *source, size_t nelems, int pe), \
                               oshmem::get(ctx, dest, source, nelems * sizeof(TYPE), pe, true, call))     \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_put_nbi,                                                \
                               (TYPE *dest, const TYPE *source, size_t nelems, int pe),                 \
                               oshmem::put(ctx, dest, source, nelems * sizeof(TYPE), pe, false, call))    \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_get_nbi,                                                \
                               (TYPE *dest, const TYPE *source, size_t nelems, int pe),                 \
                               oshmem::get(ctx, dest, source, nelems * sizeof(TYPE), pe, false, call))    \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_p, (TYPE *dest, TYPE value, int pe),                    \
                               oshmem::p(ctx, dest, value, pe, call))                                     \
  TDIST_SHMEM_DEFINE_CTX_FORMS(TYPE, TYPENAME##_g, (const TYPE *source, int pe),                        \
                               oshmem::g(ctx, source, pe, call))                                          \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, TYPENAME##_iput, (TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      oshmem::strided(true, ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe, call))                         \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, TYPENAME##_iget, (TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      oshmem::strided(false, ctx, dest, source, dst, sst, nelems, sizeof(TYPE), pe, call))                         \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_put_signal,                                             \
                               (TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe),                                   \
                               oshmem::putSignal(ctx, dest, source, nelems * sizeof(TYPE), sig_addr, signal, \
                                                 sig_op, pe, true, call))                                 \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, TYPENAME##_put_signal_nbi,                                         \
                               (TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe),                                   \
                               oshmem::putSignal(ctx, dest, source, nelems * sizeof(TYPE), sig_addr, signal, \
                                                 sig_op, pe, false, call))
TDIST_SHMEM_RMA_TYPES(TDIST_SHMEM_DEFINE_RMA, _)

// put8 ... put128: elements of BITS bits.
#define TDIST_SHMEM_DEFINE_SIZED_RMA(BITS, A)                                                           \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, put##BITS, (void *dest, const void *source, size_t nelems, int pe), \
                               oshmem::put(ctx, dest, source, nelems * (BITS / 8), pe, true, call))       \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, get##BITS, (void *dest, const void *source, size_t nelems, int pe), \
                               oshmem::get(ctx, dest, source, nelems * (BITS / 8), pe, true, call))       \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, put##BITS##_nbi,                                                   \
                               (void *dest, const void *source, size_t nelems, int pe),                 \
                               oshmem::put(ctx, dest, source, nelems * (BITS / 8), pe, false, call))      \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, get##BITS##_nbi,                                                   \
                               (void *dest, const void *source, size_t nelems, int pe),                 \
                               oshmem::get(ctx, dest, source, nelems * (BITS / 8), pe, false, call))      \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, iput##BITS, (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      oshmem::strided(true, ctx, dest, source, dst, sst, nelems, BITS / 8, pe, call))                             \
  TDIST_SHMEM_DEFINE_CTX_FORMS(                                                                         \
      void, iget##BITS, (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      oshmem::strided(false, ctx, dest, source, dst, sst, nelems, BITS / 8, pe, call))                             \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, put##BITS##_signal,                                                \
                               (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe),                                   \
                               oshmem::putSignal(ctx, dest, source, nelems * (BITS / 8), sig_addr, signal, \
                                                 sig_op, pe, true, call))                                 \
  TDIST_SHMEM_DEFINE_CTX_FORMS(void, put##BITS##_signal_nbi,                                            \
                               (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe),                                   \
                               oshmem::putSignal(ctx, dest, source, nelems * (BITS / 8), sig_addr, signal, \
                                                 sig_op, pe, false, call))
TDIST_SHMEM_RMA_SIZES(TDIST_SHMEM_DEFINE_SIZED_RMA, _)

TDIST_SHMEM_DEFINE_CTX_FORMS(void, putmem, (void *dest, const void *source, size_t nelems, int pe),
                             oshmem::put(ctx, dest, source, nelems, pe, true, call))
TDIST_SHMEM_DEFINE_CTX_FORMS(void, getmem, (void *dest, const void *source, size_t nelems, int pe),
                             oshmem::get(ctx, dest, source, nelems, pe, true, call))
TDIST_SHMEM_DEFINE_CTX_FORMS(void, putmem_nbi, (void *dest, const void *source, size_t nelems, int pe),
                             oshmem::put(ctx, dest, source, nelems, pe, false, call))
TDIST_SHMEM_DEFINE_CTX_FORMS(void, getmem_nbi, (void *dest, const void *source, size_t nelems, int pe),
                             oshmem::get(ctx, dest, source, nelems, pe, false, call))
TDIST_SHMEM_DEFINE_CTX_FORMS(void, putmem_signal,
                             (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe),
                             oshmem::putSignal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe, true, call))
TDIST_SHMEM_DEFINE_CTX_FORMS(void, putmem_signal_nbi,
                             (void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe),
                             oshmem::putSignal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe, false, call))

}  // extern "C"
