#include "options.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

#include "common/command_line.h"

namespace tdist::bench {
namespace {

// A typo guard that also keeps the heap size computed from it far from overflowing: a put of
// more than 1 TiB is no benchmark on one host.
constexpr std::uint64_t kMaxBenchSize = std::uint64_t{1} << 40;

values::Parsed<std::uint64_t> parseBenchSize(std::string_view text) {
  return values::parseSize(text, {.max = kMaxBenchSize});
}

// An option's parser for counts of at least min.
template <long long min>
values::Parsed<long long> parseCount(std::string_view text) {
  return values::parseInteger(text, {.min = min, .max = INT_MAX});
}

// A range-checked integer option.
template <long long min, long long max>
values::Parsed<long long> parseInRange(std::string_view text) {
  return values::parseInteger(text, {.min = min, .max = max});
}

// The cuda-put-bw kernel's block size: whole warps, at most what a block may hold.
values::Parsed<long long> parseThreads(std::string_view text) {
  auto parsed = values::parseInteger(text, {.min = 32, .max = 1024});
  if (parsed && *parsed.value % 32 != 0)
    return {.value = std::nullopt, .error = "expected a multiple of 32, got " + std::string(text)};
  return parsed;
}

values::Parsed<PingOp> parsePingOp(std::string_view text) {
  if (text == "p") return {.value = PingOp::P, .error = {}};
  if (text == "signal") return {.value = PingOp::Signal, .error = {}};
  return {.value = std::nullopt, .error = "expected p or signal, got '" + std::string(text) + "'"};
}

constexpr const char *kCaseNames[] = {"put",          "pingpong",     "ring",        "barrier",
                                      "switch",       "all",          "cuda-pingpong", "cuda-barrier",
                                      "cuda-put-bw",  "cuda",         "cuda-gemm-chunks"};

void addCase(Options &options, const std::string &name) {
  auto add = [&](Case c) {
    if (std::find(options.cases.begin(), options.cases.end(), c) == options.cases.end())
      options.cases.push_back(c);
  };
  if (name == "put") add(Case::Put);
  else if (name == "pingpong") add(Case::PingPong);
  else if (name == "ring") add(Case::Ring);
  else if (name == "barrier") add(Case::Barrier);
  else if (name == "switch") add(Case::Switch);
  else if (name == "cuda-pingpong") add(Case::CudaPingPong);
  else if (name == "cuda-barrier") add(Case::CudaBarrier);
  else if (name == "cuda-put-bw") add(Case::CudaPutBw);
  else if (name == "cuda-gemm-chunks") add(Case::CudaGemmChunks);
  else if (name == "cuda") {
    add(Case::CudaPingPong);
    add(Case::CudaBarrier);
    add(Case::CudaPutBw);
  }
  else if (name == "all") {
    add(Case::Put);
    add(Case::PingPong);
    add(Case::Ring);
    add(Case::Barrier);
  }
}

CLI::Validator knownCase() {
  return CLI::Validator([](std::string &name) -> std::string {
    for (const char *known : kCaseNames) {
      if (name != known) continue;
      if (!kHaveCudaCases && name.starts_with("cuda"))
        return "case '" + name + "' needs a tdist-bench built with the cuda backend";
      return "";
    }
    return "unknown case '" + name + "' (known: put, pingpong, ring, barrier, switch, all, "
           "cuda-pingpong, cuda-barrier, cuda-put-bw, cuda, cuda-gemm-chunks)";
  }, "");
}

constexpr const char *kDescription =
    R"(cases: put pingpong ring barrier all, and switch
  put       PE 0 putmem + quiet to PE 1, and PE 0's private memcpy of the same sizes
  pingpong  pairs (0<->1, 2<->3, ...) at once; half round trip
  ring      a token around all PEs (0 -> 1 -> ... -> 0); time per hop
  barrier   barrier_all latency
  switch    PE 0: one program switch of tdist::launch, and raw ucontext and Boost.Context
            switches (not in all; iterations 100000 by default)
cuda backend (built with it; not in all; 'cuda' = the three):
  cuda-pingpong  round trip between 2 PEs' kernels (signal_op SET + signal_wait_until), and
                 between their streams (signal_op_on_stream + signal_wait_until_on_stream)
  cuda-barrier   device barrier_all / sync_all from one thread, and barrier_all_on_stream
  cuda-put-bw    PE 0 -> PE 1: SM copies (putmem_block), copy engine (putmem_on_stream), and
                 cudaMemcpyAsync device to device as the reference (use --max-size 1G)
  cuda-gemm-chunks  PE 0 alone (not in 'cuda'): bf16 cuBLASLt GEMMs, M 4096 8192 x N 8192 14336 x
                 K 8192, whole against 2, 4, 8 chunks (rows, columns, 2-D; heuristic or fastest
                 algorithm); efficiency = whole / chunks (--iters per repeat, default 10))";

// Every flag, described once for parsing and for the help page.
void describeCommandLine(CLI::App &app, Options &options, std::vector<std::string> &case_names,
                         bool &no_table, const std::string &program) {
  using command_line::addFlag;
  using command_line::addParsedOption;
  app.set_help_flag();  // a flag like the others: main prints the help from PE 0 alone
  app.description(kDescription);
  auto formatter = std::make_shared<command_line::UsageFirstFormatter>(
      "usage: " + program + " CASE... [flags]   (run under tdist-run)\n");
  formatter->column_width(19);
  app.formatter(formatter);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  app.add_option("CASE", case_names, "the cases to run, in this order")->check(knownCase());
  addParsedOption(app, "--repeats", "R", options.repeats, parseCount<1>,
                  "timed repeats (5); median, min and max are over them");
  addParsedOption(app, "--iters", "K", options.iters, parseCount<1>,
                  "iterations per repeat (latency cases 10000; put: --put-bytes/size, "
                  "cuda-put-bw: --gpu-bytes/size, 2..20000)");
  addParsedOption(app, "--warmup", "W", options.warmup, parseCount<0>,
                  "untimed iterations before the repeats (one repeat's worth)");
  addParsedOption(app, "--min-size", "S", options.min_size, parseBenchSize,
                  "smallest put size (4K); sizes go up by --size-factor");
  addParsedOption(app, "--max-size", "S", options.max_size, parseBenchSize,
                  "largest put size (64M)");
  addParsedOption(app, "--size-factor", "F", options.size_factor, parseCount<2>,
                  "ratio of one put size to the next (4)");
  addParsedOption(app, "--put-bytes", "B", options.put_bytes, parseBenchSize,
                  "bytes per put repeat when --iters is not given (256M)");
  addParsedOption(app, "--op", "p|signal", options.ping_op, parsePingOp,
                  "pingpong/ring flag: p + wait_until (default) or signal_op + signal_wait_until");
  addParsedOption(app, "--blocks", "B", options.gpu_blocks, parseInRange<0, 65535>,
                  "cuda-put-bw: blocks of the SM-copy kernel (0 = two per multiprocessor)");
  addParsedOption(app, "--threads", "T", options.gpu_threads, parseThreads,
                  "cuda-put-bw: threads per block, a multiple of 32 up to 1024 (512)");
  addParsedOption(app, "--gpu-bytes", "B", options.gpu_bytes, parseBenchSize,
                  "cuda-put-bw: bytes per repeat when --iters is not given (4G)");
  addFlag(app, "--no-table", no_table, "RESULT lines only");
  addFlag(app, "-h,--help", options.show_help, "show this help");
}

}  // namespace

