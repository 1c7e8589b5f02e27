#include "options.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace tdist::launcher {
namespace {

template <class Number>
bool parseWhole(std::string_view text, Number &value) {
  const char *end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc() && stop == end;
}

int parsePeCount(const std::string &text) {
  int n = 0;
  if (!parseWhole(text, n) || n < 1 || n > kMaxPes)
    throw UsageError("-n: expected a number of PEs from 1 to " + std::to_string(kMaxPes) +
                     ", got '" + text + "'");
  return n;
}

// "4096", "64K", "256M", "2G" -> bytes; binary multiples, as the runtime's heap is sized in pages.
std::uint64_t parseHeapSize(const std::string &text) {
  std::string_view digits = text;
  unsigned shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift != 0) digits.remove_suffix(1);
  }
  std::uint64_t value = 0;
  if (!parseWhole(digits, value) || value == 0 || value > (UINT64_MAX >> shift))
    throw UsageError("--heap: expected a size in bytes such as 4096, 64K, 256M or 2G, got '" +
                     text + "'");
  return value << shift;
}

// Seconds as a finite number; from_chars also accepts "inf" and "nan", which mean nothing here.
double parseSeconds(const std::string &flag, const std::string &text, bool zero_allowed) {
  double seconds = 0;
  bool ok = parseWhole(text, seconds) && std::isfinite(seconds) &&
            (zero_allowed ? seconds >= 0 : seconds > 0);
  if (!ok)
    throw UsageError(flag + ": expected a number of seconds" + (zero_allowed ? " (0 or more)" :
                     " greater than 0") + ", got '" + text + "'");
  return seconds;
}

// Checks every name now: a misspelt engine would otherwise surface as N identical runtime errors.
std::string parseEngines(const std::string &text) {
  static constexpr std::string_view kKnown[] = {"mte", "sdma", "roce", "udma"};
  std::string normalized;
  std::string_view rest = text;
  while (true) {
    std::string_view name = rest.substr(0, rest.find(','));
    bool known = false;
    for (std::string_view candidate : kKnown) known = known || name == candidate;
    if (!known)
      throw UsageError("--engines: unknown engine '" + std::string(name) + "' in '" + text +
                       "' (known: mte, sdma, roce, udma)");
    if (!normalized.empty()) normalized += ',';
    normalized += name;
    if (name.size() == rest.size()) break;
    rest.remove_prefix(name.size() + 1);
  }
  return normalized;
}

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

}  // namespace

Options parseCommandLine(int argc, char **argv) {
  Options options;
  bool have_n = false;
  int i = 1;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;  // the program, given without "--"

    // "--name=value" and "-nVALUE" carry their value inline; otherwise it is the next word.
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (arg.starts_with("-n") && arg.size() > 2) {
      inline_value = arg.substr(2);
      arg = "-n";
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) throw UsageError("option " + arg + " needs a value");
      return argv[++i];
    };

    if (arg == "-h" || arg == "--help") {
      options.show_help = true;
      return options;
    } else if (arg == "-n") {
      options.n_pes = parsePeCount(value());
      have_n = true;
    } else if (arg == "--heap") {
      options.heap_bytes = parseHeapSize(value());
    } else if (arg == "--engines") {
      options.engines = parseEngines(value());
    } else if (arg == "--wait-timeout") {
      std::string text = value();
      parseSeconds(arg, text, /*zero_allowed=*/false);
      options.wait_timeout = text;
    } else if (arg == "--timeout") {
      options.job_timeout_s = parseSeconds(arg, value(), /*zero_allowed=*/true);
    } else if (arg == "--tag-output") {
      if (inline_value) throw UsageError("option --tag-output takes no value");
      options.tag_output = true;
    } else if (arg == "--entry") {
      options.kernel_entry = value();
      if (options.kernel_entry.empty()) throw UsageError("--entry: expected a function name");
    } else if (arg == "--grid") {
      options.kernel_grid = value();
      if (options.kernel_grid.empty()) throw UsageError("--grid: expected X[,Y[,Z]]");
    } else if (arg == "--host") {
      options.host = value();
      if (options.host.empty()) throw UsageError("--host: expected an address, got ''");
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }

  if (!have_n) throw UsageError("missing -n N, the number of PEs");
  if (i >= argc) throw UsageError("missing the program to run (after --)");
  const std::string program = argv[i];
  if (program.ends_with(".mlir") || !options.kernel_entry.empty()) {
    useKernelRunner(options, std::vector<std::string>(argv + i, argv + argc));
    return options;
  }
  if (!options.kernel_grid.empty()) {
    throw UsageError("--grid is for IR kernels (a .mlir program with --entry NAME)");
  }
  options.program_path = resolveProgram(program);
  options.program_argv.assign(argv + i, argv + argc);
  return options;
}

std::string usageText() {
  return R"(Usage: tdist-run -n N [options] -- program [args...]
       tdist-run -n N [options] --entry NAME [--grid G] kernel.mlir [--] ARG... [--check K=REF]...

Starts N processing elements (PEs) running program on this host, and ends the whole job as soon
as one of them fails. A .mlir program is an IR kernel: every PE compiles it and runs its
function NAME on a grid of G programs, with arguments described by ARG (tdist-jit --help).

Options:
  -n N                   number of PEs, 1 or more
  --heap SIZE            symmetric heap size per PE in bytes; K, M, G suffixes (TDIST_HEAP_SIZE)
  --engines LIST         data-operation engines: mte, sdma, roce, udma, e.g. mte,sdma (TDIST_ENGINES)
  --wait-timeout SECS    deadline of every wait in the runtime (TDIST_WAIT_TIMEOUT)
  --timeout SECS         end the job after SECS seconds; 0 means no deadline (the default)
  --tag-output           prefix each line the PEs print with "[pe N] "
  --host ADDR            address the bootstrap store listens on (default 127.0.0.1)
  --entry NAME           the kernel function of a .mlir program
  --grid X[,Y[,Z]]       programs per PE of a .mlir kernel (default 1)
  -h, --help             show this help

Exit status: 0 when every PE exited 0; else the first failing PE's status, or 128+S when it was
killed by signal S; 124 when the job deadline passed; 128+S when tdist-run got signal S;
2 for usage errors; 1 when tdist-run itself failed.
)";
}

}  // namespace tdist::launcher
