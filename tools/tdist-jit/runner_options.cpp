// tools/tdist-jit/runner_options.cpp - tdist-jit's command line.
#include "tools/tdist-jit/runner_options.h"

#include <charconv>
#include <cstring>

namespace tdist::jit {

namespace {

long parseInteger(const std::string &option, const std::string &text, long min, long max) {
  long value = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) {
    throw UsageError(option + ": expected an integer in " + std::to_string(min) + ".." +
                     std::to_string(max) + ", got '" + text + "'");
  }
  return value;
}

double parseReal(const std::string &option, const std::string &text) {
  char *end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= 0)) {
    throw UsageError(option + ": expected a non-negative number, got '" + text + "'");
  }
  return value;
}

}  // namespace

Grid parseGrid(const std::string &text) {
  int sizes[3] = {1, 1, 1};
  std::size_t start = 0;
  for (int axis = 0;; ++axis) {
    const std::size_t comma = text.find(',', start);
    if (axis == 3) throw UsageError("--grid: at most 3 axes (X,Y,Z), got '" + text + "'");
    sizes[axis] = static_cast<int>(
        parseInteger("--grid", text.substr(start, comma - start), 1, 1 << 20));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const long long total = static_cast<long long>(sizes[0]) * sizes[1] * sizes[2];
  if (total > (1 << 20)) throw UsageError("--grid: " + text + " is more than 1048576 programs");
  return Grid{sizes[0], sizes[1], sizes[2]};
}

RunnerOptions parseRunnerOptions(int argc, char **argv) {
  RunnerOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") continue;
    if (arg.size() < 2 || arg[0] != '-') {
      if (options.kernel_path.empty()) {
        options.kernel_path = arg;
      } else {
        options.arguments.push_back(arg);
      }
      continue;
    }
    std::string value;
    bool has_inline = false;
    if (auto eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline = true;
    }
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) throw UsageError("option " + arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--entry") {
      options.entry = next();
      if (options.entry.empty()) throw UsageError("--entry: expected a function name");
    } else if (arg == "--grid") {
      options.grid = parseGrid(next());
    } else if (arg == "--check") {
      options.checks.push_back(next());
    } else if (arg == "--print") {
      options.prints.push_back(static_cast<int>(parseInteger("--print", next(), 0, 1 << 16)));
    } else if (arg == "--tolerance") {
      const std::string text = next();
      const std::size_t comma = text.find(',');
      options.rtol = parseReal("--tolerance", text.substr(0, comma));
      if (comma != std::string::npos) options.atol = parseReal("--tolerance", text.substr(comma + 1));
    } else if (arg == "--repeat") {
      options.repeat = static_cast<int>(parseInteger("--repeat", next(), 1, 1000000));
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--inject-barrier-all") {
      if (has_inline) throw UsageError("option --inject-barrier-all takes no value");
      options.inject_barrier_all = true;
    } else if (arg == "--no-trace-spans") {
      if (has_inline) throw UsageError("option --no-trace-spans takes no value");
      options.trace_spans = false;
    } else if (arg.size() == 3 && arg.starts_with("-O") && arg[2] >= '0' && arg[2] <= '3') {
      options.opt_level = arg[2] - '0';
    } else {
      throw UsageError("unknown option '" + arg + "' (tdist-jit --help lists them)");
    }
  }
  if (options.help) return options;
  if (options.kernel_path.empty()) throw UsageError("missing the kernel file (a .mlir module)");
  if (options.entry.empty()) throw UsageError("missing --entry NAME, the kernel function to run");
  return options;
}

std::string runnerUsage() {
  return R"(Usage: tdist-jit --entry NAME [options] kernel.mlir [--] ARG... [options]
Runs one PE's share of an MLIR kernel; started by tdist-run on every PE:
  tdist-run -n N --entry NAME [--grid G] kernel.mlir -- ARG... [--check K=REF]...

Each PE parses and lowers the module (tdist-cpu-pipeline), JIT-compiles it, allocates the
kernel's buffer arguments on the symmetric heap, launches the grid, and checks the results.

Options:
  --entry NAME          the kernel function (required)
  --grid X[,Y[,Z]]      programs per PE (default 1); kernels read their coordinates with
                        distributed.extern_call "tdist_program_id" / "tdist_num_programs"
  --check K=REF         after the run, compare buffer argument K with the reference REF
  --print K             after the run, print buffer argument K on every PE, in PE order
  --tolerance R[,A]     relative (and absolute) tolerance of floating-point checks
  --repeat N            run the kernel N times, each from the initial values, and report the
                        median and minimum time (barrier to barrier, on PE 0); checks and
                        prints see the last run
  --inject-barrier-all  surround communication with barrier_all (debugging switch)
  --no-trace-spans      under tdist-run --trace, leave out the spans of the kernel's linalg
                        ops and of the ops marked tdist.span (docs/TRACING.md)
  -O0 .. -O3            LLVM optimization level (default -O2)
  -v, --verbose         PE 0 reports how long parsing, lowering and JIT compilation took
  -h, --help            show this help

ARG, one per kernel parameter, in order:
  DTYPE=EXPR            a scalar, e.g. i32=1, index=1024/npes
  DTYPE[DIMS][=INIT]    a buffer on the symmetric heap, e.g. f32[npes*256]=iota,
                        i32[64] (zeros), f32[64,32]=random:7, f32[8]=rank*100+i
  DTYPE is i8..i64, ui8..ui64, index, f32 or f64. EXPR and DIMS use numbers, rank, npes and
  + - * / % ( ); INIT may also use i (flat index), d0, d1, ... and random(SEED).
REF: arg(J), sum(X) over PEs, gather(X) along dim 0 over PEs, shard(X) this PE's part of
  dim 0, at(X, PE), matmul(X, Y),
  X + Y, X - Y, X * Y, or an INIT expression. Example: --check '1=gather(arg(0))'.

Exit status: 0 when the kernel ran and every check passed on this PE; 2 for usage and
argument errors; 3 when the kernel does not compile; 4 when a check failed; 97 when a wait
passed its deadline; 98 for a runtime error inside the kernel; 1 otherwise.
)";
}

}  // namespace tdist::jit
