// tdist-demo: a one-shot AllReduce written with the tile-centric primitives, then the kernel
// library's all_reduce on the same 4 MiB and its all_gather_gemm, each checked on every PE
// against a host reference. Run it with: tdist-run -n 4 -- tdist-demo [elements]
//
// Each PE's vector is cut into tiles. Program t of the launch pushes tile t to every peer's
// gather buffer (starting with its own PE, as the seeds' swizzle does; a store where it has the
// peer's pointer, a put where the peer is on another node) and notifies that tile's signal there; then it waits for tile t from every PE and reduces it. Tiles are reduced as
// soon as they arrive: no barrier between communication and computation.
//
// The library (tdist/kernels/) does the same with one call: all_reduce picks its algorithm by
// size and PE count; all_gather_gemm gathers every PE's rows of A while it multiplies the rows
// already there. scripts/quickstart.sh runs MPI_Allreduce on the same data beside it
// (bench/mpi/, `tdist-mpi-peer allreduce`) and prints both times.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tdist/dl.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/gemm.h"
#include "tdist/launch.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

namespace {

struct Config {
  std::int64_t elements = 1 << 20;
  int tile_elements = 16384;
  int iterations = 20;
};

float inputValue(int pe, std::int64_t i) { return static_cast<float>((pe + 1) * (i % 1000)) * 0.5f; }

// The library's all_reduce gets the values tdist-mpi-peer's allreduce reduces (multiples of 1/4
// in -2 .. 2: every sum is exact in f32, so the check is exact whatever the order of the sum).
float libraryValue(int pe, std::int64_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + pe * 13) % 17) - 8) * 0.25f;
}
// all_gather_gemm's A and B: small integers, exact sums as well.
float aValue(std::int64_t row, std::int64_t col) { return static_cast<float>((row * 3 + col * 5) % 5 - 2); }
float bValue(std::int64_t row, std::int64_t col) { return static_cast<float>((row * 7 + col * 2) % 5 - 2); }

// Milliseconds per call of `call` over `iterations` calls, from a barrier to the barrier after
// the last call: the slowest PE's time, on every PE.
template <class Call>
double msPerCall(int iterations, Call call) {
  tdist::shmem::barrier_all();
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) call();
  tdist::shmem::barrier_all();
  return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / iterations;
}

// This PE's wrong elements summed over all PEs, on every PE (collective).
std::int64_t wrongOnAllPes(std::int64_t wrong) {
  auto *total = static_cast<std::int64_t *>(tdist::allocateZeroed(1, sizeof(std::int64_t)));
  tdist::shmem::barrier_all();
  tdist::shmem::atomic_add<std::int64_t>(total, wrong, 0);
  tdist::shmem::barrier_all();
  std::int64_t sum = tdist::shmem::atomic_fetch<std::int64_t>(total, 0);
  tdist::shmem::barrier_all();
  tdist::deallocate(total);
  return sum;
}

// The library's all_reduce of `elements` floats per PE, checked and timed; returns the wrong
// elements of every PE together.
std::int64_t libraryAllReduce(tdist::kernels::Context &ctx, std::int64_t elements, int iterations) {
  namespace kn = tdist::kernels;
  const int me = tdist::myPe(), n = tdist::nPes();
  tdist::Tensor input = tdist::createTensor({elements}, tdist::DType::F32);
  tdist::Tensor output = tdist::createTensor({elements}, tdist::DType::F32);
  for (std::int64_t i = 0; i < elements; ++i) input.as<float>()[i] = libraryValue(me, i);
  std::fill(output.as<float>(), output.as<float>() + elements, 0.0f);
  kn::all_reduce(ctx, input, output);  // the call that is checked
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < elements; ++i) {
    float expected = 0.0f;
    for (int pe = 0; pe < n; ++pe) expected += libraryValue(pe, i);
    if (output.as<float>()[i] != expected) ++wrong;
  }
  const double ms = msPerCall(iterations, [&] { kn::all_reduce(ctx, input, output); });
  const std::int64_t total = wrongOnAllPes(wrong);
  if (me == 0) {
    const std::size_t bytes = sizeof(float) * elements;
    std::printf("tdist-demo: library all_reduce of %lld floats (%.2f MiB) per PE, auto = %s: %.3f ms per call; %s\n",
                static_cast<long long>(elements), bytes / 1048576.0,
                kn::algorithmName(kn::chooseAllReduce(ctx, bytes)), ms,
                total == 0 ? "every PE's result matches the reference" : "MISMATCH");
    std::fflush(stdout);  // before a PE that failed ends, and the launcher with it the job
  }
  tdist::freeTensor(output);
  tdist::freeTensor(input);
  return total;
}

