// problems.cpp - the problems tdist-tune measures and their candidates (problems.h): all_reduce's
// algorithms x chunk sizes x programs; all_gather's and reduce_scatter's chunk sizes x programs x
// engines (cuda: SMs or the copy engine); the GEMMs' strategies (cuda: decomposed, fused) x
// chunks_per_pe x tiles (cpu) x programs, and on cuda the fused AllGather + GEMM's tile orders.
#include "problems.h"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "host_data.h"
#include "kernel_common.h"
#include "report.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/gemm.h"
#include "tdist/shmem.h"

namespace tdist::tune {
namespace {

namespace kn = tdist::kernels;
using bench::collectiveValue;

bool onCuda() { return std::string(tdist::backendName()) == "cuda"; }

long collectiveIters(const Options &options, std::size_t bytes) {
  if (options.iters > 0) return options.iters;
  return std::clamp<long>(static_cast<long>(options.kernel_bytes / bytes), 2, 1000);
}

// The chunk sizes worth measuring at `bytes`: those below it, and the smallest at or above it
// (every larger one moves the whole input in one chunk too).
std::vector<std::size_t> chunksFor(const Options &options, std::size_t bytes) {
  std::vector<std::size_t> sorted(options.chunks);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::size_t> chunks;
  for (std::size_t chunk : sorted) {
    chunks.push_back(chunk);
    if (chunk >= bytes) break;
  }
  return chunks;
}

std::vector<std::string> orDefault(const std::vector<std::string> &given, std::vector<std::string> fallback) {
  return given.empty() ? fallback : given;
}

kn::AllReduceAlgorithm algorithmNamed(const std::string &name) {
  for (auto a : {kn::AllReduceAlgorithm::OneShot, kn::AllReduceAlgorithm::TwoShot, kn::AllReduceAlgorithm::Ring})
    if (name == kn::algorithmName(a)) return a;
  throw std::invalid_argument("no all_reduce algorithm '" + name + "'");
}

template <class Engine>
Engine engineNamed(const std::string &name) {
  return name == "sm" ? Engine::Sm : name == "ce" ? Engine::CopyEngine : Engine::Auto;
}
template <class Engine>
const char *engineText(Engine engine) {
  return engine == Engine::Sm ? "sm" : engine == Engine::CopyEngine ? "ce" : "auto";
}

kn::GemmStrategy strategyNamed(const std::string &name) {
  return name == "decomposed" ? kn::GemmStrategy::Decomposed
         : name == "fused"    ? kn::GemmStrategy::Fused
                              : kn::GemmStrategy::Auto;
}
const char *strategyText(kn::GemmStrategy strategy) {
  return strategy == kn::GemmStrategy::Decomposed ? "decomposed"
         : strategy == kn::GemmStrategy::Fused    ? "fused"
                                                  : "auto";
}

const char *rasterText(kn::GemmRaster raster) {
  return raster == kn::GemmRaster::AlongN ? "along_n" : raster == kn::GemmRaster::AlongM ? "along_m" : "auto";
}

// The fused AllGather + GEMM's tile orders tried on cuda: today's (along N, swizzle 1), the best
// at three of the four shapes measured (along M, 4), the best at the fourth (along N, 8), and along
// M without a swizzle, within 0.3% of the best at two (docs/benchmarks/kernels_cuda.md, "The fused
// GEMM's tile order").
constexpr std::pair<kn::GemmRaster, int> kFusedTileOrders[] = {
    {kn::GemmRaster::AlongN, 1}, {kn::GemmRaster::AlongM, 4}, {kn::GemmRaster::AlongN, 8}, {kn::GemmRaster::AlongM, 1}};

std::string count(long long value) { return std::to_string(value); }

Fields allReduceFields(const kn::AllReduceConfig &c) {
  return {{"algorithm", kn::algorithmName(c.algorithm)},
          {"chunk_bytes", count(static_cast<long long>(c.chunk_bytes))},
          {"programs", count(c.programs)}};
}
template <class Config>
Fields collectiveFields(const Config &c) {
  return {{"chunk_bytes", count(static_cast<long long>(c.chunk_bytes))},
          {"programs", count(c.programs)},
          {"engine", engineText(c.engine)}};
}
template <class Config>
Fields gemmFields(const Config &c) {
  Fields fields = {{"strategy", strategyText(c.strategy)},
                   {"chunks_per_pe", count(c.chunks_per_pe)},
                   {"tile_m", count(c.tile_m)},
                   {"tile_n", count(c.tile_n)},
                   {"programs", count(c.programs)}};
  if constexpr (std::is_same_v<Config, kn::AllGatherGemmConfig>) {
    // The tile order where it is set (a fused candidate's, or Auto's as resolved), on cuda only:
    // the cpu body ignores it.
    if (onCuda() && c.tile_raster != kn::GemmRaster::Auto)
      fields.emplace_back("tile_raster", rasterText(c.tile_raster));
    if (onCuda() && c.tile_swizzle != 0) fields.emplace_back("tile_swizzle", count(c.tile_swizzle));
  }
  return fields;
}

// c, in each of kFusedTileOrders where it is a fused AllGather + GEMM on cuda; else c alone.
template <class Config>
std::vector<Config> inTileOrders(const Config &c) {
  if constexpr (std::is_same_v<Config, kn::AllGatherGemmConfig>) {
    if (onCuda() && c.strategy == kn::GemmStrategy::Fused) {
      std::vector<Config> ordered;
      for (const auto &[raster, swizzle] : kFusedTileOrders) {
        Config o = c;
        o.tile_raster = raster;
        o.tile_swizzle = swizzle;
        ordered.push_back(o);
      }
      return ordered;
    }
  }
  return {c};
}

// all_gather's and reduce_scatter's candidates: chunk sizes x programs x engines.
template <class Config, class Call>
void addCollectiveCandidates(const Options &options, const std::vector<std::size_t> &chunks,
                             const std::vector<std::string> &engines, Problem &p, Call call) {
  for (std::size_t chunk : chunks)
    for (int programs : options.programs)
      for (const std::string &engine : engines) {
        const Config c{.chunk_bytes = chunk, .programs = programs, .engine = engineNamed<decltype(c.engine)>(engine)};
        p.candidates.push_back({collectiveFields(c), [call, c](kn::Context &ctx) { call(ctx, c); }});
      }
}

Problem collectiveProblem(const Options &options, const std::string &kernel, std::size_t bytes) {
  const int n = tdist::nPes(), me = tdist::myPe();
  const DType dtype = bench::dtypeNamed(options.dtype);
  const std::size_t element = dtypeSize(dtype);
  const std::size_t multiple = kernel == "reduce_scatter" ? element * n : element;
  if (bytes % multiple != 0) {
    throw std::invalid_argument(kernel + ": size " + std::to_string(bytes) + " is not a multiple of " +
                                std::to_string(multiple) + " bytes");
  }
  const std::size_t count_in = bytes / element;
  Problem p;
  p.key.kernel = kernel;
  p.key.pes = n;
  p.key.nodes = tdist::nNodes();
  p.key.bytes = static_cast<std::int64_t>(bytes);
  p.label = kernel + " " + bench::formatBytes(bytes);
  p.iters = collectiveIters(options, bytes);
  Tensor &input = p.tensors->make({static_cast<std::int64_t>(count_in)}, dtype);
  std::vector<float> host(count_in);
  for (std::size_t i = 0; i < count_in; ++i) host[i] = collectiveValue(me, i);
  bench::upload(input, host);
  const std::vector<std::size_t> chunks = chunksFor(options, bytes);

  if (kernel == "all_reduce") {
    Tensor &output = p.tensors->make({static_cast<std::int64_t>(count_in)}, dtype);
    p.output = &output;
    p.expected = bench::allReduceExpected(n, count_in, dtype);
    for (const std::string &name : orDefault(options.algorithms, {"one-shot", "two-shot", "ring"}))
      for (std::size_t chunk : chunks)
        for (int programs : options.programs) {
          const kn::AllReduceConfig c{.algorithm = algorithmNamed(name), .chunk_bytes = chunk, .programs = programs};
          p.candidates.push_back(
              {allReduceFields(c), [&input, &output, c](kn::Context &ctx) { kn::all_reduce(ctx, input, output, c); }});
        }
    p.auto_call = [&input, &output](kn::Context &ctx) { kn::all_reduce(ctx, input, output); };
    p.resolved = [&input](const kn::Context &ctx) {
      return allReduceFields(kn::resolved_config(ctx, input, kn::AllReduceConfig{}));
    };
    return p;
  }
  const std::vector<std::string> engines =
      orDefault(options.engines, onCuda() ? std::vector<std::string>{"sm", "ce"} : std::vector<std::string>{"auto"});
  if (kernel == "all_gather") {
    Tensor &output = p.tensors->make({static_cast<std::int64_t>(count_in * n)}, dtype);
    p.output = &output;
    for (int pe = 0; pe < n; ++pe)
      for (std::size_t i = 0; i < count_in; ++i) p.expected.push_back(collectiveValue(pe, i));
    addCollectiveCandidates<kn::AllGatherConfig>(
        options, chunks, engines, p,
        [&input, &output](kn::Context &ctx, const kn::AllGatherConfig &c) { kn::all_gather(ctx, input, output, c); });
    p.auto_call = [&input, &output](kn::Context &ctx) { kn::all_gather(ctx, input, output); };
    p.resolved = [&input](const kn::Context &ctx) {
      return collectiveFields(kn::resolved_config(ctx, input, kn::AllGatherConfig{}));
    };
    return p;
  }
  // reduce_scatter
  const std::size_t block = count_in / n;
  Tensor &output = p.tensors->make({static_cast<std::int64_t>(block)}, dtype);
  p.output = &output;
  p.expected.assign(block, 0.0f);
  for (int pe = 0; pe < n; ++pe)
    for (std::size_t i = 0; i < block; ++i) p.expected[i] += collectiveValue(pe, me * block + i);
  for (float &e : p.expected) e = bench::storedAs(dtype, e);
  addCollectiveCandidates<kn::ReduceScatterConfig>(
      options, chunks, engines, p, [&input, &output](kn::Context &ctx, const kn::ReduceScatterConfig &c) {
        kn::reduce_scatter(ctx, input, output, c);
      });
  p.auto_call = [&input, &output](kn::Context &ctx) { kn::reduce_scatter(ctx, input, output); };
  p.resolved = [&input](const kn::Context &ctx) {
    return collectiveFields(kn::resolved_config(ctx, input, kn::ReduceScatterConfig{}));
  };
  return p;
}

// The GEMMs' candidates: strategies x chunks_per_pe x tiles (cpu; cuda: the first) x programs
// (x the tile orders of a fused AllGather + GEMM on cuda).
template <class Config, class Call>
void addGemmCandidates(const Options &options, Problem &p, Call call) {
  const std::vector<std::string> strategies =
      orDefault(options.strategies,
                onCuda() ? std::vector<std::string>{"decomposed", "fused"} : std::vector<std::string>{"auto"});
  std::vector<GemmShape> tiles = options.tiles;
  if (onCuda()) tiles.resize(1);  // the cuda bodies do not tile by these
  for (const std::string &strategy : strategies)
    for (int chunks : options.chunks_per_pe)
      for (const GemmShape &tile : tiles)
        for (int programs : options.programs) {
          Config c;
          c.strategy = strategyNamed(strategy);
          c.chunks_per_pe = chunks;
          c.tile_m = static_cast<int>(tile.m);
          c.tile_n = static_cast<int>(tile.n);
          c.programs = programs;
          for (const Config &o : inTileOrders(c))
            p.candidates.push_back({gemmFields(o), [call, o](kn::Context &ctx) { call(ctx, o); }});
        }
}

// A GEMM problem's tensors on the heap: a [rows, inner] and b [inner, n] (uploaded), c [c_rows, n].
struct GemmOperands {
  Tensor *a, *b, *c;
};
GemmOperands gemmOperands(Problem &p, DType dtype, long rows, long inner, long c_rows, long n,
                          const std::vector<float> &a, const std::vector<float> &b) {
  const GemmOperands o{&p.tensors->make({rows, inner}, dtype), &p.tensors->make({inner, n}, dtype),
                       &p.tensors->make({c_rows, n}, dtype)};
  bench::upload(*o.a, a);
  bench::upload(*o.b, b);
  p.output = o.c;
  p.key.m = rows;
  p.key.k = inner;
  p.key.n = n;
  return o;
}

// The candidates, the Auto call and its resolution of a GEMM problem; call(ctx, o, config) runs
// the kernel once.
template <class Config, class Call>
void setGemmCalls(const Options &options, Problem &p, const GemmOperands &o, Call call) {
  addGemmCandidates<Config>(options, p, [o, call](kn::Context &ctx, const Config &c) { call(ctx, o, c); });
  p.auto_call = [o, call](kn::Context &ctx) { call(ctx, o, Config{}); };
  p.resolved = [o](const kn::Context &ctx) { return gemmFields(kn::resolved_config(ctx, *o.a, *o.b, Config{})); };
}

Problem gemmProblem(const Options &options, const std::string &kernel, const GemmShape &shape) {
  const int n = tdist::nPes(), me = tdist::myPe();
  const DType dtype = bench::dtypeNamed(options.dtype);
  const long m = shape.m, cols = shape.n, k = shape.k;
  Problem p;
  p.key.kernel = kernel;
  p.key.pes = n;
  p.key.nodes = tdist::nNodes();
  p.key.dtype = options.dtype;
  p.iters = options.iters > 0 ? options.iters : 2;
  if (kernel == "all_gather_gemm") {
    if (m % n != 0)
      throw std::invalid_argument(kernel + ": M = " + std::to_string(m) + " is not a multiple of the PEs");
    const long m_local = m / n;
    std::vector<float> a_mine(m_local * k), b(k * cols), a_full(m * k);
    for (long r = 0; r < m; ++r)
      for (long c = 0; c < k; ++c) a_full[r * k + c] = bench::aValue(r, c);
    for (long r = 0; r < k; ++r)
      for (long c = 0; c < cols; ++c) b[r * cols + c] = bench::bValue(r, c);
    std::copy(a_full.begin() + me * m_local * k, a_full.begin() + (me + 1) * m_local * k, a_mine.begin());
    p.expected.resize(m * cols);
    bench::sgemm(m, cols, k, a_full.data(), b.data(), p.expected.data());
    const GemmOperands o = gemmOperands(p, dtype, m_local, k, m, cols, a_mine, b);
    setGemmCalls<kn::AllGatherGemmConfig>(
        options, p, o, [](kn::Context &ctx, const GemmOperands &o, const kn::AllGatherGemmConfig &c) {
          kn::all_gather_gemm(ctx, *o.a, *o.b, *o.c, nullptr, c);
        });
  } else {
    if (m % n != 0 || k % n != 0) {
      throw std::invalid_argument(kernel + ": M and K must be multiples of the PEs (M = " + std::to_string(m) +
                                  ", K = " + std::to_string(k) + ")");
    }
    const long k_local = k / n, m_block = m / n;
    std::vector<float> a_cols(m * k_local), b_rows(k_local * cols), a_block(m_block * k), b_full(k * cols);
    for (long r = 0; r < m; ++r)
      for (long c = 0; c < k_local; ++c) a_cols[r * k_local + c] = bench::aValue(r, me * k_local + c);
    for (long r = 0; r < k_local; ++r)
      for (long c = 0; c < cols; ++c) b_rows[r * cols + c] = bench::bValue(me * k_local + r, c);
    for (long r = 0; r < m_block; ++r)
      for (long c = 0; c < k; ++c) a_block[r * k + c] = bench::aValue(me * m_block + r, c);
    for (long r = 0; r < k; ++r)
      for (long c = 0; c < cols; ++c) b_full[r * cols + c] = bench::bValue(r, c);
    p.expected.resize(m_block * cols);
    bench::sgemm(m_block, cols, k, a_block.data(), b_full.data(), p.expected.data());
    const GemmOperands o = gemmOperands(p, dtype, m, k_local, m_block, cols, a_cols, b_rows);
    setGemmCalls<kn::GemmReduceScatterConfig>(
        options, p, o, [](kn::Context &ctx, const GemmOperands &o, const kn::GemmReduceScatterConfig &c) {
          kn::gemm_reduce_scatter(ctx, *o.a, *o.b, *o.c, c);
        });
  }
  for (float &e : p.expected) e = bench::storedAs(dtype, e);
  p.label = kernel + " " + options.dtype + " m=" + std::to_string(p.key.m) + " n=" + std::to_string(p.key.n) +
            " k=" + std::to_string(p.key.k);
  return p;
}

}  // namespace

HeapTensors::~HeapTensors() {
  for (auto it = tensors_.rbegin(); it != tensors_.rend(); ++it) tdist::freeTensor(**it);
}

Tensor &HeapTensors::make(std::vector<std::int64_t> shape, DType dtype) {
  tensors_.push_back(std::make_unique<Tensor>(tdist::createTensor(shape, dtype)));
  return *tensors_.back();
}

bool isGemm(const std::string &kernel) { return kernel == "all_gather_gemm" || kernel == "gemm_reduce_scatter"; }

std::size_t problemCount(const Options &options, const std::string &kernel) {
  return isGemm(kernel) ? options.shapes.size() : collectiveSizes(options).size();
}

Problem makeProblem(const Options &options, const std::string &kernel, std::size_t index) {
  if (isGemm(kernel)) return gemmProblem(options, kernel, options.shapes.at(index));
  return collectiveProblem(options, kernel, collectiveSizes(options).at(index));
}

std::string fieldsText(const Fields &fields) {
  std::string text;
  for (const auto &[name, value] : fields) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

}  // namespace tdist::tune
