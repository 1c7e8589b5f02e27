// kernel_cases.cpp - the kernel library (tdist::kernels) under tdist-bench: allreduce (every
// algorithm and auto), allgather, reducescatter, and the overlap GEMMs beside their parts.
//
// Every case runs on the job's backend through the library's API; a repeat ends with
// ctx.synchronize(), so on cuda it times the stream's work, on cpu (where a call runs to completion)
// it costs nothing. A sample is the slowest PE's time per call in that repeat: every PE times its
// own repeat from a common barrier, and PE 0 reports the maximum. Variants of one size alternate
// within each repeat, as put and memcpy do, so that all of them see the same machine.
//
// Before a size is timed, each variant's output is checked once against a host reference on every
// PE. The inputs are small multiples of 1/4 (GEMM: small integers), so every sum is exact in f32
// whatever its order and the check is an exact comparison.
//
// ag-gemm and gemm-rs also time, in the same repeats, the same PE's GEMM alone and the
// communication alone (all_gather / reduce_scatter of the same bytes through the library), and
// report ideal = max(GEMM, comm) and serial = GEMM + comm of each repeat: a fused kernel that
// overlaps perfectly runs at the ideal. The GEMM alone is OpenBLAS cblas_sgemm of the local work on
// private host buffers on cpu, and one cuBLASLt GEMM of the whole local shape on cuda
// (cuda/device_gemm.h). On cuda a fourth row, sequential, runs the library's collective and that
// cuBLASLt GEMM one after the other on the stream: the "cuBLAS plus copies" a user would write.
// --dtype bf16 makes every tensor bf16 (the GEMM alone on cpu stays f32 OpenBLAS).
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.h"
#include "host_data.h"
#include "kernel_common.h"
#include "tdist/kernels/collectives.h"
#include "tdist/kernels/context.h"
#include "tdist/kernels/gemm.h"
#include "tdist/runtime.h"
#include "tdist/shmem.h"

#if defined(TDIST_BENCH_HAVE_CUDA)
#include "cuda/device_gemm.h"
#endif

