#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "common/command_line.h"

namespace tdist::launcher {
namespace {

// 0 when path could be executed, else the errno that execve would most likely report.
int executableError(const std::string &path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return errno;
  if (S_ISDIR(info.st_mode)) return EISDIR;
  if (!S_ISREG(info.st_mode)) return EACCES;
  return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

// The PATH search of execvp, done up front so that "no such program" is a usage error reported
// once, instead of N PEs failing to start.
std::string resolveProgram(const std::string &program) {
  auto cannotExecute = [&](int error) {
    return UsageError("cannot execute '" + program + "': " + std::strerror(error));
  };
  if (program.find('/') != std::string::npos) {
    if (int error = executableError(program)) throw cannotExecute(error);
    return program;
  }
  const char *path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  int reported = ENOENT;  // as execvp: "permission denied" beats "not found" from later entries
  while (true) {
    std::string_view dir = dirs.substr(0, dirs.find(':'));
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + program;
    int error = executableError(candidate);
    if (error == 0) return candidate;
    if (error != ENOENT && error != ENOTDIR && reported == ENOENT) reported = error;
    if (dir.size() == dirs.size()) break;
    dirs.remove_prefix(dir.size() + 1);
  }
  throw cannotExecute(reported);
}

// tdist-jit is installed and built next to tdist-run.
std::string siblingProgram(const std::string &name) {
  char self[4096];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) throw UsageError("cannot find tdist-run's own directory to start " + name);
  std::string path(self, static_cast<std::size_t>(length));
  path = path.substr(0, path.rfind('/') + 1) + name;
  if (executableError(path) != 0) {
    throw UsageError("running an IR kernel needs " + name + " next to tdist-run; it is built with "
                     "the compiler (cmake -DTDIST_BUILD_COMPILER=ON)");
  }
  return path;
}

// A .mlir program runs under tdist-jit: tdist-jit --entry NAME [--grid G] kernel.mlir ARGS...
void useKernelRunner(Options &options, const std::vector<std::string> &words) {
  const std::string &kernel = words.front();
  if (options.kernel_entry.empty()) {
    throw UsageError("'" + kernel + "' is an IR kernel: name its function with --entry NAME");
  }
  if (::access(kernel.c_str(), R_OK) != 0) {
    throw UsageError("cannot read '" + kernel + "': " + std::strerror(errno));
  }
  options.program_path = siblingProgram("tdist-jit");
  options.program_argv = {"tdist-jit", "--entry", options.kernel_entry};
  if (!options.kernel_grid.empty()) {
    options.program_argv.push_back("--grid");
    options.program_argv.push_back(options.kernel_grid);
  }
  options.program_argv.insert(options.program_argv.end(), words.begin(), words.end());
}

constexpr const char *kUsageLines =
    "Usage: tdist-run -n N [options] -- program [args...]\n"
    "       tdist-run -n N [options] --entry NAME [--grid G] kernel.mlir [--] ARG... "
    "[--check K=REF]...\n"
    "       tdist-run -n N --nnodes K --node-rank R --rdzv HOST:PORT [options] -- program "
    "[args...]\n";

constexpr const char *kDescription =
    R"(Starts N processing elements (PEs) running program on this host, and ends the whole job as soon
as one of them fails. A .mlir program is an IR kernel: every PE compiles it and runs its
function NAME on a grid of G programs, with arguments described by ARG (tdist-jit --help).

Across hosts, one tdist-run per host: with --nnodes K, each starts the N PEs of its node
(--node-rank R: PEs R*N .. R*N+N-1 of N*K), node 0's listens on --rdzv and the others join it
there, and the job ends as one on every host. Every node needs the same TDIST_JOB_SECRET in its
environment, at least 16 bytes (export TDIST_JOB_SECRET=$(openssl rand -hex 16), then share it).)";

constexpr const char *kExitStatus =
    R"(Exit status: 0 when every PE exited 0; else the first failing PE's status, or 128+S when it was
killed by signal S; 97 when a wait passed its deadline or no PE could make progress
(--hang-check); 99 when a PE exited 0 after init without calling finalize; 124 when the job
deadline passed; 128+S when tdist-run got signal S; 77 when --backend cuda finds no GPU (as a
skipped test reports it); 2 for usage errors; 1 when tdist-run itself failed. Across hosts every
node exits with the status of the node where the job ended first; 2 when node 0 refused a node
(another secret, --nnodes or -n, a rank taken); 1 when a node did not join in time or the link to
another node dropped.)";

