// cuda-allreduce-graph: the kernel library's all_reduce on the cuda backend, graph-replayed: the
// latency a model's decode step sees, without the host's launch gaps. For every size and
// algorithm (one-shot, two-shot, and auto), --graph-ops calls are captured into one CUDA graph on
// the context's stream; a repeat replays it --iters times between two CUDA events after a host
// barrier, and its sample is the GPU time per call. Variants alternate repeat by repeat. PE 0
// reports the slowest PE's sample of each repeat.
//
// The floor: a graph of --graph-ops launches of an empty kernel of one 512-thread block (the grid of
// a small call), timed the same way at the first size and reported as variant=empty-node: what any
// one-kernel call costs as a graph node on this GPU before it does anything.
//
// Correctness: the output is checked exactly against a host reference after an eager call and
// again after the timed replays (the epochs that the graph's kernels read on the device must have
// moved on replay after replay, or the waits would pass early and the sums be wrong).
#include <cuda_runtime_api.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "cuda/gpu.cuh"
#include "host_data.h"
#include "kernel_common.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/context.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace tdist::bench {
namespace {

namespace kn = tdist::kernels;

constexpr long kDefaultReplays = 10;

__global__ void __launch_bounds__(512) emptyNode() {}

// An instantiated graph of `ops` calls captured on `stream`.
class CapturedGraph {
 public:
  CapturedGraph(cudaStream_t stream, int ops, const std::function<void()> &call) {
    // Thread-local: the runtime's watchdog thread may query its events meanwhile.
    gpu::check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      for (int i = 0; i < ops; ++i) call();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    gpu::check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t status = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    gpu::check(status, "cudaGraphInstantiate");
  }
  ~CapturedGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  CapturedGraph(const CapturedGraph &) = delete;
  CapturedGraph &operator=(const CapturedGraph &) = delete;
  void launch(cudaStream_t stream) const { gpu::check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

struct Variant {
  std::string name;
  kn::AllReduceConfig config;
  std::unique_ptr<CapturedGraph> graph;
  std::vector<double> us;
  bool checked = true;  // false for the empty node: no output to check
};

}  // namespace

void runCudaAllReduceGraph(const Options &options, Reporter &reporter) {
  gpu::useBackendDevice();
  const int n = shmem::n_pes(), me = shmem::my_pe();
  const DType dtype = dtypeNamed(kernelDtype(options, "bf16"));
  const long replays = options.iters > 0 ? options.iters : kDefaultReplays;
  const int ops = options.graph_ops;
  std::size_t largest = 0;
  for (std::size_t size : graphSizes(options)) largest = std::max(largest, size);
  gpu::Stream stream;
  kn::ContextOptions context_options;
  // The one-shot keeps two parities of every source's whole input in the first half of the scratch.
  context_options.scratch_bytes = std::max<std::size_t>(options.scratch_bytes, 8 * n * largest + (16u << 20));
  context_options.stream = stream.get();
  kn::Context ctx(context_options);
  gpu::EventTimer timer;

  for (std::size_t size : graphSizes(options)) {
    if (size % dtypeSize(dtype) != 0) throw std::invalid_argument("cuda-allreduce-graph: size " + std::to_string(size) + " is not a multiple of the dtype");
    const std::size_t count = size / dtypeSize(dtype);
    Tensor input = tdist::createTensor({static_cast<std::int64_t>(count)}, dtype);
    Tensor output = tdist::createTensor({static_cast<std::int64_t>(count)}, dtype);
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = collectiveValue(me, i);
    const std::vector<float> expected = allReduceExpected(n, count, dtype);
    upload(input, host);

    std::vector<Variant> variants;
    for (auto algorithm : {kn::AllReduceAlgorithm::OneShot, kn::AllReduceAlgorithm::TwoShot, kn::AllReduceAlgorithm::Auto}) {
      if (options.algorithm != "all" && options.algorithm != kn::algorithmName(algorithm)) continue;
      Variant v;
      v.config.algorithm = algorithm;
      v.config.chunk_bytes = options.chunk_bytes;
      v.config.programs = options.programs;
      v.name = std::string("variant=") + kn::algorithmName(algorithm);
      if (algorithm == kn::AllReduceAlgorithm::Auto)
        v.name += std::string(" picked=") + kn::algorithmName(kn::chooseAllReduce(ctx, size));
      v.name += std::string(" dtype=") + dtypeName(dtype) + " graph_ops=" + std::to_string(ops);
      variants.push_back(std::move(v));
    }
    if (options.algorithm == "all" && size == graphSizes(options).front()) {
      Variant floor;
      floor.name = "variant=empty-node graph_ops=" + std::to_string(ops);
      floor.checked = false;
      variants.push_back(std::move(floor));
    }
    if (variants.empty()) throw std::invalid_argument("cuda-allreduce-graph: no algorithm '" + options.algorithm + "' (one-shot, two-shot, auto)");

    for (Variant &v : variants) {
      if (!v.checked) {
        cudaStream_t raw = stream.get();
        v.graph = std::make_unique<CapturedGraph>(raw, ops, [raw] {
          emptyNode<<<1, 512, 0, raw>>>();
          gpu::check(cudaGetLastError(), "emptyNode launch");
        });
        v.graph->launch(raw);  // warm-up replay
        stream.synchronize();
        continue;
      }
      // Eager first, checked; then the capture (the library's host checks run once, here).
      upload(output, std::vector<float>(count, 0.0f));
      shmem::barrier_all();
      kn::all_reduce(ctx, input, output, v.config);
      ctx.synchronize();
      requireEqual("cuda-allreduce-graph " + v.name + " " + formatBytes(size) + " (eager)", download(output), expected);
      v.graph = std::make_unique<CapturedGraph>(stream.get(), ops, [&] { kn::all_reduce(ctx, input, output, v.config); });
      shmem::barrier_all();
      v.graph->launch(stream.get());  // warm-up replay
      stream.synchronize();
    }
    for (int r = 0; r < options.repeats; ++r) {
      for (Variant &v : variants) {
        shmem::barrier_all();
        timer.start(stream.get());
        for (long i = 0; i < replays; ++i) v.graph->launch(stream.get());
        timer.stop(stream.get());
        v.us.push_back(timer.seconds() * 1e6 / static_cast<double>(replays * ops));
      }
    }
    for (Variant &v : variants) {
      upload(output, std::vector<float>(count, 0.0f));
      shmem::barrier_all();
      v.graph->launch(stream.get());
      stream.synchronize();
      if (v.checked) requireEqual("cuda-allreduce-graph " + v.name + " " + formatBytes(size) + " (replayed)", download(output), expected);
      const std::vector<double> slowest = slowestPe(v.us);
      if (me == 0) reporter.add(rowResult("cuda-allreduce-graph", v.name, size, replays * ops, slowest, 0, 0));
    }
    variants.clear();
    shmem::barrier_all();
    tdist::freeTensor(output);
    tdist::freeTensor(input);
  }
}

}  // namespace tdist::bench
