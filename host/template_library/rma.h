// host/template_library/rma.h - puts and gets, of bytes and of typed elements.
//
// The byte forms, the typed pointer forms and the typed memref forms are one template each;
// memref forms also check that the elements fit their memrefs, contiguously (arguments.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "host/template_library/arguments.h"
#include "host/template_library/entry.h"

namespace tdist::host::template_library {

enum class Transfer { Put, Get, PutNbi, GetNbi };
enum class Delivery { Blocking, NonBlocking };

// The shmem transfer of that kind.
void moveBytes(Transfer kind, void *dest, const void *source, std::size_t bytes, std::int32_t pe);
// shmem::putmem_signal[_nbi] with an int32 signal; sig_op in aclshmem's numbering.
void putBytesWithSignal(Delivery delivery, void *dest, const void *source, std::size_t bytes,
                        std::int32_t *sig, std::int32_t signal, std::int32_t sig_op, std::int32_t pe);

// The name of the element count in messages: bytes for the byte forms.
template <class T>
constexpr const char *countName = std::is_same_v<T, std::byte> ? "bytes" : "nelems";

// T is the element type, std::byte for the byte forms (whose pointers are void *).
template <class T, Transfer kind, class Dest, class Source>
void transfer(const char *symbol, Dest dest, Source source, std::int64_t nelems, std::int32_t pe) {
  runOrExit(symbol, [&] {
    const std::size_t bytes = byteCount(nelems, sizeof(T), countName<T>);
    moveBytes(kind, elementRange<T>(dest, nelems, countName<T>, "dest"),
              elementRange<T>(source, nelems, countName<T>, "source"), bytes, pe);
  });
}

template <class T, Delivery delivery, class Dest, class Source, class Sig>
void putSignal(const char *symbol, Dest dest, Source source, std::int64_t nelems, Sig sig,
               std::int32_t signal, std::int32_t sig_op, std::int32_t pe) {
  runOrExit(symbol, [&] {
    const std::size_t bytes = byteCount(nelems, sizeof(T), countName<T>);
    putBytesWithSignal(delivery, elementRange<T>(dest, nelems, countName<T>, "dest"),
                       elementRange<T>(source, nelems, countName<T>, "source"), bytes,
                       firstElement(sig, "sig"), signal, sig_op, pe);
  });
}

}  // namespace tdist::host::template_library
