// tdist-mpi-peer - the kernel cases of tdist-bench written against MPI, as the peer that
// bench/kernels_compare.sh runs right after ours.
//
//   mpirun --oversubscribe --allow-run-as-root -n 4 build/bin/tdist-mpi-peer allreduce ag-gemm
//
// Flags, sizes, shapes, iteration counts and output (RESULT lines with impl=mpi) are tdist-bench's:
// it parses its command line with tools/tdist-bench/options.cpp and prints with report.cpp. Each
// case does with MPI what the tdist case does with the kernel library:
//   allreduce      MPI_Allreduce (MPI_FLOAT, MPI_SUM)                  variant=MPI_Allreduce
//   allgather      MPI_Allgather
//   reducescatter  MPI_Reduce_scatter_block
//   ag-gemm        MPI_Allgather of this rank's rows of A, then OpenBLAS C = gather(A) x B
//                  (variant=sequential), beside the GEMM alone, the MPI_Allgather alone, and
//                  ideal = max(GEMM, comm), serial = GEMM + comm of each repeat
//   gemm-rs        OpenBLAS partial C = A[:, its k] x B[its k, :], then MPI_Reduce_scatter_block
//                  (variant=sequential), and the same rows beside
// A sample is the slowest rank's time per call in a repeat (MPI_Reduce with MPI_MAX); every size is
// checked against the same host reference as tdist-bench's before it is timed. Flags of tdist's
// kernels (--algo, --chunk, --programs, --chunks, --tile-m, --tile-n, --scratch) are accepted and
// ignored; MPI has no such knobs.
#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/tdist-bench/options.h"
#include "tools/tdist-bench/report.h"

namespace {

using namespace tdist::bench;

int g_rank = 0, g_size = 1;

// The same inputs as tools/tdist-bench/kernel_cases.cpp: exact sums in f32.
float collectiveValue(int pe, std::size_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(pe) * 13) % 17) - 8) * 0.25f;
}
float aValue(long row, long col) { return static_cast<float>((row * 3 + col * 5) % 5 - 2); }
float bValue(long row, long col) { return static_cast<float>((row * 7 + col * 2) % 5 - 2); }

void requireEqual(const std::string &what, const std::vector<float> &got, const std::vector<float> &expected) {
  std::size_t wrong = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i] && wrong++ == 0) first = i;
  if (wrong == 0) return;
  char text[160];
  std::snprintf(text, sizeof text, ": %zu of %zu elements wrong, the first at %zu: %g, expected %g", wrong,
                got.size(), first, static_cast<double>(got[first]), static_cast<double>(expected[first]));
  throw std::runtime_error(what + text);
}

void sgemm(long m, long n, long k, const float *a, const float *b, float *c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), 1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c,
              static_cast<int>(n));
}

void keepWritten(void *buffer) { asm volatile("" : : "r"(buffer) : "memory"); }

struct Row {
  std::string variant;
  std::vector<double> us;
  long vcsw = 0, ivcsw = 0;
  std::function<void()> call;
};

Result rowResult(const char *case_name, const std::string &variant, std::size_t size, long iters,
                 const std::vector<double> &us, long vcsw, long ivcsw) {
  const double total = static_cast<double>(iters) * static_cast<double>(us.size());
  return Result{.case_name = case_name, .variant = variant, .pes = g_size, .size = size, .iters = iters,
                .repeats = static_cast<int>(us.size()), .unit = Unit::Microseconds, .summary = summarize(us),
                .vcsw_per_iter = vcsw / total, .ivcsw_per_iter = ivcsw / total};
}

// As tdist-bench: warm up, time the rows alternately from a barrier, report the slowest rank's.
std::vector<std::vector<double>> timeRows(const Options &options, Reporter &reporter, const char *case_name,
                                          std::size_t size, long iters, std::vector<Row> &rows) {
  const long warmup = warmupIterations(options, iters);
  for (Row &row : rows)
    for (long i = 0; i < warmup; ++i) row.call();
  for (int r = 0; r < options.repeats; ++r) {
    for (Row &row : rows) {
      MPI_Barrier(MPI_COMM_WORLD);
      Stopwatch watch;
      watch.start();
      for (long i = 0; i < iters; ++i) row.call();
      watch.stop();
      row.us.push_back(watch.seconds() * 1e6 / static_cast<double>(iters));
      row.vcsw += watch.voluntarySwitches();
      row.ivcsw += watch.involuntarySwitches();
    }
  }
  std::vector<std::vector<double>> reported;
  for (Row &row : rows) {
    std::vector<double> slowest(row.us.size());
    MPI_Reduce(row.us.data(), slowest.data(), static_cast<int>(row.us.size()), MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    reported.push_back(slowest);
    if (g_rank == 0) reporter.add(rowResult(case_name, row.variant, size, iters, slowest, row.vcsw, row.ivcsw));
  }
  return reported;
}

std::size_t floatsOf(const char *case_name, std::size_t size, int multiple) {
  if (size % (sizeof(float) * multiple) != 0)
    throw std::invalid_argument(std::string(case_name) + ": size " + std::to_string(size) +
                                " is not a multiple of 4 bytes x " + std::to_string(multiple) + " ranks");
  return size / sizeof(float);
}

void runAllReduce(const Options &options, Reporter &reporter) {
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = floatsOf("allreduce", size, 1);
    std::vector<float> in(count), out(count, 0.0f), expected(count, 0.0f);
    for (std::size_t i = 0; i < count; ++i) in[i] = collectiveValue(g_rank, i);
    for (int pe = 0; pe < g_size; ++pe)
      for (std::size_t i = 0; i < count; ++i) expected[i] += collectiveValue(pe, i);
    std::vector<Row> rows;
    rows.push_back(Row{.variant = "variant=MPI_Allreduce", .us = {}, .call = [&] {
                         MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                                       MPI_COMM_WORLD);
                       }});
    rows[0].call();
    requireEqual("allreduce " + formatBytes(size), out, expected);
    timeRows(options, reporter, "allreduce", size, kernelIterations(options, size), rows);
  }
}