// The library's all_gather_gemm: C [n * m_local, cols] = gather(A) x B with A's rows spread over
// the PEs, checked against a host GEMM of the whole A and timed.
std::int64_t libraryAllGatherGemm(tdist::kernels::Context &ctx, std::int64_t m_local, std::int64_t k,
                                  std::int64_t cols, int iterations) {
  namespace kn = tdist::kernels;
  const int me = tdist::myPe(), n = tdist::nPes();
  const std::int64_t m = m_local * n;
  tdist::Tensor a = tdist::createTensor({m_local, k}, tdist::DType::F32);
  tdist::Tensor b = tdist::createTensor({k, cols}, tdist::DType::F32);
  tdist::Tensor c = tdist::createTensor({m, cols}, tdist::DType::F32);
  for (std::int64_t r = 0; r < m_local; ++r)
    for (std::int64_t col = 0; col < k; ++col) a.as<float>()[r * k + col] = aValue(me * m_local + r, col);
  for (std::int64_t r = 0; r < k; ++r)
    for (std::int64_t col = 0; col < cols; ++col) b.as<float>()[r * cols + col] = bValue(r, col);
  std::fill(c.as<float>(), c.as<float>() + m * cols, 0.0f);
  kn::all_gather_gemm(ctx, a, b, c);  // the call that is checked
  // The host reference: every row of C from the formulas, in double.
  std::int64_t wrong = 0;
  std::vector<double> row(cols);
  for (std::int64_t r = 0; r < m; ++r) {
    std::fill(row.begin(), row.end(), 0.0);
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const double av = aValue(r, kk);
      for (std::int64_t col = 0; col < cols; ++col) row[col] += av * bValue(kk, col);
    }
    for (std::int64_t col = 0; col < cols; ++col)
      if (static_cast<double>(c.as<float>()[r * cols + col]) != row[col]) ++wrong;
  }
  const double ms = msPerCall(iterations, [&] { kn::all_gather_gemm(ctx, a, b, c); });
  const std::int64_t total = wrongOnAllPes(wrong);
  if (me == 0) {
    std::printf("tdist-demo: library all_gather_gemm, C [%lld x %lld] = gather(A [%lld x %lld] per PE) x B "
                "[%lld x %lld]: %.3f ms per call (%.2f GFLOP/s per PE); %s\n",
                static_cast<long long>(m), static_cast<long long>(cols), static_cast<long long>(m_local),
                static_cast<long long>(k), static_cast<long long>(k), static_cast<long long>(cols), ms,
                2.0 * m * cols * k / (ms * 1e6), total == 0 ? "every PE's C matches the reference" : "MISMATCH");
    std::fflush(stdout);
  }
  tdist::freeTensor(c);
  tdist::freeTensor(b);
  tdist::freeTensor(a);
  return total;
}

}  // namespace