namespace tdist::bench {

namespace shmem = tdist::shmem;
namespace kn = tdist::kernels;

namespace {

// Warms every row up, times them alternately, reports each (slowest PE per repeat) from PE 0.
// Returns the reported samples, row by row.
std::vector<std::vector<double>> timeRows(const Options &options, Reporter &reporter, kn::Context &ctx,
                                          const char *case_name, std::size_t size, long iters,
                                          std::vector<Row> &rows) {
  std::vector<std::vector<double>> reported =
      timeAlternately(ctx, rows, warmupIterations(options, iters), options.repeats, iters);
  if (shmem::my_pe() == 0)
    for (std::size_t i = 0; i < rows.size(); ++i)
      reporter.add(rowResult(case_name, rows[i].variant, size, iters, reported[i], rows[i].vcsw, rows[i].ivcsw));
  return reported;
}

// The context: scratch enough for what the largest size may stage (every PE's block, twice for
// double-buffering), unless --scratch says.
std::size_t scratchFor(const Options &options, int n_pes) {
  if (options.scratch_bytes > 0) return options.scratch_bytes;
  std::size_t largest = 0;
  for (std::size_t size : kernelSizes(options)) largest = std::max(largest, size);
  const std::size_t a_bytes = sizeof(float) * options.gemm_m * options.gemm_k;
  const std::size_t c_bytes = sizeof(float) * options.gemm_m * options.gemm_n;
  const std::size_t need = 2 * std::max({largest * n_pes, a_bytes, c_bytes * 2});
  return std::max<std::size_t>(need, 64u << 20);
}

kn::ContextOptions contextOptions(const Options &options) {
  kn::ContextOptions o;
  o.scratch_bytes = scratchFor(options, shmem::n_pes());
  return o;
}

DType caseDtype(const Options &options) { return dtypeNamed(kernelDtype(options, "f32")); }

// The elements of `size` bytes of dtype, which must divide over `multiple` PEs.
std::size_t elementsOf(const char *case_name, std::size_t size, int multiple, DType dtype) {
  const std::size_t element = dtypeSize(dtype);
  if (size % (element * multiple) != 0)
    throw std::invalid_argument(std::string(case_name) + ": size " + std::to_string(size) + " is not a multiple of " +
                                std::to_string(element) + " bytes x " + std::to_string(multiple) + " PEs");
  return size / element;
}

Tensor tensor1d(std::size_t count, DType dtype) {
  return tdist::createTensor({static_cast<std::int64_t>(count)}, dtype);
}

std::string sizeText(std::size_t size) { return formatBytes(size); }

// ---- the collectives ---------------------------------------------------------------------------

// The engines a collective's rows compare: on cuda SMs, the copy engine and Auto's choice; on cpu
// only the one body (Auto).
template <class Engine>
std::vector<Engine> enginesOf(const kn::Context &ctx) {
  if (ctx.backend() == "cuda") return {Engine::Sm, Engine::CopyEngine, Engine::Auto};
  return {Engine::Auto};
}

// engine=sm / engine=ce / engine=auto on cuda; nothing on cpu (the rows keep their names there).
std::string engineVariant(const kn::Context &ctx, int engine) {
  if (ctx.backend() != "cuda") return {};
  static constexpr const char *kNames[] = {"engine=auto", "engine=sm", "engine=ce"};
  return kNames[engine];
}

void runAllReduceCase(const Options &options, Reporter &reporter) {
  const int n = shmem::n_pes(), me = shmem::my_pe();
  kn::Context ctx(contextOptions(options));
  std::vector<kn::AllReduceAlgorithm> algorithms;
  for (auto a : {kn::AllReduceAlgorithm::Auto, kn::AllReduceAlgorithm::OneShot, kn::AllReduceAlgorithm::TwoShot,
                 kn::AllReduceAlgorithm::Ring})
    if (options.algorithm == "all" || options.algorithm == kn::algorithmName(a)) algorithms.push_back(a);
  if (algorithms.empty())
    throw std::invalid_argument("allreduce: the library knows no algorithm '" + options.algorithm + "'");

  const DType dtype = caseDtype(options);
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = elementsOf("allreduce", size, 1, dtype);
    Tensor input = tensor1d(count, dtype), output = tensor1d(count, dtype);
    std::vector<float> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = collectiveValue(me, i);
    const std::vector<float> expected = allReduceExpected(n, count, dtype);
    upload(input, host);

    std::vector<Row> rows;
    for (auto algorithm : algorithms) {
      kn::AllReduceConfig config;
      config.algorithm = algorithm;
      config.chunk_bytes = options.chunk_bytes;
      config.programs = options.programs;
      std::string variant = std::string("variant=") + kn::algorithmName(algorithm);
      if (algorithm == kn::AllReduceAlgorithm::Auto)
        variant += std::string(" picked=") + kn::algorithmName(kn::chooseAllReduce(ctx, size));
      Row row{.variant = variant, .us = {}, .call = [&ctx, &input, &output, config] {
                kn::all_reduce(ctx, input, output, config);
              }};
      addCheckedRow(rows, std::move(row), ctx, output, expected, "allreduce " + variant + " " + sizeText(size));
    }
    timeRows(options, reporter, ctx, "allreduce", size, kernelIterations(options, size), rows);
    tdist::freeTensor(output);
    tdist::freeTensor(input);
  }
}

void runAllGatherCase(const Options &options, Reporter &reporter) {
  const int n = shmem::n_pes(), me = shmem::my_pe();
  kn::Context ctx(contextOptions(options));
  kn::AllGatherConfig config;
  config.chunk_bytes = options.chunk_bytes;
  config.programs = options.programs;
  const DType dtype = caseDtype(options);
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = elementsOf("allgather", size, 1, dtype);
    Tensor input = tensor1d(count, dtype), output = tensor1d(count * n, dtype);
    std::vector<float> host(count), expected(count * n);
    for (std::size_t i = 0; i < count; ++i) host[i] = collectiveValue(me, i);
    for (int pe = 0; pe < n; ++pe)
      for (std::size_t i = 0; i < count; ++i) expected[pe * count + i] = collectiveValue(pe, i);
    upload(input, host);
    std::vector<Row> rows;
    for (auto engine : enginesOf<kn::AllGatherConfig::Engine>(ctx)) {
      kn::AllGatherConfig c = config;
      c.engine = engine;
      const std::string variant = engineVariant(ctx, static_cast<int>(engine));
      addCheckedRow(rows,
                    Row{.variant = variant, .us = {},
                        .call = [&ctx, &input, &output, c] { kn::all_gather(ctx, input, output, c); }},
                    ctx, output, expected, "allgather " + variant + " " + sizeText(size));
    }
    timeRows(options, reporter, ctx, "allgather", size, kernelIterations(options, size), rows);
    tdist::freeTensor(output);
    tdist::freeTensor(input);
  }
}

