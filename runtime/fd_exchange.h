// runtime/fd_exchange.h - passing file descriptors (memfds, CUDA VMM handles) between the PEs of
// a job, over Unix sockets.
//
// Nothing is named in the file system: each PE listens on a socket in the abstract namespace
// under a random name, only while the exchange lasts, and its name and a one-time token travel
// through the bootstrap store (which only admits PEs that present the job's secret). A peer must
// present the token and run as the same user before it is sent anything.
#pragma once

#include <chrono>
#include <span>
#include <vector>

#include "runtime/bootstrap_store.h"
#include "runtime/bootstrap_store_wire.h"

namespace tdist::runtime {

using bootstrap::UniqueFd;

// Collective over the store's PEs: sends `mine` to every partner and returns every partner's
// descriptors (index = PE; this PE's entry and those of PEs that are not partners are empty).
// partners[pe]: whether PE pe is one, the same relation on every PE (the PEs of one host: a
// socket in the abstract namespace is reached only from its network namespace); empty: every
// peer. Every PE passes the same number of descriptors. Throws Error(SharedMemory) naming the
// peer and the step when the deadline passes or a peer misbehaves.
std::vector<std::vector<UniqueFd>> exchangeFds(BootstrapStore &store, std::span<const int> mine,
                                               std::chrono::milliseconds timeout,
                                               const std::vector<bool> &partners = {});

}  // namespace tdist::runtime
