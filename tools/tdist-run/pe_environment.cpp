#include "pe_environment.h"

#include <string_view>
#include <utility>

extern char **environ;

namespace tdist::launcher {

std::vector<std::string> peEnvironment(const JobEnvironment &job, int pe,
                                       const PeDescriptors &descriptors) {
  const Options &options = *job.options;
  const int per_node = options.n_pes / options.nodes;
  // Its node: across hosts, this host's; else --nodes K splits this host's PEs into K blocks that
  // reach each other's heaps through the network, as across hosts.
  const int node = options.acrossHosts() ? options.node_rank : pe / per_node;
  const int n_nodes = options.acrossHosts() ? options.nnodes : options.nodes;
  std::vector<std::pair<std::string_view, std::string>> job_variables = {
      {"TDIST_PE", std::to_string(options.firstPe() + pe)},
      {"TDIST_N_PES", std::to_string(options.jobPes())},
      // Its index among this host's PEs; the cuda backend drives GPU TDIST_LOCAL_PE modulo the
      // visible count.
      {"TDIST_LOCAL_PE", std::to_string(pe)},
      {"TDIST_LOCAL_PES", std::to_string(options.n_pes)},
      {"TDIST_NODE", std::to_string(node)},
      {"TDIST_N_NODES", std::to_string(n_nodes)},
      {"TDIST_IP_PORT", job.ip_port},
      {"TDIST_JOB_SECRET", job.job_secret},
      {"TDIST_JOB_ID", job.job_id},
      {"TDIST_STATUS_FD", std::to_string(descriptors.status_fd)},
  };
  if (!options.backend.empty()) job_variables.emplace_back("TDIST_BACKEND", options.backend);
  for (const auto &[name, value] : job.extra_variables) job_variables.emplace_back(name, value);
  if (descriptors.bootstrap_fd)
    job_variables.emplace_back("TDIST_BOOTSTRAP_FD", std::to_string(*descriptors.bootstrap_fd));
  if (descriptors.wait_board_fd)
    job_variables.emplace_back("TDIST_WAIT_BOARD_FD", std::to_string(*descriptors.wait_board_fd));
  if (options.heap_bytes)
    job_variables.emplace_back("TDIST_HEAP_SIZE", std::to_string(*options.heap_bytes));
  if (options.engines)
    job_variables.emplace_back("TDIST_ENGINES", values::formatEngines(*options.engines));
  // Plain seconds, whatever unit the user wrote: any reader of the variable understands them.
  if (options.wait_timeout_s) {
    job_variables.emplace_back("TDIST_WAIT_TIMEOUT",
                               values::formatSeconds(*options.wait_timeout_s));
  }

  auto replacedByJob = [&](std::string_view entry) {
    std::string_view name = entry.substr(0, entry.find('='));
    if (name == "TDIST_BOOTSTRAP_FD" || name == "TDIST_TRACE_DIR" || name == "TDIST_WAIT_BOARD_FD") return true;
    for (const auto &[job_name, value] : job_variables)
      if (name == job_name) return true;
    return false;
  };

  std::vector<std::string> environment;
  for (char **entry = environ; *entry; ++entry)
    if (!replacedByJob(*entry)) environment.emplace_back(*entry);
  for (const auto &[name, value] : job_variables)
    environment.push_back(std::string(name) + "=" + value);
  return environment;
}

}  // namespace tdist::launcher