void runReduceScatterCase(const Options &options, Reporter &reporter) {
  const int n = shmem::n_pes(), me = shmem::my_pe();
  kn::Context ctx(contextOptions(options));
  kn::ReduceScatterConfig config;
  config.chunk_bytes = options.chunk_bytes;
  config.programs = options.programs;
  const DType dtype = caseDtype(options);
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = elementsOf("reducescatter", size, n, dtype);
    const std::size_t block = count / n;
    Tensor input = tensor1d(count, dtype), output = tensor1d(block, dtype);
    std::vector<float> host(count), expected(block, 0.0f);
    for (std::size_t i = 0; i < count; ++i) host[i] = collectiveValue(me, i);
    for (int pe = 0; pe < n; ++pe)
      for (std::size_t i = 0; i < block; ++i) expected[i] += collectiveValue(pe, me * block + i);
    for (float &e : expected) e = storedAs(dtype, e);
    upload(input, host);
    std::vector<Row> rows;
    for (auto engine : enginesOf<kn::ReduceScatterConfig::Engine>(ctx)) {
      kn::ReduceScatterConfig c = config;
      c.engine = engine;
      const std::string variant = engineVariant(ctx, static_cast<int>(engine));
      addCheckedRow(rows,
                    Row{.variant = variant, .us = {},
                        .call = [&ctx, &input, &output, c] { kn::reduce_scatter(ctx, input, output, c); }},
                    ctx, output, expected, "reducescatter " + variant + " " + sizeText(size));
    }
    timeRows(options, reporter, ctx, "reducescatter", size, kernelIterations(options, size), rows);
    tdist::freeTensor(output);
    tdist::freeTensor(input);
  }
}

// ---- the overlap GEMMs -------------------------------------------------------------------------

std::string shapeText(const Options &options) {
  return "m=" + std::to_string(options.gemm_m) + " n=" + std::to_string(options.gemm_n) +
         " k=" + std::to_string(options.gemm_k);
}

// Reports ideal = max(GEMM, comm) and serial = GEMM + comm of each repeat (rows 1 and 2 of
// `reported`: the slowest PE's, repeat by repeat).
// ideal = max(gemm, comm) and serial = gemm + comm, repeat by repeat, from the rows of those names
// (wherever they are among the case's rows).
void reportIdeal(Reporter &reporter, const char *case_name, const std::string &shape, std::size_t size,
                 long iters, const std::vector<Row> &rows, const std::vector<std::vector<double>> &reported) {
  if (shmem::my_pe() != 0) return;
  const auto named = [&](const std::string &variant) -> const std::vector<double> & {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].variant == "variant=" + variant + " " + shape) return reported[i];
    throw std::logic_error(std::string(case_name) + ": no " + variant + " row");
  };
  const std::vector<double> &gemm = named("gemm"), &comm = named("comm");
  std::vector<double> ideal, serial;
  for (std::size_t r = 0; r < gemm.size() && r < comm.size(); ++r) {
    ideal.push_back(std::max(gemm[r], comm[r]));
    serial.push_back(gemm[r] + comm[r]);
  }
  reporter.add(rowResult(case_name, "variant=ideal " + shape, size, iters, ideal, 0, 0));
  reporter.add(rowResult(case_name, "variant=serial " + shape, size, iters, serial, 0, 0));
}

