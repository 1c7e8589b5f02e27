// tools/tdist-jit/runner_options.cpp - tdist-jit's command line, on CLI11 and the value parser
// like tdist-run's and tdist-bench's (common/command_line.h): one grammar for every number a
// user types, one form of message ("--grid: expected an integer from 1 to 1048576, got '0'").
#include "tools/tdist-jit/runner_options.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "common/command_line.h"

namespace tdist::jit {

namespace {

constexpr long long kMaxPrograms = 1 << 20;

constexpr const char *kUsageLines =
    "Usage: tdist-jit --entry NAME [options] kernel.mlir [--] ARG... [options]\n"
    "Runs one PE's share of an MLIR kernel; started by tdist-run on every PE:\n"
    "  tdist-run -n N --entry NAME [--grid G] kernel.mlir -- ARG... [--check K=REF]...\n";

constexpr const char *kDescription =
    R"(Each PE parses and lowers the module (tdist-cpu-pipeline), JIT-compiles it, allocates the
kernel's buffer arguments on the symmetric heap, launches the grid, and checks the results.
On the cuda backend (TDIST_BACKEND=cuda, tdist-run --backend cuda) the module becomes a cubin
(tdist-cuda-pipeline) that runs each program as a block of one thread on the PE's GPU.
Options may come before or after the kernel and its arguments; "--" only separates.)";

constexpr const char *kFooter =
    R"(ARG, one per kernel parameter, in order:
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
passed its deadline; 98 for a runtime error inside the kernel; 1 otherwise.)";

values::Parsed<double> parseTolerance(std::string_view text) {
  char *end = nullptr;
  const std::string copy(text);
  const double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || *end != '\0' || !(value >= 0) || value > 1e300) {
    return {.value = std::nullopt, .error = "expected a non-negative number, got '" + copy + "'"};
  }
  return {.value = value, .error = {}};
}

// "R[,A]": relative, then optionally absolute tolerance.
values::Parsed<std::pair<double, std::optional<double>>> parseTolerances(std::string_view text) {
  const std::size_t comma = text.find(',');
  values::Parsed<double> relative = parseTolerance(text.substr(0, comma));
  if (!relative) return {.value = std::nullopt, .error = relative.error};
  if (comma == std::string_view::npos) return {.value = std::pair{*relative.value, std::nullopt}, .error = {}};
  values::Parsed<double> absolute = parseTolerance(text.substr(comma + 1));
  if (!absolute) return {.value = std::nullopt, .error = absolute.error};
  return {.value = std::pair{*relative.value, absolute.value}, .error = {}};
}

values::Parsed<long long> parseRepeat(std::string_view text) {
  return values::parseInteger(text, {.min = 1, .max = 1000000});
}

values::Parsed<long long> parseOptLevel(std::string_view text) {
  return values::parseInteger(text, {.min = 0, .max = 3});
}

CLI::Validator nonEmpty(const std::string &expected) {
  return CLI::Validator([expected](std::string &text) { return text.empty() ? expected : ""; }, "");
}

// The command line's values before they are checked against each other.
struct Parsed {
  RunnerOptions options;
  std::vector<std::string> words;   // the kernel, then its arguments
  std::vector<std::string> prints;  // --print's values, read after the parse
  std::pair<double, std::optional<double>> tolerance;
  long long repeat = 1;
  long long opt_level = 2;
  bool no_trace_spans = false;
};

