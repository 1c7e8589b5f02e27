// tdist-run - starts the PEs of a tdist job on this host and ends the job as one.
//
//   tdist-run -n 4 --timeout 300 -- ./my_kernel args...
//   tdist-run -n 4 --nnodes 2 --node-rank R --rdzv 10.0.0.1:29400 -- ./my_kernel   # on 2 hosts
//
// Parts: options (command line), bootstrap_listener (the store's socket, handed to PE 0),
// job_identity (secret and segment names), pe_environment (what each PE is told),
// process_group (start, reap, signal), output_tagger (--tag-output), status_channel (how far each
// PE's runtime got), job_monitor (the loop that ends the job when a PE fails or exits without
// finalize, the deadline passes or tdist-run is stopped), gpu_sharing (--backend cuda: the GPU
// count and the job's MPS daemon), node_link (a job across hosts: the tdist-runs of its nodes).
#include <csignal>
#include <exception>
#include <optional>
#include <unistd.h>

#include "bootstrap_listener.h"
#include "exit_status.h"
#include "fd_io.h"
#include "gpu_sharing.h"
#include "hang_check.h"
#include "job_identity.h"
#include "job_monitor.h"
#include "job_trace.h"
#include "node_link.h"
#include "options.h"
#include "output_tagger.h"
#include "pe_environment.h"
#include "process_group.h"
#include "signal_inbox.h"
#include "status_channel.h"

namespace tdist::launcher {
namespace {

// However runJob is left, even by an exception, no PE outlives the launcher and no shared-memory
// segment of the job stays behind.
class JobCleanup {
 public:
  explicit JobCleanup(ProcessGroup &pes) : pes_(pes) {}
  ~JobCleanup() {
    if (pes_.anyRunning()) {
      pes_.signalAll(SIGKILL);
      pes_.reapAll();
    }
  }
  JobCleanup(const JobCleanup &) = delete;
  JobCleanup &operator=(const JobCleanup &) = delete;

 private:
  ProcessGroup &pes_;
};

int runJob(const Options &options) {
  SignalInbox signals;  // first: a PE that ends at once must find SIGCHLD already watched
  JobIdentity identity = JobIdentity::generate();
  // Across hosts the secret is the user's, the same on every node; node 0 names the job.
  if (options.acrossHosts()) identity.secret = options.job_secret;
  // Node 0 binds the rendezvous address before anything else: a taken port is a usage error.
  std::optional<NodeLink> link;
  if (options.acrossHosts()) link.emplace(options);
  // Before anything the PEs hold is opened; destroyed after the PEs are reaped (cleanup below),
  // so that the daemon outlives every client on every way out of here, exceptions included.
  std::optional<JobMps> mps;
  if (options.backend == "cuda")
    mps.emplace(options, gpusForJob(options), identity.id, signals.childState());
  // The job's PE 0 serves the store: node 0's, across hosts.
  std::optional<BootstrapListener> listener;
  if (options.firstPe() == 0) listener.emplace(BootstrapListener::open(options.host));
  std::optional<OutputTagger> tagger;
  if (options.tag_output) tagger.emplace(options.n_pes, options.firstPe());
  StatusChannels status(options.n_pes);
  std::optional<JobTrace> trace;
  if (const std::string output = traceOutput(options.trace_path); !output.empty()) trace.emplace(output);
  std::optional<WaitBoard> board;
  if (options.hang_check_s > 0) board.emplace(options.jobPes());

  // Every node has joined, and all of them got the job's facts, before any PE starts.
  JobFacts facts{.ip_port = listener ? listener->ipPort() : "", .job_id = identity.id};
  if (link) facts = link->join(facts, signals);

  JobEnvironment job = {.options = &options, .ip_port = facts.ip_port,
                        .job_id = facts.job_id, .job_secret = identity.secret,
                        .extra_variables = mps ? mps->peVariables()
                                               : decltype(JobEnvironment::extra_variables){}};
  if (trace) job.extra_variables.push_back(trace->peVariable());
  ProcessGroup pes(signals.childState());
  JobCleanup cleanup(pes);

  // PEs run in a process group of their own, where reading a terminal would stop them (SIGTTIN)
  // and hang the job; only the job's PE 0 reads stdin, as with mpirun, and only when it is not a
  // terminal.
  const bool stdin_for_pe0 = !::isatty(STDIN_FILENO);
  for (int pe = 0; pe < options.n_pes; ++pe) {
    const bool job_pe0 = options.firstPe() + pe == 0;
    PeStdio stdio;
    stdio.null_stdin = !job_pe0 || !stdin_for_pe0;
    if (tagger) {
      stdio.stdout_fd = tagger->childStdout(pe);
      stdio.stderr_fd = tagger->childStderr(pe);
    }
    PeDescriptors descriptors{.bootstrap_fd = std::nullopt, .status_fd = status.childEnd(pe),
                              .wait_board_fd = std::nullopt};
    if (job_pe0) descriptors.bootstrap_fd = listener->fd();
    stdio.inherited_fds.push_back(descriptors.status_fd);
    if (board) {
      descriptors.wait_board_fd = board->fd();
      stdio.inherited_fds.push_back(board->fd());
    }
    if (descriptors.bootstrap_fd) stdio.inherited_fds.push_back(*descriptors.bootstrap_fd);
    pes.start(options.program_path, options.program_argv, peEnvironment(job, pe, descriptors),
              stdio);
    if (job_pe0) listener->close();
    if (tagger) tagger->closeChildEnds(pe);
    status.closeChildEnd(pe);
  }

  std::optional<HangCheck> hang_check;
  if (board) hang_check.emplace(*board, options.firstPe(), options.jobPes(), options.hang_check_s);
  const int exit_status = JobMonitor(pes, signals, status, tagger ? &*tagger : nullptr,
                                     options.job_timeout_s, hang_check ? &*hang_check : nullptr,
                                     link ? &*link : nullptr, options.firstPe())
                              .run();
  pes.reapAll();  // the monitor has; a daemon must never be stopped under a live client
  if (link) link->close();
  if (mps) mps->stop();
  // After the PEs, however the job ended: a failed job's trace is the one most wanted.
  if (trace && !trace->write() && exit_status == 0) return kExitLauncherError;
  return exit_status;
}

int usageError(const std::exception &error) {
  report(error.what());
  writeAll(STDERR_FILENO, "Try 'tdist-run --help' for more information.\n");
  return kExitUsage;
}

}  // namespace
}  // namespace tdist::launcher

int main(int argc, char **argv) {
  using namespace tdist::launcher;
  try {
    const Options options = parseCommandLine(argc, argv);
    if (options.show_help) {
      writeAll(STDOUT_FILENO, usageText());
      return 0;
    }
    return runJob(options);
  } catch (const UsageError &error) {
    return usageError(error);
  } catch (const JobNotStarted &error) {
    report(error.what());
    return error.exitStatus();
  } catch (const NoGpuError &error) {
    report(error.what());
    return kExitNoGpu;
  } catch (const std::exception &error) {
    report(error.what());
    return kExitLauncherError;
  }
}