values::Parsed<long long> parsePeCount(std::string_view text) {
  return values::parseInteger(text, {.min = 1, .max = kMaxPes});
}

values::Parsed<std::uint64_t> parseHeapSize(std::string_view text) {
  return values::parseSize(text, {.min = 1});
}

values::Parsed<double> parseWaitTimeout(std::string_view text) {
  return values::parseSeconds(text);
}

values::Parsed<double> parseJobTimeout(std::string_view text) {
  return values::parseSeconds(text, values::ZeroSeconds::Allowed);
}

values::Parsed<long long> parseGpuCount(std::string_view text) {
  return values::parseInteger(text, {.min = 1, .max = kMaxPes});
}

values::Parsed<long long> parseNodeCount(std::string_view text) {
  return values::parseInteger(text, {.min = 1, .max = kMaxNodes});
}

values::Parsed<long long> parseNodeRank(std::string_view text) {
  return values::parseInteger(text, {.min = 0, .max = kMaxNodes - 1});
}

// HOST:PORT, [IPV6]:PORT.
values::Parsed<Rendezvous> parseRendezvous(std::string_view text) {
  auto failed = [&](const std::string &why) {
    return values::Parsed<Rendezvous>{.value = std::nullopt,
                                      .error = why + ", got '" + std::string(text) + "'"};
  };
  const std::string expected =
      "expected HOST:PORT, node 0's address and a port (10.0.0.1:29400, [fd00::1]:29400)";
  std::string_view host, port;
  if (text.starts_with('[')) {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || text.substr(close + 1, 1) != ":") return failed(expected);
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return failed(expected);
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return failed("an IPv6 address goes in brackets: [ADDRESS]:PORT");
  }
  if (host.empty()) return failed(expected);
  // The other nodes connect to it, and the bootstrap store is served on it.
  if (host == "0.0.0.0" || host == "::")
    return failed("expected an address of node 0 that the other nodes can reach");
  values::Parsed<long long> number = values::parseInteger(port, {.min = 1, .max = 65535});
  if (!number) return failed("expected a port from 1 to 65535 after the address");
  return {.value = Rendezvous{.host = std::string(host), .port = static_cast<int>(*number.value)},
          .error = {}};
}

values::Parsed<MpsMode> parseMpsMode(std::string_view text) {
  if (text == "auto") return {.value = MpsMode::Auto, .error = {}};
  if (text == "on") return {.value = MpsMode::On, .error = {}};
  if (text == "off") return {.value = MpsMode::Off, .error = {}};
  return {.value = std::nullopt, .error = "expected auto, on or off, got '" + std::string(text) + "'"};
}

// CLI11 takes "--host ''" as a value like any other.
CLI::Validator nonEmpty(const std::string &expected) {
  return CLI::Validator([expected](std::string &text) { return text.empty() ? expected : ""; }, "");
}

