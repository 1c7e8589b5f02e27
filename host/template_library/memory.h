// host/template_library/memory.h - symm_at (aclshmem_ptr on a memref) and consume_token.
#pragma once

#include <cstdint>

#include "host/template_library/entry.h"
#include "host/template_library/memref.h"
#include "tdist/dl.h"

namespace tdist::host::template_library {

// pe's mapping of address, by the runtime's one translation (shmem::ptr); an invalid PE or an
// address off the symmetric heap is an error that names `what`.
void *peerAddressOf(const void *address, std::int32_t pe, const char *what);

// result = in, with its pointers moved to pe's mapping; offset, sizes and strides unchanged.
template <class T, int N>
void symmAt(const char *symbol, StridedMemRef<T, N> *result, const StridedMemRef<T, N> *in,
            std::int32_t pe) {
  runOrExit(symbol, [&] {
    StridedMemRef<T, N> moved = *in;
    moved.allocated = static_cast<T *>(peerAddressOf(in->allocated, pe, "allocated pointer"));
    moved.aligned = static_cast<T *>(peerAddressOf(in->aligned, pe, "aligned pointer"));
    *result = moved;
  });
}

// result = in; accesses through result are ordered after the wait that produced token.
template <class T, int N>
void consumeToken(const char *, StridedMemRef<T, N> *result, const StridedMemRef<T, N> *in,
                  std::int32_t token) {
  *result = dl::consume_token(*in, dl::Token{static_cast<std::uint32_t>(token)});
}

}  // namespace tdist::host::template_library
