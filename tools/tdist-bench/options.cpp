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
  if (text == "put-signal") return {.value = PingOp::PutSignal, .error = {}};
  return {.value = std::nullopt, .error = "expected p, signal or put-signal, got '" + std::string(text) + "'"};
}

constexpr const char *kCaseNames[] = {"put",          "pingpong",     "ring",        "barrier",
                                      "switch",       "all",          "cuda-pingpong", "cuda-barrier",
                                      "cuda-put-bw",  "cuda",         "allreduce",   "allgather",
                                      "reducescatter", "ag-gemm",     "gemm-rs",     "kernels",
                                      "cuda-gemm-chunks", "cuda-allreduce-graph", "cuda-gemm-cutlass",
                                      "cuda-gemm-rs-reduce", "cuda-ring-allreduce", "trace-cost"};

values::Parsed<std::string> parseDtype(std::string_view text) {
  if (text == "f32" || text == "bf16") return {.value = std::string(text), .error = {}};
  return {.value = std::nullopt, .error = "expected f32 or bf16, got '" + std::string(text) + "'"};
}

values::Parsed<std::string> parseAlgorithm(std::string_view text) {
  for (const char *known : {"all", "auto", "one-shot", "two-shot", "ring"})
    if (text == known) return {.value = std::string(text), .error = {}};
  return {.value = std::nullopt,
          .error = "expected all, auto, one-shot, two-shot or ring, got '" + std::string(text) + "'"};
}

// tdist::kernels::set_tile_order's names: "auto", "n1", "m4", ...
values::Parsed<tdist::kernels::AllGatherGemmConfig> parseTileOrder(std::string_view text) {
  tdist::kernels::AllGatherGemmConfig order;
  if (tdist::kernels::set_tile_order(order, text)) return {.value = order, .error = {}};
  return {.value = std::nullopt,
          .error = "expected auto, or n or m and a swizzle of 1, 2, 4 or 8 (n1, m4), got '" + std::string(text) + "'"};
}

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
  else if (name == "trace-cost") add(Case::TraceCost);
  else if (name == "cuda-pingpong") add(Case::CudaPingPong);
  else if (name == "cuda-barrier") add(Case::CudaBarrier);
  else if (name == "cuda-put-bw") add(Case::CudaPutBw);
  else if (name == "cuda-gemm-chunks") add(Case::CudaGemmChunks);
  else if (name == "cuda-allreduce-graph") add(Case::CudaAllReduceGraph);
  else if (name == "cuda-gemm-cutlass") add(Case::CudaGemmCutlass);
  else if (name == "cuda-gemm-rs-reduce") add(Case::CudaGemmRsReduce);
  else if (name == "cuda-ring-allreduce") add(Case::CudaRingAllReduce);
  else if (name == "cuda") {
    add(Case::CudaPingPong);
    add(Case::CudaBarrier);
    add(Case::CudaPutBw);
  }
  else if (name == "allreduce") add(Case::AllReduce);
  else if (name == "allgather") add(Case::AllGather);
  else if (name == "reducescatter") add(Case::ReduceScatter);
  else if (name == "ag-gemm") add(Case::AgGemm);
  else if (name == "gemm-rs") add(Case::GemmRs);
  else if (name == "kernels") {
    add(Case::AllReduce);
    add(Case::AllGather);
    add(Case::ReduceScatter);
    add(Case::AgGemm);
    add(Case::GemmRs);
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
      if (!kHaveCutlassCase && name == "cuda-gemm-cutlass")
        return "case 'cuda-gemm-cutlass' needs a tdist-bench built with the CUTLASS headers "
               "(scripts/setup.sh fetches them where nvcc is found; then configure again)";
      return "";
    }
    return "unknown case '" + name + "' (known: put, pingpong, ring, barrier, switch, all, "
           "cuda-pingpong, cuda-barrier, cuda-put-bw, cuda, allreduce, allgather, reducescatter, "
           "ag-gemm, gemm-rs, kernels, cuda-gemm-chunks, cuda-allreduce-graph, cuda-gemm-cutlass, "
           "cuda-gemm-rs-reduce, cuda-ring-allreduce, trace-cost)";
  }, "");
}

constexpr const char *kDescription =
    R"(cases: put pingpong ring barrier all, and switch, trace-cost
  put       PE 0 putmem + quiet to PE 1, and PE 0's private memcpy of the same sizes
  pingpong  pairs (0<->1, 2<->3, ...) at once; half round trip
  ring      a token around all PEs (0 -> 1 -> ... -> 0); time per hop
  barrier   barrier_all latency
  switch    PE 0: one program switch of tdist::launch, and raw ucontext and Boost.Context
            switches (not in all; iterations 100000 by default)
  trace-cost PE 0: ns per user span (tdist/trace.h) against the same empty loop; under
            tdist-run --trace the recording, else the hooks' branch (not in all)
cuda backend (built with it; not in all; 'cuda' = the three):
  cuda-pingpong  round trip between 2 PEs' kernels (signal_op SET + signal_wait_until), and
                 between their streams (signal_op_on_stream + signal_wait_until_on_stream)
  cuda-barrier   device barrier_all / sync_all from one thread, and barrier_all_on_stream
  cuda-put-bw    PE 0 -> PE 1: SM copies (putmem_block), copy engine (putmem_on_stream), and
                 cudaMemcpyAsync device to device as the reference (use --max-size 1G)
