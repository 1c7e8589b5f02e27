// tdist-demo: a one-shot AllReduce written with the tile-centric primitives, checked on every
// PE. Run it with: tdist-run -n 4 -- tdist-demo [elements]
//
// Each PE's vector is cut into tiles. Program t of the launch pushes tile t to every peer's
// gather buffer (starting with its own PE, as the seeds' swizzle does) and notifies that tile's
// signal there; then it waits for tile t from every PE and reduces it. Tiles are reduced as
// soon as they arrive: no barrier between communication and computation.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tdist/dl.h"
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
    tdist::init(tdist::attrFromEnvironment());
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
        float *dst = tdist::dl::symm_at(gather + me * config.elements + offset, peer);
        std::memcpy(dst, input.data() + offset, sizeof(float) * config.tile_elements);
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
  }
  if (wrong != 0) status = 1;
  tdist::deallocate(wrong_total);
  tdist::deallocate(signal);
  tdist::deallocate(gather);
  tdist::finalize();
  return status;
}