void runAllGather(const Options &options, Reporter &reporter) {
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = floatsOf("allgather", size, 1);
    std::vector<float> in(count), out(count * g_size, 0.0f), expected(count * g_size);
    for (std::size_t i = 0; i < count; ++i) in[i] = collectiveValue(g_rank, i);
    for (int pe = 0; pe < g_size; ++pe)
      for (std::size_t i = 0; i < count; ++i) expected[pe * count + i] = collectiveValue(pe, i);
    std::vector<Row> rows;
    rows.push_back(Row{.variant = {}, .us = {}, .call = [&] {
                         MPI_Allgather(in.data(), static_cast<int>(count), MPI_FLOAT, out.data(),
                                       static_cast<int>(count), MPI_FLOAT, MPI_COMM_WORLD);
                       }});
    rows[0].call();
    requireEqual("allgather " + formatBytes(size), out, expected);
    timeRows(options, reporter, "allgather", size, kernelIterations(options, size), rows);
  }
}

void runReduceScatter(const Options &options, Reporter &reporter) {
  for (std::size_t size : kernelSizes(options)) {
    const std::size_t count = floatsOf("reducescatter", size, g_size);
    const std::size_t block = count / g_size;
    std::vector<float> in(count), out(block, 0.0f), expected(block, 0.0f);
    for (std::size_t i = 0; i < count; ++i) in[i] = collectiveValue(g_rank, i);
    for (int pe = 0; pe < g_size; ++pe)
      for (std::size_t i = 0; i < block; ++i) expected[i] += collectiveValue(pe, g_rank * block + i);
    std::vector<Row> rows;
    rows.push_back(Row{.variant = {}, .us = {}, .call = [&] {
                         MPI_Reduce_scatter_block(in.data(), out.data(), static_cast<int>(block), MPI_FLOAT,
                                                  MPI_SUM, MPI_COMM_WORLD);
                       }});
    rows[0].call();
    requireEqual("reducescatter " + formatBytes(size), out, expected);
    timeRows(options, reporter, "reducescatter", size, kernelIterations(options, size), rows);
  }
}

std::string shapeText(const Options &options) {
  return "m=" + std::to_string(options.gemm_m) + " n=" + std::to_string(options.gemm_n) +
         " k=" + std::to_string(options.gemm_k);
}

void reportIdeal(Reporter &reporter, const char *case_name, const std::string &shape, std::size_t size,
                 long iters, const std::vector<std::vector<double>> &reported) {
  if (g_rank != 0) return;
  std::vector<double> ideal, serial;
  for (std::size_t r = 0; r < reported[1].size(); ++r) {
    ideal.push_back(std::max(reported[1][r], reported[2][r]));
    serial.push_back(reported[1][r] + reported[2][r]);
  }
  reporter.add(rowResult(case_name, "variant=ideal " + shape, size, iters, ideal, 0, 0));
  reporter.add(rowResult(case_name, "variant=serial " + shape, size, iters, serial, 0, 0));
}

void runAgGemm(const Options &options, Reporter &reporter) {
  const long m = options.gemm_m, cols = options.gemm_n, k = options.gemm_k;
  if (m % g_size != 0) throw std::invalid_argument("ag-gemm: --m is not a multiple of the ranks");
  const long m_local = m / g_size;
  std::vector<float> a_local(m_local * k), a_full(m * k), b(k * cols), c(m * cols), reference(m * cols);
  for (long r = 0; r < m; ++r)
    for (long col = 0; col < k; ++col) a_full[r * k + col] = aValue(r, col);
  for (long r = 0; r < k; ++r)
    for (long col = 0; col < cols; ++col) b[r * cols + col] = bValue(r, col);
  std::copy(a_full.begin() + g_rank * m_local * k, a_full.begin() + (g_rank + 1) * m_local * k, a_local.begin());
  sgemm(m, cols, k, a_full.data(), b.data(), reference.data());
  std::vector<float> gathered(m * k, 0.0f);
  const int gather_count = static_cast<int>(m_local * k);
  auto gather = [&] {
    MPI_Allgather(a_local.data(), gather_count, MPI_FLOAT, gathered.data(), gather_count, MPI_FLOAT,
                  MPI_COMM_WORLD);
  };
  auto gemm = [&] {
    sgemm(m, cols, k, gathered.data(), b.data(), c.data());
    keepWritten(c.data());
  };
  gather();
  gemm();
  requireEqual("ag-gemm " + shapeText(options), c, reference);

  const std::string shape = shapeText(options);
  std::vector<Row> rows;
  rows.push_back(Row{.variant = "variant=sequential " + shape, .us = {}, .call = [&] { gather(); gemm(); }});
  rows.push_back(Row{.variant = "variant=gemm " + shape, .us = {}, .call = gemm});
  rows.push_back(Row{.variant = "variant=comm " + shape, .us = {}, .call = gather});
  const long iters = gemmIterations(options);
  const std::size_t bytes = sizeof(float) * m_local * k;
  auto reported = timeRows(options, reporter, "ag-gemm", bytes, iters, rows);
  reportIdeal(reporter, "ag-gemm", shape, bytes, iters, reported);
}

