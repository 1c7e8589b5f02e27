// options.h - command line of tdist-run.
//
//   tdist-run -n N [options] -- program [args...]
//   tdist-run -n N [options] --entry NAME [--grid G] kernel.mlir [--] [ARG...]
//
// A .mlir program is an IR kernel: every PE runs tdist-jit, found next to tdist-run, on it.
//
// Every value is checked here, before anything is started, so that a typo costs a usage message
// (exit 2) and never a half-started job. Values are read by common/value_parser.h, as the runtime
// reads the variables they become.
#pragma once

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
  std::string host = "127.0.0.1";           // where PE 0 serves the bootstrap store
  std::string kernel_entry;                 // --entry: the kernel function of a .mlir program
  std::string kernel_grid;                  // --grid: programs per PE, checked by tdist-jit
  std::string program_path;                 // what is executed, after the PATH search
  std::vector<std::string> program_argv;    // argv of every PE; [0] is the program as given
};

// A typo guard, not a limit of the design: every PE is a process on this one host.
constexpr int kMaxPes = 4096;

// Parses argv (argv[0] is tdist-run itself) and resolves the program. Throws UsageError.
Options parseCommandLine(int argc, char **argv);

std::string usageText();

}  // namespace tdist::launcher
