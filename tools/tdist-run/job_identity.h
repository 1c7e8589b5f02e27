// job_identity.h - the random names that keep one job's resources apart from every other's.
//
// The secret is what PEs present to the bootstrap store, so a process outside the job cannot join
// it; the job id prefixes the runtime's shared-memory segments ("/tdist-<id>-..."), so that the
// launcher can find and remove those a crashed PE left behind without touching another job's.
#pragma once

#include <string>

namespace tdist::launcher {

struct JobIdentity {
  std::string id;      // 12 hex digits: short enough for segment names, unique enough per host
  std::string secret;  // 32 hex digits: 128 bits from the kernel's random source

  // Throws std::system_error when the kernel has no randomness to give.
  static JobIdentity generate();
};

// Unlinks every /dev/shm/tdist-<job_id>-* segment. A PE that ends normally has already unlinked
// its segments once mapped; what is left belongs to PEs that crashed or were killed.
void removeLeftoverSegments(const std::string &job_id);

}  // namespace tdist::launcher
