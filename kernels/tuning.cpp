// kernels/tuning.cpp - the tuning table in the kernel library: the table a Context reads, and
// the resolution of a call's Auto fields from it (include/tdist/kernels/tuning.h has the rule;
// docs/TUNING.md the file). Without a table every field resolves to what the library chose before
// tables existed: chunk_bytes 256 KiB, chunks_per_pe 1, tile 512 x 1024, the fused GEMM's tiles
// along N with swizzle 1, all_reduce's algorithm by chooseAllReduce's rule, engines, strategies and
// programs left to the bodies.
#include "kernels/tuning.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "kernels/checks.h"
#include "kernels/context_state.h"
#include "tdist/runtime.h"

namespace tdist::kernels {
namespace {

constexpr std::size_t kDefaultChunkBytes = 256u << 10;
constexpr int kDefaultChunksPerPe = 1;
constexpr int kDefaultTileM = 512;
constexpr int kDefaultTileN = 1024;
// Along N, so that a wave of the fused AllGather + GEMM waits for few row chunks; other orders
// measured up to 6% faster on some shapes, the tuner's to choose (docs/benchmarks/kernels_cuda.md,
// "The fused GEMM's tile order").
constexpr GemmRaster kDefaultRaster = GemmRaster::AlongN;
constexpr int kDefaultSwizzle = 1;

const TuningTable *tableOf(const Context &ctx) { return detail::ContextAccess::state(ctx).tuning.get(); }

// The value of `field` in the call's entry, or null.
const std::string *fieldOf(const TuningEntry *entry, const char *field) {
  if (entry == nullptr) return nullptr;
  for (const auto &[name, value] : entry->fields)
    if (name == field) return &value;
  return nullptr;
}

// The table's values were checked when it was read (kernels/tuning_table.cpp).
long long integerOf(const std::string &value) { return std::stoll(value); }

// A call's key: the kernel, this job's PEs and nodes.
TuningEntry callKey(const char *kernel) {
  TuningEntry call;
  call.kernel = kernel;
  call.pes = nPes();
  call.nodes = nNodes();
  return call;
}

const TuningEntry *collectiveEntry(const Context &ctx, const char *kernel, std::size_t bytes) {
  const TuningTable *table = tableOf(ctx);
  if (table == nullptr) return nullptr;
  TuningEntry call = callKey(kernel);
  call.bytes = static_cast<std::int64_t>(bytes);
  return table->lookup(call);
}

const TuningEntry *gemmEntry(const Context &ctx, const char *kernel, const Tensor &a, const Tensor &b) {
  const TuningTable *table = tableOf(ctx);
  if (table == nullptr || a.shape.size() != 2 || b.shape.size() != 2) return nullptr;
  if (a.dtype != DType::F32 && a.dtype != DType::BF16) return nullptr;
  TuningEntry call = callKey(kernel);
  call.dtype = a.dtype == DType::F32 ? "f32" : "bf16";
  call.m = a.shape[0], call.n = b.shape[1], call.k = a.shape[1];
  return table->lookup(call);
}

AllReduceAlgorithm algorithmNamed(const std::string &name) {
  for (auto a : {AllReduceAlgorithm::OneShot, AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Ring})
    if (name == algorithmName(a)) return a;
  return AllReduceAlgorithm::Auto;
}

// What each PE receives in a one-shot all_reduce, (n - 1) x bytes, up to which Auto takes the
// one-shot where peers are reached through the network: 2 PEs on 2 nodes, f32, the one-shot
// 0.62-0.93x the two-shot's time up to 32 KiB, the same at 64 KiB, 1.4-1.7x at 128 KiB; 4 PEs on
// 2 nodes 0.72-0.91x up to 16 KiB, 1.1x at 32 KiB (docs/RUNTIME.md, "all_reduce's Auto across
// nodes"). The calls whose data the cpu backend carries with the handshake (checks.h).
constexpr std::size_t kNetworkOneShotReceivedBytes = detail::kCarriedReceivedBytes;

// all_reduce's Auto without a tuning table: the two-shot on more than one PE, as measured, but
// for small calls among peers of other nodes. On cpu it pulls its blocks straight from the
// peers' inputs (one signal step, as the one-shot, and 1/n of the reduction work) and measured
// faster than the one-shot from 16 KiB on 2 and 4 PEs of one node; on cuda, graph-replayed bf16
// 8 KiB .. 2 MiB on one H200, 5.0-8.8 us against the one-shot's 5.7-12.1 on 2 PEs and 10.5-14.6
// against 11.7-27.3 on 4 (docs/BENCHMARKS.md). Across nodes the two-shot pushes its blocks and
// then the reduced blocks, two steps through the network where the one-shot takes one.
AllReduceAlgorithm builtInAllReduce(const Context &ctx, std::size_t bytes) {
  const int n = nPes();
  if (n == 1) return AllReduceAlgorithm::OneShot;
  if (bytes * static_cast<std::size_t>(n - 1) <= kNetworkOneShotReceivedBytes &&
      detail::ContextAccess::state(ctx).network_peers) {
    return AllReduceAlgorithm::OneShot;
  }
  return AllReduceAlgorithm::TwoShot;
}

template <class Engine>
Engine engineNamed(const std::string &name) {
  return name == "sm" ? Engine::Sm : name == "ce" ? Engine::CopyEngine : Engine::Auto;
}

GemmStrategy strategyNamed(const std::string &name) {
  return name == "decomposed" ? GemmStrategy::Decomposed : name == "fused" ? GemmStrategy::Fused : GemmStrategy::Auto;
}

GemmRaster rasterNamed(const std::string &name) {
  return name == "along_n" ? GemmRaster::AlongN : name == "along_m" ? GemmRaster::AlongM : GemmRaster::Auto;
}

// chunk_bytes and programs of every collective.
template <class Config>
void resolveChunking(const TuningEntry *entry, Config &r) {
  if (r.chunk_bytes == 0) {
    const std::string *v = fieldOf(entry, "chunk_bytes");
    r.chunk_bytes = v ? static_cast<std::size_t>(integerOf(*v)) : kDefaultChunkBytes;
  }
  if (const std::string *v = fieldOf(entry, "programs"); v && r.programs == 0)
    r.programs = static_cast<int>(integerOf(*v));
}

// ... and the engine of all_gather and reduce_scatter.
template <class Config>
Config resolvedCollective(const TuningEntry *entry, const Config &config) {
  Config r = config;
  resolveChunking(entry, r);
  using Engine = decltype(config.engine);
  if (const std::string *v = fieldOf(entry, "engine"); v && r.engine == Engine::Auto)
    r.engine = engineNamed<Engine>(*v);
  return r;
}

template <class Config>
Config resolvedGemm(const TuningEntry *entry, const Config &config) {
  Config r = config;
  const auto take = [entry](int &field, const char *name, int fallback) {
    if (field != 0) return;
    const std::string *v = fieldOf(entry, name);
    field = v ? static_cast<int>(integerOf(*v)) : fallback;
  };
  take(r.chunks_per_pe, "chunks_per_pe", kDefaultChunksPerPe);
  take(r.tile_m, "tile_m", kDefaultTileM);
  take(r.tile_n, "tile_n", kDefaultTileN);
  take(r.programs, "programs", 0);
  if (const std::string *v = fieldOf(entry, "strategy"); v && r.strategy == GemmStrategy::Auto)
    r.strategy = strategyNamed(*v);
  return r;
}

std::atomic<bool> said_ignored{false};

}  // namespace

namespace detail {

std::shared_ptr<const TuningTable> loadTuningTable(const std::string &option, const std::string &backend,
                                                   std::string &path) {
  path.clear();
  const std::string where = option.empty() ? tuning_table_path() : option;
  if (where == "none") return nullptr;
  std::optional<TuningTable> table = TuningTable::load(where);
  if (!table) return nullptr;  // no table: the library's own choices
  const std::string device = tuning_device();
  if (table->backend != backend || table->device != device) {
    if (myPe() == 0 && !said_ignored.exchange(true)) {
      std::fprintf(stderr,
                   "tdist::kernels: note: the tuning table %s was measured on backend %s, device '%s'; this job "
                   "runs backend %s, device '%s': it is ignored (the library's own choices; tdist-tune writes a "
                   "table for this machine, docs/TUNING.md)\n",
                   where.c_str(), table->backend.c_str(), table->device.c_str(), backend.c_str(), device.c_str());
    }
    return nullptr;
  }
  path = where;
  return std::make_shared<const TuningTable>(std::move(*table));
}

std::string tuningDigest(const TuningTable *table) {
  if (table == nullptr) return "none";
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : table->format()) hash = (hash ^ c) * 1099511628211ull;
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace detail

AllReduceAlgorithm chooseAllReduce(const Context &ctx, std::size_t bytes) {
  const std::string *v = fieldOf(collectiveEntry(ctx, "all_reduce", bytes), "algorithm");
  const AllReduceAlgorithm tuned = v ? algorithmNamed(*v) : AllReduceAlgorithm::Auto;
  return tuned != AllReduceAlgorithm::Auto ? tuned : builtInAllReduce(ctx, bytes);
}

namespace {

bool same(const AllReduceConfig &a, const AllReduceConfig &b) {
  return a.algorithm == b.algorithm && a.chunk_bytes == b.chunk_bytes && a.programs == b.programs;
}
template <class Config>
bool same(const Config &a, const Config &b) {  // all_gather's and reduce_scatter's
  return a.chunk_bytes == b.chunk_bytes && a.programs == b.programs && a.engine == b.engine;
}

// resolve(), or the context's last resolution where the size and the config as given are the same
// (with a table: the lookup compares names and parses values, ~0.3 us a call).
template <class Config, class Resolve>
Config remembered(const Context &ctx, ResolvedConfig<Config> &memo, std::size_t bytes, const Config &config,
                  Resolve &&resolve) {
  if (tableOf(ctx) == nullptr) return resolve();  // the library's own choices: nothing to look up
  if (memo.valid && memo.bytes == bytes && same(memo.given, config)) return memo.resolved;
  memo.resolved = resolve();
  memo.bytes = bytes;
  memo.given = config;
  memo.valid = true;
  return memo.resolved;
}

}  // namespace

AllReduceConfig resolved_config(const Context &ctx, const Tensor &input, const AllReduceConfig &config) {
  const std::size_t bytes = input.nbytes();
  return remembered(ctx, detail::ContextAccess::state(ctx).resolved_all_reduce, bytes, config, [&] {
    const TuningEntry *entry = collectiveEntry(ctx, "all_reduce", bytes);
    AllReduceConfig r = config;
    if (r.algorithm == AllReduceAlgorithm::Auto) r.algorithm = chooseAllReduce(ctx, bytes);
    resolveChunking(entry, r);
    return r;
  });
}

AllGatherConfig resolved_config(const Context &ctx, const Tensor &input, const AllGatherConfig &config) {
  const std::size_t bytes = input.nbytes();
  return remembered(ctx, detail::ContextAccess::state(ctx).resolved_all_gather, bytes, config,
                    [&] { return resolvedCollective(collectiveEntry(ctx, "all_gather", bytes), config); });
}

ReduceScatterConfig resolved_config(const Context &ctx, const Tensor &input, const ReduceScatterConfig &config) {
  const std::size_t bytes = input.nbytes();
  return remembered(ctx, detail::ContextAccess::state(ctx).resolved_reduce_scatter, bytes, config,
                    [&] { return resolvedCollective(collectiveEntry(ctx, "reduce_scatter", bytes), config); });
}

AllGatherGemmConfig resolved_config(const Context &ctx, const Tensor &a, const Tensor &b,
                                    const AllGatherGemmConfig &config) {
  const TuningEntry *entry = gemmEntry(ctx, "all_gather_gemm", a, b);
  AllGatherGemmConfig r = resolvedGemm(entry, config);
  // The fused GEMM's tile order: a table's "auto" or 0 is the library's order too.
  if (r.tile_raster == GemmRaster::Auto) {
    const std::string *v = fieldOf(entry, "tile_raster");
    r.tile_raster = v ? rasterNamed(*v) : GemmRaster::Auto;
    if (r.tile_raster == GemmRaster::Auto) r.tile_raster = kDefaultRaster;
  }
  if (r.tile_swizzle == 0) {
    const std::string *v = fieldOf(entry, "tile_swizzle");
    r.tile_swizzle = v ? static_cast<int>(integerOf(*v)) : 0;
    if (r.tile_swizzle == 0) r.tile_swizzle = kDefaultSwizzle;
  }
  return r;
}

GemmReduceScatterConfig resolved_config(const Context &ctx, const Tensor &a, const Tensor &b,
                                        const GemmReduceScatterConfig &config) {
  return resolvedGemm(gemmEntry(ctx, "gemm_reduce_scatter", a, b), config);
}

}  // namespace tdist::kernels