Options parseOptions(int argc, char **argv) {
  Options options;
  std::vector<std::string> case_names;
  bool no_table = false;
  CLI::App app;
  describeCommandLine(app, options, case_names, no_table, argv[0]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    throw std::invalid_argument(error.what());
  }
  if (options.show_help) return options;
  for (const std::string &name : case_names) addCase(options, name);
  options.table = !no_table;
  if (options.cases.empty()) throw std::invalid_argument("no case given");
  if (options.min_size == 0 || options.min_size > options.max_size)
    throw std::invalid_argument("--min-size must be in 1..--max-size");
  return options;
}

std::string usage(const char *program) {
  Options unused;
  std::vector<std::string> case_names;
  bool no_table = false;
  CLI::App app;
  describeCommandLine(app, unused, case_names, no_table, program);
  return app.help();
}

const char *caseName(Case c) {
  switch (c) {
    case Case::Put: return "put";
    case Case::PingPong: return "pingpong";
    case Case::Ring: return "ring";
    case Case::Barrier: return "barrier";
    case Case::Switch: return "switch";
    case Case::CudaPingPong: return "cuda-pingpong";
    case Case::CudaBarrier: return "cuda-barrier";
    case Case::CudaPutBw: return "cuda-put-bw";
    case Case::CudaGemmChunks: return "cuda-gemm-chunks";
  }
  return "?";
}

const char *pingOpName(PingOp op) { return op == PingOp::P ? "p" : "signal"; }

long putIterations(const Options &options, std::size_t size) {
  if (options.iters > 0) return options.iters;
  return std::clamp<long>(static_cast<long>(options.put_bytes / size), 2, 1000000);
}

long gpuPutIterations(const Options &options, std::size_t size) {
  if (options.iters > 0) return options.iters;
  // Small sizes are launch-bound (a few us per copy whatever the size): past 20000 copies a
  // repeat only takes longer, it measures nothing new.
  return std::clamp<long>(static_cast<long>(options.gpu_bytes / size), 2, 20000);
}

bool hasCudaCase(const Options &options) {
  return std::any_of(options.cases.begin(), options.cases.end(), [](Case c) {
    return c == Case::CudaPingPong || c == Case::CudaBarrier || c == Case::CudaPutBw ||
           c == Case::CudaGemmChunks;
  });
}

long latencyIterations(const Options &options) {
  return options.iters > 0 ? options.iters : kDefaultLatencyIters;
}

long warmupIterations(const Options &options, long iters) {
  return options.warmup >= 0 ? options.warmup : iters;
}

}  // namespace tdist::bench