// Every option, described once for parsing and for --help. tdist-run's options come first; from
// the program on, every word is the PEs' (CLI11's prefix command), options included.
void describeCommandLine(CLI::App &app, Options &options) {
  using command_line::addFlag;
  using command_line::addParsedOption;
  app.prefix_command();
  app.set_help_flag();  // CLI11's would throw to print it; ours is a flag, and main prints the help
  app.description(kDescription);
  app.footer(kExitStatus);
  auto formatter = std::make_shared<command_line::UsageFirstFormatter>(kUsageLines);
  formatter->column_width(25);
  app.formatter(formatter);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // as getopt

  addParsedOption(app, "-n", "N", options.n_pes, parsePeCount,
                  "number of PEs (with --nnodes, of this node), 1 or more");
  addParsedOption(app, "--nodes", "K", options.nodes, parsePeCount,
                  "split the PEs into K nodes of this host (blocks of N / K): PEs of different nodes "
                  "reach each other's heaps through the network (UCX), as across hosts (default 1)");
  addParsedOption(app, "--nnodes", "K", options.nnodes, parseNodeCount,
                  "run the job across K hosts, one tdist-run on each starting its N PEs: N * K "
                  "PEs (default 1)");
  addParsedOption(app, "--node-rank", "R", options.node_rank, parseNodeRank,
                  "this host's node, 0 to K - 1: its PEs are R*N .. R*N+N-1 (default 0)");
  addParsedOption(app, "--rdzv", "HOST:PORT", options.rdzv, parseRendezvous,
                  "with --nnodes: node 0's address, where its tdist-run listens and the other "
                  "nodes join it ([IPV6]:PORT); node 0's PE 0 serves the bootstrap store there too");
  addParsedOption(app, "--join-timeout", "SECS", options.join_timeout_s, parseWaitTimeout,
                  "with --nnodes: how long the nodes may take to join (default 60)");
  addParsedOption(app, "--heap", "SIZE", options.heap_bytes, parseHeapSize,
                  "symmetric heap size per PE in bytes; K, M, G, T suffixes (TDIST_HEAP_SIZE)");
  addParsedOption(app, "--engines", "LIST", options.engines, values::parseEngines,
                  "data-operation engines: mte, sdma, roce, udma, e.g. mte,sdma (TDIST_ENGINES)");
  addParsedOption(app, "--wait-timeout", "SECS", options.wait_timeout_s, parseWaitTimeout,
                  "deadline of every wait in the runtime: 30, 1.5, 500ms (TDIST_WAIT_TIMEOUT)");
  addParsedOption(app, "--timeout", "SECS", options.job_timeout_s, parseJobTimeout,
                  "end the job after SECS (30, 2m, 1h); 0 means no deadline (the default)");
  addParsedOption(app, "--hang-check", "SECS", options.hang_check_s, parseJobTimeout,
                  "end the job when every PE has waited SECS with nothing changing (default 2; "
                  "0 turns it off; TDIST_HANG_CHECK)");
  app.add_option("--backend", options.backend,
                 "runtime backend: cpu, cuda, ... (TDIST_BACKEND, also the default)")
      ->type_name("NAME")
      ->check(nonEmpty("expected a backend name, got ''"));
  addParsedOption(app, "--gpus", "N", options.assumed_gpus, parseGpuCount,
                  "cuda: GPUs to assume instead of asking the driver");
  addParsedOption(app, "--mps", "MODE", options.mps, parseMpsMode,
                  "cuda: auto (default) starts an MPS daemon when PEs outnumber GPUs; on, off");
  addFlag(app, "--tag-output", options.tag_output,
          "prefix each line the PEs print with \"[pe N] \"");
  app.add_option("--trace", options.trace_path,
                 "record the job's events to FILE, a Chrome trace-event file (TDIST_TRACE)")
      ->type_name("FILE")
      ->check(nonEmpty("expected a file name, got ''"));
  app.add_option("--host", options.host,
                 "address the bootstrap store listens on (default 127.0.0.1; with --nnodes, the "
                 "--rdzv host)")
      ->type_name("ADDR")
      ->check(nonEmpty("expected an address, got ''"));
  app.add_option("--entry", options.kernel_entry, "the kernel function of a .mlir program")
      ->type_name("NAME")
      ->check(nonEmpty("expected a function name"));
  app.add_option("--grid", options.kernel_grid, "programs per PE of a .mlir kernel (default 1)")
      ->type_name("X[,Y[,Z]]")
      ->check(nonEmpty("expected X[,Y[,Z]]"));
  addFlag(app, "-h,--help", options.show_help, "show this help");
}