// Every option, described once for parsing and for --help.
void describeCommandLine(CLI::App &app, Parsed &parsed) {
  using command_line::addFlag;
  using command_line::addParsedOption;
  RunnerOptions &options = parsed.options;
  app.set_help_flag();  // a flag of ours: main prints the help
  app.description(kDescription);
  app.footer(kFooter);
  auto formatter = std::make_shared<command_line::UsageFirstFormatter>(kUsageLines);
  formatter->column_width(24);
  app.formatter(formatter);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();  // unknown options are reported below, in tdist-run's words

  app.add_option("--entry", options.entry, "the kernel function (required)")
      ->type_name("NAME")
      ->check(nonEmpty("expected a function name"));
  addParsedOption(app, "--grid", "X[,Y[,Z]]", options.grid, parseGrid,
                  "programs per PE (default 1); a kernel reads its coordinates with\n"
                  "distributed.extern_call \"tdist_program_id\" / \"tdist_num_programs\"");
  app.add_option("--check", options.checks, "after the run, compare buffer argument K with the reference REF")
      ->type_name("K=REF")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--print", parsed.prints, "after the run, print buffer argument K on every PE, in PE order")
      ->type_name("K")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  addParsedOption(app, "--tolerance", "R[,A]", parsed.tolerance, parseTolerances,
                  "relative (and absolute) tolerance of floating-point checks");
  addParsedOption(app, "--repeat", "N", parsed.repeat, parseRepeat,
                  "run the kernel N times, each from the initial values; PE 0 reports the median\n"
                  "and minimum time, barrier to barrier; checks and prints see the last run");
  addFlag(app, "--inject-barrier-all", options.inject_barrier_all,
          "surround communication with barrier_all (debugging switch)");
  addFlag(app, "--no-trace-spans", parsed.no_trace_spans,
          "under tdist-run --trace, leave out the spans of the kernel's linalg ops\n"
          "and of the ops marked tdist.span (docs/TRACING.md)");
  addParsedOption(app, "-O", "0..3", parsed.opt_level, parseOptLevel,
                  "LLVM optimization level, -O0 .. -O3 (default -O2)");
  addFlag(app, "-v,--verbose", options.verbose,
          "PE 0 reports how long parsing, lowering and JIT compilation took");
  addFlag(app, "--compile-only", options.compile_only,
          "compile the kernel for the backend TDIST_BACKEND names and run nothing\n"
          "(outside tdist-run; on cuda it goes into the kernel cache, docs/IR_KERNELS.md)");
  addFlag(app, "-h,--help", options.help, "show this help");
  app.add_option("ARG", parsed.words, "the kernel (a .mlir module), then one ARG per kernel parameter")
      ->type_name("");
}

}  // namespace

values::Parsed<Grid> parseGrid(std::string_view text) {
  int sizes[3] = {1, 1, 1};
  std::size_t start = 0;
  for (int axis = 0;; ++axis) {
    if (axis == 3) return {.value = std::nullopt, .error = "at most 3 axes (X,Y,Z), got '" + std::string(text) + "'"};
    const std::size_t comma = text.find(',', start);
    values::Parsed<long long> size = values::parseInteger(text.substr(start, comma - start), {.min = 1, .max = kMaxPrograms});
    if (!size) return {.value = std::nullopt, .error = size.error};
    sizes[axis] = static_cast<int>(*size.value);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  const long long total = static_cast<long long>(sizes[0]) * sizes[1] * sizes[2];
  if (total > kMaxPrograms) {
    return {.value = std::nullopt,
            .error = std::string(text) + " is " + std::to_string(total) + " programs, more than " +
                     std::to_string(kMaxPrograms)};
  }
  return {.value = Grid{sizes[0], sizes[1], sizes[2]}, .error = {}};
}

RunnerOptions parseRunnerOptions(int argc, char **argv) {
  // "--" only separates for readability: options may follow the kernel's arguments.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i) {
    if (std::string_view(argv[i]) != "--") args.emplace_back(argv[i]);
  }
  Parsed parsed;
  CLI::App app;
  describeCommandLine(app, parsed);
  try {
    app.parse(args);  // CLI11 takes the words in reverse order
  } catch (const CLI::ParseError &error) {
    throw UsageError(error.what());
  }
  RunnerOptions &options = parsed.options;
  if (options.help) return options;
  for (const std::string &word : app.remaining()) {
    if (word.starts_with('-')) throw UsageError("unknown option '" + word.substr(0, word.find('=')) + "'");
  }
  for (const std::string &text : parsed.prints) {
    values::Parsed<long long> index = values::parseInteger(text, {.min = 0, .max = 1 << 16});
    if (!index) throw UsageError("--print: " + index.error);
    options.prints.push_back(static_cast<int>(*index.value));
  }
  if (app.count("--tolerance") != 0) {
    options.rtol = parsed.tolerance.first;
    options.atol = parsed.tolerance.second;
  }
  options.trace_spans = !parsed.no_trace_spans;
  options.repeat = static_cast<int>(parsed.repeat);
  options.opt_level = static_cast<int>(parsed.opt_level);
  if (parsed.words.empty()) throw UsageError("missing the kernel file (a .mlir module)");
  options.kernel_path = parsed.words.front();
  options.arguments.assign(parsed.words.begin() + 1, parsed.words.end());
  if (options.entry.empty()) throw UsageError("missing --entry NAME, the kernel function to run");
  return options;
}

std::string runnerUsage() {
  Parsed unused;
  CLI::App app;
  describeCommandLine(app, unused);
  return app.help();
}

}  // namespace tdist::jit