// Within `tolerance` x (1 + |expected|) everywhere: for a baseline whose bf16 partials are rounded
// before they are summed (the library rounds once), where exact equality cannot hold.
void requireClose(const std::string &what, const std::vector<float> &got, const std::vector<float> &expected,
                  float tolerance) {
  std::vector<float> clipped(got);
  for (std::size_t i = 0; i < got.size() && i < expected.size(); ++i)
    if (std::fabs(got[i] - expected[i]) <= tolerance * (1.0f + std::fabs(expected[i]))) clipped[i] = expected[i];
  requireEqual(what, clipped, expected);
}

// A flat tensor seen as the [rows, cols] matrix it holds (no memory of its own).
Tensor matrixView(const Tensor &flat, long rows, long cols) {
  Tensor view;
  view.data = flat.data;
  view.dtype = flat.dtype;
  view.shape = {rows, cols};
  view.strides = {cols, 1};
  return view;
}

// The GEMM of the comparison rows: on cpu OpenBLAS sgemm of host f32 buffers; on cuda one cuBLASLt
// GEMM of the whole shape on the context's stream (tools/tdist-bench/cuda/device_gemm.h).
class LocalGemm {
 public:
  LocalGemm(kn::Context &ctx, long m, long n, long k, DType dtype) : m_(m), n_(n), k_(k) {
#if defined(TDIST_BENCH_HAVE_CUDA)
    if (ctx.backend() == "cuda") {
      device_ = std::make_unique<DeviceGemm>(m, n, k, dtype, ctx.stream());
      output_ = std::make_unique<DeviceMemory>(static_cast<std::size_t>(m * n) * dtypeSize(dtype));
      return;
    }
#endif
    (void)ctx;
    (void)dtype;
  }
  bool onDevice() const { return device_ != nullptr; }

  // The GEMM alone into private memory: on cpu of host copies (a, b), on cuda of heap tensors.
  void alone(const std::vector<float> &a, const std::vector<float> &b, const Tensor &a_t, const Tensor &b_t) {
#if defined(TDIST_BENCH_HAVE_CUDA)
    if (device_) return device_->run(a_t.data, b_t.data, output_->get());
#endif
    (void)a_t;
    (void)b_t;
    if (host_c_.empty()) host_c_.resize(static_cast<std::size_t>(m_ * n_));
    sgemm(m_, n_, k_, a.data(), b.data(), host_c_.data());
    keepWritten(host_c_.data());
  }
  // c = a x b of tensors on the heap (the sequential rows): cuda only.
  void onHeap(const Tensor &a, const Tensor &b, Tensor &c) {
#if defined(TDIST_BENCH_HAVE_CUDA)
    if (device_) return device_->run(a.data, b.data, c.data);
#endif
    (void)a;
    (void)b;
    (void)c;
    throw std::logic_error("LocalGemm::onHeap: cuda only");
  }

 private:
  long m_, n_, k_;
#if defined(TDIST_BENCH_HAVE_CUDA)
  std::unique_ptr<DeviceGemm> device_;
  std::unique_ptr<DeviceMemory> output_;
#else
  std::unique_ptr<int> device_;
#endif
  std::vector<float> host_c_;
};

// The fused strategy's row of a GEMM case (cuda, bf16, when the case's config is not already
// Fused): one call, checked exactly against the reference, before it is timed. False (said once)
// when this build or machine cannot run it.
template <class Call>
bool fusedTileRow(kn::Context &ctx, DType dtype, kn::GemmStrategy strategy, const char *case_name,
                  const std::string &shape, Tensor &c, const std::vector<float> &reference, Call &&call) {
  if (ctx.backend() != "cuda" || dtype != DType::BF16 || strategy == kn::GemmStrategy::Fused) return false;
  try {
    upload(c, std::vector<float>(reference.size(), 0.0f));
    shmem::barrier_all();
    call();
    ctx.synchronize();
    requireEqual(std::string(case_name) + " fused-tile " + shape, download(c), reference);
    return true;
  } catch (const tdist::Error &e) {
    if (e.code() != tdist::ErrorCode::NotSupported) throw;
    if (shmem::my_pe() == 0) std::printf("# %s: no fused-tile row: %s\n", case_name, e.what());
    return false;
  }
}

