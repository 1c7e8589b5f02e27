// job_identity.h - the random names that keep one job's resources apart from every other's.
//
// The secret is what PEs present to the bootstrap store, so a process outside the job cannot join
// it; the job id names the job in messages. (The runtime names no shared memory: its segments are
// memfds passed between the PEs, so nothing is left behind for the launcher to remove.)
#pragma once

#include <string>

namespace tdist::launcher {

struct JobIdentity {
  std::string id;      // 12 hex digits: unique enough per host
  std::string secret;  // 32 hex digits: 128 bits from the kernel's random source

  // Throws std::system_error when the kernel has no randomness to give.
  static JobIdentity generate();
};

}  // namespace tdist::launcher
