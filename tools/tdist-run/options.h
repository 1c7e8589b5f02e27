// options.h - command line of tdist-run.
//
//   tdist-run -n N [options] -- program [args...]
//   tdist-run -n N [options] --entry NAME [--grid G] kernel.mlir [--] [ARG...]
//   tdist-run -n N --nnodes K --node-rank R --rdzv HOST:PORT [options] -- program [args...]
//
// A .mlir program is an IR kernel: every PE runs tdist-jit, found next to tdist-run, on it.
//
// Every value is checked here, before anything is started, so that a typo costs a usage message
// (exit 2) and never a half-started job. Values are read by common/value_parser.h, as the runtime
// reads the variables they become.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/value_parser.h"

namespace tdist::launcher {

// A bad command line; main prints the message and exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --mps: Auto starts a daemon for the job when its PEs outnumber the GPUs; On starts one whatever
// the count, and failing to is an error; Off never starts one.
enum class MpsMode { Auto, On, Off };

// --rdzv HOST:PORT.
struct Rendezvous {
  std::string host;  // a numeric address or a name; an IPv6 address without its brackets
  int port = 0;

  // "10.0.0.1:29400", "[fd00::1]:29400": as messages name it.
  std::string text() const {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return shown + ":" + std::to_string(port);
  }
};

struct Options {
  bool show_help = false;
  int n_pes = 0;
  // --nodes: the PEs split into this many nodes of this host, in contiguous blocks (TDIST_NODE of
  // each PE); PEs of different nodes reach each other through the network, as across hosts.
  int nodes = 1;
  // Variables for the runtime (runtime.h, attrFromEnvironment), set only when given so that a
  // value the user exported stays in force otherwise.
  std::optional<std::uint64_t> heap_bytes;             // TDIST_HEAP_SIZE, in bytes
  std::optional<std::vector<values::Engine>> engines;  // TDIST_ENGINES
  std::optional<double> wait_timeout_s;                // TDIST_WAIT_TIMEOUT
  double job_timeout_s = 0;                            // 0: the job has no deadline
  // --hang-check, else TDIST_HANG_CHECK: how long every PE must wait with nothing changing
  // before the job is ended as stuck (hang_check.h); 0 turns the check off.
  double hang_check_s = 2;
  bool tag_output = false;
  // The PEs' TDIST_BACKEND: --backend, else the TDIST_BACKEND tdist-run was started with; "" lets
  // the runtime choose.
  std::string backend;
  // --backend cuda only (gpu_sharing.h): the GPUs to assume instead of asking the driver, and
  // whether the job gets an MPS daemon of its own.
  std::optional<int> assumed_gpus;
  MpsMode mps = MpsMode::Auto;
  std::string trace_path;                   // --trace FILE (job_trace.h); "" for TDIST_TRACE
  // --nnodes, --node-rank, --rdzv: a job across hosts, one tdist-run per host (node_link.h). -n
  // is then this host's PEs, as torchrun's --nproc-per-node: the job has n_pes * nnodes PEs,
  // node R's numbered from R * n_pes.
  int nnodes = 1;
  int node_rank = 0;
  Rendezvous rdzv;             // --rdzv HOST:PORT: where node 0's tdist-run listens
  double join_timeout_s = 60;  // --join-timeout: how long the nodes may take to join
  // TDIST_JOB_SECRET with --nnodes 2 or more, which every node shares; "" for a job of one host,
  // which makes its own.
  std::string job_secret;
  std::string host = "127.0.0.1";           // where PE 0 serves the bootstrap store
  std::string kernel_entry;                 // --entry: the kernel function of a .mlir program
  std::string kernel_grid;                  // --grid: programs per PE, checked by tdist-jit
  std::string program_path;                 // what is executed, after the PATH search
  std::vector<std::string> program_argv;    // argv of every PE; [0] is the program as given

  // The PEs of the whole job, and the number of this host's first.
  int jobPes() const { return n_pes * nnodes; }
  int firstPe() const { return node_rank * n_pes; }
  bool acrossHosts() const { return nnodes > 1; }
};

// A typo guard, not a limit of the design: every PE is a process on this one host.
constexpr int kMaxPes = 4096;
// The runtime's limits: TDIST_N_PES and TDIST_NODE (runtime/environment.cpp).
constexpr int kMaxJobPes = 16384;
constexpr int kMaxNodes = 16384;
// A job secret is at least this long: the bootstrap store refuses a shorter one (runtime's
// kMinSecretBytes, runtime/bootstrap_store.h).
constexpr std::size_t kMinJobSecretBytes = 16;

// Parses argv (argv[0] is tdist-run itself) and resolves the program. Throws UsageError.
Options parseCommandLine(int argc, char **argv);

std::string usageText();

}  // namespace tdist::launcher
