// common/wait_format.h - the one printer of a wait (tdist/wait_description.h), in the two forms
// users read: the diagnostic of a wait whose deadline passed, and a line of tdist-run's hang
// check. Host code only; formats into a caller's buffer and never allocates, so that a process
// about to _Exit can use it.
#pragma once

#include <cinttypes>
#include <cstddef>
#include <cstdio>

#include "tdist/wait_description.h"

namespace tdist::wait_format {

// Where the word is: the description's own text, else "symmetric offset 0x40 of PE 1";
// with_grid adds the block and thread of a device wait.
inline void place(const WaitDescription &wait, bool with_grid, char *out, std::size_t size) {
  int used = wait.where[0] != '\0'
                 ? std::snprintf(out, size, "%s", wait.where)
                 : std::snprintf(out, size, "symmetric offset 0x%zx of PE %d", static_cast<std::size_t>(wait.offset),
                                 wait.owner_pe);
  if (with_grid && wait.on_device != 0 && used >= 0 && static_cast<std::size_t>(used) < size) {
    std::snprintf(out + used, size - static_cast<std::size_t>(used), ", block (%u,%u,%u) thread (%u,%u,%u)",
                  wait.block[0], wait.block[1], wait.block[2], wait.thread[0], wait.thread[1], wait.thread[2]);
  }
}

// " (slot 1 of 2)" for a wait on several words, else "".
inline void slotText(const WaitDescription &wait, char *out, std::size_t size) {
  if (wait.slots > 1) {
    std::snprintf(out, size, " (slot %d of %d)", wait.slot, wait.slots);
  } else if (size != 0) {
    out[0] = '\0';
  }
}

// "PE 1: aclshmem_signal_wait_until: wait passed its deadline of 1.000 s: value at symmetric
// offset 0x40 of PE 0 (slot 1 of 2), waiting for EQ 5, observed 0[, block (0,0,0) thread (0,0,0)]"
// (without a leading "tdist: " or a newline).
inline void deadline(const WaitDescription &wait, double timeout_s, char *out, std::size_t size) {
  char where[sizeof wait.where + 32];
  place(wait, false, where, sizeof where);
  char slot[48];
  slotText(wait, slot, sizeof slot);
  char observed[32] = "(unreadable)";
  if (wait.observed_unreadable == 0) std::snprintf(observed, sizeof observed, "%" PRId64, wait.observed);
  char grid[64] = "";
  if (wait.on_device != 0) {
    std::snprintf(grid, sizeof grid, ", block (%u,%u,%u) thread (%u,%u,%u)", wait.block[0], wait.block[1],
                  wait.block[2], wait.thread[0], wait.thread[1], wait.thread[2]);
  }
  std::snprintf(out, size,
                "PE %d: %s: wait passed its deadline of %.3f s: value at %s%s, waiting for %s %" PRId64
                ", observed %s%s",
                wait.pe, wait.call, timeout_s, where, slot, wait.predicate, wait.expected, observed, grid);
}

// "PE 0: aclshmem_signal_wait_until: waiting for GE 3 at symmetric offset 0x40 of PE 1 (slot 1 of
// 2), observed 2, for 2.0 s", or for a call without a value "PE 0: aclshmem_finalize: waiting for
// <where>, for 2.0 s" (no "tdist-run:" prefix, no newline).
inline void boardLine(const WaitDescription &wait, double waited_s, char *out, std::size_t size) {
  if (wait.predicate[0] == '\0') {
    std::snprintf(out, size, "PE %d: %s: waiting for %s, for %.1f s", wait.pe, wait.call, wait.where, waited_s);
    return;
  }
  char where[sizeof wait.where + 96];
  place(wait, true, where, sizeof where);
  char slot[48];
  slotText(wait, slot, sizeof slot);
  std::snprintf(out, size, "PE %d: %s: waiting for %s %" PRId64 " at %s%s, observed %" PRId64 ", for %.1f s",
                wait.pe, wait.call, wait.predicate, wait.expected, where, slot, wait.observed, waited_s);
}

}  // namespace tdist::wait_format
