// tdist-bench - micro-benchmarks of the symmetric-memory primitives.
//
//   build/bin/tdist-run -n 2 -- build/bin/tdist-bench all            # cpu backend
//   build/bin/tdist-run -n 2 -- build/bin/tdist-bench cuda --max-size 1G   # cuda backend
//   build/bin/tdist-run -n 4 -- build/bin/tdist-bench kernels         # the kernel library
//
// bench/openshmem/shmem_bench.c measures the same things against OpenSHMEM and bench/compare.sh
// puts the two side by side; bench/mpi/ (tdist-mpi-peer) measures the kernel cases with MPI and
// bench/kernels_compare.sh compares those. docs/BENCHMARKS.md explains the cases and records the
// numbers.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string_view>

#include "cases.h"
#include "options.h"
#include "report.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"
#include "tool_main.h"

namespace {

using namespace tdist::bench;

void runCases(const Options &options) {
  Reporter reporter("tdist");
  const bool leader = tdist::myPe() == 0;
  if (leader) {
    std::printf("# tdist-bench pes=%d repeats=%d iters=%ld warmup=%ld\n", tdist::nPes(),
                options.repeats, options.iters, options.warmup);
  }
  for (Case c : options.cases) {
    switch (c) {
      case Case::Put: runPut(options, reporter); break;
      case Case::PingPong: runPingPong(options, reporter); break;
      case Case::Ring: runRing(options, reporter); break;
      case Case::Barrier: runBarrier(options, reporter); break;
      case Case::Switch: runSwitch(options, reporter); break;
      case Case::TraceCost: runTraceCost(options, reporter); break;
#if defined(TDIST_BENCH_HAVE_CUDA)
      case Case::CudaPingPong: runCudaPingPong(options, reporter); break;
      case Case::CudaBarrier: runCudaBarrier(options, reporter); break;
      case Case::CudaPutBw: runCudaPutBandwidth(options, reporter); break;
      case Case::CudaGemmChunks: runCudaGemmChunks(options, reporter); break;
      case Case::CudaAllReduceGraph: runCudaAllReduceGraph(options, reporter); break;
      case Case::CudaGemmRsReduce: runCudaGemmRsReduce(options, reporter); break;
      case Case::CudaRingAllReduce: runCudaRingAllReduce(options, reporter); break;
#if defined(TDIST_BENCH_HAVE_CUTLASS)
      case Case::CudaGemmCutlass: runCudaGemmCutlass(options, reporter); break;
#else
      case Case::CudaGemmCutlass: break;  // parseOptions refuses it in a build without CUTLASS
#endif
#else
      // parseOptions refuses them in a build without the cuda backend.
      case Case::CudaPingPong:
      case Case::CudaBarrier:
      case Case::CudaPutBw:
      case Case::CudaGemmChunks:
      case Case::CudaAllReduceGraph:
      case Case::CudaGemmRsReduce:
      case Case::CudaRingAllReduce:
      case Case::CudaGemmCutlass: break;
#endif
      case Case::AllReduce:
      case Case::AllGather:
      case Case::ReduceScatter:
      case Case::AgGemm:
      case Case::GemmRs: runKernelCase(c, options, reporter); break;
    }
  }
  tdist::shmem::barrier_all();
  if (leader && options.table) reporter.printTable();
}

}  // namespace

int main(int argc, char **argv) {
  return toolMain<Options>(
      "tdist-bench", argc, argv, parseOptions, usage,
      [](tdist::InitAttr &attr, const Options &options) {
        attr.local_mem_size = std::max<std::uint64_t>(attr.local_mem_size, heapBytesNeeded(options, attr.n_pes));
        // The cuda cases need the cuda backend; unless TDIST_BACKEND names one, they choose it.
        if (hasCudaCase(options) && attr.backend.empty() && std::getenv("TDIST_BACKEND") == nullptr)
          attr.backend = "cuda";
      },
      runCases);
}
