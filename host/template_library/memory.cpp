// host/template_library/memory.cpp - the errors of symm_at.
#include "host/template_library/memory.h"

#include <cstdio>
#include <string>

#include "tdist/error.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::host::template_library {

void *peerAddressOf(const void *address, std::int32_t pe, const char *what) {
  if (void *peer = shmem::ptr(address, pe)) [[likely]] return peer;
  const int n_pes = shmem::n_pes();
  if (pe < 0 || pe >= n_pes) {
    throw Error(ErrorCode::InvalidParam, "PE " + std::to_string(pe) + " is out of range 0.." +
                                             std::to_string(n_pes - 1));
  }
  char text[320];
  if (shmem::ptr(address, shmem::my_pe()) != nullptr) {
    // Symmetric, but that PE has no pointer: it is reached through the network alone.
    std::snprintf(text, sizeof text,
                  "PE %d is reached through the network alone (TDIST_TRANSPORT=ucx, or another host): symm_at "
                  "has no address of its %s %p to load and store through",
                  static_cast<int>(pe), what, address);
    throw Error(ErrorCode::NotSupported, text);
  }
  std::snprintf(text, sizeof text, "the memref's %s %p is not on the symmetric heap", what, address);
  throw Error(ErrorCode::InvalidParam, text);
}

}  // namespace tdist::host::template_library
