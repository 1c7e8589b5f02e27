// host/template_library/signal.h - wait, notify (signal_op) and the point put/get.
//
// Each takes its slot as a pointer, a rank-0 memref or a rank-1 memref (see arguments.h), and
// calls the runtime's one implementation: dl::wait (waitSlots, which names the symbol in a
// deadline diagnostic), shmem::signal_op, shmem::p, shmem::g.
//
// Waits and point operations exist for the eight integer types, float and double. The 16-bit
// floating-point types have no portable scalar calling convention (a compiled caller may pass
// them as i16, or in a floating-point register), so the library leaves them out rather than
// guess.
#pragma once

#include <cstdint>

#include "host/template_library/arguments.h"
#include "host/template_library/entry.h"
#include "host/wait_slots.h"
#include "tdist/dl.h"
#include "tdist/shmem.h"

namespace tdist::host::template_library {

// Waits until each of n slots from slot on, at the signal stride, equals value; returns the
// token of the wait.
template <class T, class Slot>
std::int64_t wait(const char *symbol, Slot slot, std::int32_t n, T value) {
  return runOrExit(symbol, [&] {
    return static_cast<std::int64_t>(dl::detail::waitSlots(firstElement(slot, "slot"), n, value, symbol).value);
  });
}

// sig_op in aclshmem's numbering: SET = 0, ADD = 1; shmem::signal_op rejects anything else.
template <class Sig>
void signalOp(const char *symbol, Sig sig, std::int32_t value, std::int32_t sig_op, std::int32_t pe) {
  runOrExit(symbol, [&] {
    shmem::signal_op(firstElement(sig, "sig"), value, static_cast<shmem::SignalOp>(sig_op), pe);
  });
}

template <class T, class Dest>
void pointPut(const char *symbol, Dest dest, T value, std::int32_t pe) {
  runOrExit(symbol, [&] { shmem::p<T>(firstElement(dest, "dest"), value, pe); });
}

template <class T, class Source>
T pointGet(const char *symbol, Source source, std::int32_t pe) {
  return runOrExit(symbol, [&] { return shmem::g<T>(firstElement(source, "source"), pe); });
}

}  // namespace tdist::host::template_library