kernel library (tdist::kernels, on the job's backend; not in all; 'kernels' = the five):
  allreduce      f32 sum of S bytes per PE, each algorithm (--algo) and auto; 16K .. 16M
  allgather      S bytes per PE gathered on every PE
  reducescatter  S bytes per PE reduced, S / PEs to each
  ag-gemm        all_gather_gemm of C [m, n] = gather(A) x B, beside GEMM alone (OpenBLAS, the
                 same local work), all_gather alone of A, and their ideal max(GEMM, comm)
  gemm-rs        gemm_reduce_scatter (k split over the PEs), beside GEMM alone, reduce_scatter
                 alone of C, and max(GEMM, comm)
  Each size / shape is checked against a host reference once before it is timed.
  cuda-gemm-chunks  PE 0 alone (not in all or 'cuda'): bf16 cuBLASLt GEMMs, M 4096 8192 x N 8192 14336 x
                 K 8192, whole against 2, 4, 8 chunks (rows, columns, 2-D; heuristic or fastest
                 algorithm); efficiency = whole / chunks (--iters per repeat, default 10)
  cuda-allreduce-graph  all_reduce (one-shot, two-shot, auto) of 8K .. 2M per PE, bf16 unless --dtype,
                 --graph-ops calls captured in one CUDA graph, replayed --iters times a repeat (10);
                 GPU time per call; with every algorithm also an empty one-block kernel's graph node
                 at the first size (variant=empty-node: the floor of any call) (not in all or 'cuda')
  cuda-gemm-cutlass  PE 0 alone: a persistent warp-specialized bf16 CUTLASS GEMM (sm90a) against
                 cuBLASLt, M 4096 8192 x N 8192 14336 x K 8192, checked equal, then timed alternately
  cuda-gemm-rs-reduce  PE 0 alone: gemm_reduce_scatter's sum of 2, 4, 8 f32 partials of 1M .. 16M
                 elements into bf16 and f32, the library's reduction (new) against the one it
                 replaced (old), checked bit-equal, then timed alternately; ratio = new / old
  cuda-ring-allreduce  examples/triton/ring_allreduce.py's ring in CUDA C++ (f32, 256K .. 2M per PE):
                 GPU time per call, median of --iters calls (10); bench/triton_compare.sh sets
                 the Triton kernel beside it)";

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
  addParsedOption(app, "--op", "p|signal|put-signal", options.ping_op, parsePingOp,
                  "pingpong/ring flag: p + wait_until (default), signal_op + signal_wait_until, or "
                  "putmem_signal of an 8-byte payload + signal_wait_until (the payload checked)");
  addParsedOption(app, "--blocks", "B", options.gpu_blocks, parseInRange<0, 65535>,
                  "cuda-put-bw: blocks of the SM-copy kernel (0 = two per multiprocessor)");
  addParsedOption(app, "--threads", "T", options.gpu_threads, parseThreads,
                  "cuda-put-bw: threads per block, a multiple of 32 up to 1024 (512)");
  addParsedOption(app, "--gpu-bytes", "B", options.gpu_bytes, parseBenchSize,
                  "cuda-put-bw: bytes per repeat when --iters is not given (4G)");
  addParsedOption(app, "--kernel-bytes", "B", options.kernel_bytes, parseBenchSize,
                  "collectives: input bytes per repeat when --iters is not given (32M)");
  addParsedOption(app, "--algo", "A", options.algorithm, parseAlgorithm,
                  "allreduce: all (default), auto, one-shot, two-shot or ring");
  addParsedOption(app, "--chunk", "S", options.chunk_bytes, parseBenchSize,
                  "collectives: config.chunk_bytes (256K)");
  addParsedOption(app, "--programs", "P", options.programs, parseInRange<0, 4096>,
                  "kernels: config.programs (0 = the kernel's own choice)");
  addParsedOption(app, "--producer-sms", "P", options.producer_sms, parseInRange<0, 32>,
                  "ag-gemm on cuda, the fused-tile row: blocks that push the rows (0 = stream copies)");
  addParsedOption(app, "--tile-order", "ORDER", options.tile_order, parseTileOrder,
                  "ag-gemm on cuda, the fused-tile row: the GEMM's tile order, along N or M and its swizzle "
                  "(n1, n2, n4, n8, m1, m2, m4, m8; auto = the table's, else n1)");
  addParsedOption(app, "--m", "M", options.gemm_m, parseCount<1>, "ag-gemm/gemm-rs: rows of C (1024)");
  addParsedOption(app, "--n", "N", options.gemm_n, parseCount<1>, "ag-gemm/gemm-rs: columns of C (1024)");
  addParsedOption(app, "--k", "K", options.gemm_k, parseCount<1>,
                  "ag-gemm/gemm-rs: the inner dimension (512)");
  addParsedOption(app, "--chunks", "C", options.chunks_per_pe, parseInRange<1, 64>,
                  "ag-gemm/gemm-rs: config.chunks_per_pe (1)");
  addParsedOption(app, "--tile-m", "T", options.tile_m, parseInRange<1, 4096>,
                  "ag-gemm/gemm-rs: config.tile_m (512)");
  addParsedOption(app, "--tile-n", "T", options.tile_n, parseInRange<1, 4096>,
                  "ag-gemm/gemm-rs: config.tile_n (1024)");
  addParsedOption(app, "--dtype", "f32|bf16", options.dtype, parseDtype,
                  "kernel cases: the tensors' dtype (f32; cuda-allreduce-graph: bf16)");
  addParsedOption(app, "--graph-ops", "G", options.graph_ops, parseInRange<1, 1000>,
                  "cuda-allreduce-graph: calls captured in one graph (20)");
  addParsedOption(app, "--blas-threads", "T", options.blas_threads, parseInRange<1, 256>,
                  "OpenBLAS threads per PE (1)");
  addParsedOption(app, "--scratch", "S", options.scratch_bytes, parseBenchSize,
                  "kernels: the context's scratch bytes (0 = enough for the sizes)");
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
  options.min_size_given = app.count("--min-size") > 0;
  options.max_size_given = app.count("--max-size") > 0;
  if (options.cases.empty()) throw std::invalid_argument("no case given");
  if (options.min_size == 0 || options.min_size > options.max_size) {
    // The kernel cases have defaults of their own: only a range that is empty for them counts.
    const bool only_kernels = std::all_of(options.cases.begin(), options.cases.end(), [](Case c) {
      return c >= Case::AllReduce || c == Case::CudaAllReduceGraph;
    });
    if (!only_kernels || options.min_size == 0 || kernelSizes(options).empty())
      throw std::invalid_argument("--min-size must be in 1..--max-size");
  }
  if (hasKernelCase(options) && kernelSizes(options).empty())
    throw std::invalid_argument("the kernel cases' --min-size must be in 1..--max-size (16K..16M)");
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
    case Case::TraceCost: return "trace-cost";
    case Case::CudaPingPong: return "cuda-pingpong";
    case Case::CudaBarrier: return "cuda-barrier";
    case Case::CudaPutBw: return "cuda-put-bw";
    case Case::AllReduce: return "allreduce";
    case Case::AllGather: return "allgather";
    case Case::ReduceScatter: return "reducescatter";
    case Case::AgGemm: return "ag-gemm";
    case Case::GemmRs: return "gemm-rs";
    case Case::CudaGemmChunks: return "cuda-gemm-chunks";
    case Case::CudaAllReduceGraph: return "cuda-allreduce-graph";
    case Case::CudaGemmCutlass: return "cuda-gemm-cutlass";
    case Case::CudaGemmRsReduce: return "cuda-gemm-rs-reduce";
    case Case::CudaRingAllReduce: return "cuda-ring-allreduce";
  }
  return "?";
}

