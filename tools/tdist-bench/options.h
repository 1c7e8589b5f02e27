// options.h - command line of tdist-bench.
//
// bench/openshmem/shmem_bench.c accepts the same flags, so that bench/compare.sh can hand both
// programs one argument list and compare like with like.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tdist/kernels/gemm.h"

namespace tdist::bench {

enum class Case {
  Put, PingPong, Ring, Barrier, Switch, TraceCost, CudaPingPong, CudaBarrier, CudaPutBw, CudaGemmChunks,
  // all_reduce of the kernel library captured in CUDA graphs (tools/tdist-bench/cuda/).
  CudaAllReduceGraph,
  // One bf16 GEMM on CUTLASS against cuBLASLt (tools/tdist-bench/cuda/cutlass_gemm.cu).
  CudaGemmCutlass,
  // examples/triton/ring_allreduce.py's ring in CUDA C++ (tools/tdist-bench/cuda/ring_allreduce.cu).
  CudaRingAllReduce,
  // GEMM + ReduceScatter's sum of the partials, the library's against the replaced one
  // (tools/tdist-bench/cuda/gemm_rs_reduce.cu).
  CudaGemmRsReduce,
  // The kernel library (tdist::kernels, kernel_cases.cpp), on the backend the job runs on.
  AllReduce, AllGather, ReduceScatter, AgGemm, GemmRs,
};

// Whether this tdist-bench has the cuda cases (tools/tdist-bench/cuda/, built with the cuda backend).
#if defined(TDIST_BENCH_HAVE_CUDA)
constexpr bool kHaveCudaCases = true;
#else
constexpr bool kHaveCudaCases = false;
#endif
// Whether it has cuda-gemm-cutlass (the CUTLASS headers were found at configure time).
#if defined(TDIST_BENCH_HAVE_CUTLASS)
constexpr bool kHaveCutlassCase = true;
#else
constexpr bool kHaveCutlassCase = false;
#endif

// How the ping-pong carries its flag: p() + wait_until (what OpenSHMEM 1.4 offers too), or
// signal_op(SET) + signal_wait_until (OpenSHMEM 1.5's signal API; tdist only here).
enum class PingOp { P, Signal, PutSignal };

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
  // The kernel cases. Their sizes are bytes of each PE's input, 16 KiB .. 16 MiB unless
  // --min-size / --max-size are given (the put's defaults are other ones: min_size_given says).
  bool min_size_given = false;
  bool max_size_given = false;
  std::size_t kernel_bytes = 32u << 20;  // bytes of input per collective repeat when iters == 0
  std::string algorithm = "all";         // allreduce: all, or auto one-shot two-shot ring
  std::size_t chunk_bytes = 256u << 10;  // the collectives' config.chunk_bytes
  int programs = 0;                      // every kernel's config.programs (0 = the kernel's choice)
  int producer_sms = 0;                  // ag-gemm's fused-tile row: config.producer_sms (0 = stream copies)
  // ag-gemm's fused-tile row: the GEMM's tile order (--tile-order auto, or n / m and a swizzle:
  // n1, m4, n8), in a config's tile_raster and tile_swizzle (its other fields unused).
  tdist::kernels::AllGatherGemmConfig tile_order;
  // ag-gemm / gemm-rs: the global C [m, n] = A [m, k] x B [k, n]; ag-gemm gathers A's rows
  // (m / PEs per PE), gemm-rs splits k (k / PEs per PE) and reduce-scatters C's rows.
  long gemm_m = 1024, gemm_n = 1024, gemm_k = 512;
  int chunks_per_pe = 1;
  int tile_m = 512, tile_n = 1024;  // the library's defaults
  // The kernel cases' element type: f32 (default) or bf16; cuda-allreduce-graph: bf16 unless given.
  std::string dtype;
  int graph_ops = 20;                    // cuda-allreduce-graph: all_reduce calls captured per graph
  int blas_threads = 1;                  // openblas_set_num_threads for GEMM alone (and the kernels)
  std::size_t scratch_bytes = 0;         // the kernel context's scratch; 0 = from the sizes
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
bool hasKernelCase(const Options &options);
// The kernel cases' sizes: min_size * size_factor^k <= max_size, 16K .. 16M unless given
// (cuda-allreduce-graph: 8K .. 2M).
std::vector<std::size_t> kernelSizes(const Options &options);
std::vector<std::size_t> graphSizes(const Options &options);
// The kernel cases' dtype name, "f32" or "bf16": --dtype, else `fallback`.
std::string kernelDtype(const Options &options, const char *fallback);
// Iterations of one collective repeat of `size` bytes (--kernel-bytes / size, 2 .. 1000), and of
// one GEMM-case repeat (2).
long kernelIterations(const Options &options, std::size_t size);
long gemmIterations(const Options &options);
long latencyIterations(const Options &options);
long warmupIterations(const Options &options, long iters);

}  // namespace tdist::bench