void runGemmRs(const Options &options, Reporter &reporter) {
  const long m = options.gemm_m, cols = options.gemm_n, k = options.gemm_k;
  if (m % g_size != 0 || k % g_size != 0)
    throw std::invalid_argument("gemm-rs: --m and --k must be multiples of the ranks");
  const long k_local = k / g_size, m_block = m / g_size;
  std::vector<float> a_cols(m * k_local), b_rows(k_local * cols), partial(m * cols), c(m_block * cols);
  for (long r = 0; r < m; ++r)
    for (long col = 0; col < k_local; ++col) a_cols[r * k_local + col] = aValue(r, g_rank * k_local + col);
  for (long r = 0; r < k_local; ++r)
    for (long col = 0; col < cols; ++col) b_rows[r * cols + col] = bValue(g_rank * k_local + r, col);
  std::vector<float> reference(m_block * cols);
  {
    std::vector<float> a_block(m_block * k), b_full(k * cols);
    for (long r = 0; r < m_block; ++r)
      for (long col = 0; col < k; ++col) a_block[r * k + col] = aValue(g_rank * m_block + r, col);
    for (long r = 0; r < k; ++r)
      for (long col = 0; col < cols; ++col) b_full[r * cols + col] = bValue(r, col);
    sgemm(m_block, cols, k, a_block.data(), b_full.data(), reference.data());
  }
  auto gemm = [&] {
    sgemm(m, cols, k_local, a_cols.data(), b_rows.data(), partial.data());
    keepWritten(partial.data());
  };
  const int block = static_cast<int>(m_block * cols);
  auto scatter = [&] {
    MPI_Reduce_scatter_block(partial.data(), c.data(), block, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  };
  gemm();
  scatter();
  requireEqual("gemm-rs " + shapeText(options), c, reference);

  const std::string shape = shapeText(options);
  std::vector<Row> rows;
  rows.push_back(Row{.variant = "variant=sequential " + shape, .us = {}, .call = [&] { gemm(); scatter(); }});
  rows.push_back(Row{.variant = "variant=gemm " + shape, .us = {}, .call = gemm});
  rows.push_back(Row{.variant = "variant=comm " + shape, .us = {}, .call = scatter});
  const long iters = gemmIterations(options);
  const std::size_t bytes = sizeof(float) * m * cols;
  auto reported = timeRows(options, reporter, "gemm-rs", bytes, iters, rows);
  reportIdeal(reporter, "gemm-rs", shape, bytes, iters, reported);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Options options;
  try {
    options = parseOptions(argc, argv);
    for (Case c : options.cases)
      if (c < Case::AllReduce)
        throw std::invalid_argument(std::string("case '") + caseName(c) +
                                    "' is not a kernel case (bench/openshmem/ measures it)");
  } catch (const std::invalid_argument &error) {
    if (g_rank == 0) std::fprintf(stderr, "tdist-mpi-peer: %s\n", error.what());
    MPI_Finalize();
    return 2;
  }
  if (options.show_help) {
    if (g_rank == 0) std::fputs(usage(argv[0]).c_str(), stdout);
    MPI_Finalize();
    return 0;
  }
  openblas_set_num_threads(options.blas_threads);
  Reporter reporter("mpi");
  if (g_rank == 0)
    std::printf("# tdist-mpi-peer pes=%d repeats=%d iters=%ld warmup=%ld\n", g_size, options.repeats,
                options.iters, options.warmup);
  try {
    for (Case c : options.cases) {
      switch (c) {
        case Case::AllReduce: runAllReduce(options, reporter); break;
        case Case::AllGather: runAllGather(options, reporter); break;
        case Case::ReduceScatter: runReduceScatter(options, reporter); break;
        case Case::AgGemm: runAgGemm(options, reporter); break;
        case Case::GemmRs: runGemmRs(options, reporter); break;
        default: break;
      }
    }
  } catch (const std::exception &error) {
    std::fprintf(stderr, "tdist-mpi-peer: rank %d: %s\n", g_rank, error.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0 && options.table) reporter.printTable();
  MPI_Finalize();
  return 0;
}
