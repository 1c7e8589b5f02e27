// pe_environment.h - the environment each PE starts with: the launcher's own, plus the variables
// that runtime.h's attrFromEnvironment() reads to initialise the PE without arguments.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "options.h"

namespace tdist::launcher {

// What every PE of the job shares.
struct JobEnvironment {
  const Options *options = nullptr;
  std::string ip_port;     // TDIST_IP_PORT
  std::string job_id;      // TDIST_JOB_ID
  std::string job_secret;  // TDIST_JOB_SECRET
  // Set for every PE as they are, replacing inherited ones: the job's MPS folders (gpu_sharing.h).
  std::vector<std::pair<std::string, std::string>> extra_variables;
};

// The descriptors one PE inherits, by number.
struct PeDescriptors {
  std::optional<int> bootstrap_fd;  // TDIST_BOOTSTRAP_FD: PE 0 only
  int status_fd = -1;               // TDIST_STATUS_FD (status_channel.h)
  std::optional<int> wait_board_fd; // TDIST_WAIT_BOARD_FD (hang_check.h): without --hang-check 0
};

// "NAME=value" entries for this host's PE pe (0 to -n - 1; across hosts, the job's PE
// options.firstPe() + pe). Every PE but the job's PE 0 has TDIST_BOOTSTRAP_FD removed, even one
// inherited from an enclosing job, so that it never tries to serve the store on a descriptor it
// does not have.
std::vector<std::string> peEnvironment(const JobEnvironment &job, int pe,
                                       const PeDescriptors &descriptors);

}  // namespace tdist::launcher
