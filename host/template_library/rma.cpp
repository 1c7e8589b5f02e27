// host/template_library/rma.cpp - the transfers behind every put and get of the library.
#include "host/template_library/rma.h"

#include "tdist/shmem.h"

namespace tdist::host::template_library {

void moveBytes(Transfer kind, void *dest, const void *source, std::size_t bytes, std::int32_t pe) {
  switch (kind) {
    case Transfer::Put: shmem::putmem(dest, source, bytes, pe); return;
    case Transfer::Get: shmem::getmem(dest, source, bytes, pe); return;
    case Transfer::PutNbi: shmem::putmem_nbi(dest, source, bytes, pe); return;
    case Transfer::GetNbi: shmem::getmem_nbi(dest, source, bytes, pe); return;
  }
}

void putBytesWithSignal(Delivery delivery, void *dest, const void *source, std::size_t bytes,
                        std::int32_t *sig, std::int32_t signal, std::int32_t sig_op, std::int32_t pe) {
  const auto op = static_cast<shmem::SignalOp>(sig_op);
  if (delivery == Delivery::Blocking) shmem::putmem_signal(dest, source, bytes, sig, signal, op, pe);
  else shmem::putmem_signal_nbi(dest, source, bytes, sig, signal, op, pe);
}

}  // namespace tdist::host::template_library
