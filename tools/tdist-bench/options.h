// options.h - command line of tdist-bench.
//
// bench/openshmem/shmem_bench.c accepts the same flags, so that bench/compare.sh can hand both
// programs one argument list and compare like with like.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tdist::bench {

enum class Case { Put, PingPong, Ring, Barrier, Switch, CudaPingPong, CudaBarrier, CudaPutBw, CudaGemmChunks };

// Whether this tdist-bench has the cuda cases (tools/tdist-bench/cuda/, built with the cuda backend).
#if defined(TDIST_BENCH_HAVE_CUDA)
constexpr bool kHaveCudaCases = true;
#else
constexpr bool kHaveCudaCases = false;
#endif

// How the ping-pong carries its flag: p() + wait_until (what OpenSHMEM 1.4 offers too), or
// signal_op(SET) + signal_wait_until (OpenSHMEM 1.5's signal API; tdist only here).
enum class PingOp { P, Signal };

struct Options {
  std::vector<Case> cases;
  int repeats = 5;                       // timed repeats; each reports one sample
  long iters = 0;                        // iterations per repeat; 0 = the case's default
  long warmup = -1;                      // untimed iterations first; -1 = one repeat's worth
  std::size_t min_size = 4u << 10;       // put sizes: min_size * size_factor^k <= max_size
  std::size_t max_size = 64u << 20;
  unsigned size_factor = 4;
  std::size_t put_bytes = 256u << 20;    // bytes moved per put repeat when iters == 0
  PingOp ping_op = PingOp::P;
  // cuda-put-bw: the grid of the SM-copy kernel (0 blocks = two per multiprocessor) and the bytes
  // moved per repeat when --iters is not given (a GPU moves in 1 ms what a core moves in 100).
  int gpu_blocks = 0;
  int gpu_threads = 512;
  std::size_t gpu_bytes = std::size_t{4} << 30;
  bool table = true;                     // the human table after the RESULT lines
  bool show_help = false;
};

constexpr long kDefaultLatencyIters = 10000;
constexpr long kDefaultSwitchIters = 100000;

// Throws std::invalid_argument with a message that names the bad flag. Values are read by
// common/value_parser.h, as tdist-run and the runtime read theirs.
Options parseOptions(int argc, char **argv);
std::string usage(const char *program);

const char *caseName(Case c);
const char *pingOpName(PingOp op);

// Iterations of one put repeat of `size` bytes.
long putIterations(const Options &options, std::size_t size);
// The same for cuda-put-bw, from --gpu-bytes.
long gpuPutIterations(const Options &options, std::size_t size);
bool hasCudaCase(const Options &options);
long latencyIterations(const Options &options);
long warmupIterations(const Options &options, long iters);

}  // namespace tdist::bench
