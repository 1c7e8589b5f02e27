// cases.h - the measurements of tdist-bench. Each is collective: every PE calls it with the same
// options, and PE 0 adds the results to the reporter.
#pragma once

#include <cstddef>
#include <vector>

#include "options.h"
#include "report.h"

namespace tdist::bench {

// putmem + quiet from PE 0 to PE 1 for every size, and PE 0's memcpy between private buffers of
// the same sizes, their repeats alternating. The other PEs wait in barrier_all meanwhile.
void runPut(const Options &options, Reporter &reporter);

// Pairs (0<->1, 2<->3, ...) ping-pong at the same time; an odd last PE sits out. The result pools
// every pair's per-repeat half round trips.
void runPingPong(const Options &options, Reporter &reporter);

// A token passed around all PEs (0 -> 1 -> ... -> n-1 -> 0); time per hop. Unlike the pairs,
// every hop needs the next PE to run, so with more PEs than cores it measures how fast a waiting
// PE hands its core over.
void runRing(const Options &options, Reporter &reporter);

// barrier_all on every PE; PE 0's time per barrier.
void runBarrier(const Options &options, Reporter &reporter);

// PE 0: ns per program switch of tdist::launch (2 programs, 1 worker, ping-ponging through
// dl::notify/dl::wait), and per round trip of raw ucontext and Boost.Context fibers; the rows
// alternate within each repeat (switch_case.cpp lists them). The other PEs wait in barrier_all.
void runSwitch(const Options &options, Reporter &reporter);

// PE 0: ns per user span of tdist/trace.h (trace_case.cpp), tracing off or on (tdist-run --trace).
void runTraceCost(const Options &options, Reporter &reporter);

// The cuda backend's cases (tools/tdist-bench/cuda/; only in a build with the cuda backend). The
// times come from the GPU: %globaltimer inside a kernel, CUDA events around a stream's work.
//
// Pairs as in runPingPong, each PE one persistent one-thread kernel: signal_op(SET) on the partner's
// slot, signal_wait_until(GE) on its own; then the same exchange between the two PEs' streams
// (signal_op_on_stream + signal_wait_until_on_stream). Full round trips.
void runCudaPingPong(const Options &options, Reporter &reporter);

// device barrier_all and sync_all, many in one kernel of one thread per PE, and
// barrier_all_on_stream (a kernel per barrier); PE 0's time per barrier.
void runCudaBarrier(const Options &options, Reporter &reporter);

// PE 0 into PE 1's heap: a kernel of putmem_block calls (SM copies), putmem_on_stream (the copy
// engine), and cudaMemcpyAsync between two private device buffers (the reference), their repeats
// alternating, with each put's ratio to the reference.
void runCudaPutBandwidth(const Options &options, Reporter &reporter);

// The kernel library's cases (kernel_cases.cpp): allreduce, allgather, reducescatter, ag-gemm,
// gemm-rs, on the job's backend, each size checked against a host reference before it is timed.
void runKernelCase(Case c, const Options &options, Reporter &reporter);
// What they need of the heap on top of the other cases (0 without a kernel case).
std::size_t kernelHeapBytesNeeded(const Options &options, int n_pes);
// PE 0 alone: one bf16 cuBLASLt GEMM of each shape (M 4096, 8192 x N 8192, 14336 x K 8192) against
// the same product as 2, 4 and 8 GEMMs of row chunks, column chunks and a 2-D grid, with the
// heuristic's algorithm or the fastest of its first few per chunk shape; efficiency = the whole
// GEMM's time over the chunks', per repeat. What decomposed overlap (kernels/cuda/ag_gemm.cu, gemm_rs.cu) pays.
void runCudaGemmChunks(const Options &options, Reporter &reporter);

// The kernel library's all_reduce (one-shot, two-shot, auto) on the cuda backend, graph-replayed:
// --graph-ops calls captured in one CUDA graph on the context's stream, the graph replayed --iters
// times a repeat; GPU time per call (CUDA events), the slowest PE's per repeat. Each size's output
// is checked against a host reference after an eager call and again after the replays.
void runCudaAllReduceGraph(const Options &options, Reporter &reporter);

// PE 0 alone (cuda-gemm-cutlass, built with the CUTLASS headers): a persistent warp-specialized
// bf16 CUTLASS GEMM against cuBLASLt on M 4096, 8192 x N 8192, 14336 x K 8192, outputs compared
// exactly, then timed alternately; ratio = CUTLASS's throughput over cuBLASLt's, per repeat.
void runCudaGemmCutlass(const Options &options, Reporter &reporter);

// PE 0 alone: GEMM + ReduceScatter's sum of 2, 4 and 8 f32 partials (1M, 4M, 16M elements) into
// bf16 and f32, the library's reduction (kernels/cuda/gemm_rs_reduce.cuh) against the one it
// replaced, checked bit-equal and timed alternately; ratio = new / old, per repeat.
void runCudaGemmRsReduce(const Options &options, Reporter &reporter);

// examples/triton/ring_allreduce.py's ring in CUDA C++ with the device library (the twin of
// bench/triton_kernels.py's allreduce case): f32, the sizes of ringAllReduceSizes, chunk / kRingTile
// blocks; GPU time per call (CUDA events after a barrier), median of --iters calls a repeat.
constexpr long kRingTile = 8192;     // floats of each chunk per block
constexpr long kRingMaxBlocks = 32;  // at most these blocks: every one waits for its peer's
std::vector<std::size_t> ringAllReduceSizes(int n_pes);
void runCudaRingAllReduce(const Options &options, Reporter &reporter);

// Symmetric heap bytes that the cases of options allocate on n_pes PEs, with room to spare.
std::size_t heapBytesNeeded(const Options &options, int n_pes);

}  // namespace tdist::bench