int main(int argc, char **argv) {
  Config config;
  if (argc > 1) config.elements = std::atoll(argv[1]);
  if (config.elements < config.tile_elements || config.elements % config.tile_elements != 0) {
    std::fprintf(stderr, "tdist-demo: elements must be a positive multiple of %d\n", config.tile_elements);
    return 2;
  }
  // Its programs load and store the heap from the host: the cpu backend's model. On a GPU the
  // device library does this from kernels (examples/cuda_ring.cu).
  if (const char *backend = std::getenv("TDIST_BACKEND"); backend != nullptr && *backend != '\0' &&
                                                         std::strcmp(backend, "cpu") != 0) {
    std::fprintf(stderr, "tdist-demo: runs on the cpu backend only (TDIST_BACKEND=%s); on a GPU run "
                 "tdist-cuda-ring\n", backend);
    return 2;
  }
  try {
    tdist::InitAttr attr = tdist::attrFromEnvironment();
    // Room for the gather buffers below and the library's context (its 64 MiB scratch).
    attr.local_mem_size = std::max<std::uint64_t>(attr.local_mem_size, std::uint64_t{256} << 20);
    tdist::init(attr);
  } catch (const tdist::Error &error) {
    std::fprintf(stderr, "tdist-demo: %s\n", error.what());
    return 1;
  }
  const int me = tdist::myPe();
  const int n = tdist::nPes();
  const int tiles = static_cast<int>(config.elements / config.tile_elements);
  constexpr std::size_t kStride = tdist::dl::kSignalSlotStride<std::int64_t>;

  std::vector<float> input(config.elements), output(config.elements);
  for (std::int64_t i = 0; i < config.elements; ++i) input[i] = inputValue(me, i);
  // gather[src][element]: every PE's input lands here; signal[src][tile] says it did.
  auto *gather = static_cast<float *>(tdist::allocate(sizeof(float) * n * config.elements));
  auto *signal = static_cast<std::int64_t *>(tdist::allocateZeroed(n * tiles * kStride, sizeof(std::int64_t)));

  auto started = std::chrono::steady_clock::now();
  for (std::int64_t epoch = 1; epoch <= config.iterations; ++epoch) {
    tdist::launch(tdist::Grid{tiles}, [&] {
      const int tile = tdist::dl::program_id();
      const std::size_t offset = static_cast<std::size_t>(tile) * config.tile_elements;
      // Communication: push this tile to every PE, then signal it with the epoch.
      for (int step = 0; step < n; ++step) {
        const int peer = (me + step) % n;
        float *mine = gather + me * config.elements + offset;
        // A store through the peer's pointer, or a put where there is none (a PE of another
        // node, reached through the network).
        if (float *dst = tdist::dl::symm_at(mine, peer)) {
          std::memcpy(dst, input.data() + offset, sizeof(float) * config.tile_elements);
        } else {
          tdist::shmem::putmem(mine, input.data() + offset, sizeof(float) * config.tile_elements, peer);
        }
        tdist::dl::notify(signal + (me * tiles + tile) * kStride, peer, epoch);
      }
      // Computation: reduce the tile from each PE as soon as it is there.
      float *out = output.data() + offset;
      std::fill(out, out + config.tile_elements, 0.0f);
      for (int step = 0; step < n; ++step) {
        const int src = (me + step) % n;
        auto token = tdist::dl::wait(signal + (src * tiles + tile) * kStride, 1, epoch);
        const float *in = tdist::dl::consume_token(gather + src * config.elements + offset, token);
        for (int i = 0; i < config.tile_elements; ++i) out[i] += in[i];
      }
    });
    // The next epoch overwrites the gather buffers: everybody must have read them.
    tdist::shmem::barrier_all();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::int64_t wrong = 0;
  const float scale = static_cast<float>(n * (n + 1) / 2);
  for (std::int64_t i = 0; i < config.elements; ++i) {
    float expected = scale * inputValue(0, i);
    if (std::fabs(output[i] - expected) > 1e-3f * std::fabs(expected) + 1e-3f) ++wrong;
  }
  std::int64_t *wrong_total = static_cast<std::int64_t *>(tdist::allocateZeroed(1, sizeof(std::int64_t)));
  tdist::shmem::atomic_add<std::int64_t>(wrong_total, wrong, 0);
  tdist::shmem::barrier_all();
  int status = 0;
  if (me == 0) {
    std::int64_t total = *wrong_total;
    std::printf("tdist-demo: one-shot AllReduce of %lld floats on %d PEs, %d tiles, %d iterations\n",
                static_cast<long long>(config.elements), n, tiles, config.iterations);
    std::printf("tdist-demo: %.3f ms per AllReduce; %s\n", 1e3 * seconds / config.iterations,
                total == 0 ? "every PE's result matches the reference" : "MISMATCH");
    if (total != 0) {
      std::printf("tdist-demo: %lld wrong elements in all\n", static_cast<long long>(total));
      status = 1;
    }
    std::fflush(stdout);
  }
  if (wrong != 0) status = 1;
  tdist::deallocate(wrong_total);
  tdist::deallocate(signal);
  tdist::deallocate(gather);

  // The same AllReduce through the kernel library, on the same number of elements, and its
  // AllGather + GEMM on a moderate shape.
  try {
    tdist::kernels::Context ctx;
    if (libraryAllReduce(ctx, config.elements, config.iterations) != 0) status = 1;
    if (libraryAllGatherGemm(ctx, 128, 256, 256, 5) != 0) status = 1;
  } catch (const tdist::Error &error) {
    std::fprintf(stderr, "tdist-demo: PE %d: %s\n", me, error.what());
    tdist::shmem::global_exit(1);
  }
  tdist::finalize();
  return status;
}