void runAgGemmCase(const Options &options, Reporter &reporter) {
  const int n = shmem::n_pes(), me = shmem::my_pe();
  const long m = options.gemm_m, cols = options.gemm_n, k = options.gemm_k;
  if (m % n != 0) throw std::invalid_argument("ag-gemm: --m " + std::to_string(m) + " is not a multiple of the PEs");
  const long m_local = m / n;
  const DType dtype = caseDtype(options);
  kn::Context ctx(contextOptions(options));
  kn::AllGatherGemmConfig config;
  config.chunks_per_pe = options.chunks_per_pe;
  config.tile_m = options.tile_m;
  config.tile_n = options.tile_n;
  config.programs = options.programs;

  // Host copies: the global A (this PE's rows are rows me*m_local ..), B, and the reference C.
  std::vector<float> a_full(m * k), b(k * cols), reference(m * cols);
  for (long r = 0; r < m; ++r)
    for (long c = 0; c < k; ++c) a_full[r * k + c] = aValue(r, c);
  for (long r = 0; r < k; ++r)
    for (long c = 0; c < cols; ++c) b[r * cols + c] = bValue(r, c);
  sgemm(m, cols, k, a_full.data(), b.data(), reference.data());
  for (float &e : reference) e = storedAs(dtype, e);  // exact in f32 (small integers), rounded once
  const std::vector<float> a_mine(a_full.begin() + me * m_local * k, a_full.begin() + (me + 1) * m_local * k);

  Tensor a_t = tdist::createTensor({m_local, k}, dtype);
  Tensor b_t = tdist::createTensor({k, cols}, dtype);
  Tensor c_t = tdist::createTensor({m, cols}, dtype);
  upload(a_t, a_mine);
  upload(b_t, b);
  upload(c_t, std::vector<float>(m * cols, 0.0f));
  shmem::barrier_all();
  kn::all_gather_gemm(ctx, a_t, b_t, c_t, nullptr, config);
  ctx.synchronize();
  requireEqual("ag-gemm " + shapeText(options), download(c_t), reference);

  // The communication alone: the same bytes gathered by the library.
  const std::size_t bytes = dtypeSize(dtype) * m_local * k;
  Tensor gather_in = tensor1d(m_local * k, dtype), gather_out = tensor1d(m * k, dtype);
  const Tensor gathered = matrixView(gather_out, m, k);
  upload(gather_in, a_mine);
  kn::AllGatherConfig gather_config;
  gather_config.chunk_bytes = options.chunk_bytes;
  gather_config.programs = options.programs;
  // The GEMM alone: every PE's C = gather(A) x B (cpu: host buffers; cuda: of the gathered A).
  LocalGemm gemm(ctx, m, cols, k, dtype);
  const auto sequential = [&] {
    kn::all_gather(ctx, gather_in, gather_out, gather_config);
    gemm.onHeap(gathered, b_t, c_t);
  };
  if (gemm.onDevice()) {
    upload(c_t, std::vector<float>(m * cols, 0.0f));
    shmem::barrier_all();
    sequential();
    ctx.synchronize();
    requireEqual("ag-gemm sequential " + shapeText(options), download(c_t), reference);
  }

  // cuda, bf16: the fused strategy too (one persistent GEMM whose tiles wait for their rows),
  // beside the library's default (decomposed), each checked before the timing.
  kn::AllGatherGemmConfig tile_config = config;
  tile_config.strategy = kn::GemmStrategy::Fused;
  tile_config.producer_sms = options.producer_sms;
  tile_config.tile_raster = options.tile_order.tile_raster;
  tile_config.tile_swizzle = options.tile_order.tile_swizzle;
  const bool tile_row = fusedTileRow(ctx, dtype, config.strategy, "ag-gemm", shapeText(options), c_t, reference,
                                     [&] { kn::all_gather_gemm(ctx, a_t, b_t, c_t, nullptr, tile_config); });

  const std::string shape = shapeText(options);
  std::vector<Row> rows;
  rows.push_back(Row{.variant = "variant=fused " + shape, .us = {},
                     .call = [&] { kn::all_gather_gemm(ctx, a_t, b_t, c_t, nullptr, config); }});
  if (tile_row) {
    rows.push_back(Row{.variant = "variant=fused-tile " + shape, .us = {},
                       .call = [&] { kn::all_gather_gemm(ctx, a_t, b_t, c_t, nullptr, tile_config); }});
  }
  rows.push_back(Row{.variant = "variant=gemm " + shape, .us = {},
                     .call = [&] { gemm.alone(a_full, b, gathered, b_t); }});
  rows.push_back(Row{.variant = "variant=comm " + shape, .us = {},
                     .call = [&] { kn::all_gather(ctx, gather_in, gather_out, gather_config); }});
  if (gemm.onDevice()) rows.push_back(Row{.variant = "variant=sequential " + shape, .us = {}, .call = sequential});
  const long iters = gemmIterations(options);
  auto reported = timeRows(options, reporter, ctx, "ag-gemm", bytes, iters, rows);
  reportIdeal(reporter, "ag-gemm", shape, bytes, iters, rows, reported);

  tdist::freeTensor(gather_out);
  tdist::freeTensor(gather_in);
  tdist::freeTensor(c_t);
  tdist::freeTensor(b_t);
  tdist::freeTensor(a_t);
}