// --nnodes and its company, and the secret every node must share.
void checkAcrossHosts(const CLI::App &app, Options &options) {
  const bool nnodes_given = app.count("--nnodes") != 0;
  if (nnodes_given && app.count("--nodes") != 0) {
    throw UsageError("--nodes (nodes simulated on this host) and --nnodes (one tdist-run per "
                     "host) cannot be combined");
  }
  // Without --nnodes they would be dropped in silence, and this host would run a job of its own.
  for (const char *option : {"--node-rank", "--rdzv", "--join-timeout"}) {
    if (app.count(option) != 0 && !nnodes_given)
      throw UsageError(std::string(option) + " is for a job across hosts: give --nnodes K too");
  }
  if (options.node_rank >= options.nnodes) {
    throw UsageError("--node-rank " + std::to_string(options.node_rank) + " is not below --nnodes " +
                     std::to_string(options.nnodes) + ": nodes are numbered from 0");
  }
  if (!options.acrossHosts()) return;
  if (static_cast<long long>(options.n_pes) * options.nnodes > kMaxJobPes) {
    throw UsageError("-n " + std::to_string(options.n_pes) + " on each of --nnodes " +
                     std::to_string(options.nnodes) + " is " +
                     std::to_string(static_cast<long long>(options.n_pes) * options.nnodes) +
                     " PEs; a job has at most " + std::to_string(kMaxJobPes));
  }
  if (app.count("--rdzv") == 0) {
    throw UsageError("--nnodes " + std::to_string(options.nnodes) +
                     " needs --rdzv HOST:PORT, node 0's address, where every node's tdist-run "
                     "meets");
  }
  const char *secret = std::getenv("TDIST_JOB_SECRET");
  const std::string how = "export TDIST_JOB_SECRET=$(openssl rand -hex 16) and give every node "
                          "the same";
  if (secret == nullptr || *secret == '\0') {
    throw UsageError("a job across hosts needs TDIST_JOB_SECRET, the same on every node (at least " +
                     std::to_string(kMinJobSecretBytes) + " bytes): " + how);
  }
  if (std::strlen(secret) < kMinJobSecretBytes) {
    throw UsageError("TDIST_JOB_SECRET has " + std::to_string(std::strlen(secret)) +
                     " bytes; a job secret has at least " + std::to_string(kMinJobSecretBytes) +
                     ": " + how);
  }
  options.job_secret = secret;
  // Node 0's PE 0 serves the store where the other nodes reach node 0.
  if (app.count("--host") == 0) options.host = options.rdzv.host;
}

}  // namespace

Options parseCommandLine(int argc, char **argv) {
  Options options;
  CLI::App app;
  describeCommandLine(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    throw UsageError(error.what());
  }
  if (options.show_help) return options;
  if (app.count("--hang-check") == 0) {
    const char *inherited = std::getenv("TDIST_HANG_CHECK");
    if (inherited != nullptr && *inherited != '\0') {
      values::Parsed<double> seconds = parseJobTimeout(inherited);
      if (!seconds) throw UsageError("TDIST_HANG_CHECK: " + seconds.error);
      options.hang_check_s = *seconds.value;
    }
  }
  if (options.backend.empty()) {
    const char *inherited = std::getenv("TDIST_BACKEND");
    options.backend = inherited ? inherited : "";
  }
  // The GPU options mean nothing to other backends; accepting them silently would hide a
  // forgotten --backend cuda.
  for (const char *gpu_option : {"--gpus", "--mps"}) {
    if (app.count(gpu_option) != 0 && options.backend != "cuda")
      throw UsageError(std::string(gpu_option) + " is for --backend cuda");
  }

  // What is not tdist-run's is left over: a "--", options it does not know, and from the program
  // on every word.
  std::vector<std::string> words = app.remaining();
  if (!words.empty() && words.front() == "--") {
    words.erase(words.begin());
  } else if (!words.empty() && words.front().starts_with('-')) {
    throw UsageError("unknown option '" + words.front().substr(0, words.front().find('=')) + "'");
  }
  if (app.count("-n") == 0) throw UsageError("missing -n N, the number of PEs");
  if (options.n_pes % options.nodes != 0) {
    throw UsageError("--nodes " + std::to_string(options.nodes) + " does not divide -n " +
                     std::to_string(options.n_pes) + ": every node has the same number of PEs");
  }
  checkAcrossHosts(app, options);
  if (words.empty()) throw UsageError("missing the program to run (after --)");
  const std::string &program = words.front();
  if (program.ends_with(".mlir") || !options.kernel_entry.empty()) {
    useKernelRunner(options, words);
    return options;
  }
  if (!options.kernel_grid.empty()) {
    throw UsageError("--grid is for IR kernels (a .mlir program with --entry NAME)");
  }
  options.program_path = resolveProgram(program);
  options.program_argv = std::move(words);
  return options;
}

std::string usageText() {
  Options unused;
  CLI::App app;
  describeCommandLine(app, unused);
  return app.help();
}

}  // namespace tdist::launcher