const char *pingOpName(PingOp op) {
  switch (op) {
    case PingOp::P: return "p";
    case PingOp::Signal: return "signal";
    case PingOp::PutSignal: return "put-signal";
  }
  return "?";
}

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
           c == Case::CudaGemmChunks || c == Case::CudaAllReduceGraph || c == Case::CudaGemmCutlass ||
           c == Case::CudaGemmRsReduce || c == Case::CudaRingAllReduce;
  });
}

bool hasKernelCase(const Options &options) {
  return std::any_of(options.cases.begin(), options.cases.end(), [](Case c) {
    return c == Case::AllReduce || c == Case::AllGather || c == Case::ReduceScatter ||
           c == Case::AgGemm || c == Case::GemmRs;
  });
}

namespace {

// --min-size .. --max-size by --size-factor, or low .. high where a bound is not given.
std::vector<std::size_t> sizesOr(const Options &options, std::size_t low, std::size_t high) {
  if (options.min_size_given) low = options.min_size;
  if (options.max_size_given) high = options.max_size;
  std::vector<std::size_t> sizes;
  for (std::size_t size = low; size <= high; size *= options.size_factor) sizes.push_back(size);
  return sizes;
}

}  // namespace

std::vector<std::size_t> kernelSizes(const Options &options) {
  return sizesOr(options, std::size_t{16} << 10, std::size_t{16} << 20);
}

std::vector<std::size_t> graphSizes(const Options &options) {
  return sizesOr(options, std::size_t{8} << 10, std::size_t{2} << 20);
}

std::string kernelDtype(const Options &options, const char *fallback) {
  return options.dtype.empty() ? std::string(fallback) : options.dtype;
}

long kernelIterations(const Options &options, std::size_t size) {
  if (options.iters > 0) return options.iters;
  return std::clamp<long>(static_cast<long>(options.kernel_bytes / size), 2, 1000);
}

long gemmIterations(const Options &options) { return options.iters > 0 ? options.iters : 2; }

long latencyIterations(const Options &options) {
  return options.iters > 0 ? options.iters : kDefaultLatencyIters;
}

long warmupIterations(const Options &options, long iters) {
  return options.warmup >= 0 ? options.warmup : iters;
}

}  // namespace tdist::bench