void runGemmRsCase(const Options &options, Reporter &reporter) {
  const int n = shmem::n_pes(), me = shmem::my_pe();
  const long m = options.gemm_m, cols = options.gemm_n, k = options.gemm_k;
  if (m % n != 0 || k % n != 0)
    throw std::invalid_argument("gemm-rs: --m and --k must be multiples of the PEs (m=" + std::to_string(m) +
                                ", k=" + std::to_string(k) + ")");
  const long k_local = k / n, m_block = m / n;
  const DType dtype = caseDtype(options);
  kn::Context ctx(contextOptions(options));
  kn::GemmReduceScatterConfig config;
  config.chunks_per_pe = options.chunks_per_pe;
  config.tile_m = options.tile_m;
  config.tile_n = options.tile_n;
  config.programs = options.programs;

  // This PE's columns of A and rows of B; the reference: its rows of the full C = A x B.
  std::vector<float> a_cols(m * k_local), b_rows(k_local * cols);
  for (long r = 0; r < m; ++r)
    for (long c = 0; c < k_local; ++c) a_cols[r * k_local + c] = aValue(r, me * k_local + c);
  for (long r = 0; r < k_local; ++r)
    for (long c = 0; c < cols; ++c) b_rows[r * cols + c] = bValue(me * k_local + r, c);
  std::vector<float> reference(m_block * cols);
  {
    std::vector<float> a_block(m_block * k), b_full(k * cols);
    for (long r = 0; r < m_block; ++r)
      for (long c = 0; c < k; ++c) a_block[r * k + c] = aValue(me * m_block + r, c);
    for (long r = 0; r < k; ++r)
      for (long c = 0; c < cols; ++c) b_full[r * cols + c] = bValue(r, c);
    sgemm(m_block, cols, k, a_block.data(), b_full.data(), reference.data());
  }
  for (float &e : reference) e = storedAs(dtype, e);

  Tensor a_t = tdist::createTensor({m, k_local}, dtype);
  Tensor b_t = tdist::createTensor({k_local, cols}, dtype);
  Tensor c_t = tdist::createTensor({m_block, cols}, dtype);
  upload(a_t, a_cols);
  upload(b_t, b_rows);
  upload(c_t, std::vector<float>(m_block * cols, 0.0f));
  shmem::barrier_all();
  kn::gemm_reduce_scatter(ctx, a_t, b_t, c_t, config);
  ctx.synchronize();
  requireEqual("gemm-rs " + shapeText(options), download(c_t), reference);

  // The communication alone: reduce_scatter of a partial C [m, n] per PE.
  const std::size_t bytes = dtypeSize(dtype) * m * cols;
  Tensor rs_in = tensor1d(m * cols, dtype), rs_out = tensor1d(m_block * cols, dtype);
  Tensor partial = matrixView(rs_in, m, cols);
  upload(rs_in, std::vector<float>(m * cols, 1.0f));
  kn::ReduceScatterConfig rs_config;
  rs_config.chunk_bytes = options.chunk_bytes;
  rs_config.programs = options.programs;
  // The GEMM alone: this PE's partial C = A[:, its k] x B[its k, :], on private buffers.
  LocalGemm gemm(ctx, m, cols, k_local, dtype);
  const auto sequential = [&] {
    gemm.onHeap(a_t, b_t, partial);
    kn::reduce_scatter(ctx, rs_in, rs_out, rs_config);
  };
  if (gemm.onDevice()) {
    shmem::barrier_all();
    sequential();
    ctx.synchronize();
    // Its partials are rounded to the dtype before the sum: bf16 keeps 8 bits.
    requireClose("gemm-rs sequential " + shapeText(options), download(rs_out), reference,
                 dtype == DType::BF16 ? static_cast<float>(n) / 128.0f : 0.0f);
  }

  // cuda, bf16: the fused strategy too (one persistent GEMM storing its partial tiles into their
  // owners, notified per tile), checked before the timing.
  kn::GemmReduceScatterConfig tile_config = config;
  tile_config.strategy = kn::GemmStrategy::Fused;
  const bool tile_row = fusedTileRow(ctx, dtype, config.strategy, "gemm-rs", shapeText(options), c_t, reference,
                                     [&] { kn::gemm_reduce_scatter(ctx, a_t, b_t, c_t, tile_config); });

  const std::string shape = shapeText(options);
  std::vector<Row> rows;
  rows.push_back(Row{.variant = "variant=fused " + shape, .us = {},
                     .call = [&] { kn::gemm_reduce_scatter(ctx, a_t, b_t, c_t, config); }});
  if (tile_row) {
    rows.push_back(Row{.variant = "variant=fused-tile " + shape, .us = {},
                       .call = [&] { kn::gemm_reduce_scatter(ctx, a_t, b_t, c_t, tile_config); }});
  }
  rows.push_back(Row{.variant = "variant=gemm " + shape, .us = {},
                     .call = [&] { gemm.alone(a_cols, b_rows, a_t, b_t); }});
  rows.push_back(Row{.variant = "variant=comm " + shape, .us = {},
                     .call = [&] { kn::reduce_scatter(ctx, rs_in, rs_out, rs_config); }});
  if (gemm.onDevice()) rows.push_back(Row{.variant = "variant=sequential " + shape, .us = {}, .call = sequential});
  const long iters = gemmIterations(options);
  auto reported = timeRows(options, reporter, ctx, "gemm-rs", bytes, iters, rows);
  reportIdeal(reporter, "gemm-rs", shape, bytes, iters, rows, reported);

  tdist::freeTensor(rs_out);
  tdist::freeTensor(rs_in);
  tdist::freeTensor(c_t);
  tdist::freeTensor(b_t);
  tdist::freeTensor(a_t);
}

}  // namespace

void runKernelCase(Case c, const Options &options, Reporter &reporter) {
  openblas_set_num_threads(options.blas_threads);
  switch (c) {
    case Case::AllReduce: runAllReduceCase(options, reporter); break;
    case Case::AllGather: runAllGatherCase(options, reporter); break;
    case Case::ReduceScatter: runReduceScatterCase(options, reporter); break;
    case Case::AgGemm: runAgGemmCase(options, reporter); break;
    case Case::GemmRs: runGemmRsCase(options, reporter); break;
    default: throw std::logic_error("runKernelCase: not a kernel case");
  }
}

std::size_t kernelHeapBytesNeeded(const Options &options, int n_pes) {
  if (!hasKernelCase(options)) return 0;
  std::size_t largest = 0;
  for (std::size_t size : kernelSizes(options)) largest = std::max(largest, size);
  const std::size_t f = sizeof(float);
  const std::size_t m = options.gemm_m, n = options.gemm_n, k = options.gemm_k;
  // One case at a time holds a context (its scratch and signals) and its tensors.
  const std::size_t collectives = largest * (2 + n_pes);             // allgather's in + out
  const std::size_t ag = f * (m * k / n_pes + k * n + m * n + m * k / n_pes + m * k);
  const std::size_t rs = f * (m * k / n_pes + k / n_pes * n + m * n / n_pes + m * n + m * n / n_pes);
  const std::size_t signals = 4096 * 64;
  return scratchFor(options, n_pes) + signals + std::max({collectives, ag, rs}) + (16u << 20);
}

}  // namespace tdist::bench
